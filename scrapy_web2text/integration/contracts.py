"""``scrapy check`` with the fields this package adds: the ``@web2text_scrapes`` contract.

``scrapy check`` runs a callback on the page its ``@url`` names and applies the contracts to what the callback
returns, before any spider middleware sees it, so Scrapy's ``@scrapes main_text`` fails: the middleware adds
``main_text``, ``title`` and the other fields after the callback.  ``@web2text_scrapes`` runs the middleware's labelling
on the callback's items first (the crawl's own ``WEB2TEXT_*`` settings), then checks, as ``@scrapes`` does, that every
item has the fields named::

    def parse(self, response):
        \"\"\"
        @url https://example.org/a-story
        @returns items 1
        @web2text_scrapes main_text title web2text_blocks
        \"\"\"

Register it in ``settings.py`` (``scrapy check`` reads its contracts before add-ons run, so the add-on cannot)::

    SPIDER_CONTRACTS = {"scrapy_web2text.integration.contracts.Web2TextScrapesContract": 10}
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter, is_item
from scrapy.contracts import Contract
from scrapy.exceptions import ContractFail
from scrapy.http import Response

from .chain import run_chain
from .middleware import Web2TextSpiderMiddleware


class Web2TextScrapesContract(Contract):
    """``@web2text_scrapes field ...``: the callback's items, labelled as the crawl labels them, have these fields."""

    name = "web2text_scrapes"

    def __init__(self, method: Any, *args: Any):
        super().__init__(method, *args)
        self.spider = getattr(method, "__self__", None)
        self.response: Response | None = None

    def pre_process(self, response: Response) -> None:
        self.response = response  # what the items are labelled from, after the callback

    def post_process(self, output: list[Any]) -> None:
        items = [ItemAdapter(obj) for obj in output if is_item(obj)]
        if items and self.response is not None:
            self.label(items)
        for adapter in items:
            missing = [field for field in self.args if field not in adapter]
            if missing:
                raise ContractFail(f"Missing fields: {', '.join(missing)}")

    def label(self, items: list[ItemAdapter]) -> None:
        """Fill the items' fields as the spider middleware would (here, on this thread: a check labels one page)."""
        crawler = getattr(self.spider, "crawler", None)
        if crawler is None:
            raise ContractFail("@web2text_scrapes needs a spider run by a crawler (scrapy check)")
        middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
        response = self.response
        reason = middleware.skip_reason(response)
        if reason:
            raise ContractFail(f"@web2text_scrapes: {response.url} is not labelled ({reason})")
        result = run_chain(
            response.text, response.url, middleware.model, middleware.config, response.headers.get(b"Content-Type")
        )
        for adapter in items:
            if not middleware.already_labelled(adapter) and middleware.accepts_output(adapter):
                middleware.fill(adapter, result)
