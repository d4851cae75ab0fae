"""What the page's own links declare in its body: ``<a rel="license">`` or a link to a Creative Commons licence (a
footer's "CC BY-SA 4.0"), ``rel="category"`` and ``rel="tag"`` links (WordPress writes ``rel="category tag"`` for a
post's categories, ``rel="tag"`` for its tags).

One XPath walk of the page, at most :data:`MAX_LINKS` links looked at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lxml import etree

from .model import MAX_TEXT_CHARS, clean_list, http_url

MAX_LINKS = 200
_REL = "concat(' ', normalize-space(translate(@rel, 'ACEGILNORSTY', 'acegilnorsty')), ' ')"
_LINKS = etree.XPath(
    f"//a[@href][contains({_REL}, ' license ') or contains({_REL}, ' tag ') or contains({_REL}, ' category ')"
    " or contains(@href, 'creativecommons.org/licenses/') or contains(@href, 'creativecommons.org/publicdomain/')]"
)


@dataclass(frozen=True, slots=True)
class BodyLinks:
    license: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


def read_links(root: Any, base: str | None) -> BodyLinks:
    """The licence (a ``rel="license"`` link first, else a Creative Commons link), categories and tags."""
    declared, creative_commons = None, None
    categories: list[str] = []
    tags: list[str] = []
    for link in _LINKS(root)[:MAX_LINKS]:
        relations = (link.get("rel") or "")[:200].lower().split()
        if "license" in relations:
            declared = declared or http_url(link.get("href"), base)
        elif "category" in relations:
            categories.append(_text(link))
        elif "tag" in relations:
            tags.append(_text(link))
        else:
            creative_commons = creative_commons or http_url(link.get("href"), base)
    return BodyLinks(declared or creative_commons, clean_list(categories), clean_list(tags))


def _text(link: Any) -> str:
    parts, size = [], 0
    for text in link.itertext():
        parts.append(text)
        size += len(text)
        if size > MAX_TEXT_CHARS:
            break
    return "".join(parts)[:MAX_TEXT_CHARS]
