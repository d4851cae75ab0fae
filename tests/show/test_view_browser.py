"""The view of ``web2text show`` in a real browser: headless Chromium from the OS packages, driven by Selenium.

These tests fail (never skip) where Chromium or its driver is missing: ``.ci/run`` installs both.
"""

from __future__ import annotations

import base64
import json
import struct
import time
import zlib
from pathlib import Path

import pytest

from scrapy_web2text import extract, load_model
from scrapy_web2text.labellers.web2text.page_types import shipped_page_types
from scrapy_web2text.show import build_view, sha256_of

from ..scrapy_support import EXAMPLE_PROJECT
from ..site import LoopbackServer, Resource, Site, build_site

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CONTENT_TYPES = {".html": "text/html", ".css": "text/css", ".png": "image/png", ".pdf": "application/pdf"}


@pytest.fixture(scope="module")
def site():
    return build_site(articles=3, extras=False)


@pytest.fixture(scope="module")
def example_site() -> Site:
    """The example project's site (its style sheet and images included), to be served as it is."""
    root = EXAMPLE_PROJECT / "site"
    site = Site()
    for path in root.rglob("*.*"):
        kind = CONTENT_TYPES.get(path.suffix, "application/octet-stream")
        site.resources["/" + path.relative_to(root).as_posix()] = Resource(path.read_bytes(), kind)
    return site


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), "apt-get install chromium chromium-driver"
    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"):
        options.add_argument(argument)
    options.add_argument("--window-size=1400,1000")
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads)})
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def _open_view(browser, site, page_path: str, html: bytes | None = None) -> tuple[LoopbackServer, bytes]:
    """Serve the view of ``page_path`` (or of ``html``, its ``PORT`` the server's) beside the page, from a loopback
    server that counts every request, and open it; the labels file it saves is named after the page."""
    server = LoopbackServer(site).__enter__()
    port = server.url.rstrip("/").rsplit(":", 1)[1]
    html = (html if html is not None else site.resources[page_path].body).replace(b"PORT", port.encode())
    view = build_view(html, "http://example.test" + page_path, name=Path(page_path).stem)
    site.resources[_view_path(page_path)] = Resource(view.encode("utf-8"))
    browser.get_log("performance")  # drop earlier pages' events
    browser.get(server.url + _view_path(page_path).lstrip("/"))
    return server, html


def _view_path(page_path: str) -> str:
    return page_path.replace(".html", ".view.html")


def _spans(browser):
    return browser.find_elements("css selector", "#w2t-page span[data-w2t]")


def _chrome(browser, selector: str):
    """An element of the view's own (its bar, panel and outlines live in the shadow root of ``#w2t-view``)."""
    return browser.find_element("id", "w2t-view").shadow_root.find_element("css selector", selector)


def _box(browser, span):
    """The outline the view draws over a block's (first) line box."""
    return _chrome(browser, f".w2t-box[data-w2t='{span.get_attribute('data-w2t')}']")


def _style(browser, element, name: str) -> str:
    return browser.execute_script("return getComputedStyle(arguments[0]).getPropertyValue(arguments[1])", element, name)


def _alpha(colour: str) -> float:
    inside = colour[colour.index("(") + 1 : colour.rindex(")")].replace("/", " ").replace(",", " ").split()
    return float(inside[3]) if len(inside) > 3 else 1.0


@pytest.mark.parametrize(
    "which, page_path", [("site", "/article/0.html"), ("example_site", "/articles/winter-tomatoes.html")]
)
def test_browser_outlines_content_and_boilerplate_as_labelled(browser, request, which, page_path):
    server, html = _open_view(browser, request.getfixturevalue(which), page_path)
    try:
        labels = [block.label for block in extract(html).blocks]
        spans = _spans(browser)
        assert len(spans) == len(labels)
        seen = {"content": 0, "boilerplate": 0}
        for span in spans:
            label = labels[int(span.get_attribute("data-w2t"))]
            seen[label] += 1
            assert _style(browser, _box(browser, span), "outline-style") == (
                "solid" if label == "content" else "dashed"
            )
            assert _style(browser, _box(browser, span), "outline-color") == (
                "rgb(0, 128, 0)" if label == "content" else "rgb(200, 0, 0)"
            )
        assert seen["content"] >= 4 and seen["boilerplate"] >= 10
        # shaded by p(content): the surest content block darker than the surest boilerplate
        probabilities = [block.probability for block in extract(html).blocks]
        surest, least = (spans[probabilities.index(f(probabilities))] for f in (max, min))
        assert (
            _alpha(_style(browser, _box(browser, surest), "background-color"))
            > 0.4
            > _alpha(_style(browser, _box(browser, least), "background-color"))
        )
        # the side panel holds the main text as extract() gives it; the bar names the model and threshold
        assert _chrome(browser, "#w2t-main-text").text == extract(html).main_text.strip()
        # the threshold the page was labelled at: the model's own plus its page type's offset
        kind = extract(html).page_type.label
        threshold = load_model().config["threshold"] + shipped_page_types().threshold_offset(kind)
        assert _chrome(browser, "#w2t-threshold").text == f"{threshold:g}"
        assert _chrome(browser, "#w2t-model").text == extract(html).model
        assert browser.execute_script("return typeof tracking") == "undefined"  # the page's own script did not run
        # hovering tells a block's probability, length and XPath
        title = surest.get_attribute("title")
        assert title.startswith(f"p(content) {max(probabilities):.3f} · ") and title.endswith(
            extract(html).xpaths()[probabilities.index(max(probabilities))]
        )
    finally:
        server.__exit__(None, None, None)


