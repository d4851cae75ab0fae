"""Page furniture that the labelling as a whole shows not to be main text: text no reader sees, readers' comments,
buyers' reviews.

:func:`hidden_blocks`, :func:`comment_sections` and :func:`review_sections` take a page and its decoded labels and
return the kept blocks they find, as a mask; :mod:`.after_decoding` runs the first two on pages typed as articles
(on a forum the replies are the content; on a shop's page hidden tabs often are) and the third on product pages.
Rules tried beside them and not shipped are in ``benchmarks/furniture_candidates.py``
(docs/research/quality-round3.rst).
"""

from __future__ import annotations

import re

import numpy as np

from ...page import Page
from ...page.marks import HIDDEN_BIT
from ...page.tags import ANCESTOR_KEYWORD_BITS
from .counts import block_lengths

#: Kept hidden text holding at least this share of the kept characters stays: it is what the page has.
MAX_HIDDEN_SHARE = 0.5


def longest_kept(kept: np.ndarray, lengths: np.ndarray) -> int:
    """The index of the longest kept block (the first of equals); ``kept`` holds at least one block."""
    return int(np.argmax(np.where(kept, lengths, -1)))


def hidden_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element that hides itself by attribute (``hidden``, ``aria-hidden="true"``, inline
    ``display:none`` / ``visibility:hidden``), unless they hold :data:`MAX_HIDDEN_SHARE` of the kept text or more."""
    kept = labels != 0
    hidden = kept & ((page.ancestor_tags & HIDDEN_BIT) != 0)
    if hidden.any():
        lengths = block_lengths(page.texts)
        if lengths[hidden].sum() >= MAX_HIDDEN_SHARE * lengths[kept].sum():
            hidden[:] = False
    return hidden


_COMMENT_BIT = ANCESTOR_KEYWORD_BITS["comment"]
#: Comments are dropped only where at least this many kept characters lie outside them: the post they answer.
MIN_TEXT_OUTSIDE_COMMENTS = 100


def comment_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element whose class or id names comments or replies (``comment``, ``repl``,
    ``discuss``), unless the longest kept block is one of them (the page is its comments) or less than
    :data:`MIN_TEXT_OUTSIDE_COMMENTS` kept characters lie outside them."""
    kept = labels != 0
    return _unless_the_page_is_theirs(kept, kept & ((page.ancestor_keywords & _COMMENT_BIT) != 0), page)


#: Class or id words of the elements that hold buyers' reviews and ratings ("testimonial" is not one: on a product
#: page those are as often press quotes that belong to its description).  The walk lower-cases class and id.
REVIEW_WORDS = re.compile(r"review|rating")


def review_sections(page: Page, labels: np.ndarray, words: re.Pattern = REVIEW_WORDS) -> np.ndarray:
    """Kept blocks under an element whose class or id holds one of ``words`` (reviews or ratings), with
    :func:`comment_sections`' guards: a product's reviews are to its page what readers' comments are to an
    article."""
    kept = labels != 0
    return _unless_the_page_is_theirs(kept, kept & under_attributes(page, words), page)


def under_attributes(page: Page, words: re.Pattern) -> np.ndarray:
    """The blocks under a CDOM node whose class or id (those of the elements collapsed into it too) holds one of
    ``words`` (lower-case literals, no line break): each such node's blocks are one range of block numbers."""
    size = len(page.texts) + 1
    attributes = page.distinct_attributes
    # One look over all the page's attributes: most pages name no such element, and a match's offset tells whose.
    joined = "\n".join(attributes)
    if not len(page.node_table) or words.search(joined) is None:
        return np.zeros(size - 1, bool)
    found = [match.start() for match in words.finditer(joined)]
    ends = np.cumsum(np.fromiter(map(len, attributes), np.int64, len(attributes)) + 1)  # past each and its "\n"
    starts = np.concatenate(([0], ends[:-1]))
    named = np.zeros(len(attributes), bool)
    named[np.searchsorted(starts, found, side="right") - 1] = True
    nodes = page.node_table[named[page.node_table[:, 6]]]
    inside = np.bincount(nodes[:, 2], minlength=size) - np.bincount(nodes[:, 3], minlength=size)
    return np.cumsum(inside[:-1]) > 0


def _unless_the_page_is_theirs(kept: np.ndarray, marked: np.ndarray, page: Page) -> np.ndarray:
    """``marked``, or none of it where the longest kept block is marked (the page is its comments or reviews) or
    less than :data:`MIN_TEXT_OUTSIDE_COMMENTS` kept characters lie outside it."""
    if marked.any():
        lengths = block_lengths(page.texts)
        if marked[longest_kept(kept, lengths)] or lengths[kept & ~marked].sum() < MIN_TEXT_OUTSIDE_COMMENTS:
            marked[:] = False
    return marked
