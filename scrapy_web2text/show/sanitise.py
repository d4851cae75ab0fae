"""The page's own markup made safe to open: no scripts, no event handlers, nothing that loads from the network.

The sanitising itself is nh3 (the Python binding of the Rust ``ammonia`` sanitiser, maintained and fuzzed): an
allow-list of tags and attributes, every ``on*`` handler and ``javascript:`` URL gone.  What ammonia does not look
at is CSS, so ``url(...)``, ``image-set(...)`` and ``@import`` in the page's style sheets and ``style`` attributes
are neutralised here, however escaped (``u\72l(``, ``@\69mport``: the CSS is unescaped first), and images keep only
``data:`` sources.  The view's Content-Security-Policy
(:mod:`scrapy_web2text.show.view`) forbids every request on top of that, so a rule missed here still loads nothing.
"""

from __future__ import annotations

import re
from typing import Any

import nh3

#: Layout elements the default allow-list leaves out; forms' controls and embedded content stay out.
EXTRA_TAGS = frozenset({"main", "section", "address", "font", "label", "button", "big", "legend", "fieldset"})
TAGS = frozenset(nh3.ALLOWED_TAGS) | EXTRA_TAGS
#: Removed with their content: what would show as raw text or fallback text once its element is dropped.
DROPPED_WITH_CONTENT = frozenset(
    {"script", "style", "iframe", "noembed", "noframes", "template", "object", "svg", "math", "select", "textarea"}
)
#: Attributes that lay the page out; none loads anything (``href`` and ``cite`` are dropped: nothing navigates).
GLOBAL_ATTRIBUTES = frozenset({"class", "id", "style", "title", "lang", "dir", "align", "valign", "width", "height"})
#: Our block marker: only the spans the view adds carry it (the page's own are removed before).
BLOCK_ATTRIBUTE = "data-w2t"

#: A CSS escape (CSS Syntax 3, "consume an escaped code point": a backslash, then 1-6 hex digits and one optional
#: white space, or a line end, or any other character; or the sheet's end) or a comment, to its end or the sheet's.
#: Possessive throughout, and a comment always matches: one pass over the sheet.
_CSS_ESCAPE_OR_COMMENT = re.compile(
    r"\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?+|(\r\n|[\n\r\f])|(.)|\Z)|/\*(?:[^*]++|\*(?!/))*+(?:\*/|\Z)",
    re.DOTALL,
)
_CSS_URL = re.compile(r"url\(\s*+(?!['\"]?data:)[^)]{0,4096}\)?", re.IGNORECASE)
_CSS_IMAGE_SET = re.compile(r"image-set\(", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"@import\b[^;]{0,4096};?", re.IGNORECASE)
#: The backdrop the top layer draws under the view's own element: the page may not paint it over the page.
_CSS_BACKDROP = re.compile(r"::?backdrop\b", re.IGNORECASE)
#: A ``<`` that would start ``</style`` or ``<style`` inside the sheet.
_STYLE_TAG_START = re.compile(r"<(?=/?\s*+style)", re.IGNORECASE)


def _attributes() -> dict[str, set[str]]:
    allowed = {tag: set(names) - {"href", "cite", "hreflang"} for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
    allowed["*"] = set(GLOBAL_ATTRIBUTES)
    allowed.setdefault("span", set()).add(BLOCK_ATTRIBUTE)
    allowed.setdefault("details", set()).add("open")  # a page shows its open <details>: so does the view
    return allowed


ATTRIBUTES = _attributes()


def neutralise_css(css: str) -> str:
    """``css`` with every ``@import``, non-``data:`` ``url(...)``, ``image-set(...)`` and ``::backdrop`` made inert,
    escaped or not."""
    css = unescape_css(css)
    css = _CSS_IMPORT.sub("", css)
    css = _CSS_URL.sub("none", css)
    css = _CSS_BACKDROP.sub("::x-backdrop", css)
    return _CSS_IMAGE_SET.sub("x-image-set(", css)


def unescape_css(css: str) -> str:
    """``css`` with its escapes replaced by what they stand for and its comments removed, so that the words the
    neutralising looks for are spelt literally.  A comment is removed, not made a space: ``u/**/rl(`` becomes
    ``url(`` and is neutralised, where a browser reads two tokens (over-cautious, never under).  An escaped
    backslash is dropped: kept, it would start a new escape when the browser reads the sheet."""
    if "\\" not in css and "/*" not in css:
        return css
    return _CSS_ESCAPE_OR_COMMENT.sub(_unescaped, css)


def _unescaped(match: re.Match) -> str:
    digits, _, character = match.groups()
    if digits:
        code = int(digits, 16)
        # NUL, surrogates and code points past Unicode are U+FFFD (CSS Syntax 3).
        character = chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return "" if character is None or character == "\\" else character


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "src":
        return value if value[:11].lower().startswith("data:image/") else None
    if attribute == "style":
        return neutralise_css(value)
    return value


def sanitise_body(html: str) -> str:
    """An HTML fragment with only layout markup left (see the module's docstring)."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes=ATTRIBUTES,
        attribute_filter=_filter_attribute,
        link_rel=None,
        url_schemes={"data"},
    )


def style_sheet(texts: list[str]) -> str:
    """The page's ``<style>`` contents as one inert sheet that cannot close its own element."""
    css = "\n".join(neutralise_css(text) for text in texts)
    return _STYLE_TAG_START.sub(r"\\3c ", css).replace("<!--", "\\3c !--")


def strip_view_markers(element: Any) -> None:
    """Remove what could pass for the view's own markup: block markers, ``w2t-`` classes and ids."""
    if BLOCK_ATTRIBUTE in element.attrib:
        del element.attrib[BLOCK_ATTRIBUTE]
    identifier = element.get("id")
    if identifier and identifier.startswith("w2t-"):
        del element.attrib["id"]
    classes = element.get("class")
    if classes and "w2t-" in classes:
        element.set("class", " ".join(name for name in classes.split() if not name.startswith("w2t-")))
