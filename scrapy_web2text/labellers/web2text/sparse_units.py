"""A page of repeated units that the chain keeps almost nothing of: decoded again at a low threshold.

The items of a listing, the entries of an index or a collection and the parts of a product page are short blocks
between menus and links, and the networks often give them p(content) well under the model's threshold while
ranking them above the page's furniture.  Where the page-type classifier says the page is such a page (collection,
forum, listing or product together at least :data:`MIN_UNIT_PROBABILITY`, article under
:data:`MAX_ARTICLE_PROBABILITY`) and the chain keeps under :data:`MAX_KEPT_SHARE` of the page's characters, the
labeller decodes the page again at :data:`LOWER_THRESHOLD`, with the rules, as at the model's own threshold, and
names :data:`REASON` in the ``rule`` of each block that this keeps.

Why these conditions: a lower threshold chosen for every page rescues more collapsed pages but costs news articles
whose short text is right and whose page holds much text just below the threshold (related links, readers'
comments); the article guard keeps those out.  Measured out of fold (five seeds of the ``default`` recipe, four of
the shipped ``distilled`` one) and on the validation pages: docs/research/quality-round4.rst, "Pages of repeated
units decoded lower".
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from ...page import Page
from .rules import PageTypeGuess
from .rules.inputs import page_lengths

#: The rule name given to the blocks the second decoding keeps (``Block.rule``, the full block records); also the
#: name that ``skip_rules`` takes to turn the step off.
REASON = "sparse_units"
#: The page types whose text is repeated units, and how likely they must be together.
UNIT_TYPES = frozenset({"collection", "forum", "listing", "product"})
MIN_UNIT_PROBABILITY = 0.5
#: A page this likely an article is not decoded again: its short text is usually right.
MAX_ARTICLE_PROBABILITY = 0.3
#: The share of the page's characters under which the chain is taken to have missed the units.
MAX_KEPT_SHARE = 0.05
#: The threshold the page is decoded again at.
LOWER_THRESHOLD = 0.07


def sparse_units(page: Page, labels: np.ndarray, page_type: PageTypeGuess) -> bool:
    """Whether ``labels`` (the chain's, at the model's own threshold) keep under :data:`MAX_KEPT_SHARE` of the
    characters of a page typed as repeated units (the module docstring); the page is classified only where the
    labels keep that little."""
    lengths = page_lengths(page)
    total = int(lengths.sum())
    if not total or int(lengths[labels != 0].sum()) >= MAX_KEPT_SHARE * total:
        return False
    if not page_type.probabilities:
        return False
    units = page_type.share(UNIT_TYPES)
    return units >= MIN_UNIT_PROBABILITY and page_type.probabilities.get("article", 0.0) < MAX_ARTICLE_PROBABILITY


def decodes_again(
    page: Page, labels: np.ndarray, page_type: PageTypeGuess, threshold: float, skipped: Collection[str]
) -> bool:
    """Whether the chain's ``labels`` at the model's own ``threshold`` are decoded again at :data:`LOWER_THRESHOLD`:
    the step is not ``skipped``, the threshold lies above the lower one, and :func:`sparse_units` holds."""
    return REASON not in skipped and LOWER_THRESHOLD < threshold and sparse_units(page, labels, page_type)
