"""The ``sample`` spider: crawls the bundled site offline, or a real site with ``-a url=...``.

::

    scrapy crawl sample -O items.jsonl                        # the bundled site, no network
    scrapy crawl sample -a url=https://example.org/ -O items.jsonl -s CLOSESPIDER_PAGECOUNT=50

It follows links that stay on the start URL's site (same scheme and host;
for ``file://``, the start page's folder) and yields one item per response:
``url``, ``status``, ``content_type`` and, for HTML, ``title``.  The
Web2Text middleware adds ``main_text`` and ``web2text_blocks`` to the items
of HTML pages; items of images, PDFs and the like pass through as they are.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import scrapy
from scrapy.http import HtmlResponse

#: The bundled site, found from this file's location (works from any cwd).
BUNDLED_SITE = Path(__file__).resolve().parents[2] / "site" / "index.html"


class SampleSpider(scrapy.Spider):
    name = "sample"

    def __init__(self, url: str | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.start_url = url or BUNDLED_SITE.as_uri()
        start = urlparse(self.start_url)
        self._scheme, self._host = start.scheme, start.netloc
        self._folder = start.path.rsplit("/", 1)[0] + "/" if start.scheme == "file" else "/"

    async def start(self):
        yield scrapy.Request(self.start_url, callback=self.parse)

    def parse(self, response):
        item = {
            "url": response.url,
            "status": response.status,
            "content_type": (response.headers.get("Content-Type") or b"").decode("latin-1") or None,
        }
        if isinstance(response, HtmlResponse):
            item["title"] = (response.css("title::text").get() or "").strip()
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href).split("#", 1)[0]
                if self._on_site(url):
                    yield scrapy.Request(url, callback=self.parse)
        yield item

    def _on_site(self, url: str) -> bool:
        parsed = urlparse(url)
        return parsed.scheme == self._scheme and parsed.netloc == self._host and parsed.path.startswith(self._folder)
