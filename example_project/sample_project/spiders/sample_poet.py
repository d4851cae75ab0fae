"""The ``sample_poet`` spider: the ``sample`` crawl with a web-poet page object, through scrapy-poet.

::

    pip install 'scrapy-web2text[poet]'
    scrapy crawl sample_poet -O items_poet.jsonl

scrapy-poet builds a :class:`scrapy_web2text.Web2TextArticlePage` for each response and passes it to the
callback, which yields its item (``url``, ``title``, ``main_text``, ``metadata``, ``blocks``).  The page object
labels the page itself, so the Web2Text middleware and pipeline are left out for this spider.  Without the
``[poet]`` extra the other spiders still run, and this one stops at start-up with the line that names the extra.
"""

from __future__ import annotations

from scrapy.http import HtmlResponse

from sample_project.spiders.sample import SampleSpider

try:
    from scrapy_web2text import Web2TextArticlePage
except ImportError as error:  # the [poet] extra is missing: said when this spider is crawled, not at import
    Web2TextArticlePage, _MISSING_EXTRA = None, error
else:
    _MISSING_EXTRA = None


class SamplePoetSpider(SampleSpider):
    name = "sample_poet"

    custom_settings = {
        "ADDONS": {"scrapy_poet.Addon": 300},
        "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": None},
        "ITEM_PIPELINES": {"scrapy_web2text.Web2TextPipeline": None},
        "FEED_EXPORT_FIELDS": ["url", "title", "main_text", "metadata", "blocks"],
    }

    @classmethod
    def update_settings(cls, settings):
        if _MISSING_EXTRA is not None:
            raise _MISSING_EXTRA
        super().update_settings(settings)

    async def parse(self, response, page: Web2TextArticlePage):
        for request in super().parse(response):
            if not isinstance(request, dict):  # the links to follow; the sample spider's own item is not kept
                yield request
        if isinstance(response, HtmlResponse):
            yield await page.to_item()
