"""Spider middleware: label each HTML response once and add its main text to the items it yields.

Enable it in ``settings.py``::

    SPIDER_MIDDLEWARES = {"scrapy_web2text.Web2TextSpiderMiddleware": 543}

For every response whose callback yields items, the middleware runs the
Web2Text chain on the response body, on a worker thread and at most once
per response however many items the callback yields, and writes to each
item the fields named by ``WEB2TEXT_TEXT_FIELD`` (``main_text``) and
``WEB2TEXT_BLOCKS_FIELD`` (``web2text_blocks``: ``{"text", "label",
"probability"}`` per block; ``WEB2TEXT_INCLUDE_BLOCKS=False`` leaves it out).

An item that carries HTML of its own in ``WEB2TEXT_HTML_FIELD`` is labelled
from that HTML instead (the response's labelling is reused when it is the
same text), unless :class:`~scrapy_web2text.Web2TextPipeline` is enabled
too, which then owns such items: enabling both never labels a page twice.
Items the spider already filled (a non-empty text field) are left alone.

Requests, items from non-HTML responses (images, PDF, JSON), empty and
over-large (``WEB2TEXT_MAX_BYTES``) bodies pass through untouched and are
counted under ``web2text/skipped/<reason>``.  If labelling fails, the items
still go out, with the output fields empty; the error is logged with the URL
and counted in ``web2text/errors``.

Per request: ``meta={"web2text": False}`` passes the response's items on untouched
(``web2text/skipped/disabled_by_meta``), ``meta={"web2text_threshold": 0.6}`` labels them at that threshold.

Settings: every ``WEB2TEXT_*`` setting (see :mod:`scrapy_web2text.integration.settings`);
``WEB2TEXT_ENABLED=False`` raises ``NotConfigured``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy import Request
from scrapy.http import HtmlResponse, TextResponse

from ..extraction.responses import own_encoding
from ..page.decode import decode_html
from ..page.sniff import XML_TYPES, media_type, xhtml_root
from .base import Web2TextComponent
from .charset import header_charset
from .pools import POOLS
from .settings import META_ENABLED, META_THRESHOLD, parse_threshold
from .views import ViewWriter

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from scrapy.http import Response

    from .chain import PageResult

#: Content types labelled even when Scrapy did not pick ``HtmlResponse``.
HTML_CONTENT_TYPES = (b"text/html", b"application/xhtml+xml")


def parsed_tree(response: Response, text: str | None) -> Any:
    """The lxml root of ``response.selector`` if the spider already built it from ``text``, else None.

    Scrapy keeps the selector in ``TextResponse._cached_selector`` and the text parsel parsed in ``_cached_ubody``
    (no public way asks whether they exist without building them); when that text is the one being labelled, the
    chain walks parsel's tree instead of parsing the body again.  Nothing is built here.
    """
    selector = getattr(response, "_cached_selector", None)
    if text is None or selector is None or getattr(selector, "type", None) != "html":
        return None
    parsed = getattr(response, "_cached_ubody", None)
    if parsed is None or (parsed is not text and parsed != text):
        return None
    return getattr(selector, "root", None)


def request_meta(response: Response) -> dict:
    """The meta of the request behind ``response`` (empty when there is none: ``response.meta`` would raise)."""
    request = getattr(response, "request", None)
    meta = getattr(request, "meta", None)
    return meta if isinstance(meta, dict) else {}


class _ResponsePage:
    """One response's HTML, labelled on first need and then reused."""

    def __init__(self, middleware: Web2TextSpiderMiddleware, response: Response, meta: dict):
        self.middleware = middleware
        self.response = response
        self.meta = meta
        self.skip_reason = middleware.skip_reason(response)
        self._done = False
        self._result: PageResult | None = None
        self._text: str | None = None

    @property
    def text(self) -> str | None:
        """The body decoded by the project's decoder (WHATWG rules): never raises, unlike ``response.text``,
        which fails on a ``Content-Type`` charset Python does not know (``undefined``, ``punycode``).  The response's
        own encoding wins over its headers (see :func:`scrapy_web2text.extraction.responses.own_encoding`)."""
        if self.skip_reason:
            return None
        if self._text is None:
            self._text = decode_html(self.response.body, own_encoding(self.response) or header_charset(self.response))
        return self._text

    def same_html(self, html: str | bytes) -> bool:
        if self.skip_reason:
            return False
        if isinstance(html, bytes):
            return html is self.response.body or html == self.response.body
        text = self.text
        return html is text or (text is not None and len(html) == len(text) and html == text)

    async def labelled(self) -> PageResult | None:
        if not self._done:
            content_type = self.response.headers.get(b"Content-Type")
            text = self.text
            # parsel's tree cannot cross to a worker process: a pool that takes no tree does not even get it looked up.
            tree = parsed_tree(self.response, text) if POOLS[self.middleware.config.pool].takes_tree else None
            # A bad value raises here, for each item: counted and logged as web2text/skipped/item_error.
            threshold = parse_threshold(self.meta.get(META_THRESHOLD), f"Request.meta[{META_THRESHOLD!r}]")
            self._result = await self.middleware.label(text, self.response.url, content_type, tree, threshold)
            self._done = True
        return self._result


