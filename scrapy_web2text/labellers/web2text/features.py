"""Block and edge features (Vogels et al. 2018, §3.3), vectorised per page.

The paper collects 128 features per block — statistics of the block's CDOM
node, its parent, its grandparent and the whole page — and 25 per pair of
neighbouring blocks, but names only some of them; :mod:`.feature_names`
lists the columns (re-exported here), ``docs/model.rst`` describes them.

Text statistics are counted once per block, for the whole page at once
(:mod:`.counts`), then summed up the CDOM with prefix sums over leaf ranges
(a node's leaves are contiguous), so parents and grandparents cost no
re-tokenising.  Tag tests look at each distinct tag list of the page once.
The edge features' columns are computed in :mod:`.edges` (their names are
re-exported here, where the models and the trainer read them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...page import Page
from ...page.marks import HIDDEN_BIT, MAIN_CONTENT_BIT
from ...page.nodes import DEPTH, END_BLOCK, FIRST_BLOCK, N_CHILDREN, PARENT, TAGS_ID
from ...page.tags import ANCESTOR_KEYWORDS
from ...page.twins import load_twin
from .counts import block_counts, block_lengths, text_table
from .edges import EDGE_FEATURE_BINARY as EDGE_FEATURE_BINARY
from .edges import EDGE_FEATURES, EDGE_LEVELS, edge_matrix
from .edges import LOG1P_TABLE as LOG1P_TABLE  # most of a page's counts are whole numbers below it
from .feature_names import ALL_BLOCK_FEATURES as ALL_BLOCK_FEATURES
from .feature_names import BLOCK_FEATURE_BINARY as BLOCK_FEATURE_BINARY
from .feature_names import BLOCK_FEATURES, NODE_STATISTICS, PAGE_STATISTICS, REGION_LEVELS, block_feature_names
from .feature_names import EXTENDED_BLOCK_FEATURES as EXTENDED_BLOCK_FEATURES
from .headline import matches_title
from .tag_groups import NODE_TAGS, PARENT_TAGS, ancestor_marks, group_bits, keyword_marks, tag_list_bits


def _columns(columns: list, dtype=float) -> np.ndarray:
    """(rows, len(columns)) of ``dtype``, C-ordered: ``np.column_stack(columns).astype(dtype)`` in one step."""
    return np.ascontiguousarray(np.array(columns, dtype=dtype).T)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    return numerator / np.maximum(denominator, 1.0)


#: The counts summed over each node's blocks, in the order :func:`_node_statistics` slices them: the totals, then
#: the numerators of the ratios to characters and to words, then the pattern hits (0 or 1 per block).
_SUMMED = (
    ("chars", "words", "sentences")
    + ("punctuation", "dashes", "periods", "link_chars", "digits", "separators")
    + ("capital_words", "stopwords", "word_length")
    + ("email", "url", "year", "copyright")
)
#: Where each statistic, and those ratios and hits, go among NODE_STATISTICS.
_STATISTIC_AT = {name: column for column, name in enumerate(NODE_STATISTICS)}
_PER_CHAR_AT = [NODE_STATISTICS.index(f"r_{name}") for name in ("punctuation", "dashes", "periods")]
_PER_CHAR_AT += [NODE_STATISTICS.index(f"r_{name}") for name in ("chars_in_link", "digits", "separators")]
_PER_WORD_AT = [NODE_STATISTICS.index(name) for name in ("r_words_with_capital", "r_stopwords", "avg_word_length")]
_CONTAINS_AT = [NODE_STATISTICS.index(f"contains_{name}") for name in ("email", "url", "year", "copyright")]
#: The other columns, in the order both paths of :func:`_node_statistics` fill them (the compiled one by position).
_PLAIN = ("log_chars", "r_words_of_page", "log_sentences", "ends_with_punctuation", "ends_with_question_mark")
_PLAIN += ("start_rel", "end_rel", "log_children", "log_blocks", "log_depth", "log_words")
_PLAIN_AT = [_STATISTIC_AT[name] for name in _PLAIN]
#: The columns that are a logarithm of a count: both paths write the count, then numpy's ``log1p`` of all of them
#: at once (one call, and the same logarithm whichever path counted).
_LOG_AT = [_STATISTIC_AT[name] for name in _PLAIN if name.startswith("log_")]
_LOG_COLUMNS = np.array(_LOG_AT, np.int64)
_LAYOUT = tuple(np.array(columns, np.int64) for columns in (_PER_CHAR_AT, _PER_WORD_AT, _CONTAINS_AT, _PLAIN_AT))


def _node_statistics(page: Page, counts: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(n_nodes, len(NODE_STATISTICS)) for every CDOM node, and the nodes' sums of the ``_SUMMED`` counts."""
    summed = _columns([counts[name] for name in _SUMMED])
    ends_punct, ends_question = counts["ends_punct"], counts["ends_question"]
    page_words, source_length = float(max(counts["words"].sum(), 1.0)), float(max(len(page.source), 1))
    if compiled_node_statistics is not None:
        table = np.ascontiguousarray(page.node_table, np.int64)
        starts, ends = np.ascontiguousarray(page.starts, np.int64), np.ascontiguousarray(page.ends, np.int64)
        out, totals = compiled_node_statistics(
            table, summed, ends_punct, ends_question, starts, ends, page_words, source_length, *_LAYOUT,
            len(NODE_STATISTICS),
        )  # fmt: skip
    else:
        out, totals = node_statistics_reference(page, summed, ends_punct, ends_question, page_words, source_length)
    log1p_columns(out, _LOG_COLUMNS)
    return out, totals


