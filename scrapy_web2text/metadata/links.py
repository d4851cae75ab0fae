"""What the page's own links declare in its body: ``<a rel="license">`` or a link to a Creative Commons licence (a
footer's "CC BY-SA 4.0"), ``rel="category"`` and ``rel="tag"`` links (WordPress writes ``rel="category tag"`` for a
post's categories, ``rel="tag"`` for its tags).

At most :data:`MAX_LINKS` links of each kind are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lxml import etree

from .model import MAX_TEXT_CHARS, clean_list, http_url

MAX_LINKS = 200
#: Links with a ``rel`` (a plain attribute test: XPath string functions on each link of a page cost more than the
#: rest of the reading), and links to creativecommons.org on a page whose text names it.
#: (``/descendant::`` walks the tree once; ``//`` first collects every node of the page, then their children.)
_REL_LINKS = etree.XPath("/descendant::a[@rel][@href]")
_CC_LINKS = etree.XPath("/descendant::a[contains(@href, 'creativecommons.org/')]")
_CREATIVE_COMMONS = ("creativecommons.org/licenses/", "creativecommons.org/publicdomain/")


@dataclass(frozen=True, slots=True)
class BodyLinks:
    license: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[Any, ...] = ()  # the first <a rel="author"> elements (read by .visible.rel_authors)


def read_links(root: Any, base: str | None, source: str | None = None) -> BodyLinks:
    """The licence (a ``rel="license"`` link first, else a Creative Commons link), categories, tags and the
    ``rel="author"`` links (the Creative Commons links looked for only where the page's ``source`` text names the
    site)."""
    declared, creative_commons = None, None
    categories: list[str] = []
    tags: list[str] = []
    authors: list[Any] = []
    links = _REL_LINKS(root)[:MAX_LINKS]
    if source is None or "creativecommons.org/" in source:
        links += _CC_LINKS(root)[:MAX_LINKS]
    for link in links:
        href = link.get("href") or ""
        relations = (link.get("rel") or "")[:200].lower().split()
        if "license" in relations:
            declared = declared or http_url(href, base)
        elif "category" in relations:
            categories.append(_text(link))
        elif "tag" in relations:
            tags.append(_text(link))
        elif "author" in relations:
            authors.append(link)
        elif any(part in href for part in _CREATIVE_COMMONS):
            creative_commons = creative_commons or http_url(href, base)
    return BodyLinks(declared or creative_commons, clean_list(categories), clean_list(tags), tuple(authors[:10]))


def _text(link: Any) -> str:
    parts, size = [], 0
    for text in link.itertext():
        parts.append(text)
        size += len(text)
        if size > MAX_TEXT_CHARS:
            break
    return "".join(parts)[:MAX_TEXT_CHARS]
