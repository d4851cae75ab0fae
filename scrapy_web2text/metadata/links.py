"""What the page's own links declare in its body: ``<a rel="license">`` or a link to a Creative Commons licence (a
footer's "CC BY-SA 4.0"), ``rel="category"`` and ``rel="tag"`` links (WordPress writes ``rel="category tag"`` for a
post's categories, ``rel="tag"`` for its tags).

At most :data:`MAX_LINKS` links of each kind are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model import MAX_TEXT_CHARS, clean_list, http_url
from .walk import PageElements

MAX_LINKS = 200
_CREATIVE_COMMONS = ("creativecommons.org/licenses/", "creativecommons.org/publicdomain/")


@dataclass(frozen=True, slots=True)
class BodyLinks:
    license: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[Any, ...] = ()  # the first <a rel="author"> elements (read by .visible.rel_authors)


def read_links(found: PageElements, base: str | None) -> BodyLinks:
    """The licence (a ``rel="license"`` link first, else a Creative Commons link), categories, tags and the
    ``rel="author"`` links, from the page's links with a ``rel`` and its Creative Commons links (``found``)."""
    declared, creative_commons = None, None
    categories: list[str] = []
    tags: list[str] = []
    authors: list[Any] = []
    links = found.rel_links[:MAX_LINKS] + found.creative_commons_links[:MAX_LINKS]
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
