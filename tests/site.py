"""A generated news site and a loopback HTTP server, for tests and benchmarks.

>>> site = build_site(articles=3)
>>> sorted(site.expected)[:1]
['/article/0.html']

:class:`LoopbackServer` serves a :class:`Site` on ``127.0.0.1`` only, from a
background thread, optionally answering each request after ``delay``
seconds (to stand in for network latency).  Nothing here needs Scrapy.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: Navigation entries; their words never occur in the generated article text.
NAVIGATION = ("Homepage", "Worldwide Desk", "Business Desk", "Gadget Corner", "Weekend Magazine", "Subscribe Today")
SIDEBAR = ("Most popular", "Trending quizzes", "Horoscope widget", "Crossword archive")
COOKIE_BANNER = "We use cookies to improve your experience. Accept all cookies or manage preferences."

_SUBJECTS = [
    "the council",
    "the new bridge",
    "local farmers",
    "the research team",
    "the museum",
    "our reporter",
    "the river",
    "city planners",
    "the school board",
    "volunteers",
    "the orchestra",
    "engineers",
    "the harbour authority",
    "residents",
]
_VERBS = [
    "announced",
    "discovered",
    "argued",
    "explained",
    "reported",
    "described",
    "measured",
    "questioned",
    "welcomed",
    "rejected",
    "proposed",
    "examined",
]
_OBJECTS = [
    "a plan to restore the old market",
    "the results of a long study",
    "changes to the bus timetable",
    "a surprising rise in rainfall",
    "the cost of the repairs",
    "new rules for cyclists",
    "the history of the harbour",
    "a proposal for more green space",
    "the findings of the inspection",
    "plans for a summer festival",
]
_TAILS = [
    "after months of debate",
    "despite strong objections",
    "on Tuesday evening",
    "in a statement to the press",
    "according to public records",
    "for the first time in a decade",
    "while critics remained unconvinced",
    "as the deadline approached",
]


def _sentence(rng: random.Random) -> str:
    text = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    if rng.random() < 0.7:
        text += f", {rng.choice(_TAILS)}"
    if rng.random() < 0.3:
        text += f", and {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(_sentence(rng) for _ in range(sentences))


@dataclass
class Resource:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200


@dataclass
class Site:
    """Paths to resources; ``expected`` maps each article path to its body paragraphs."""

    resources: dict[str, Resource] = field(default_factory=dict)
    expected: dict[str, list[str]] = field(default_factory=dict)

    @property
    def html_paths(self) -> list[str]:
        return [p for p, r in self.resources.items() if r.status == 200 and r.content_type.startswith("text/html")]


def _chrome(title: str, main: str, rng: random.Random, prefix: str = "/") -> str:
    nav = "".join(f'<li><a href="{prefix}index.html">{entry}</a></li>' for entry in NAVIGATION)
    side = "".join(f'<li><a href="{prefix}index.html">{entry}</a></li>' for entry in SIDEBAR)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font-family: serif; }}</style>
<script>var tracking = {{id: {rng.randint(1, 9999)}}};</script></head>
<body>
<div class="cookie-banner" id="cookies"><p>{COOKIE_BANNER}</p><button>Accept</button><button>Settings</button></div>
<header class="site-header"><a class="logo" href="{prefix}index.html">The Daily Example</a>
<nav class="main-nav"><ul>{nav}</ul></nav></header>
<div class="layout">
<main>{main}</main>
<aside class="sidebar"><h3>Elsewhere</h3><ul>{side}</ul><div class="ad">Advertisement</div></aside>
</div>
<footer><ul><li><a href="{prefix}index.html">Imprint</a></li>
<li><a href="{prefix}index.html">Privacy policy</a></li></ul>
<p>Copyright 2024 The Daily Example Ltd. All rights reserved.</p></footer>
</body></html>
"""


def article_page(number: int, rng: random.Random, prefix: str = "/") -> tuple[str, list[str]]:
    """An article with navigation, sidebar, comments and a cookie banner; returns (html, body paragraphs)."""
    title = f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
    body = [paragraph(rng, rng.randint(3, 6)) for _ in range(rng.randint(4, 8))]
    comments = "".join(
        f'<li class="comment"><span class="author">reader{rng.randint(1, 999)}</span>'
        f'<span class="date">2 days ago</span>'
        f"<p>{rng.choice(['Great read!', 'I disagree.', 'Thanks for sharing.'])}</p>"
        '<a href="#reply">Reply</a></li>'
        for _ in range(rng.randint(2, 5))
    )
    main = (
        f'<article><h1>{title}</h1><p class="byline">By Staff Writer, 12 March 2024</p>'
        + "".join(f"<p>{text}</p>" for text in body)
        + f'</article><section class="comments"><h2>Comments</h2><ul>{comments}</ul></section>'
        + f'<div class="share"><a href="{prefix}index.html">Share</a> <a href="{prefix}index.html">Tweet</a></div>'
    )
    return _chrome(title, main, rng, prefix), body