def _downloaded(directory: Path, name: str, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    target = directory / name
    while time.monotonic() < deadline:
        if target.exists() and target.stat().st_size:
            try:
                return json.loads(target.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                pass  # still being written
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded to {directory}: {sorted(p.name for p in directory.iterdir())}")


def test_browser_click_flips_a_label_and_save_labels_downloads_the_json(browser, site):
    server, html = _open_view(browser, site, "/article/1.html")
    try:
        paragraph = browser.find_element("css selector", "article p:not(.byline) span[data-w2t]")
        navigation = browser.find_element("css selector", "nav li span[data-w2t]")
        for span in (paragraph, navigation):
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
            span.click()
        assert "w2t-boilerplate" in paragraph.get_attribute("class")
        assert _style(browser, _box(browser, paragraph), "outline-style") == "dashed"
        assert "w2t-content" in navigation.get_attribute("class")
        assert _chrome(browser, "#w2t-changed").text == "2"
        main_text = _chrome(browser, "#w2t-main-text").text
        assert paragraph.text not in main_text and navigation.text in main_text
        # the keyboard: F flips the selected block (the navigation entry, clicked last) back
        browser.find_element("tag name", "body").send_keys("f")
        assert "w2t-boilerplate" in navigation.get_attribute("class")
        assert _chrome(browser, "#w2t-changed").text == "1"
        _chrome(browser, "#w2t-save").click()
        saved = _downloaded(browser.downloads, "1.labels.json")
        assert saved == json.loads(_chrome(browser, "#w2t-saved").get_attribute("textContent"))
        blocks = extract(html).blocks
        assert saved["sha256"] == sha256_of(html) and saved["url"] == "http://example.test/article/1.html"
        assert saved["model"] == extract(html).model and len(saved["blocks"]) == len(blocks)
        flipped = int(paragraph.get_attribute("data-w2t"))
        assert [i for i, block in enumerate(saved["blocks"]) if block["changed"]] == [flipped]
        assert saved["blocks"][flipped]["label"] == "boilerplate" and blocks[flipped].label == "content"
        assert all(
            record["label"] == block.label for record, block in zip(saved["blocks"], blocks) if not record["changed"]
        )
        assert saved["blocks"][flipped]["xpath"] == extract(html).xpaths()[flipped]
    finally:
        server.__exit__(None, None, None)


HOSTILE = b"""<!DOCTYPE html><html><head><title>Hostile</title>
<base href="http://127.0.0.1:PORT/base/"><meta http-equiv="refresh" content="0; url=/refresh">
<link rel="stylesheet" href="/sheet.css"><link rel="icon" href="/icon.png"><link rel="prefetch" href="/prefetch">
<script src="/script.js"></script><script>fetch('/inline-fetch')</script>
<style>@import url("/import.css"); body { background: url(/background.png); }
@font-face { font-family: x; src: url(/font.woff2); } h1 { font-family: x; }</style></head>
<body onload="fetch('/onload')"><h1 style="background-image: url('/style-attribute.png')">A hostile page</h1>
<article><p onmouseover="fetch('/hover')">The council announced a plan to restore the old market after months of
debate, and residents welcomed the results of a long study on Tuesday evening.</p>
<img src="/image.png" srcset="/srcset.png 2x"><img src="http://127.0.0.1:PORT/absolute.png">
<iframe src="/frame.html"></iframe><object data="/object.swf"></object><video src="/video.mp4" poster="/poster.png">
</video><form action="/submit"><input type="image" src="/input.png"><button>Send</button></form>
<a href="javascript:fetch('/javascript')">link</a><svg><image href="/svg.png"/></svg></p></article>
<noscript><img src="/noscript.png"></noscript></body></html>"""


def test_browser_view_makes_no_network_request(browser, site):
    server, _ = _open_view(browser, site, "/hostile.html", HOSTILE)
    try:
        _assert_only_the_view_loaded(browser, server, "/hostile.html", "article p span[data-w2t]")
        assert browser.execute_script("return document.title") == "web2text view: http://example.test/hostile.html"
    finally:
        server.__exit__(None, None, None)


def test_browser_view_of_the_example_site_loads_nothing_beside_it(browser, example_site):
    """The example article links a style sheet and images that the server beside the view would serve."""
    page_path = "/articles/winter-tomatoes.html"
    assert b"../style.css" in example_site.resources[page_path].body
    server, _ = _open_view(browser, example_site, page_path)
    try:
        _assert_only_the_view_loaded(browser, server, page_path, "#w2t-page span.w2t-content")
    finally:
        server.__exit__(None, None, None)


def _assert_only_the_view_loaded(browser, server, page_path: str, block_selector: str) -> None:
    """Click a block and save the labels, then check that the view was the one request, in the server's count and
    in the browser's own network log."""
    span = browser.find_element("css selector", block_selector)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
    span.click()
    _chrome(browser, "#w2t-save").click()
    _downloaded(browser.downloads, Path(page_path).stem + ".labels.json")
    time.sleep(1.0)  # anything the page would load late
    view = _view_path(page_path)
    assert server.hits == {view: 1}
    requested = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    assert [url for url in requested if not url.startswith(("data:", "blob:"))] == [server.url + view.lstrip("/")]


#: A page whose style sheet restyles every element it can match, the view's own markers and ids included.
RESTYLING = b"""<!DOCTYPE html><html><head><title>Restyled</title><style>
* { outline: 5px solid rgb(0, 128, 0) !important; outline-offset: 0 !important; border: 6px dotted red !important;
    background: rgb(0, 0, 0) !important; color: rgb(255, 255, 255) !important; opacity: 0.5 !important;
    filter: hue-rotate(120deg) !important; font: 30px serif !important; pointer-events: none !important;
    box-shadow: 0 0 0 9px rgb(0, 128, 0) !important; z-index: 2147483647 !important; }
[class], [id], div, button, [popover], :popover-open { display: none !important; visibility: hidden !important; }
.w2t-boilerplate, span[data-w2t] { outline: 5px solid rgb(0, 128, 0) !important; }
span[data-w2t]::after { content: "" !important; position: fixed !important; inset: 0 !important;
    z-index: 2147483647 !important; background: rgb(255, 255, 255) !important; }
html::after, body::before { content: ""; position: fixed; inset: 0; z-index: 2147483647; display: block;
    background: rgb(255, 255, 255); pointer-events: auto !important; }
::b\\61ckdrop { background: rgb(255, 255, 255) !important; }
</style></head><body><nav><ul><li>Home</li><li>News</li><li>Sport</li><li>Weather</li><li>Contact</li></ul></nav>
<article><h1>The market reopens</h1>
<p>The council announced a plan to restore the old market after months of debate, and residents welcomed the
results of a long study on Tuesday evening, which found that the hall could open again by the spring.</p>
<p>Traders who left during the works said they would come back if the rents stayed as they were before the
closure, and the council agreed to hold them for two years while the square around the hall is rebuilt.</p>
</article><footer>Copyright 2024 Example News. All rights reserved. Privacy. Terms.</footer></body></html>"""


def _pixels(browser, x: float, y: float, width: int, height: int) -> list[tuple[int, int, int]]:
    """The colours the browser painted in a rectangle of the viewport (a screenshot, decoded here)."""
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "clip": {"x": x, "y": y, "width": width, "height": height, "scale": 1}},
    )
    return _decode_png(base64.b64decode(shot["data"]))


