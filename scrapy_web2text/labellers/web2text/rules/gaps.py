"""Gaps in the kept text, filled after the rules that drop blocks have run (:data:`.registry.REGISTRY`): a
documentation page's holes and an article's code listings kept in pieces.

A reference page mixes prose with code, signatures and parameter lists, and the model is unsure of the fragments
between them (p(content) of 0.2 to 0.5 on a Python library's parameter descriptions): the labelling keeps the page's
text with holes in it, and a rule may have dropped a tab's sentence as a repeat of another tab's.
:func:`documentation_gaps` keeps the blocks in those holes: those left out between the first and the last kept
block of the element that holds the page's text, unless they are links (a table of contents), inside a navigation,
footer or complementary landmark, or below :data:`MIN_GAP_PROBABILITY`.

Syntax highlighting splits a code listing into one block per token, which the model scores one by one: an article
keeps the listing's long tokens and drops its brackets and short names (Readability's ``toc-missing`` page kept half
of its SQL).  :func:`listing_remainders` keeps the rest of a ``<pre>`` element some of whose blocks are kept.
"""

from __future__ import annotations

import numpy as np

from ....page import Page
from ....page.nodes import DEPTH, END_BLOCK, FIRST_BLOCK, TAGS_ID
from ..tag_groups import blocks_under
from .furniture import LANDMARK_BITS
from .inputs import page_lengths, tag_names

#: The element that holds the page's text is the deepest one holding this share of the kept characters.
TEXT_ELEMENT_SHARE = 0.8
#: A block in a gap is kept from this p(content) on.
MIN_GAP_PROBABILITY = 0.1


def text_element_range(page: Page, kept: np.ndarray) -> tuple[int, int] | None:
    """The block range (start, end) of the deepest CDOM node holding :data:`TEXT_ELEMENT_SHARE` of the kept
    characters, or ``None`` where the page keeps nothing."""
    table = page.node_table
    if not kept.any() or not len(table):
        return None
    kept_chars = np.concatenate(([0], np.cumsum(np.where(kept, page_lengths(page), 0))))
    inside = kept_chars[table[:, END_BLOCK]] - kept_chars[table[:, FIRST_BLOCK]]
    holders = np.flatnonzero(inside >= TEXT_ELEMENT_SHARE * kept_chars[-1])
    if not len(holders):
        return None
    node = holders[np.argmax(table[holders, DEPTH])]  # the first of the deepest
    return int(table[node, FIRST_BLOCK]), int(table[node, END_BLOCK])


def documentation_gaps(page: Page, labels: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The blocks to keep in the gaps of ``labels`` (the rules' result), as a mask: p(content) of
    :data:`MIN_GAP_PROBABILITY` or more, between the first and the last kept block of the element that holds the
    page's text (:func:`text_element_range`), not in a link, not in a landmark."""
    gaps = np.zeros(len(page), bool)
    kept = labels != 0
    span = text_element_range(page, kept)
    if span is None:
        return gaps
    inside = np.flatnonzero(kept[span[0] : span[1]]) + span[0]
    first, last = int(inside[0]), int(inside[-1])
    gaps[first:last] = True
    gaps &= ~kept & (probabilities >= MIN_GAP_PROBABILITY) & ~page.in_link
    return gaps & ((page.ancestor_tags & LANDMARK_BITS) == 0)


def listing_remainders(page: Page, labels: np.ndarray) -> np.ndarray:
    """The blocks left out of ``<pre>`` elements some of whose blocks ``labels`` keeps, as a mask."""
    table = page.node_table
    if "pre" not in tag_names(page):
        return np.zeros(len(page), bool)
    is_pre = np.fromiter(("pre" in tags for tags in page.distinct_tags), bool, len(page.distinct_tags))
    listings = is_pre[table[:, TAGS_ID]]
    if not listings.any():
        return np.zeros(len(page), bool)
    kept = labels != 0
    kept_before = np.concatenate(([0], np.cumsum(kept)))
    touched = listings & (kept_before[table[:, END_BLOCK]] > kept_before[table[:, FIRST_BLOCK]])
    return blocks_under(page, touched) & ~kept
