"""Ancestor marks that come from attributes, and the ``<head>``'s titles (read while the CDOM is walked)."""

from __future__ import annotations

import re

from .tags import ANCESTOR_TAG_BITS, ANCESTOR_TAGS

#: Ancestor marks from attributes, after the tag bits: the element is hidden
#: (``hidden``, ``aria-hidden="true"``, inline ``display:none`` or
#: ``visibility:hidden``), or it declares the main content (``role="main"``,
#: ``itemprop="articleBody"``).  Landmark roles mark like their tags.
HIDDEN_BIT = 1 << len(ANCESTOR_TAGS)
MAIN_CONTENT_BIT = 1 << (len(ANCESTOR_TAGS) + 1)
_ROLE_BITS = {
    "main": MAIN_CONTENT_BIT | ANCESTOR_TAG_BITS["main"],
    "navigation": ANCESTOR_TAG_BITS["nav"],
    "contentinfo": ANCESTOR_TAG_BITS["footer"],
    "banner": ANCESTOR_TAG_BITS["header"],
    "complementary": ANCESTOR_TAG_BITS["aside"],
    "article": ANCESTOR_TAG_BITS["article"],
}
_HIDDEN_STYLE = re.compile(r"display\s*+:\s*+none|visibility\s*+:\s*+hidden")
#: Attributes that can set those marks: elements with none of them skip the look-ups.
MARKING_ATTRIBUTES = frozenset({"hidden", "aria-hidden", "style", "role", "itemprop"})


def attribute_marks(get) -> int:
    """Hidden / main-content / landmark bits of one element's attributes."""
    mask = 0
    if get("hidden") is not None or get("aria-hidden") == "true":
        mask |= HIDDEN_BIT
    style = get("style")
    if style and ("none" in style or "hidden" in style) and _HIDDEN_STYLE.search(style.lower()):
        mask |= HIDDEN_BIT
    role = get("role")
    if role:
        mask |= _ROLE_BITS.get(role.strip().lower(), 0)
    itemprop = get("itemprop")
    if itemprop and "articlebody" in itemprop.lower():
        mask |= MAIN_CONTENT_BIT
    return mask


def first_head(root):
    """The page's first ``<head>`` element, or ``None``."""
    if root.tag == "head":
        return root
    if len(root) and root[0].tag == "head":
        return root[0]  # where the parser puts it; an iterator would look ahead through the whole page for a second
    return next(root.iter("head"), None)


def head_titles(root) -> tuple[str, str]:
    """The first ``<title>`` and ``og:title`` of the page's first ``<head>``, whitespace-collapsed ("" if none)."""
    title = og_title = ""
    head = first_head(root)
    for element in head.iter("title", "meta") if head is not None else ():
        if element.tag == "title" and not title:
            title = " ".join("".join(element.itertext()).split())
        elif element.tag == "meta" and not og_title and element.get("property", "").lower() == "og:title":
            og_title = " ".join((element.get("content") or "").split())
    return title[:1000], og_title[:1000]
