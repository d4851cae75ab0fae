"""A crawl through scrapy-playwright with a real headless Chromium (Debian's, as ``.ci/run`` installs it): the page a
browser renders is labelled, and its text is read in the encoding the rendering has, not the one the server named.

The page declares windows-1252 and a script inserts words outside it; scrapy-playwright hands Scrapy the browser's
UTF-8 bytes with ``encoding="utf-8"`` but the server's headers.  Fails (never skips) where Chromium is missing.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
WORDS = "Łódź ☃ 中文"
PAGE = (
    '<html><head><meta charset="windows-1252"><title>Caf\xe9 notes</title></head><body>'
    "<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><main><article><h1>Caf\xe9 notes</h1>"
    "<p>A long paragraph of the article that the server sent, in windows-1252, about a caf\xe9 by the river and "
    "the people who sit there in the morning with their newspapers and their coffee.</p>"
    "<div id='late'></div></article></main>"
    "<script>var p = document.createElement('p');"
    "p.textContent = 'The script added this paragraph later, with words from far away: ' + "
    "'\\u0141\\u00f3d\\u017a \\u2603 \\u4e2d\\u6587' + ', and more words so that it reads as a paragraph of text.';"
    "document.getElementById('late').appendChild(p);</script></body></html>"
).encode("cp1252")

SPIDER = """
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

class Rendered(scrapy.Spider):
    name = "rendered"
    async def start(self):
        yield scrapy.Request(sys.argv[1], meta={"playwright": True})
    def parse(self, response):
        yield {"url": response.url, "encoding": response.encoding}

process = CrawlerProcess({
    "ADDONS": {"scrapy_web2text.Addon": 0},
    "WEB2TEXT_THRESHOLD": 0.001,
    "DOWNLOAD_HANDLERS": {
        "http": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
        "https": "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler",
    },
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "PLAYWRIGHT_BROWSER_TYPE": "chromium",
    "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": sys.argv[3], "headless": True, "args": ["--no-sandbox"]},
    "FEEDS": {sys.argv[2]: {"format": "jsonlines"}},
    "LOG_LEVEL": "WARNING",
})
process.crawl(Rendered)
process.start()
"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=windows-1252")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args) -> None:
        pass


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/cafe.html"
    httpd.shutdown()


def test_a_page_rendered_by_chromium_keeps_the_words_its_script_inserted(server, tmp_path):
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: bash .ci/chromium"
    feed = tmp_path / "items.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", SPIDER, server, str(feed), CHROMIUM],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (item,) = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
    assert item["encoding"] == "utf-8"  # the rendering's bytes, whatever the header said
    assert WORDS in item["main_text"] and "Café notes" in item["main_text"]
    assert "Å" not in item["main_text"]  # no mojibake of the UTF-8 bytes read as windows-1252


def test_the_example_projects_rendered_spider_labels_every_page_of_the_bundled_site(tmp_path):
    """docs/scrapy_integration.rst's recipe, as written: the bundled site served over HTTP, each page rendered by
    Chromium through scrapy-playwright, then labelled by the project's middleware."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: bash .ci/chromium"
    site = REPO / "example_project" / "site"
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietFiles, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    feed = tmp_path / "rendered.jsonl"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "sample_rendered", "-a",
             f"url=http://127.0.0.1:{httpd.server_address[1]}/index.html", "-O", str(feed),
             "-s", "FEED_EXPORT_FIELDS=url,content_type,main_text,rendered", "-s", "DOWNLOAD_DELAY=0"],
            capture_output=True, text=True, timeout=600, cwd=REPO / "example_project",
            env={**os.environ, "CHROMIUM": CHROMIUM},
        )  # fmt: skip
    finally:
        httpd.shutdown()
    assert done.returncode == 0, done.stderr[-3000:]
    items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
    pages = [item for item in items if item["content_type"] == "text/html"]
    assert len(pages) == 21 and all(item["rendered"] and item["main_text"] for item in pages), items
    assert not [item for item in items if item not in pages and item.get("main_text")]  # the PDF, the PNG
    (garden,) = [item for item in pages if item["url"].endswith("rain-garden.html")]
    assert "Digging the basin" in garden["main_text"] and "cookie" not in garden["main_text"].lower()
