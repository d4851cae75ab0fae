"""Page furniture that the labelling as a whole shows not to be main text: text no reader sees, readers' comments.

:func:`hidden_blocks` and :func:`comment_sections` take a page and its decoded labels and return the kept blocks
they find, as a mask; :mod:`.after_decoding` runs them on pages typed as articles (on a forum the replies are the
content; on a shop's page hidden tabs often are).  Rules tried beside them and not shipped are in
``benchmarks/furniture_candidates.py`` (docs/research/quality-round3.rst).
"""

from __future__ import annotations

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
    marked = kept & ((page.ancestor_keywords & _COMMENT_BIT) != 0)
    if marked.any():
        lengths = block_lengths(page.texts)
        if marked[longest_kept(kept, lengths)] or lengths[kept & ~marked].sum() < MIN_TEXT_OUTSIDE_COMMENTS:
            marked[:] = False
    return marked
