"""Moved to :mod:`scrapy_web2text.extraction.markup`: this path imports that module, with a
``DeprecationWarning``, until 0.4.0."""

import sys
import warnings

from .extraction import markup

warnings.warn(
    "scrapy_web2text.markup moved to scrapy_web2text.extraction.markup; the old path goes in 0.4.0",
    DeprecationWarning,
    stacklevel=2,
)
# The import statement returns what sys.modules holds under this name once this module has run: the moved module
# itself, so that no second copy with its own state exists.
sys.modules[__name__] = markup
