"""The edge features (Vogels et al. 2018, §3.3): 25 numbers for each pair of neighbouring blocks.

The comparisons (tree distance, same parent, same tag, both in a link, ...) are numpy operations over all pairs at
once (:func:`edge_comparisons`), reading one :class:`EdgeInputs`: the reference.  Its compiled twin
(``_features.pyx``, :func:`edge_matrix` calls it where it is in use) makes the same matrix in one pass over the
pairs: some sixty numpy operations a page, each cheap, cost more than the comparisons themselves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...page import Page
from ...page.nodes import ATTRIBUTES_ID, DEPTH, TAGS_ID
from ...page.twins import load_twin
from .counts import ENDS_SENTENCE, UPPER, edge_text_properties
from .tag_groups import HEADING_TAGS, group_bit, tag_masks

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


class EdgeInputs(NamedTuple):
    """What the comparisons read, one entry per block."""

    chain: np.ndarray  # (n, ≥ EDGE_LEVELS + 1) int64: the block's CDOM ancestors, -1 above the root
    break_before: np.ndarray  # uint8
    in_link: np.ndarray  # uint8
    path_ids: np.ndarray  # int64: equal ids, equal tag paths
    keywords: np.ndarray  # int64: the ancestors' class/id keyword marks
    tag_marks: np.ndarray  # int64: :func:`.tag_groups.ancestor_marks`
    leaf_tags: np.ndarray  # int64: the block's node's tag-list id
    leaf_attributes: np.ndarray  # int64: its attribute-string id
    heading: np.ndarray  # uint8: the node is a heading
    spaces: np.ndarray  # int64
    first: np.ndarray  # uint16: the first character's property bits (:mod:`.counts`)
    last: np.ndarray  # uint16: the last character's
    bucket: np.ndarray  # float64: floor(log2(length + 1))


def edge_matrix(
    page: Page, chain: np.ndarray, tag_bits: np.ndarray, tag_marks: np.ndarray, table: tuple | None, lengths: np.ndarray
) -> np.ndarray:
    """The (n_blocks - 1, 25) float32 edge features of a page of two blocks or more.  ``chain``: each block's CDOM
    ancestors (at least ``EDGE_LEVELS`` levels, -1 above the root); ``tag_bits``: the tag lists' group bits
    (:func:`.tag_groups.tag_list_bits`); ``tag_marks``: :func:`.tag_groups.ancestor_marks`; ``table``: the
    compiled counts' table (:func:`.counts.text_table`) or ``None``; ``lengths``: :func:`.counts.block_lengths`."""
    spaces, first, last = edge_text_properties(page.texts, table)
    if compiled_edge_columns is not None:
        return _compiled_edge_matrix(page, chain, tag_bits, tag_marks, lengths, (spaces, first, last))
    lengths = lengths.astype(float)
    # Equal ids are equal tag lists / attribute strings (numbered per page by the walk).
    leaf_tags = page.node_table[page.block_nodes, TAGS_ID]
    inputs = EdgeInputs(
        chain=chain,
        break_before=page.break_before.view(np.uint8),
        in_link=page.in_link.view(np.uint8),
        path_ids=page.path_ids,
        keywords=page.ancestor_keywords,
        tag_marks=tag_marks,
        leaf_tags=leaf_tags,
        leaf_attributes=page.node_table[page.block_nodes, ATTRIBUTES_ID],
        heading=tag_masks(tag_bits, HEADING_TAGS)[leaf_tags, 0].view(np.uint8),
        spaces=np.asarray(spaces, np.int64),
        first=np.asarray(first, np.uint16),
        last=np.asarray(last, np.uint16),
        bucket=np.floor(np.log2(lengths + 1)),
    )
    out, distance = edge_comparisons(inputs)
    # float64 logarithms rounded to float32 on assignment, as np.array(..., float32).
    leaf_depth = page.node_table[page.block_nodes, DEPTH]
    out[:, 15] = np.log1p(np.maximum(page.starts[1:] - page.ends[:-1], 0))
    out[:, 16] = np.log1p(np.abs(leaf_depth[:-1] - leaf_depth[1:]))
    out[:, 19] = np.abs(np.log((lengths[:-1] + 1) / (lengths[1:] + 1)))
    out[:, 23] = np.log1p(distance)
    return out


