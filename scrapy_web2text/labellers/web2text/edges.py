"""The edge features (Vogels et al. 2018, §3.3): 25 numbers for each pair of neighbouring blocks.

The comparisons (tree distance, same parent, same tag, both in a link, ...) are numpy operations over all pairs at
once; a compiled twin saved under 3 % of a page's time and was dropped (docs/speed.rst, "Compiled twins").
"""

from __future__ import annotations

import numpy as np

from ...page import Page
from .counts import ENDS_SENTENCE, UPPER, edge_text_properties
from .tag_groups import HEADING_TAGS, tag_masks

EDGE_FEATURES: tuple[str, ...] = (
    "tree_distance_2",
    "tree_distance_3",
    "tree_distance_4",
    "tree_distance_over_4",
    "line_break_between",
    "same_parent",
    "same_grandparent",
    "same_great_grandparent",
    "same_tag",
    "same_class",
    "same_tag_path",
    "both_in_link",
    "one_in_link",
    "left_ends_with_punctuation",
    "right_starts_with_capital",
    "log_source_gap",
    "log_depth_difference",
    "same_ancestor_classes",
    "same_ancestor_tags",
    "log_length_ratio",
    "both_long",
    "left_is_heading",
    "right_is_heading",
    "log_tree_distance",
    "same_node_length_bucket",
)
_NUMERIC_EDGES = ("log_source_gap", "log_depth_difference", "log_length_ratio", "log_tree_distance")
EDGE_FEATURE_BINARY = np.array([name not in _NUMERIC_EDGES for name in EDGE_FEATURES])
assert len(EDGE_FEATURES) == 25, len(EDGE_FEATURES)

#: How far up the edge features look for a common ancestor of two neighbours, and the levels climbed from both
#: to meet at each pair of their ancestors.
EDGE_LEVELS = 5
_CLIMBS = np.arange(EDGE_LEVELS + 1)[:, None] + np.arange(EDGE_LEVELS + 1)[None, :]
#: Tree distance where no common ancestor is found within ``EDGE_LEVELS`` levels of each block.
FAR = 2 * EDGE_LEVELS + 2


def edge_matrix(
    page: Page, chain: np.ndarray, tag_bits: np.ndarray, tag_marks: np.ndarray, table: tuple | None, lengths: np.ndarray
) -> np.ndarray:
    """The (n_blocks - 1, 25) float32 edge features of a page of two blocks or more.  ``chain``: each block's CDOM
    ancestors (at least ``EDGE_LEVELS`` levels, -1 above the root); ``tag_bits``: the tag lists' group bits
    (:func:`.tag_groups.tag_list_bits`); ``tag_marks``: :func:`.tag_groups.ancestor_marks`; ``table``: the
    compiled counts' table (:func:`.counts.text_table`) or ``None``; ``lengths``: :func:`.counts.block_lengths`."""
    lengths = lengths.astype(float)
    spaces, first, last = edge_text_properties(page.texts, table)
    # Equal ids are equal tag lists / attribute strings (numbered per page by the walk).
    leaf_tags = page.node_table[page.block_nodes, 5]
    leaf_attributes = page.node_table[page.block_nodes, 6]
    heading = tag_masks(tag_bits, HEADING_TAGS)[leaf_tags, 0]
    bucket = np.floor(np.log2(lengths + 1))
    inputs = (chain, page.break_before, page.in_link, page.path_ids, page.ancestor_keywords, tag_marks)
    inputs += (leaf_tags, leaf_attributes, heading, spaces, first, last, bucket)
    out, distance = edge_comparisons(*inputs)
    # float64 logarithms rounded to float32 on assignment, as np.array(..., float32).
    leaf_depth = page.node_table[page.block_nodes, 1]
    out[:, 15] = np.log1p(np.maximum(page.starts[1:] - page.ends[:-1], 0))
    out[:, 16] = np.log1p(np.abs(leaf_depth[:-1] - leaf_depth[1:]))
    out[:, 19] = np.abs(np.log((lengths[:-1] + 1) / (lengths[1:] + 1)))
    out[:, 23] = np.log1p(distance)
    return out


def edge_comparisons(*inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edge matrix with every column but the four logarithms (left 0), and each pair's tree distance.
    ``inputs``: as :func:`edge_matrix` gathers them, in its order."""
    chain, break_before, in_link, path_ids, keywords, tag_marks, leaf_tags, leaf_attributes, heading = inputs[:9]
    spaces, first, last, bucket = inputs[9:]
    n = len(leaf_tags)
    chain = chain[:, : EDGE_LEVELS + 1]
    left, right = chain[:-1], chain[1:]
    # Tree distance: the fewest levels climbed from both blocks to a common
    # ancestor, searched up to 5 levels each (farther counts as "over 4").
    # Above the root both chains hold -1, which must not meet: the right one's becomes -2 (one test, not two).
    meet = left[:, :, None] == np.where(right >= 0, right, -2)[:, None, :]
    cost = np.where(meet, _CLIMBS, 99).reshape(n - 1, -1).min(axis=1)
    distance = np.where(cost == 99, FAR, cost)
    words = spaces + 1.0
    ends_punct = (last & ENDS_SENTENCE) != 0
    starts_capital = (first & UPPER) != 0
    zeros = np.zeros(n - 1)
    columns = [
        distance == 2,
        distance == 3,
        distance == 4,
        distance > 4,
        break_before[1:],
        left[:, 1] == right[:, 1],
        (left[:, 2] == right[:, 2]) & (left[:, 2] >= 0),
        (left[:, 3] == right[:, 3]) & (left[:, 3] >= 0),
        leaf_tags[:-1] == leaf_tags[1:],
        leaf_attributes[:-1] == leaf_attributes[1:],
        path_ids[:-1] == path_ids[1:],
        in_link[:-1] & in_link[1:],
        in_link[:-1] ^ in_link[1:],
        ends_punct[:-1],
        starts_capital[1:],
        zeros,  # log_source_gap
        zeros,  # log_depth_difference
        keywords[:-1] == keywords[1:],
        tag_marks[:-1] == tag_marks[1:],
        zeros,  # log_length_ratio
        (words[:-1] > 10) & (words[1:] > 10),
        heading[:-1],
        heading[1:],
        zeros,  # log_tree_distance
        bucket[:-1] == bucket[1:],
    ]
    return np.ascontiguousarray(np.array(columns, np.float32).T), distance
