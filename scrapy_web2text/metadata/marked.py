"""Authors marked outside the byline's windows (:mod:`.visible`): a ``<meta itemprop="author">`` outside any item
(microdata reads those inside), an article item's author where extruct is not installed, an ``<a rel="author">``.
At most :data:`~.visible.MAX_MARKED` of each are looked at.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lxml import etree

from .names import is_name, trimmed
from .visible import BYLINE_START, MAX_MARKED, bounded_text, in_chrome, looks_like_name, of_this_text, split_names

_ITEMPROP_AUTHORS = etree.XPath('/descendant::*[@itemprop="author"][not(ancestor-or-self::*[@itemscope])]')
#: The authors of an article's microdata item, for a reading without extruct (which reads the items whole).
_ITEM_AUTHORS = etree.XPath(
    '/descendant::*[@itemscope][contains(@itemtype, "Article") or contains(@itemtype, "Posting")]'
    '/descendant::*[@itemprop="author"]'
)
_ITEM_NAME = etree.XPath('.//*[@itemprop="name"]')


def itemprop_authors(root: Any, named: bool = True) -> tuple[str, ...]:
    """The names of the first ``itemprop="author"`` outside an item: a ``<meta>``'s content, else its text (not
    looked for where the page's source text does not name one: ``named``, :func:`~.walk.source_names`)."""
    if not named:
        return ()
    return _names_of([element for element in _ITEMPROP_AUTHORS(root)[:MAX_MARKED] if not in_chrome(element)])


def item_authors(root: Any, named: bool = True) -> tuple[str, ...]:
    """The names of the first ``itemprop="author"`` of an article's microdata item outside a comment section (a
    ``Person`` item's ``name``), read where extruct, which reads microdata whole, is not installed (``named``: as
    :func:`itemprop_authors`)."""
    if not named:
        return ()
    authors = []
    for element in _ITEM_AUTHORS(root)[:MAX_MARKED]:
        if element.get("itemscope") is not None:
            element = next(iter(_ITEM_NAME(element)), None)
        if element is not None and of_this_text(element):
            authors.append(element)
    return _names_of(authors)


def _names_of(elements: Sequence[Any]) -> tuple[str, ...]:
    """The names of the first of ``elements`` that holds any: a ``<meta>``'s content, else its text."""
    for element in elements:
        value = element.get("content") if element.tag == "meta" else bounded_text(element)
        match = BYLINE_START.match(value or "")
        names = tuple(name for name in split_names(match.group(1) if match else value or "") if is_name(name))
        if names:
            return names[:5]
    return ()


def rel_authors(links: Sequence[Any]) -> tuple[str, ...]:
    """The full names of the first of the ``<a rel="author">`` ``links`` outside a comment section and the site's
    chrome (a sidebar's profile widget names the blog's owner), and of its siblings'."""
    links = [link for link in links[:MAX_MARKED] if of_this_text(link)]
    if not links:
        return ()
    parent = links[0].getparent()
    texts = (trimmed(bounded_text(link) or "") for link in links if link.getparent() is parent)
    return tuple(dict.fromkeys(name for name in texts if " " in name and looks_like_name(name)))[:5]