def node_statistics_reference(
    page: Page,
    summed: np.ndarray,
    ends_punct: np.ndarray,
    ends_question: np.ndarray,
    page_words: float,
    source_length: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_node_statistics` before its logarithms, in numpy: the reference of the compiled twin
    (``_features.pyx``).  ``summed``: the ``_SUMMED`` counts, a column each; ``page_words``, ``source_length``:
    the page's words and source characters, at least 1."""
    first, end = page.node_table[:, FIRST_BLOCK], page.node_table[:, END_BLOCK]
    last = np.maximum(end - 1, 0)
    # One prefix sum over every summed count: a node's total is prefix[end] - prefix[first].
    prefix = np.zeros((len(page) + 1, len(_SUMMED)))
    np.cumsum(summed, axis=0, out=prefix[1:])
    totals = prefix[end] - prefix[first]
    chars, words = totals[:, 0], totals[:, 1]
    # Each group of columns in one operation; the same float64 values as one operation per column.
    out = np.empty((len(first), len(NODE_STATISTICS)))
    out[:, _PER_CHAR_AT] = totals[:, 3:9] / np.maximum(chars, 1.0)[:, None]
    out[:, _PER_WORD_AT] = totals[:, 9:12] / np.maximum(words, 1.0)[:, None]
    out[:, _CONTAINS_AT] = totals[:, 12:16] > 0
    plain = (chars, words / page_words, totals[:, 2], ends_punct[last], ends_question[last])
    plain += (page.starts[first] / source_length, page.ends[last] / source_length, page.node_table[:, N_CHILDREN])
    plain += (end - first, page.node_table[:, DEPTH], words)
    for column, values in zip(_PLAIN_AT, plain):
        out[:, column] = values
    return out, totals


def ancestors_reference(parents: np.ndarray, start: np.ndarray, levels: int) -> np.ndarray:
    """(len(start), levels + 1) ancestor indices; -1 above the root.  The reference of the compiled twin
    (``_features.pyx``), which makes the same array in one pass instead of a gather a level."""
    # -1 indexes the appended -1: above the root stays above the root, one gather a level.
    parents = np.append(parents, -1)
    out = np.empty((levels + 1, len(start)), np.int64)
    out[0] = start
    for level in range(1, levels + 1):
        np.take(parents, out[level - 1], out=out[level])
    return out.T


@dataclass(frozen=True)
class PagePieces:
    """What both feature matrices read of a page, computed once by :func:`page_features`: each block's CDOM
    ancestors (``ancestors`` levels, -1 above the root), the tag lists' group bits, the ancestor tag marks
    (:func:`.tag_groups.ancestor_marks`), the per-block text counts table (:func:`.counts.text_table`) and the
    block texts' lengths (:func:`.counts.block_lengths`)."""

    chain: np.ndarray
    tag_bits: np.ndarray
    tag_marks: np.ndarray
    text_table: tuple[np.ndarray, bool] | None
    lengths: np.ndarray

    @classmethod
    def of(cls, page: Page, ancestors: int, text_counts: bool = True) -> PagePieces:
        """``text_counts=False`` leaves the table to :func:`.counts.edge_text_properties`, which fills fewer
        columns when it is not shared."""
        parents, blocks = page.node_table[:, PARENT], page.block_nodes
        if compiled_ancestors is not None:
            chain = compiled_ancestors(parents, np.ascontiguousarray(blocks, np.int64), ancestors)
        else:
            chain = ancestors_reference(parents, blocks, ancestors)
        table = text_table(page.texts) if text_counts else None
        lengths = block_lengths(page.texts, table)
        return cls(chain, tag_list_bits(page), ancestor_marks(page, lengths), table, lengths)


def page_features(page: Page, extended: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(block_features(page, extended), edge_features(page))``, with what both read computed once."""
    if len(page) < 2:
        return block_features(page, extended), edge_features(page)
    pieces = PagePieces.of(page, max(REGION_LEVELS) if extended else EDGE_LEVELS)
    return block_features(page, extended, pieces), edge_features(page, pieces)


def block_features(page: Page, extended: bool = False, pieces: PagePieces | None = None) -> np.ndarray:
    """The (n_blocks, 128) raw block feature matrix of a page; ``extended``
    appends :data:`EXTENDED_BLOCK_FEATURES`.  ``pieces``: see :func:`page_features`."""
    n = len(page)
    if n == 0:
        return np.zeros((0, len(block_feature_names(extended))), np.float32)
    if pieces is None:
        pieces = PagePieces.of(page, max(REGION_LEVELS) if extended else 2)
    counts = block_counts(page.texts, page.in_link, pieces.text_table, pieces.lengths)
    stats, totals = _node_statistics(page, counts)
    # The root stands in for a missing parent or grandparent (and, in the extended columns, a region's node).
    clipped_chain = np.where(pieces.chain >= 0, pieces.chain, 0)
    chain = clipped_chain[:, :3]
    out = np.empty((n, len(block_feature_names(extended))), np.float32)
    packed, page_values = _packed_flags(page, pieces, chain[:, 1]), _page_values(counts, n)
    if compiled_block_rows is not None:
        compiled_block_rows(out, stats, chain, packed, len(_FLAG_BITS), page_values)
    else:
        block_rows_reference(out, stats, chain, packed, page_values)
    if extended and compiled_extended_columns is None:
        extended_columns_reference(out[:, len(BLOCK_FEATURES) :], page, pieces, counts, clipped_chain, totals)
    elif extended:
        compiled_extended_columns(
            out[:, len(BLOCK_FEATURES) :], np.ascontiguousarray(page.ancestor_tags, np.int64), HIDDEN_BIT,
            MAIN_CONTENT_BIT, matches_title(page, pieces.lengths).view(np.uint8), clipped_chain, _REGION_AT,
            np.ascontiguousarray(totals), _SUMMED.index("chars"), _SUMMED.index("link_chars"), page.node_table,
            max(counts["chars"].sum(), 1.0),
        )  # fmt: skip
    return out


_REGION_AT = np.array(REGION_LEVELS, np.int64)


#: The 0/1 block columns after the statistics, one bit each of an int64 per block: the node's tag groups, the
#: parent's, the ancestor tags, the ancestor keywords (unpacked in one operation instead of one per group).
_FLAG_WIDTHS = (len(NODE_TAGS), len(PARENT_TAGS), 10, len(ANCESTOR_KEYWORDS))
_FLAG_BITS = np.arange(sum(_FLAG_WIDTHS))
assert sum(_FLAG_WIDTHS) < 63
assert 3 * len(NODE_STATISTICS) + sum(_FLAG_WIDTHS) + len(PAGE_STATISTICS) == len(BLOCK_FEATURES)


def _packed_flags(page: Page, pieces: PagePieces, parents: np.ndarray) -> np.ndarray:
    """Each block's 0/1 columns of the groups in ``_FLAG_WIDTHS`` as the bits of an int64 (column ``b`` is bit
    ``b``); ``parents``: each block's parent node."""
    tag_lists = page.node_table[:, TAGS_ID]
    parts = (
        group_bits(pieces.tag_bits, NODE_TAGS)[tag_lists[page.block_nodes]],
        group_bits(pieces.tag_bits, PARENT_TAGS)[tag_lists[parents]],
        pieces.tag_marks,
        keyword_marks(page),
    )
    packed, shift = 0, 0
    for part, width in zip(parts, _FLAG_WIDTHS):
        packed = packed | (part & ((1 << width) - 1)) << shift
        shift += width
    return np.ascontiguousarray(packed, np.int64)


def _page_values(counts: dict[str, np.ndarray], n: int) -> np.ndarray:
    """The PAGE_STATISTICS but the last (the block's position), the same for every block."""
    total_chars = counts["chars"].sum()
    return np.array(
        [
            np.log1p(total_chars),
            np.log1p(n),
            counts["stopwords"].sum() / max(counts["words"].sum(), 1.0),
            counts["link_chars"].sum() / max(total_chars, 1.0),
        ]
    )


def block_rows_reference(
    out: np.ndarray, stats: np.ndarray, chain: np.ndarray, packed: np.ndarray, page_values: np.ndarray
) -> None:
    """Write the paper's 128 block columns into ``out``: the node's, the parent's and the grandparent's ``stats``
    (``chain``: those three nodes a block), the 0/1 columns unpacked from ``packed``, the page values and the
    block's position in the page.  The reference of the compiled twin (``_features.pyx``)."""
    n = len(out)
    statistics_end = 3 * stats.shape[1]
    flags_end = statistics_end + len(_FLAG_BITS)
    # Each part is written once into the float32 matrix (np.hstack would make a float64 copy first).
    out[:, :statistics_end] = stats[chain].reshape(n, statistics_end)
    out[:, statistics_end:flags_end] = (packed[:, None] >> _FLAG_BITS) & 1
    out[:, flags_end : flags_end + len(page_values)] = page_values
    out[:, flags_end + len(page_values)] = np.arange(n) / max(n - 1, 1)


def extended_columns_reference(
    out: np.ndarray,
    page: Page,
    pieces: PagePieces,
    counts: dict[str, np.ndarray],
    chain: np.ndarray,
    totals: np.ndarray,
) -> None:
    """Write :data:`EXTENDED_BLOCK_FEATURES` into ``out`` (n_blocks, 16); ``chain``: each block's ancestors, the
    root for those above it; ``totals``: the nodes' sums from :func:`_node_statistics`.  The reference of the
    compiled twin (``_features.pyx``), which writes the same values in one pass over the nodes and one over the
    blocks (some twenty numpy operations here)."""
    n = len(page)
    first, end = page.node_table[:, FIRST_BLOCK], page.node_table[:, END_BLOCK]
    chars, link_chars = totals[:, _SUMMED.index("chars")], totals[:, _SUMMED.index("link_chars")]
    page_chars = max(counts["chars"].sum(), 1.0)
    out[:, 0] = (page.ancestor_tags & HIDDEN_BIT) > 0
    out[:, 1] = (page.ancestor_tags & MAIN_CONTENT_BIT) > 0
    out[:, 2] = matches_title(page, pieces.lengths)
    # Each region level's two columns, all levels at once: its share of the page's text, its share in links.
    regions = chain[:, REGION_LEVELS]
    region_chars = chars[regions]
    out[:, 3 : 3 + 2 * len(REGION_LEVELS) : 2] = region_chars / page_chars
    out[:, 4 : 4 + 2 * len(REGION_LEVELS) : 2] = _ratio(link_chars[regions], region_chars)
    # The main region: the deepest node with half the page's text outside links.
    outside_links = chars - link_chars
    candidates = np.flatnonzero(outside_links >= 0.5 * max(outside_links[0], 1.0))
    main_columns = out[:, 3 + 2 * len(REGION_LEVELS) :]
    if len(candidates):
        main = candidates[np.argmax(page.node_table[candidates, DEPTH])]
        block = np.arange(n)
        main_columns[:, 0] = (block >= first[main]) & (block < end[main])
        main_columns[:, 1] = block < first[main]
        main_columns[:, 2] = block >= end[main]
        main_columns[:, 3] = chars[main] / page_chars
    else:
        main_columns[:] = 0.0


def edge_features(page: Page, pieces: PagePieces | None = None) -> np.ndarray:
    """The (n_blocks - 1, 25) raw features of each pair of neighbouring blocks (:mod:`.edges`).  ``pieces``: see
    :func:`page_features`."""
    if len(page) < 2:
        return np.zeros((0, len(EDGE_FEATURES)), np.float32)
    if pieces is None:
        pieces = PagePieces.of(page, EDGE_LEVELS, text_counts=False)
    return edge_matrix(page, pieces.chain, pieces.tag_bits, pieces.tag_marks, pieces.text_table, pieces.lengths)


def log1p_columns(out: np.ndarray, columns: np.ndarray) -> None:
    """``out[:, columns] = np.log1p(out[:, columns])``, in place; ``out``: a C-ordered float64 matrix, ``columns``:
    int64 column numbers.  The compiled pass reads the small whole counts from :data:`LOG1P_TABLE` and gives the
    others back to numpy, so every value is the one numpy computes."""
    if compiled_log1p_counts is None:
        out[:, columns] = np.log1p(out[:, columns])
        return
    pending = compiled_log1p_counts(out, columns, LOG1P_TABLE)
    if len(pending):
        flat = out.reshape(-1)
        flat[pending] = np.log1p(flat[pending])


#: The compiled :func:`node_statistics_reference`, :func:`block_rows_reference`, :func:`ancestors_reference`,
#: :func:`extended_columns_reference` and table look-up of :func:`log1p_columns` (``_features.pyx``), each ``None``
#: where the twin is not in use.
compiled_node_statistics, compiled_block_rows, compiled_ancestors, compiled_extended_columns, compiled_log1p_counts = (
    load_twin(__name__, "node_statistics", "block_rows", "ancestors", "extended_columns", "log1p_counts")
)
