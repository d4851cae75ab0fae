"""The compiled speed-ups of this package (``_speedups.pyx``), or ``None`` where they cannot be used.

``setup.py`` compiles them where a C compiler is at hand; without one the package installs all the same and runs
the Python originals, which stay the reference (docs/speed.rst).  The walk reads lxml's C structures, so the module
is used only under the lxml major version it was compiled against.  ``WEB2TEXT_PURE_PYTHON=1`` in the environment
turns it off (to compare, or to rule it out when something looks wrong).
"""

from __future__ import annotations

import os
from types import ModuleType

from lxml import etree


def speedups_enabled() -> bool:
    """False when ``WEB2TEXT_PURE_PYTHON`` asks for the Python code (the labellers' compiled parts read it too)."""
    return os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() in ("", "0")


def load_speedups() -> ModuleType | None:
    if not speedups_enabled():
        return None
    try:
        from . import _speedups
    except ImportError:
        return None
    if _speedups.COMPILED_LXML_VERSION.split(".")[0] != etree.__version__.split(".")[0]:
        return None
    return _speedups


#: The compiled module in use, or ``None`` (the Python code runs).
SPEEDUPS = load_speedups()
