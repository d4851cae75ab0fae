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
  process shares: the loaded models and the worker threads;
- :mod:`~scrapy_web2text.integration.settings` the ``WEB2TEXT_*`` defaults;
- :class:`~scrapy_web2text.integration.addon.Addon` enables all of it with one ``ADDONS`` entry.
"""

from .addon import Addon
from .charset import Web2TextCharsetMiddleware
from .middleware import Web2TextSpiderMiddleware
from .pipeline import Web2TextPipeline

__all__ = ["Addon", "Web2TextCharsetMiddleware", "Web2TextPipeline", "Web2TextSpiderMiddleware"]
