"""The compiled twins, imported as such for the tests that compare them with their Python originals.

A twin is imported directly (not through :func:`~scrapy_web2text.page.twins.load_twin`), so that the comparisons
run even where ``WEB2TEXT_PURE_PYTHON`` turns the twins off for the package.  Where a twin is not built, the module
that asks for it still imports (``pytest -m "not twins"`` deselects its tests, as the no-compiler CI leg does) and
each of its names fails the test that calls it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from scrapy_web2text.page.twins import TWINS


class NotBuilt:
    """Stands for a twin that is not built: every name is a function that raises the import's error."""

    def __init__(self, module: str, error: ImportError):
        self._module, self._error = module, error

    def __getattr__(self, name: str):
        def missing(*args, **kwargs):
            raise ImportError(f"{self._module} is not built (python setup.py build_ext --inplace)") from self._error

        return missing


def twin(original: str) -> ModuleType | NotBuilt:
    """The compiled twin of the module ``original`` (a key of ``TWINS``)."""
    module = TWINS[original][0]
    try:
        return importlib.import_module(module)
    except ImportError as error:
        return NotBuilt(module, error)
