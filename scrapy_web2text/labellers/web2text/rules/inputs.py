"""What the steps after the networks read of one page, computed once per page: the blocks' lengths, what the page
declares itself to be, the tag names, class strings and ancestor marks it holds.

The rules, the page-type classifier, the thread test and the second decoding each read the same few per-page
values, and most rules find nothing on most pages: a rule for an element, a class word or a mark that the page
lacks answers from these values without reading its blocks.  :func:`page_memo` keeps them with the page itself
(freed with it, so nothing outlives a crawl's page), keyed by the page's block list: a page whose blocks were
replaced since gets fresh values.  Values are read-only numpy arrays or immutable objects; two threads racing on
one page compute equal values and either is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ....page import Page
from ....page.declared import Declared, declared_kinds
from ..counts import block_lengths

_SLOT = "_web2text_memo"
T = TypeVar("T")


def page_memo(page: Page, key: str, make: Callable[[Page], T]) -> T:
    """``make(page)``, computed on the first call for this page and ``key`` and kept with the page."""
    store = page.__dict__.get(_SLOT)
    if store is None or store[0] is not page.texts or store[1] != len(page.texts):
        store = (page.texts, len(page.texts), {})
        page.__dict__[_SLOT] = store
    values: dict[str, Any] = store[2]
    try:
        return values[key]
    except KeyError:
        value = values[key] = make(page)
        return value


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def page_lengths(page: Page) -> np.ndarray:
    """Each block's length in code points (:func:`~..counts.block_lengths`), read-only."""
    return page_memo(page, "lengths", lambda page: _read_only(block_lengths(page.texts)))


def declared(page: Page) -> Declared:
    """What the page declares itself to be (:func:`~....page.declared.declared_kinds`)."""
    return page_memo(page, "declared", declared_kinds)


def tag_names(page: Page) -> frozenset[str]:
    """Every tag name the page's CDOM nodes hold: a rule for an element the page lacks (a caption, a listing, a
    list's item) finds nothing without reading the nodes."""
    return page_memo(page, "tag_names", lambda page: frozenset().union(*page.distinct_tags))


def joined_attributes(page: Page) -> str:
    """The page's distinct class and id strings, one a line: one string to look for words in."""
    return page_memo(page, "joined_attributes", lambda page: "\n".join(page.distinct_attributes))


def names_any(page: Page, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` is in one of the page's class and id strings (substring searches, faster than a
    pattern's where the answer is no)."""
    attributes = joined_attributes(page)
    return any(word in attributes for word in words)


def marks_on_page(page: Page) -> tuple[int, int]:
    """The ancestor tag marks and the class/id keyword marks that some block of the page has (``page.ancestor_tags``
    and ``page.ancestor_keywords``, each or-ed over the blocks): a rule for a mark no block has finds nothing."""

    def union(page: Page) -> tuple[int, int]:
        if not len(page.ancestor_tags):
            return 0, 0
        return int(np.bitwise_or.reduce(page.ancestor_tags)), int(np.bitwise_or.reduce(page.ancestor_keywords))

    return page_memo(page, "marks_on_page", union)
