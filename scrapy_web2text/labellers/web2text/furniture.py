"""Page furniture that the labelling as a whole shows not to be main text: text no reader sees.

:func:`hidden_blocks` takes a page and its decoded labels and returns the kept blocks it finds, as a mask;
:mod:`.after_decoding` runs it on pages typed as articles.  Rules tried beside it and not shipped are in
``benchmarks/furniture_candidates.py`` (docs/research/quality-round3.rst).
"""

from __future__ import annotations

import numpy as np

from ...page import Page
from ...page.marks import HIDDEN_BIT

#: Kept hidden text holding at least this share of the kept characters stays: it is what the page has.
MAX_HIDDEN_SHARE = 0.5


def _lengths(page: Page) -> np.ndarray:
    return np.fromiter(map(len, page.texts), np.int64, len(page))


def hidden_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element that hides itself by attribute (``hidden``, ``aria-hidden="true"``, inline
    ``display:none`` / ``visibility:hidden``), unless they hold :data:`MAX_HIDDEN_SHARE` of the kept text or more."""
    kept = labels != 0
    hidden = kept & ((page.ancestor_tags & HIDDEN_BIT) != 0)
    if hidden.any():
        lengths = _lengths(page)
        if lengths[hidden].sum() >= MAX_HIDDEN_SHARE * lengths[kept].sum():
            hidden[:] = False
    return hidden
