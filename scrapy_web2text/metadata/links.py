"""What the page's own links declare in its body: ``<a rel="license">`` or a link to a Creative Commons licence (a
footer's "CC BY-SA 4.0"), ``rel="category"`` and ``rel="tag"`` links (WordPress writes ``rel="category tag"`` for a
post's categories, ``rel="tag"`` for its tags).

One pass over the page's ``<a>`` elements, at most :data:`MAX_LINKS` of them read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from .model import MAX_TEXT_CHARS, clean_list, http_url

MAX_LINKS = 200
#: ``<a>`` elements looked at (a page of more links is read up to here).
MAX_ANCHORS = 5000
_CREATIVE_COMMONS = ("creativecommons.org/licenses/", "creativecommons.org/publicdomain/")


@dataclass(frozen=True, slots=True)
class BodyLinks:
    license: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[Any, ...] = ()  # the first <a rel="author"> elements (read by .visible.rel_authors)


def read_links(root: Any, base: str | None) -> BodyLinks:
    """The licence (a ``rel="license"`` link first, else a Creative Commons link), categories, tags and the
    ``rel="author"`` links, in one pass over the page's ``<a>`` elements (an XPath's string tests on each link cost
    more)."""
    declared, creative_commons = None, None
    categories: list[str] = []
    tags: list[str] = []
    authors: list[Any] = []
    matched = 0
    for link in islice(root.iter("a"), MAX_ANCHORS):
        href, rel = link.get("href"), link.get("rel")
        if not href or not (rel or "creativecommons.org/" in href):
            continue
        matched += 1
        if matched > MAX_LINKS:
            break
        relations = (rel or "")[:200].lower().split()
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
