"""The compiled twins of this package's hot loops (``_cdom.pyx``, ``_numbering.pyx``, ``_attributes.pyx`` here;
the labellers' ``_counts.pyx``, ``_statistics.pyx``, ``_viterbi.pyx`` and ``_layers.pyx``, the block paths'
``_paths.pyx``), all loaded by :func:`load_twin`.

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
    """The compiled functions, each the twin of a Python original (``tests/page/test_speedups.py``)."""

    walk: Callable  # walk.Walker.walk
    finish: Callable  # walk.Walker.number_nodes
    find: Callable  # the walk's str.find
    crowded_tag: Callable  # attributes._CROWDED_TAG.search
    excess_attribute_cuts: Callable  # attributes.excess_attribute_cuts
    lxml_version: str  # the lxml the walk was compiled against


def load_twin(module: str, *names: str, reads_lxml: bool = False) -> tuple | None:
    """The one loader of the compiled twins: ``names`` of the compiled module ``module`` (dotted path), or ``None``
    where it is not built, or, for a module that reads lxml's C structures (``reads_lxml``), where it was compiled
    against another lxml major version or the speed-ups are turned off.  Whether to use the other twins is
    :func:`speedups_enabled`'s to say, asked by the caller: a module may need a name (the column names of a table,
    say) even where its function is turned off."""
    if reads_lxml and not speedups_enabled():
        return None
    try:
        twin = importlib.import_module(module)
    except ImportError:
        return None
    if reads_lxml and twin.COMPILED_LXML_VERSION.split(".")[0] != etree.__version__.split(".")[0]:
        return None
    return tuple(getattr(twin, name) for name in names)


def load_speedups() -> Speedups | None:
    """The page layer's compiled functions, or ``None`` where they are not built, turned off, or built for another
    lxml."""
    walk = load_twin(f"{__package__}._cdom", "walk", "find", "COMPILED_LXML_VERSION", reads_lxml=True)
    numbering = load_twin(f"{__package__}._numbering", "finish")
    scan = load_twin(f"{__package__}._attributes", "crowded_tag", "excess_attribute_cuts")
    if walk is None or numbering is None or scan is None:
        return None
    return Speedups(walk[0], numbering[0], walk[1], *scan, walk[2])


#: The compiled functions in use, or ``None`` (the Python code runs).
SPEEDUPS = load_speedups()
