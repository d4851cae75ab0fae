"""scrapy-web2text: main-text extraction for Scrapy with the Web2Text model.

>>> from scrapy_web2text import extract
>>> result = extract("<html><body><p>Hello, world.</p></body></html>")
>>> [block.label for block in result.blocks]  # doctest: +SKIP
['content']
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names of the lazy imports below, for type checkers and editors
    from .extraction import Block, Extraction, extract
    from .labellers.web2text.network import ModelError, Web2TextModel, load_model

__version__ = "0.2.0"

__all__ = [
    "Addon",
    "Block",
    "Extraction",
    "Web2TextCharsetMiddleware",
    "Metadata",
    "ModelError",
    "Web2TextModel",
    "Web2TextArticle",
    "Web2TextArticlePage",
    "Web2TextPipeline",
    "Web2TextSpiderMiddleware",
    "extract",
    "load_model",
    "__version__",
]

#: Every public name is imported on first access: ``import scrapy_web2text`` imports neither Scrapy nor numpy, so
#: that the ``web2text`` command can start the BLAS library with one thread (:mod:`._blas_threads`).
_LAZY_EXPORTS = {
    "extract": "scrapy_web2text.extraction",
    "Block": "scrapy_web2text.extraction",
    "Extraction": "scrapy_web2text.extraction",
    "ModelError": "scrapy_web2text.labellers.web2text.network",
    "Web2TextModel": "scrapy_web2text.labellers.web2text.network",
    "load_model": "scrapy_web2text.labellers.web2text.network",
    "Addon": "scrapy_web2text.integration.addon",
    "Web2TextSpiderMiddleware": "scrapy_web2text.integration.middleware",
    "Web2TextPipeline": "scrapy_web2text.integration.pipeline",
    "Web2TextCharsetMiddleware": "scrapy_web2text.integration.charset",
    # web-poet page objects: the [poet] extra
    "Web2TextArticlePage": "scrapy_web2text.integration.poet",
    "Web2TextArticle": "scrapy_web2text.integration.poet",
    # the metadata package loads on first use, not with ``import scrapy_web2text``
    "Metadata": "scrapy_web2text.metadata",
}


#: Submodules that ``import scrapy_web2text`` used to import, still reachable as attributes.
_LAZY_SUBMODULES = frozenset({"blas"})


def __getattr__(name: str):
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
