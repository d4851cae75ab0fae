"""Auto-context: the first pass's p(content), summarised over wide spans, as features of a second pass.

The unary network sees about ±6 blocks.  A teaser list or a footer is easier to recognise from far away:
most of its neighbourhood, its parent's other blocks, the page as a whole.  The second pass (``"auto_context":
true`` in a model's configuration) reads the block features plus these summaries of the first pass's
probabilities, each weighted by the blocks' characters (a long paragraph says more about a region than a
two-word link):

* ``p_window_2``, ``p_window_8``, ``p_window_32``: mean p(content) over ±2, ±8, ±32 blocks;
* ``p_same_parent``, ``p_same_grandparent``, ``p_same_great_grandparent``: over the run of neighbouring
  blocks sharing the block's CDOM parent, grandparent, great-grandparent (edge features);
* ``p_page``: over the whole page.

Everything comes from the raw block and edge features, so inference stays numpy-only and needs nothing new
from the page.
"""

from __future__ import annotations

import numpy as np

from .features import BLOCK_FEATURES, EDGE_FEATURES

WINDOWS = (2, 8, 32)
RUN_EDGES = ("same_parent", "same_grandparent", "same_great_grandparent")
CONTEXT_FEATURES: tuple[str, ...] = (
    *(f"p_window_{width}" for width in WINDOWS),
    *(f"p_{edge}" for edge in RUN_EDGES),
    "p_page",
)
_CHARS = BLOCK_FEATURES.index("node_log_chars")
_RUN_COLUMNS = [EDGE_FEATURES.index(edge) for edge in RUN_EDGES]


def context_features(p_content: np.ndarray, block_x: np.ndarray, edge_x: np.ndarray) -> np.ndarray:
    """(n, len(CONTEXT_FEATURES)) summaries of ``p_content`` from the raw block and edge features."""
    n = len(p_content)
    out = np.zeros((n, len(CONTEXT_FEATURES)), np.float32)
    if n == 0:
        return out
    weight = np.expm1(np.asarray(block_x[:, _CHARS], np.float64)) + 1.0
    weighted = weight * p_content
    weight_sum = np.concatenate(([0.0], np.cumsum(weight)))
    weighted_sum = np.concatenate(([0.0], np.cumsum(weighted)))
    index = np.arange(n)
    for column, width in enumerate(WINDOWS):
        low, high = np.maximum(index - width, 0), np.minimum(index + width + 1, n)
        out[:, column] = (weighted_sum[high] - weighted_sum[low]) / (weight_sum[high] - weight_sum[low])
    for offset, edge_column in enumerate(_RUN_COLUMNS):
        # A run: neighbours joined by the edge feature; the run id steps where it is 0.
        breaks = edge_x[:, edge_column] < 0.5 if n > 1 else np.zeros(0, bool)
        run = np.concatenate(([0], np.cumsum(breaks)))
        totals = np.bincount(run, weighted) / np.bincount(run, weight)
        out[:, len(WINDOWS) + offset] = totals[run]
    out[:, -1] = weighted_sum[-1] / weight_sum[-1]
    return out
