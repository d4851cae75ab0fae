"""The hand-over behind the old top-level paths of :mod:`scrapy_web2text.extraction`'s modules (until 0.4.0)."""

from __future__ import annotations

import sys
import warnings
from types import ModuleType


def hand_over(old: str, moved: ModuleType) -> None:
    """Warn that ``old`` moved, then make the import statement of ``old`` return ``moved`` itself.

    The import statement returns what ``sys.modules`` holds under the old name once its module has run: the moved
    module, so that no second copy with its own state exists.
    """
    warnings.warn(
        f"{old} moved to {moved.__name__}; the old path goes in 0.4.0",
        DeprecationWarning,
        stacklevel=3,  # the importer's line, past this function and the old module
    )
    sys.modules[old] = moved
