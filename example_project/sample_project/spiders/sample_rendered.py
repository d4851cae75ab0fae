"""The ``sample_rendered`` spider: the ``sample`` crawl, each page rendered by a headless Chromium first.

For pages whose text a script inserts: without rendering, Web2Text sees only what the server sent (often a menu and a
copyright line, which it does not keep: ``web2text/empty/furniture_only``).  Needs scrapy-playwright
(``pip install scrapy-playwright``) and a Chromium: the OS's (``/usr/bin/chromium``, or ``$CHROMIUM``), or
Playwright's own (``playwright install chromium``, then ``-s PLAYWRIGHT_LAUNCH_OPTIONS={}``).  Renders http(s) pages
only; to try it offline, serve the bundled site::

    python -m http.server -d site 8000 &
    scrapy crawl sample_rendered -a url=http://127.0.0.1:8000/index.html -O rendered.jsonl
"""

from __future__ import annotations

import os

import scrapy

from .sample import SampleSpider

#: Each request's ``meta``: render in the browser, and wait until the page's scripts stopped fetching.
RENDER = {
    "playwright": True,
    "playwright_page_methods": [{"method": "wait_for_load_state", "args": ["networkidle"]}],
}


class RenderedSpider(SampleSpider):
    name = "sample_rendered"
    custom_settings = {
        "DOWNLOAD_HANDLERS": {
            "http": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
            "https": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
        },
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        "PLAYWRIGHT_LAUNCH_OPTIONS": {
            "executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            "headless": True,
        },
    }

    async def start(self):
        yield scrapy.Request(self.start_url, callback=self.parse, meta=_page_methods(RENDER))

    def parse(self, response):
        for result in super().parse(response):
            if isinstance(result, scrapy.Request):
                result = result.replace(meta={**result.meta, **_page_methods(RENDER)})
            else:
                result["rendered"] = bool(response.meta.get("playwright"))
            yield result


def _page_methods(meta: dict) -> dict:
    """``meta`` with its page methods as scrapy-playwright's ``PageMethod`` objects (imported here: the other
    spiders of the project load without scrapy-playwright)."""
    from scrapy_playwright.page import PageMethod

    methods = [PageMethod(step["method"], *step["args"]) for step in meta["playwright_page_methods"]]
    return {**meta, "playwright_page_methods": methods}
