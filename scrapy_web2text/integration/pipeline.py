"""Item pipeline: label raw HTML that spiders put into items themselves.

Enable it in ``settings.py``::

    ITEM_PIPELINES = {"scrapy_web2text.Web2TextPipeline": 300}

For each item with non-empty HTML (``str`` or ``bytes``) in
``WEB2TEXT_HTML_FIELD`` (default ``html``) and an empty text field, the
pipeline runs the Web2Text chain on that HTML, on a worker thread, and fills
``WEB2TEXT_TEXT_FIELD`` and ``WEB2TEXT_BLOCKS_FIELD`` as the spider
middleware does; ``WEB2TEXT_DROP_HTML=True`` then removes the HTML field.

Division of labour with :class:`~scrapy_web2text.Web2TextSpiderMiddleware`:
the middleware owns response bodies, the pipeline owns HTML carried by
items.  When both are enabled, the middleware leaves items that carry HTML
to the pipeline, and the pipeline leaves alone items whose text field is
already filled, so no page is labelled twice (and does not count them as skipped).  Items without HTML pass on
untouched, counted once: by the middleware when it is in the crawl (its response's reason), else as
``web2text/skipped/no_html``; a failed
labelling leaves the output fields empty and the item goes on.

Settings: every ``WEB2TEXT_*`` setting (see :mod:`scrapy_web2text.integration.settings`);
``WEB2TEXT_ENABLED=False`` raises ``NotConfigured``.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter

from .base import Web2TextComponent


class Web2TextPipeline(Web2TextComponent):
    """Fills main text and block labels from an item's own HTML field."""

    component = "pipeline"

    async def process_item(self, item: Any) -> Any:
        """Never drops an item: whatever goes wrong, the item goes on (counted, logged once)."""
        try:
            return await self._process_item(item)
        except Exception as error:
            self.skip_item("item_error", item, error)
            return item

    async def _process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if self.already_labelled(adapter):
            # With the middleware in the crawl, a labelled item is its work (or counted by it, if the spider filled
            # the text): not a skip.
            if not self.runtime.has_component(self.crawler, "middleware"):
                self.skip("already_labelled")
            return item
        html = self.item_html(adapter)
        if html is None:
            # With the middleware in the crawl, an item without HTML is its to count: the response it came from
            # (non_html, empty, disabled_by_meta...) or, for a start item, no_html there.
            if not self.runtime.has_component(self.crawler, "middleware"):
                self.skip("no_html")
            return item
        await self.label_item_html(adapter, html)
        return item