def listing_page(
    links: list[tuple[str, str]], rng: random.Random, next_href: str | None = None, prefix: str = "/"
) -> str:
    items = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    more = f'<a class="next" href="{next_href}">Older stories</a>' if next_href else ""
    return _chrome("Latest stories", f"<h1>Latest stories</h1><ul class='stories'>{items}</ul>{more}", rng, prefix)


# A tiny valid PDF and PNG, enough for content sniffing.
PDF_BYTES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
PNG_BYTES = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
#: A forum thread rendered by scripts, its posts kept for readers without JavaScript in one <noscript> (Discourse).
SCRIPT_RENDERED_THREAD = (
    "<html><head><title>Build fails after the update</title></head><body><section id='splash'></section>"
    "<noscript><div id='main-outlet' role='main'><h1>Build fails after the update</h1>"
    + "".join(
        f"<div class='topic-body crawler-post'><span class='creator'>user{n}</span>"
        f"<p>Post {n}: the build stopped after the update, and clearing the cache did not help at all. "
        "Pinning the runtime to the previous version made it pass again on every branch we tried.</p></div>"
        for n in range(6)
    )
    + "</div></noscript><script>start()</script></body></html>"
).encode("utf-8")

BROKEN_HTML = (
    b"<html><head><title>Broken</title><body><div><p>This page was cut off in transit and its markup "
    b"never closes, \xff\xfe\x00 bytes that are not UTF-8 included.<div><table><tr><td><p>Half a sentence"
    b"<a href='/index.html'>a link<li><ul></p></div></td>\x00\x01<script>unterminated("
)


def build_site(articles: int = 50, seed: int = 0, per_listing: int = 10, extras: bool = True) -> Site:
    """``articles`` article pages reachable from ``/index.html`` through paginated listings.

    With ``extras``: a PDF, a PNG, a broken HTML page and a forum thread whose posts sit in ``<noscript>``
    linked from the first listing, and a link to a missing page (404).
    """
    rng = random.Random(seed)
    site = Site()
    for number in range(articles):
        html, body = article_page(number, rng)
        path = f"/article/{number}.html"
        site.resources[path] = Resource(html.encode("utf-8"))
        site.expected[path] = body
    listings = max(1, -(-articles // per_listing))
    for page in range(listings):
        chunk = range(page * per_listing, min(articles, (page + 1) * per_listing))
        links = [(f"/article/{n}.html", f"Story number {n}") for n in chunk]
        if extras and page == 0:
            links += [
                ("/files/report.pdf", "Annual report (PDF)"),
                ("/images/chart.png", "Chart"),
                ("/broken.html", "Broken page"),
                ("/forum/thread.html", "A forum thread"),
                ("/missing.html", "Missing page"),
            ]
        next_href = f"/listing/{page + 1}.html" if page + 1 < listings else None
        path = "/index.html" if page == 0 else f"/listing/{page}.html"
        site.resources[path] = Resource(listing_page(links, rng, next_href).encode("utf-8"))
    if extras:
        site.resources["/files/report.pdf"] = Resource(PDF_BYTES, "application/pdf")
        site.resources["/images/chart.png"] = Resource(PNG_BYTES, "image/png")
        site.resources["/broken.html"] = Resource(BROKEN_HTML, "text/html")
        site.resources["/forum/thread.html"] = Resource(SCRIPT_RENDERED_THREAD, "text/html")
    return site


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.server.delay:
            time.sleep(self.server.delay)
        path = self.path.split("?", 1)[0]
        if "://" in path:  # asked as a proxy (meta "proxy"): every host gets the same site
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        if path == "/":
            path = "/index.html"
        resource = self.server.site.resources.get(path) or Resource(b"<html><body>Not found</body></html>", status=404)
        self.send_response(resource.status)
        self.send_header("Content-Type", resource.content_type)
        self.send_header("Content-Length", str(len(resource.body)))
        self.end_headers()
        self.wfile.write(resource.body)
        with self.server.lock:
            self.server.hits[path] = self.server.hits.get(path, 0) + 1

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - quiet
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, site: Site, delay: float):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site, self.delay = site, delay
        self.lock = threading.Lock()
        self.hits: dict[str, int] = {}


class LoopbackServer:
    """Serve ``site`` on 127.0.0.1 (a free port) from a thread; use as a context manager."""

    def __init__(self, site: Site, delay: float = 0.0):
        self._server = _Server(site, delay)
        self._thread = threading.Thread(target=self._server.serve_forever, name="loopback-site", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    @property
    def hits(self) -> dict[str, int]:
        return self._server.hits

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def write_site(site: Site, directory: str | Path) -> Path:
    """Write the site's files under ``directory``; returns the index path."""
    root = Path(directory)
    for path, resource in site.resources.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(resource.body)
    return root / "index.html"
