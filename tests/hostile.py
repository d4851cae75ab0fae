"""Hostile pages (issue 10): each one froze, killed or emptied a crawl before the fixes.

Shared by the regression tests (tests/extraction/test_hostile.py), the crawl test (tests/integration/test_faults.py) and
``research/hostile_crawl.py``.  ``scale`` multiplies the sizes: 1.0 gives the sizes of the issue.
"""

from __future__ import annotations

from tests.site import Resource


def _page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>Hostile</title>{head}</head><body>{body}</body></html>"


def hostile_pages(scale: float = 1.0) -> dict[str, Resource]:
    """Path → resource for every hostile page; the text ``Readable words`` is on each page."""

    def size(n: int) -> int:
        return max(10, int(n * scale))

    words = "<p>Readable words stay in the text of this page.</p>"
    utf8 = "text/html; charset=utf-8"
    pages: dict[str, tuple[str | bytes, str]] = {
        # A run of dots with no space after it (the sentence pattern was quadratic: 30,000 dots took 12-17 s).
        "dots": (_page(words + "<p>" + "." * size(30_000) + "x</p>"), utf8),
        # a.a.a... before an "@" (the e-mail pattern was quadratic).
        "email-dots": (_page(words + "<p>" + "a." * size(30_000) + "</p><p>mail x@y.z</p>"), utf8),
        "email-ats": (_page(words + "<p>" + "x@" * size(30_000) + "x.</p>"), utf8),
        # 100,000 attributes on one element: 12 s inside libxml2.
        "many-attributes": (
            _page(words + "<div " + " ".join(f"a{i}" for i in range(size(100_000))) + ">inside</div>"),
            utf8,
        ),
        # A 200 KB class token around 5,000 paragraphs: 1 GB of tag paths.
        "long-class": (
            _page(words + f'<div class="{"k" * size(200_000)}">' + "<p>Short paragraph.</p>" * size(5_000) + "</div>"),
            utf8,
        ),
        # Charsets Python cannot look up: response.text raised, the items were lost.
        "charset-undefined": (_page(words).encode(), "text/html; charset=undefined"),
        "charset-punycode": (_page(words).encode(), "text/html; charset=punycode"),
        "meta-undefined": (_page(words, '<meta charset="undefined">').encode(), "text/html"),
        "meta-punycode": (_page(words, '<meta charset="punycode">').encode(), "text/html"),
        # WHATWG rules: a utf-16 meta on an ASCII page means utf-8; utf-7 is never obeyed.
        "meta-utf16": (_page(words, '<meta charset="utf-16">').encode(), "text/html"),
        "meta-utf7": (
            _page(words + "<p>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</p>", '<meta charset="utf-7">').encode(),
            "text/html",
        ),
        # A body cut inside its last UTF-8 character.
        "cut-utf8": (
            _page(words + "<p>caf\u00e9 cr\u00e8me</p>").encode()[: -len("</p></body></html>") - 1],
            "text/html",
        ),
        # Deep nesting, then comment and attribute forms libxml2 reads differently from the old flattener.
        "deep-comments": (
            "<div>" * 3000 + words + '<!--><!---><!-- x --!><div ="x>' + "<div>" * 3000 + "<p>After the forms.</p>",
            utf8,
        ),
        # Noncharacters (not XML).
        "noncharacters": (_page(words + "<p>bad \ufffe and \uffff here</p>"), utf8),
        # A DOCTYPE internal subset over 64 KB.
        "doctype-subset": (
            "<!DOCTYPE html [" + '<!ENTITY e "v">' * size(6_000) + "]>" + _page(words)[len("<!DOCTYPE html>") :],
            utf8,
        ),
        # Many small inline blocks on one line (join_main_text was quadratic).
        "inline-blocks": (_page(words + "<p>" + "<b>word</b> " * size(5_000) + "</p>"), utf8),
    }
    return {
        f"/hostile/{name}.html": Resource(body if isinstance(body, bytes) else body.encode("utf-8"), content_type)
        for name, (body, content_type) in pages.items()
    }
