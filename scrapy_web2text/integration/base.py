"""What the middleware and the pipeline have in common: settings, stats, filling items."""

from __future__ import annotations

import logging
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from ..metadata.model import LIST_FIELDS
from .chain import PageResult
from .runtime import get_runtime
from .settings import FORMAT_FIELDS, Web2TextConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger("scrapy_web2text.integration")

PREFIX = "web2text"


def _is_frozen(item: Any) -> bool:
    """A frozen dataclass or attrs instance: setting a field raises (checked before labelling its page)."""
    params = getattr(type(item), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return True
    setter = getattr(type(item), "__setattr__", None)
    return hasattr(type(item), "__attrs_attrs__") and getattr(setter, "__name__", "") == "_frozen_setattrs"


class Web2TextComponent:
    """Base of :class:`Web2TextSpiderMiddleware` and :class:`Web2TextPipeline`."""

    component = "component"

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.config = Web2TextConfig.from_crawler(crawler)
        self.runtime = get_runtime()
        self.model = self.runtime.start(crawler, self.config, self.component)
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler):
        return cls(crawler)

    # --- stats --------------------------------------------------------------

    def inc(self, key: str, count: float = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(f"{PREFIX}/{key}", count)

    def skip(self, reason: str) -> None:
        self.inc(f"skipped/{reason}")

    # --- items --------------------------------------------------------------

    def already_labelled(self, adapter: ItemAdapter) -> bool:
        """The spider (or another component) filled the text field itself."""
        return bool(adapter.get(self.config.text_field))

    def item_html(self, adapter: ItemAdapter) -> Any:
        if not self.config.html_field:
            return None
        html = adapter.get(self.config.html_field)
        return html if isinstance(html, (str, bytes)) and html else None

    def too_large(self, html: str | bytes) -> bool:
        return bool(self.config.max_bytes) and len(html) > self.config.max_bytes

    def accepts_output(self, adapter: ItemAdapter) -> bool:
        """Whether the item can take the output fields; warns once per item class if not."""
        if isinstance(adapter.item, dict):
            return True
        if _is_frozen(adapter.item):
            self.skip_item("read_only_item", adapter.item, TypeError("frozen item class: its fields cannot be set"))
            return False
        declared = set(adapter.field_names())
        missing = [name for name in self.config.output_fields if name not in declared]
        if not missing:
            return True
        item_class = type(adapter.item)
        if self.runtime.notice_once(("undeclared", item_class, tuple(missing))):
            declarations = "; ".join(f"{name} = scrapy.Field()" for name in missing)
            logger.warning(
                "Web2Text: %s.%s does not declare the field(s) %s, so its items go out without main text. "
                "Declare them (for a scrapy.Item: %s), use a dict item, or point WEB2TEXT_TEXT_FIELD / "
                "WEB2TEXT_BLOCKS_FIELD at declared fields (WEB2TEXT_BLOCKS='none' needs only the text field).",
                item_class.__module__,
                item_class.__qualname__,
                ", ".join(missing),
                declarations,
                extra={"spider": self.crawler.spider},
            )
        self.skip("undeclared_fields")
        return False

    def fill(self, adapter: ItemAdapter, result: PageResult | None) -> None:
        """Write the output fields; a failed page (``None`` or a result with an ``error``) writes them empty and,
        with ``WEB2TEXT_ERROR_FIELD``, the error into that field (counted in ``web2text/failed_items``).

        An item that refuses the writes (a frozen dataclass or attrs class) goes on unchanged: counted as
        ``web2text/skipped/read_only_item``, logged once per item class.
        """
        failed = result is None or result.error is not None
        try:
            config = self.config
            adapter[config.text_field] = "" if failed else result.main_text
            if config.include_blocks:
                blocks = PageResult.empty_blocks(config.block_form) if failed else result.item_blocks()
                adapter[config.blocks_field] = blocks
            for name in config.formats:
                adapter[FORMAT_FIELDS[name]] = "" if failed else getattr(result, name)
            if failed:
                self.mark_failure(adapter, result.error if result is not None else "labelling failed")
            else:
                self.fill_title(adapter, result)
                self.fill_metadata(adapter, result)
                self.fill_page_type(adapter, result)
            if self.config.drop_html and self.config.html_field and self.config.html_field in adapter:
                del adapter[self.config.html_field]
        except (AttributeError, TypeError) as error:  # FrozenInstanceError is an AttributeError
            self.skip_item("read_only_item", adapter.item, error)
            return
        self.inc("items")

    def mark_failure(self, adapter: ItemAdapter, error: str) -> None:
        """Count an item that goes out empty because labelling raised; say why in the error field, if one is set
        and the item can take it."""
        self.inc("failed_items")
        field = self.config.error_field
        if field and (isinstance(adapter.item, dict) or field in adapter.field_names()):
            adapter[field] = error

    def fill_title(self, adapter: ItemAdapter, result: PageResult) -> None:
        """The headline into the title field, unless the spider set one or the item cannot take it."""
        field = self.config.title_field
        if not field or adapter.get(field):
            return
        if not isinstance(adapter.item, dict) and field not in adapter.field_names():
            return
        title = result.title
        if title:
            adapter[field] = title

    def fill_metadata(self, adapter: ItemAdapter, result: PageResult | None) -> None:
        """The ``WEB2TEXT_METADATA`` fields: a value, or ``None`` (``[]`` for a list field) where the page had none."""
        found = result.metadata if result is not None else {}
        for name, item_field in self.config.metadata:
            value = found.get(name)
            adapter[item_field] = value if value is not None else ([] if name in LIST_FIELDS else None)

    def fill_page_type(self, adapter: ItemAdapter, result: PageResult | None) -> None:
        """The page's type into ``WEB2TEXT_PAGE_TYPE_FIELD`` (when set), unless the spider set one or the item
        cannot take it."""
        field = self.config.page_type_field
        if not field or result is None or result.page_type is None or adapter.get(field):
            return
        if isinstance(adapter.item, dict) or field in adapter.field_names():
            adapter[field] = dict(result.page_type)

    def skip_item(self, reason: str, item: Any, error: BaseException) -> None:
        """Count an item passed on unchanged under ``web2text/skipped/<reason>``; log once per reason and class."""
        self.skip(reason)
        item_class = type(item)
        if self.runtime.notice_once((reason, item_class)):
            logger.warning(
                "Web2Text: %s.%s items go out without main text (%s: %s: %s); counted in web2text/skipped/%s",
                item_class.__module__,
                item_class.__qualname__,
                reason,
                type(error).__name__,
                error,
                reason,
                extra={"spider": self.crawler.spider},
            )

    async def label_item_html(self, adapter: ItemAdapter, html: str | bytes, fallback_url: str | None = None) -> None:
        """Label HTML the item carries itself and fill its fields (skips are counted)."""
        if self.too_large(html):
            self.skip("too_large")
            return
        if not self.accepts_output(adapter):
            return
        url = adapter.get(self.config.url_field) if self.config.url_field else None
        self.fill(adapter, await self.label(html, url if isinstance(url, str) and url else fallback_url))

    # --- pages --------------------------------------------------------------

    async def label(
        self,
        html: str | bytes,
        url: str | None,
        content_type: str | bytes | None = None,
        tree: Any = None,
        threshold: float | None = None,
    ) -> PageResult:
        """Run the chain off the reactor (``threshold``: this page's, else the crawl's); count it; a result with
        ``error`` set if it failed (logged with the URL)."""
        config = self.config if threshold is None else replace(self.config, threshold=threshold)
        try:
            result = await self.runtime.extract(html, url, self.model, config, content_type, tree)
        except BrokenProcessPool as error:
            # A labelling process died (segfault, out-of-memory kill) with this page queued or running in its
            # pool; the next page gets a fresh pool.
            self.inc("errors")
            self.inc("errors/worker_died")
            logger.error(
                "Web2Text: a labelling process died while %s was queued or being labelled (%s); its items go out "
                "with empty %s",
                url or "<no url>",
                error,
                " and ".join(self.config.output_fields),
                extra={"spider": self.crawler.spider},
            )
            return PageResult(main_text="", error=f"worker died: {error}")
        except Exception as error:
            self.inc("errors")
            logger.error(
                "Web2Text: labelling %s failed: %s: %s; its items go out with empty %s",
                url or "<no url>",
                type(error).__name__,
                error,
                " and ".join(self.config.output_fields),
                extra={"spider": self.crawler.spider},
            )
            logger.debug("Web2Text failure on %s", url, exc_info=error)
            return PageResult(main_text="", error=f"{type(error).__name__}: {error}")
        if result.skipped:
            self.skip(result.skipped)  # not HTML (binary:png, not_html:json...): fields go out empty
            return result
        for failure in result.failed_formats:
            self.inc("errors/format")
            logger.error(
                "Web2Text: a format of %s failed (%s); its items keep their main text, that field goes out empty",
                url or "<no url>",
                failure,
                extra={"spider": self.crawler.spider},
            )
        self.inc("pages")
        if result.model:
            self.inc(f"model/{result.model}/pages")
        self.inc("blocks", result.n_blocks)
        self.inc("content_blocks", result.n_content_blocks)
        if result.truncated:
            self.inc("truncated")
        if result.from_noscript:
            self.inc("from_noscript")
        if result.decoded_again:
            self.inc("decoded_again")
        if result.empty:
            self.inc(f"empty/{result.empty}")  # a page labelled with nothing kept, and why
        for name, value in result.metadata.items():
            if value:
                self.inc(f"metadata/{name}")  # pages with this field found
        if self.stats is not None:
            for stage, ms in result.timings.items():
                key = f"{PREFIX}/time_ms" if stage == "total" else f"{PREFIX}/time_ms/{stage}"
                self.stats.set_value(key, round(self.stats.get_value(key, 0.0) + ms, 3))
        return result
