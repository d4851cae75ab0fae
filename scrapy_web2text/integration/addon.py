"""The Scrapy add-on: one line in ``settings.py`` enables both components.

::

    ADDONS = {"scrapy_web2text.Addon": 0}

The add-on (Scrapy >= 2.10 add-on API) puts :class:`~scrapy_web2text.Web2TextSpiderMiddleware` into
``SPIDER_MIDDLEWARES`` at :data:`MIDDLEWARE_ORDER` and :class:`~scrapy_web2text.Web2TextPipeline` into
``ITEM_PIPELINES`` at :data:`PIPELINE_ORDER` and :class:`~scrapy_web2text.Web2TextCharsetMiddleware` into
``DOWNLOADER_MIDDLEWARES`` at :data:`CHARSET_MIDDLEWARE_ORDER`, unless the project already lists them (its own order
then wins), makes :class:`~scrapy_web2text.integration.exporters.Web2TextCsvItemExporter` the ``csv`` feed exporter
(JSON in the cells of lists and dicts) unless the project names one, and gives every ``WEB2TEXT_*`` setting its
documented default at the ``"addon"`` priority, so a value set in ``settings.py``, ``custom_settings`` or with ``-s``
still wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .charset import Web2TextCharsetMiddleware
from .middleware import Web2TextSpiderMiddleware
from .pipeline import Web2TextPipeline
from .settings import DEFAULTS

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: The middleware's place among spider middlewares (it only reads items; 543 is the order the docs always showed).
MIDDLEWARE_ORDER = 543
#: The pipeline's place among item pipelines.
PIPELINE_ORDER = 300
#: The charset middleware's place among downloader middlewares: above Scrapy's MetaRefreshMiddleware (580), whose
#: ``response.text`` it keeps from raising (process_response runs from high to low).
CHARSET_MIDDLEWARE_ORDER = 590
#: The ``csv`` feed exporter the add-on sets, unless the project names one.
CSV_EXPORTER = "scrapy_web2text.integration.exporters.Web2TextCsvItemExporter"


class Addon:
    """``ADDONS = {"scrapy_web2text.Addon": 0}``: the middleware, the pipeline and the ``WEB2TEXT_*`` defaults."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict("SPIDER_MIDDLEWARES", Web2TextSpiderMiddleware, MIDDLEWARE_ORDER)
        settings.setdefault_in_component_priority_dict("ITEM_PIPELINES", Web2TextPipeline, PIPELINE_ORDER)
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", Web2TextCharsetMiddleware, CHARSET_MIDDLEWARE_ORDER
        )
        exporters = settings.getdict("FEED_EXPORTERS")
        if "csv" not in exporters:
            settings.set("FEED_EXPORTERS", {**exporters, "csv": CSV_EXPORTER}, priority="addon")
        for name, value in DEFAULTS.items():
            settings.set(name, value, priority="addon")