class Web2TextSpiderMiddleware(Web2TextComponent):
    """Adds Web2Text main text and block labels to the items of HTML responses."""

    component = "middleware"

    def __init__(self, crawler):
        super().__init__(crawler)
        self.views = ViewWriter.from_component(self)  # WEB2TEXT_SHOW_DIR; None when off

    def skip_reason(self, response: Response) -> str | None:
        """Why ``response`` is not labelled, or ``None`` if it is HTML to label."""
        if not isinstance(response, TextResponse):
            return "non_html"
        if not isinstance(response, HtmlResponse):
            content_type = (response.headers.get(b"Content-Type") or b"").lower()
            if not any(kind in content_type for kind in HTML_CONTENT_TYPES) and not _xhtml_as_xml(response):
                return "non_html"
        if not response.body.strip():
            return "empty"
        if self.config.max_bytes and len(response.body) > self.config.max_bytes:
            return "too_large"
        return None

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """Start items have no response: only those with HTML of their own are labelled."""
        async for obj in start:
            if not isinstance(obj, Request) and is_item(obj):
                try:
                    obj = await self._process_item(obj, None)
                except Exception as error:
                    self.skip_item("item_error", obj, error)
            yield obj

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        self.inc("responses")
        meta = request_meta(response)
        if meta.get(META_ENABLED) is False:  # Request(meta={"web2text": False}): this response's items go as they are
            self.skip("disabled_by_meta")
            async for obj in result:
                yield obj
            return
        page = _ResponsePage(self, response, meta)
        if page.skip_reason:
            self.skip(page.skip_reason)
        items = 0
        shown = self.views is None  # the page's view, when one is written, goes before its first labelled item:
        # a crawl that closes on its last item (CLOSESPIDER_ITEMCOUNT) never resumes this generator after a yield
        async for obj in result:
            if isinstance(obj, Request) or not is_item(obj):
                yield obj
                continue
            items += 1
            try:
                obj = await self._process_item(obj, page)
            except Exception as error:  # never lose the item (nor the rest of the callback's output)
                self.skip_item("item_error", obj, error)
            if not shown and page._result is not None:
                shown = True
                await self.views.maybe_write(response, page._result)
            yield obj
        if not items and not page.skip_reason:
            self.skip("no_items")
        if not shown:
            await self.views.maybe_write(response, page._result)

    async def _process_item(self, item: Any, page: _ResponsePage | None) -> Any:
        adapter = ItemAdapter(item)
        if self.already_labelled(adapter):
            self.skip("already_labelled")
            return item
        html = self.item_html(adapter)
        if html is not None:
            if self.runtime.has_component(self.crawler, "pipeline"):
                return item  # the pipeline labels items that bring their own HTML
            if page is None or not page.same_html(html):
                await self.label_item_html(adapter, html, page.response.url if page else None)
                return item
        elif page is None or page.skip_reason:
            return item
        if not self.accepts_output(adapter):
            return item
        self.fill(adapter, await page.labelled())
        return item


def _xhtml_as_xml(response: Response) -> bool:
    """An XHTML page served as ``application/xml`` or ``text/xml`` (Scrapy makes it an ``XmlResponse``)."""
    content_type = response.headers.get(b"Content-Type")
    return media_type(content_type) in XML_TYPES and xhtml_root(response.body, content_type)
