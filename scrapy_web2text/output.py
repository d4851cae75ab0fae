"""Moved to :mod:`scrapy_web2text.extraction.output`: this path imports that module, with a
``DeprecationWarning``, until 0.4.0."""

import sys
import warnings

from .extraction import output

warnings.warn(
    "scrapy_web2text.output moved to scrapy_web2text.extraction.output; the old path goes in 0.4.0",
    DeprecationWarning,
    stacklevel=2,
)
# The import statement returns what sys.modules holds under this name once this module has run: the moved module
# itself, so that no second copy with its own state exists.
sys.modules[__name__] = output
