"""The compiled twins of this package's hot loops (``_cdom.pyx``, ``_numbering.pyx``, ``_attributes.pyx`` here;
the labellers' ``_counts.pyx``, ``_statistics.pyx``, ``_edges.pyx``, ``_viterbi.pyx`` and ``_layers.pyx`` through
:func:`load_twin`, the block paths' ``_paths.pyx`` through :func:`load_lxml_twin`).

``setup.py`` compiles them where a C compiler is at hand; without one the package installs all the same and runs
the Python originals, which stay the reference (docs/speed.rst).  The walk reads lxml's C structures, so the module
is used only under the lxml major version it was compiled against.  ``WEB2TEXT_PURE_PYTHON=1`` in the environment
turns it off (to compare, or to rule it out when something looks wrong).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import NamedTuple

from lxml import etree


def speedups_enabled() -> bool:
    """False when ``WEB2TEXT_PURE_PYTHON`` asks for the Python code (the labellers' compiled parts read it too)."""
    return os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() in ("", "0")


class Speedups(NamedTuple):
    """The compiled functions, each the twin of a Python original (``tests/test_speedups.py``)."""

    walk: Callable  # cdom._Walker.walk
    finish: Callable  # cdom._Walker._finish
    find: Callable  # the walk's str.find
    crowded_tag: Callable  # attributes._CROWDED_TAG.search
    excess_attribute_cuts: Callable  # attributes.excess_attribute_cuts
    lxml_version: str  # the lxml the walk was compiled against


def load_speedups() -> Speedups | None:
    """The compiled functions, or ``None`` where they are not built, turned off, or built for another lxml."""
    if not speedups_enabled():
        return None
    try:
        from ._attributes import crowded_tag, excess_attribute_cuts
        from ._cdom import COMPILED_LXML_VERSION, find, walk
        from ._numbering import finish
    except ImportError:
        return None
    if COMPILED_LXML_VERSION.split(".")[0] != etree.__version__.split(".")[0]:
        return None
    return Speedups(walk, finish, find, crowded_tag, excess_attribute_cuts, COMPILED_LXML_VERSION)


def load_twin(module: str, *names: str) -> tuple | None:
    """``names`` of the compiled module ``module`` (dotted path), or ``None`` where it is not built.  Whether to use
    them is :func:`speedups_enabled`'s to say, asked by the caller: a module may need a name (the column names of a
    table, say) even where its function is turned off."""
    try:
        twin = importlib.import_module(module)
    except ImportError:
        return None
    return tuple(getattr(twin, name) for name in names)


def load_lxml_twin(module: str, *names: str) -> tuple | None:
    """:func:`load_twin` for a module that reads lxml's C structures (it has ``COMPILED_LXML_VERSION``): ``None``
    under another lxml major version than it was compiled against, or where the speed-ups are turned off."""
    found = load_twin(module, "COMPILED_LXML_VERSION", *names) if speedups_enabled() else None
    if found is None or found[0].split(".")[0] != etree.__version__.split(".")[0]:
        return None
    return found[1:]


#: The compiled functions in use, or ``None`` (the Python code runs).
SPEEDUPS = load_speedups()
