"""Old module paths of 0.1.0, kept importable for one release with a ``DeprecationWarning``.

0.2.0 laid the package out in the order a page flows through it (``page`` → ``labellers`` → ``extraction``), with
the research code under ``research``; code that imported the old flat modules keeps working until 0.3.0.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module -> new module
MOVED_MODULES = {
    "scrapy_web2text.parsing": "scrapy_web2text.page",
    "scrapy_web2text.features": "scrapy_web2text.labellers.web2text.features",
    "scrapy_web2text.model": "scrapy_web2text.labellers.web2text.network",
    "scrapy_web2text.decoding": "scrapy_web2text.labellers.web2text.viterbi",
    "scrapy_web2text.methods": "scrapy_web2text.labellers.base",
    "scrapy_web2text.baselines": "scrapy_web2text.labellers",
    "scrapy_web2text.baselines.boilerpipe": "scrapy_web2text.labellers.boilerpipe",
    "scrapy_web2text.baselines.bte": "scrapy_web2text.labellers.bte",
    "scrapy_web2text.baselines.crf": "scrapy_web2text.labellers.crf",
    "scrapy_web2text.baselines.boilernet": "scrapy_web2text.labellers.boilernet",
    "scrapy_web2text.alignment": "scrapy_web2text.research.alignment",
    "scrapy_web2text.corpus": "scrapy_web2text.research.corpus",
    "scrapy_web2text.metrics": "scrapy_web2text.research.metrics",
    "scrapy_web2text.evaluation": "scrapy_web2text.research.evaluate",
    "scrapy_web2text.benchmark": "scrapy_web2text.research.benchmark",
    "scrapy_web2text.training": "scrapy_web2text.research.train",
    "scrapy_web2text.training.trainer": "scrapy_web2text.research.train.trainer",
    "scrapy_web2text.training.networks": "scrapy_web2text.research.train.networks",
    "scrapy_web2text.training.card": "scrapy_web2text.research.train.card",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an old module path with the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        new = MOVED_MODULES[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new} in scrapy-web2text 0.2.0; the old path goes in 0.3.0",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module):
        """Nothing to run: the new module was executed when it was imported."""


def install_moved_module_aliases() -> None:
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        # First in line: the path finder would otherwise load, say, labellers/crf.py a second time as
        # "scrapy_web2text.baselines.crf" through the aliased package's __path__.
        sys.meta_path.insert(0, _MovedModuleFinder())
