"""The compiled twins of the package's hot loops: one table, one loader.

Each twin is a Cython module named after the Python module it speeds up (``page/_walk.pyx`` for ``page/walk.py``);
the Python code stays the reference and runs wherever the twin is not in use (docs/speed.rst).  :data:`TWINS` is
plain data: ``setup.py`` reads it without importing the package and compiles each twin where a C compiler is at hand.
:func:`load_twin` is the only way the package reaches a twin, so every twin is turned off, or skipped when not built,
the same way.  This module sits in ``page/``, the lowest layer, so that every layer may call it.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

from lxml import etree

#: Python original -> (its compiled twin, whether the twin reads lxml's C structures, so it is used only under the
#: lxml major version it was compiled against).
TWINS = {
    "scrapy_web2text.page.walk": ("scrapy_web2text.page._walk", True),
    "scrapy_web2text.page.numbering": ("scrapy_web2text.page._numbering", False),
    "scrapy_web2text.page.attributes": ("scrapy_web2text.page._attributes", False),
    "scrapy_web2text.extraction.output": ("scrapy_web2text.extraction._output", True),
    "scrapy_web2text.labellers.web2text.counts": ("scrapy_web2text.labellers.web2text._counts", False),
    "scrapy_web2text.labellers.web2text.features": ("scrapy_web2text.labellers.web2text._features", False),
    "scrapy_web2text.labellers.web2text.layers": ("scrapy_web2text.labellers.web2text._layers", False),
    "scrapy_web2text.labellers.web2text.viterbi": ("scrapy_web2text.labellers.web2text._viterbi", False),
}


def twins_enabled() -> bool:
    """False when ``WEB2TEXT_PURE_PYTHON`` asks for the Python originals (to compare, or to rule the twins out)."""
    return os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() in ("", "0")


def twin_module(original: str) -> ModuleType | None:
    """The compiled twin of the module ``original`` (a key of :data:`TWINS`), or ``None`` where it is turned off
    (:func:`twins_enabled`), not built, or built against another lxml major version than the one installed."""
    twin, reads_lxml = TWINS[original]
    if not twins_enabled():
        return None
    try:
        module = importlib.import_module(twin)
    except ImportError:
        return None
    if reads_lxml and module.COMPILED_LXML_VERSION.split(".")[0] != etree.__version__.split(".")[0]:
        return None
    return module


def load_twin(original: str, *names: str) -> tuple:
    """``names`` of the compiled twin of ``original``, each ``None`` where the twin is not in use
    (:func:`twin_module`): the caller then runs its Python original."""
    module = twin_module(original)
    return tuple(getattr(module, name) if module is not None else None for name in names)


def twins_in_use() -> dict[str, bool]:
    """Python original -> whether its compiled twin is in use here (``print(twins_in_use())`` after an install)."""
    return {original: twin_module(original) is not None for original in TWINS}


def twin_bindings(original: str) -> list[tuple[ModuleType, str]]:
    """(module, name) of each attribute of the package's imported modules that holds a function of ``original``'s
    twin: what a benchmark sets to ``None`` to run the Python original in the same process."""
    twin = TWINS[original][0]
    return [
        (module, name)
        for module_name, module in list(sys.modules.items())
        if module_name.startswith("scrapy_web2text.") and module_name != twin
        for name, value in list(vars(module).items())
        if callable(value) and getattr(value, "__module__", None) == twin
    ]
