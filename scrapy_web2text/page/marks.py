"""Ancestor marks that come from attributes, and the ``<head>``'s titles (read while the CDOM is walked); after the
walk, the hidden mark of a wrapper around nearly the whole page is taken off (:func:`unmark_page_wrapper`)."""

from __future__ import annotations

import re

import numpy as np
from lxml import etree

from .tags import ANCESTOR_TAG_BITS, ANCESTOR_TAGS

#: Ancestor marks from attributes, after the tag bits: the element is hidden
#: (``hidden``, ``aria-hidden="true"``, inline ``display:none`` or
#: ``visibility:hidden``), or it declares the main content (``role="main"``,
#: ``itemprop="articleBody"``), or it is a dialog over the page (``role="dialog"`` or ``"alertdialog"``,
#: ``aria-modal="true"``: a cookie consent, a sign-up or log-in prompt).  Landmark roles mark like their tags.  The
#: networks read the hidden and main-content marks; the dialog mark and the widget mark (an interface widget by its
#: ARIA role: a menu or menu bar, a toolbar, a tooltip, a combo box, a status line, a marquee) are read by rules only.
HIDDEN_BIT = 1 << len(ANCESTOR_TAGS)
MAIN_CONTENT_BIT = 1 << (len(ANCESTOR_TAGS) + 1)
DIALOG_BIT = 1 << (len(ANCESTOR_TAGS) + 2)
WIDGET_BIT = 1 << (len(ANCESTOR_TAGS) + 3)
#: The marks the networks never read (:func:`..labellers.web2text.tag_groups.ancestor_marks` leaves them out).
RULE_ONLY_BITS = DIALOG_BIT | WIDGET_BIT
_ROLE_BITS = {
    "main": MAIN_CONTENT_BIT | ANCESTOR_TAG_BITS["main"],
    "navigation": ANCESTOR_TAG_BITS["nav"],
    "contentinfo": ANCESTOR_TAG_BITS["footer"],
    "banner": ANCESTOR_TAG_BITS["header"],
    "complementary": ANCESTOR_TAG_BITS["aside"],
    "article": ANCESTOR_TAG_BITS["article"],
    "dialog": DIALOG_BIT,
    "alertdialog": DIALOG_BIT,
    **dict.fromkeys(("menu", "menubar", "menuitem", "toolbar", "tooltip", "combobox", "status", "marquee"), WIDGET_BIT),
}
_HIDDEN_STYLE = re.compile(r"display\s*+:\s*+none|visibility\s*+:\s*+hidden")
#: Attributes that can set those marks: elements with none of them skip the look-ups.
MARKING_ATTRIBUTES = frozenset({"hidden", "aria-hidden", "aria-modal", "style", "role", "itemprop"})


def attribute_marks(get) -> int:
    """Hidden / main-content / dialog / landmark bits of one element's attributes."""
    mask = HIDDEN_BIT if _hidden_by_attributes(get) else 0
    if get("aria-modal") == "true":
        mask |= DIALOG_BIT
    role = get("role")
    if role:
        mask |= _ROLE_BITS.get(role.strip().lower(), 0)
    itemprop = get("itemprop")
    if itemprop and "articlebody" in itemprop.lower():
        mask |= MAIN_CONTENT_BIT
    return mask


def _hidden_by_attributes(get) -> bool:
    """Whether the element hides itself: the walk's hidden mark, and what :func:`unmark_page_wrapper` counts."""
    if get("hidden") is not None or get("aria-hidden") == "true":
        return True
    style = get("style")
    return bool(style and ("none" in style or "hidden" in style) and _HIDDEN_STYLE.search(style.lower()))


#: A hidden element that holds at least this share of the page's text hides the page itself until its scripts run
#: (an anti-flicker wrapper such as ``<div style="visibility:hidden">`` around the whole body, an app shell): a reader
#: sees that text, so the element's mark is taken off.  Hidden elements inside it keep theirs.
PAGE_WRAPPER_SHARE = 0.9


def unmark_page_wrapper(page) -> None:
    """Take the hidden mark off the blocks whose only hidden ancestor holds :data:`PAGE_WRAPPER_SHARE` of the text.

    Pages with less hidden text than that (nearly all) return at once; the others cost one pass over the tree."""
    hidden = (page.ancestor_tags & HIDDEN_BIT) != 0
    if not hidden.any():  # most pages
        return
    lengths = np.fromiter(map(len, page.texts), np.int64, len(page.texts))
    total = int(lengths.sum())
    if not total or int(lengths[hidden].sum()) < PAGE_WRAPPER_SHARE * total:
        return
    owners, outermost = _hidden_owners(page)
    inside = outermost >= 0
    outers, compact = np.unique(outermost[inside], return_inverse=True)
    chars = np.bincount(compact, weights=lengths[inside], minlength=len(outers))
    for wrapper in outers[chars >= PAGE_WRAPPER_SHARE * total]:  # one at most: the share is over a half
        unmark = (outermost == wrapper) & (owners == 1)
        page.ancestor_tags = np.where(unmark, page.ancestor_tags & ~HIDDEN_BIT, page.ancestor_tags)


def _hidden_owners(page) -> tuple[np.ndarray, np.ndarray]:
    """Per block, how many elements around its text are hidden by their own attributes, and the outermost one's
    number in document order (-1: none)."""
    where = {(id(element), is_tail): block for block, (element, is_tail) in enumerate(page.block_elements)}
    owners = np.zeros(len(page.texts), np.int64)
    outermost = np.full(len(page.texts), -1, np.int64)
    open_hidden: list = []  # the hidden elements open at this point of the walk, outermost first
    outer_number = -1
    for number, (event, element) in enumerate(etree.iterwalk(page.root, events=("start", "end"))):
        if event == "start":
            keys = element.keys() if isinstance(element.tag, str) else ()
            if keys and not MARKING_ATTRIBUTES.isdisjoint(keys) and _hidden_by_attributes(element.get):
                if not open_hidden:
                    outer_number = number
                open_hidden.append(element)
            block = where.get((id(element), False))
        else:
            if open_hidden and open_hidden[-1] is element:
                open_hidden.pop()
            block = where.get((id(element), True))  # the tail lies outside the element
        if block is not None and open_hidden:
            owners[block], outermost[block] = len(open_hidden), outer_number
    return owners, outermost


#: The tags that steps after the walk look up in the whole tree (the ``<noscript>`` check, the page type's
#: ``<article>`` count, the headline's metadata title): each lookup is a pass over every node of the tree, so they
#: are found together, once (:func:`tagged_elements`).
LOOKED_UP_TAGS = ("noscript", "article", "meta", "title")


def tagged_elements(root) -> dict[str, list] | None:
    """The elements under ``root`` (itself included) of each of :data:`LOOKED_UP_TAGS`, in document order, as
    ``root.iter(tag)`` finds them; ``None`` where one's tag is spelled otherwise (a namespace)."""
    found: dict[str, list] = {tag: [] for tag in LOOKED_UP_TAGS}
    for element in root.iter(*LOOKED_UP_TAGS):
        elements = found.get(element.tag)
        if elements is None:
            return None
        elements.append(element)
    return found


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
