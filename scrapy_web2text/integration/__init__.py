"""Scrapy glue: a spider middleware, an item pipeline and their shared runtime.

Importing this package imports Scrapy; ``import scrapy_web2text`` alone does
not (the two components are exported from there lazily).

- :class:`~scrapy_web2text.integration.middleware.Web2TextSpiderMiddleware`
  labels the HTML *responses* a spider sees;
- :class:`~scrapy_web2text.integration.pipeline.Web2TextPipeline` labels HTML
  that spiders put into *items* themselves;
- :class:`~scrapy_web2text.integration.charset.Web2TextCharsetMiddleware`
  (a downloader middleware) keeps responses with an undecodable declared
  charset from failing in Scrapy before a spider sees them;
- :mod:`~scrapy_web2text.integration.runtime` holds what every crawler in the
  process shares: the loaded models and the labelling pool
  (:mod:`~scrapy_web2text.integration.pools`: threads or processes, running
  :mod:`~scrapy_web2text.integration.chain`);
- :mod:`~scrapy_web2text.integration.settings` the ``WEB2TEXT_*`` defaults;
- :class:`~scrapy_web2text.integration.addon.Addon` enables all of it with one ``ADDONS`` entry.

The components are imported on first access: a labelling process imports
:mod:`~scrapy_web2text.integration.chain` from here and needs no Scrapy (a lighter worker).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Addon", "Web2TextCharsetMiddleware", "Web2TextPipeline", "Web2TextSpiderMiddleware"]

_LAZY_EXPORTS = {
    "Addon": ".addon",
    "Web2TextCharsetMiddleware": ".charset",
    "Web2TextSpiderMiddleware": ".middleware",
    "Web2TextPipeline": ".pipeline",
}


def __getattr__(name: str) -> Any:
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
