"""Moved to :mod:`scrapy_web2text.extraction.responses`: this path imports that module, with a
``DeprecationWarning``, until 0.4.0."""

from .extraction import responses
from .extraction._old_paths import hand_over

hand_over(__name__, responses)
