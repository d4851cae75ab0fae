"""``WEB2TEXT_SHOW_DIR``: the crawl writes the view of one labelled page in ``WEB2TEXT_SHOW_EVERY`` per spider.

Each view goes to ``DIR/<spider>/<name>.view.html``, the page's bytes beside it in ``DIR/<spider>/pages/<name>.html``
(the bytes its labels file names by hash: ``web2text train --pages DIR/<spider>/pages`` finds them).  The view is
built on a thread (it labels the page again: one page in N) and a failure is logged and counted
(``web2text/views/errors``), never passed on to the crawl.
"""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.http import Response

    from .base import Web2TextComponent
    from .chain import PageResult

logger = logging.getLogger("scrapy_web2text.integration")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def view_name(url: str) -> str:
    """A file name for ``url``'s view: readable (host and path, 60 characters at most) and unique (a hash)."""
    readable = _UNSAFE.sub("-", url.split("://", 1)[-1]).strip("-.")[:60]
    return f"{readable or 'page'}-{hashlib.sha256(url.encode('utf-8')).hexdigest()[:10]}"


def write_view_files(folder: Path, name: str, body: bytes, url: str, options: dict[str, Any]) -> Path:
    """Build the view of ``body`` and write it with the page's bytes; the view's path."""
    from ..show import build_view

    view = build_view(body, url, name=name, **options)
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    (folder / "pages" / f"{name}.html").write_bytes(body)
    target = folder / f"{name}.view.html"
    target.write_text(view, encoding="utf-8")
    return target


class ViewWriter:
    """Writes the views of one crawler's spiders; ``None`` from :meth:`from_component` when the setting is off."""

    def __init__(self, component: Web2TextComponent, directory: Path, every: int):
        self.component = component
        self.directory = directory
        self.every = every
        self.seen: dict[str, int] = {}

    @classmethod
    def from_component(cls, component: Web2TextComponent) -> ViewWriter | None:
        config = component.config
        return cls(component, Path(config.show_dir), config.show_every) if config.show_dir else None

    async def maybe_write(self, response: Response, result: PageResult | None) -> None:
        """Write the view of a labelled page if it is the spider's one in ``every``."""
        if result is None or result.skipped:
            return
        self.component.inc("views/pages")
        if self.wants(self.component.crawler.spider.name):
            await self.write(response, response.headers.get(b"Content-Type"))

    def wants(self, spider_name: str) -> bool:
        """Whether this spider's next labelled page is one to show (its first, then one in ``every``)."""
        count = self.seen.get(spider_name, 0)
        self.seen[spider_name] = count + 1
        return count % self.every == 0

    async def write(self, response: Response, content_type: Any) -> None:
        from scrapy.utils.defer import maybe_deferred_to_future
        from twisted.internet.threads import deferToThread

        from ..extraction.responses import own_encoding
        from .charset import header_charset

        config = self.component.config
        spider = self.component.crawler.spider
        folder = self.directory / _UNSAFE.sub("-", getattr(spider, "name", None) or "spider")
        options = {
            "model": config.model,
            "threshold": config.threshold,
            "method": config.method,
            "encoding": own_encoding(response) or header_charset(response),
            "content_type": content_type.decode("latin-1") if isinstance(content_type, bytes) else content_type,
        }
        name = view_name(response.url)
        try:
            await maybe_deferred_to_future(
                deferToThread(write_view_files, folder, name, response.body, response.url, options)
            )
        except Exception as error:  # a view is a by-product: the crawl goes on without it
            self.component.inc("views/errors")
            logger.warning("Web2Text: no view of %s: %s: %s", response.url, type(error).__name__, error)
            return
        self.component.inc("views/written")