def _decode_png(data: bytes) -> list[tuple[int, int, int]]:
    """The pixels of an 8-bit RGB or RGBA PNG (what Chromium writes), row after row."""
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    channels = 3 if colour == 2 else 4
    chunks, position = [], 8
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        if kind == b"IDAT":
            chunks.append(data[position + 8 : position + 8 + length])
        position += length + 12
    raw, stride, rows, previous = zlib.decompress(b"".join(chunks)), width * channels, [], bytearray(width * channels)
    for row in range(height):
        kind, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1 : (row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                nearest = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[i] = (line[i] + nearest[2]) & 255
        rows.append(line)
        previous = line
    return [tuple(line[i : i + 3]) for line in rows for i in range(0, stride, channels)]


def _on_top(browser, element) -> bool:
    """Whether nothing is painted over the middle of one of the view's own elements."""
    return browser.execute_script(
        "var box = arguments[0].getBoundingClientRect(), root = document.getElementById('w2t-view').shadowRoot;"
        "return root.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === arguments[0];",
        element,
    )


def test_browser_the_pages_css_cannot_restyle_the_views_outlines_bar_or_save_button(browser, site):
    from selenium.webdriver import ActionChains

    server, html = _open_view(browser, site, "/restyled.html", RESTYLING)
    try:
        blocks = extract(html).blocks
        assert {block.label for block in blocks} == {"content", "boilerplate"}
        host = browser.find_element("id", "w2t-view")
        for name, value in (("display", "block"), ("opacity", "1"), ("filter", "none"), ("visibility", "visible")):
            assert _style(browser, host, name) == value
        bar, save = _chrome(browser, "#w2t-bar"), _chrome(browser, "#w2t-save")
        assert bar.is_displayed() and save.is_displayed() and _on_top(browser, save)
        assert _style(browser, save, "font-size") == "13px" and _style(browser, bar, "background-color") == (
            "rgb(244, 244, 240)"
        )
        spans = _spans(browser)
        assert len(spans) == len(blocks)
        for span in spans:
            block = blocks[int(span.get_attribute("data-w2t"))]
            box = _box(browser, span)
            assert _style(browser, box, "outline-style") == ("solid" if block.label == "content" else "dashed")
            assert _style(browser, box, "outline-color") == (
                "rgb(0, 128, 0)" if block.label == "content" else "rgb(200, 0, 0)"
            )
            assert _style(browser, box, "box-shadow") == "none"
        # what is painted: the content outline green and the boilerplate one red, over the page's white cover
        for label, colour in (("content", (0, 128, 0)), ("boilerplate", (200, 0, 0))):
            span = next(s for s in spans if blocks[int(s.get_attribute("data-w2t"))].label == label)
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
            left, top = browser.execute_script(
                "var r = arguments[0].getBoundingClientRect(); return [r.left, r.top];", _box(browser, span)
            )
            painted = _pixels(browser, int(left) - 4, int(top) + 2, 8, 12)
            near = [pixel for pixel in painted if max(abs(a - b) for a, b in zip(pixel, colour)) <= 24]
            assert len(near) >= 6, (label, left, top, painted)
        # a click still reaches a block under the page's cover, and Save still saves
        paragraph = next(s for s in spans if blocks[int(s.get_attribute("data-w2t"))].text.startswith("Traders"))
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", paragraph)
        ActionChains(browser).move_to_element(paragraph).click().perform()
        assert _style(browser, _box(browser, paragraph), "outline-style") == "dashed"
        assert _chrome(browser, "#w2t-changed").text == "1"
        save.click()
        saved = _downloaded(browser.downloads, "restyled.labels.json")
        flipped = int(paragraph.get_attribute("data-w2t"))
        assert [i for i, block in enumerate(saved["blocks"]) if block["changed"]] == [flipped]
    finally:
        server.__exit__(None, None, None)


OVERLAID = b"""<!DOCTYPE html><html><head><title>Paywall</title><style>
article { position: relative; } .paywall { position: absolute; left: 0; top: 3em; right: 0; height: 40em;
background: rgba(255, 255, 255, 0.92); } .photo { position: absolute; left: 0; top: 0; width: 100%; height: 3em; }
</style></head><body><nav><ul><li>Home</li><li>News</li><li>Sport</li><li>Weather</li><li>Contact</li></ul></nav>
<article><h1>The market reopens</h1><img class="photo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
<p>The council announced a plan to restore the old market after months of debate, and residents welcomed the
results of a long study on Tuesday evening, which found that the hall could open again by the spring.</p>
<p>Traders who left during the works said they would come back if the rents stayed as they were before the
closure, and the council agreed to hold them for two years while the square around the hall is rebuilt.</p>
<div class="paywall">Subscribe to read on. Already a subscriber? Sign in.</div></article>
<footer>Copyright 2024 Example News. All rights reserved. Privacy. Terms.</footer></body></html>"""


def test_browser_a_block_under_an_overlay_is_flipped_by_a_click(browser, site):
    from selenium.webdriver import ActionChains

    server, html = _open_view(browser, site, "/overlaid.html", OVERLAID)
    try:
        blocks = extract(html).blocks
        for start in ("The market", "The council", "Traders"):
            span = next(s for s in _spans(browser) if blocks[int(s.get_attribute("data-w2t"))].text.startswith(start))
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
            covered = browser.execute_script(
                "var r = arguments[0].getBoundingClientRect();"
                "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).tagName;",
                span,
            )
            assert covered in ("DIV", "IMG")  # the page's overlay, not the block, is under the pointer
            label = span.get_attribute("class").split()[-1]
            ActionChains(browser).move_to_element(span).click().perform()
            assert span.get_attribute("class").split()[-1] != label
        assert _chrome(browser, "#w2t-changed").text == "3"
    finally:
        server.__exit__(None, None, None)