#: numpy's log1p of 0, 1, ..., 4095, looked up where ``log1p`` costs some 15 ns a value: the edges' gaps, depth
#: differences and tree distances, and the block features' counts (a node's characters, words, children, depth) are
#: mostly whole numbers below it.
LOG1P_TABLE = np.log1p(np.arange(4096.0))


def _compiled_edge_matrix(
    page: Page, chain: np.ndarray, tag_bits: np.ndarray, tag_marks: np.ndarray, lengths: np.ndarray, text: tuple
) -> np.ndarray:
    """:func:`edge_matrix` by its compiled twin; ``text``: :func:`.counts.edge_text_properties`."""
    text = tuple(np.asarray(column, np.int64) for column in text)
    bits = (group_bit(HEADING_TAGS, HEADING_TAGS[0]), ENDS_SENTENCE, UPPER)
    n = len(page)
    out = np.empty((n - 1, len(EDGE_FEATURES)), np.float32)
    ratio = np.empty(n - 1)
    lengths = np.ascontiguousarray(lengths, np.int64)
    pending_at, pending_args = compiled_edge_columns(
        out, ratio, page, chain, tag_marks, tag_bits, lengths, text, bits, EDGE_LEVELS, LOG1P_TABLE
    )
    if len(pending_at):
        out.reshape(-1)[pending_at] = np.log1p(pending_args)
    # The same float64 logarithm of the same ratios as the reference, rounded to float32 on assignment.
    out[:, 19] = np.abs(np.log(ratio, out=ratio), out=ratio)
    return out


def edge_comparisons(inputs: EdgeInputs) -> tuple[np.ndarray, np.ndarray]:
    """The edge matrix with every column but the four logarithms (left 0), and each pair's tree distance."""
    n = len(inputs.leaf_tags)
    chain = inputs.chain[:, : EDGE_LEVELS + 1]
    left, right = chain[:-1], chain[1:]
    # Tree distance: the fewest levels climbed from both blocks to a common
    # ancestor, searched up to 5 levels each (farther counts as "over 4").
    # Above the root both chains hold -1, which must not meet: the right one's becomes -2 (one test, not two).
    meet = left[:, :, None] == np.where(right >= 0, right, -2)[:, None, :]
    cost = np.where(meet, _CLIMBS, 99).reshape(n - 1, -1).min(axis=1)
    distance = np.where(cost == 99, FAR, cost)
    in_link, heading, bucket = inputs.in_link != 0, inputs.heading != 0, inputs.bucket
    words = inputs.spaces + 1.0
    ends_punct = (inputs.last & ENDS_SENTENCE) != 0
    starts_capital = (inputs.first & UPPER) != 0
    zeros = np.zeros(n - 1)
    columns = [
        distance == 2,
        distance == 3,
        distance == 4,
        distance > 4,
        inputs.break_before[1:] != 0,
        left[:, 1] == right[:, 1],
        (left[:, 2] == right[:, 2]) & (left[:, 2] >= 0),
        (left[:, 3] == right[:, 3]) & (left[:, 3] >= 0),
        inputs.leaf_tags[:-1] == inputs.leaf_tags[1:],
        inputs.leaf_attributes[:-1] == inputs.leaf_attributes[1:],
        inputs.path_ids[:-1] == inputs.path_ids[1:],
        in_link[:-1] & in_link[1:],
        in_link[:-1] ^ in_link[1:],
        ends_punct[:-1],
        starts_capital[1:],
        zeros,  # log_source_gap
        zeros,  # log_depth_difference
        inputs.keywords[:-1] == inputs.keywords[1:],
        inputs.tag_marks[:-1] == inputs.tag_marks[1:],
        zeros,  # log_length_ratio
        (words[:-1] > 10) & (words[1:] > 10),
        heading[:-1],
        heading[1:],
        zeros,  # log_tree_distance
        bucket[:-1] == bucket[1:],
    ]
    return np.ascontiguousarray(np.array(columns, np.float32).T), distance


#: The compiled :func:`edge_matrix` (``_features.pyx``, beside the block features' twins); ``None`` where it is not
#: in use.
(compiled_edge_columns,) = load_twin("scrapy_web2text.labellers.web2text.features", "edge_columns")
