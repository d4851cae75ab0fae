# cython: language_level=3, boundscheck=False, wraparound=False
"""The CDOM nodes' text statistics and the block rows of :func:`.features.block_features`, compiled.

:func:`.features.node_statistics_reference` is the reference of :func:`node_statistics` and says what each column
means; it takes about twenty whole-page numpy operations on a few hundred nodes, each cheap, their fixed costs not.
This pass over the nodes writes the same float64 values (the sums are of whole counts, so exact in any order; the
ratios are the same divisions).  The logarithms stay numpy's, applied to both paths' output alike.
:func:`block_rows` is :func:`.features.block_rows_reference` in one pass over the blocks: the three levels'
statistics, the unpacked 0/1 columns and the page columns written into the float32 matrix, each value rounded to
float32 once, as numpy's assignment rounds it.  ``tests/page/test_speedups.py`` holds each twin to its reference.
"""

from libc.stdint cimport int64_t

from ...page.nodes cimport ATTRIBUTES_ID, DEPTH, END_BLOCK, FIRST_BLOCK, N_CHILDREN, TAGS_ID

import numpy as np


def node_statistics(const int64_t[:, :] node_table, const double[:, ::1] summed, const double[::1] ends_punct,
                    const double[::1] ends_question, const int64_t[::1] starts, const int64_t[::1] ends,
                    double page_words, double source_length, const int64_t[::1] per_char_at,
                    const int64_t[::1] per_word_at, const int64_t[::1] contains_at, const int64_t[::1] plain_at,
                    int columns):
    """``(out, totals)``: ``out`` (n_nodes, ``columns``) as the reference writes it before its logarithms,
    ``totals`` (n_nodes, summed columns) each node's sums of ``summed`` over its blocks ``[first, end)``.

    ``summed``'s columns: characters, words, sentences, then six numerators per character, three per word and four
    pattern hits (:data:`.features.SUMMED`).  ``plain_at`` gives the columns of, in order: characters, words of
    the page, sentences, ends with punctuation, ends with a question mark, start and end relative to the source,
    children, blocks, depth and words (those six the caller takes the logarithm of).
    """
    cdef Py_ssize_t nodes = node_table.shape[0], blocks = summed.shape[0], width = summed.shape[1]
    cdef Py_ssize_t node, column, block, first, end, last
    prefix_array = np.zeros((blocks + 1, width))
    cdef double[:, ::1] prefix = prefix_array
    for block in range(blocks):
        for column in range(width):
            prefix[block + 1, column] = prefix[block, column] + summed[block, column]
    out_array = np.empty((nodes, columns))
    totals_array = np.empty((nodes, width))
    cdef double[:, ::1] out = out_array
    cdef double[:, ::1] totals = totals_array
    cdef double chars, words
    for node in range(nodes):
        first, end = node_table[node, FIRST_BLOCK], node_table[node, END_BLOCK]
        last = end - 1 if end > 1 else 0
        for column in range(width):
            totals[node, column] = prefix[end, column] - prefix[first, column]
        chars, words = totals[node, 0], totals[node, 1]
        for column in range(6):
            out[node, per_char_at[column]] = totals[node, 3 + column] / (chars if chars > 1.0 else 1.0)
        for column in range(3):
            out[node, per_word_at[column]] = totals[node, 9 + column] / (words if words > 1.0 else 1.0)
        for column in range(4):
            out[node, contains_at[column]] = totals[node, 12 + column] > 0
        out[node, plain_at[0]] = chars
        out[node, plain_at[1]] = words / page_words
        out[node, plain_at[2]] = totals[node, 2]
        out[node, plain_at[3]] = ends_punct[last]
        out[node, plain_at[4]] = ends_question[last]
        out[node, plain_at[5]] = starts[first] / source_length
        out[node, plain_at[6]] = ends[last] / source_length
        out[node, plain_at[7]] = node_table[node, N_CHILDREN]
        out[node, plain_at[8]] = end - first
        out[node, plain_at[9]] = node_table[node, DEPTH]
        out[node, plain_at[10]] = words
    return out_array, totals_array


def block_rows(float[:, ::1] out, const double[:, ::1] stats, const int64_t[:, :] chain, const int64_t[::1] packed,
               int flag_count, const double[::1] page_values):
    """Write the paper's 128 block columns into ``out`` (n_blocks, at least 128), as :func:`.features.block_features`
    writes them: the node's, the parent's and the grandparent's ``stats`` rows (``chain``'s first three columns),
    the ``flag_count`` 0/1 columns of ``packed`` (bit ``b`` of a block's int64 is column ``b``), the four page
    values and the block's position in the page."""
    cdef Py_ssize_t blocks = out.shape[0], width = stats.shape[1], i, level, k, column
    cdef double denominator = blocks - 1 if blocks > 1 else 1
    cdef int64_t bits
    for i in range(blocks):
        column = 0
        for level in range(3):
            for k in range(width):
                out[i, column] = <float>stats[chain[i, level], k]
                column += 1
        bits = packed[i]
        for k in range(flag_count):
            out[i, column] = <float>((bits >> k) & 1)
            column += 1
        for k in range(4):
            out[i, column] = <float>page_values[k]
            column += 1
        out[i, column] = <float>(i / denominator)


def ancestors(const int64_t[:] parents, const int64_t[::1] start, int levels):
    """:func:`.features.ancestors_reference` in one pass: ``(len(start), levels + 1)`` node numbers, each row the
    node in ``start`` and its ancestors up to ``levels`` above it, -1 above the root."""
    cdef Py_ssize_t n = start.shape[0], i, level
    out_array = np.empty((n, levels + 1), np.int64)
    cdef int64_t[:, ::1] out = out_array
    cdef int64_t node
    for i in range(n):
        node = start[i]
        out[i, 0] = node
        for level in range(1, levels + 1):
            if node >= 0:
                node = parents[node]
            out[i, level] = node
    return out_array


def extended_columns(float[:, :] out, const int64_t[::1] ancestor_tags, int64_t hidden_bit, int64_t main_bit,
                     const unsigned char[::1] title, const int64_t[:, :] chain, const int64_t[::1] levels,
                     const double[:, ::1] totals, Py_ssize_t chars_at, Py_ssize_t link_chars_at,
                     const int64_t[:, :] node_table, double page_chars):
    """Write :data:`.features.EXTENDED_BLOCK_FEATURES` into ``out`` (n_blocks, 16) as
    :func:`.features.extended_columns_reference` does: the same float64 divisions and comparisons, each value rounded
    to float32 once.  ``title``: the headline mask (0/1 a block); ``chain``: each block's ancestors, the root for
    those above it; ``levels``: the region levels; ``totals``: the nodes' summed counts, characters and link
    characters at ``chars_at`` and ``link_chars_at``; ``page_chars``: the page's characters, at least 1."""
    cdef Py_ssize_t blocks = out.shape[0], nodes = node_table.shape[0], i, k, node, main = -1
    cdef Py_ssize_t region_count = levels.shape[0]
    cdef double chars, threshold, outside
    cdef int64_t deepest = -1, main_first = 0, main_end = 0
    # The main region: the deepest node (the first of the deepest) with half the page's text outside links.
    if nodes:
        threshold = 0.5 * max(totals[0, chars_at] - totals[0, link_chars_at], 1.0)
        for node in range(nodes):
            outside = totals[node, chars_at] - totals[node, link_chars_at]
            if outside >= threshold and node_table[node, DEPTH] > deepest:
                main, deepest = node, node_table[node, DEPTH]
    if main >= 0:
        main_first, main_end = node_table[main, FIRST_BLOCK], node_table[main, END_BLOCK]
    for i in range(blocks):
        out[i, 0] = 1.0 if ancestor_tags[i] & hidden_bit else 0.0
        out[i, 1] = 1.0 if ancestor_tags[i] & main_bit else 0.0
        out[i, 2] = 1.0 if title[i] else 0.0
        for k in range(region_count):
            node = chain[i, levels[k]]
            chars = totals[node, chars_at]
            out[i, 3 + 2 * k] = <float>(chars / page_chars)
            out[i, 4 + 2 * k] = <float>(totals[node, link_chars_at] / (chars if chars > 1.0 else 1.0))
        k = 3 + 2 * region_count
        if main >= 0:
            out[i, k] = 1.0 if main_first <= i < main_end else 0.0
            out[i, k + 1] = 1.0 if i < main_first else 0.0
            out[i, k + 2] = 1.0 if i >= main_end else 0.0
            out[i, k + 3] = <float>(totals[main, chars_at] / page_chars)
        else:
            out[i, k] = out[i, k + 1] = out[i, k + 2] = out[i, k + 3] = 0.0


def log1p_counts(double[:, ::1] out, const int64_t[::1] columns, const double[::1] table):
    """``out[:, columns] = np.log1p(out[:, columns])`` for the whole numbers below ``len(table)``, read from
    ``table`` (numpy's ``log1p`` of each, made once): returns the flat indices of the other values, for the caller
    to give to numpy's ``log1p`` (so that every value is numpy's logarithm, as in the reference)."""
    cdef Py_ssize_t rows = out.shape[0], width = out.shape[1], known = table.shape[0], row, k, column
    cdef double value
    cdef list pending = []
    for row in range(rows):
        for k in range(columns.shape[0]):
            column = columns[k]
            value = out[row, column]
            if 0.0 <= value < known and value == <double>(<int64_t>value):
                out[row, column] = table[<int64_t>value]
            else:
                pending.append(row * width + column)
    return np.array(pending, np.int64)


def edge_columns(float[:, ::1] out, double[::1] ratio, page, const int64_t[:, :] chain, const int64_t[:] tag_marks,
                 const int64_t[::1] tag_bits, const int64_t[::1] lengths, tuple text, tuple bits, int levels,
                 const double[::1] table):
    """:func:`.edges.edge_matrix` in one pass over the pairs of neighbouring blocks: writes ``out`` (n - 1, 25) but
    column 19, and ``ratio``, the length ratio whose logarithm the caller writes there.  The three other logarithms
    are read from ``table`` (numpy's ``log1p`` of the whole numbers below its length); returns the flat indices into
    ``out`` and the arguments of those past it, for the caller to give to numpy's ``log1p`` (every value is then
    numpy's, as in the reference).  ``page``: the :class:`~scrapy_web2text.page.Page` (its node table, block nodes,
    breaks, links, tag paths, keyword marks and source offsets are read); ``chain``: each block's ancestors (at least
    ``levels + 1`` columns, -1 above the root); ``tag_marks``: :func:`.tag_groups.ancestor_marks`; ``tag_bits``: the
    tag lists' group bits; ``lengths``: the block texts' lengths; ``text``: :func:`.counts.edge_text_properties`
    (spaces, first and last characters' bits, int64); ``bits``: where the heading group is among ``tag_bits``, the
    ``ENDS_SENTENCE`` and ``UPPER`` character bits.  A pair with no common ancestor within ``levels`` of both is
    ``2 × levels + 2`` apart."""
    cdef const int64_t[:, :] node_table = page.node_table
    cdef const int64_t[:] block_nodes = page.block_nodes
    cdef const unsigned char[:] break_before = page.break_before.view(np.uint8)
    cdef const unsigned char[:] in_link = page.in_link.view(np.uint8)
    cdef const int64_t[:] path_ids = page.path_ids, keywords = page.ancestor_keywords
    cdef const int64_t[:] starts = page.starts, ends = page.ends
    cdef const int64_t[:] spaces = text[0], first = text[1], last = text[2]
    cdef int heading_bit = bits[0]
    cdef int64_t ends_sentence = bits[1], upper = bits[2], far = 2 * levels + 2
    cdef Py_ssize_t pairs = out.shape[0], i, a, b, known = table.shape[0]
    cdef int64_t node, cost, gap, depth_left, depth_right, length_left, length_right
    cdef int64_t bucket_left, bucket_right, left_tags, right_tags
    cdef int64_t args[3]
    cdef int log_columns[3]
    cdef bint link_left, link_right, heading_left, heading_right
    cdef list pending_at = [], pending_args = []
    if (chain.shape[1] < levels + 1 or chain.shape[0] != pairs + 1 or block_nodes.shape[0] != pairs + 1
            or ratio.shape[0] != pairs or out.shape[1] != 25 or lengths.shape[0] != pairs + 1
            or starts.shape[0] != pairs + 1 or ends.shape[0] != pairs + 1):
        raise ValueError("edge inputs of mismatched shapes")
    log_columns[0], log_columns[1], log_columns[2] = 15, 16, 23
    left_tags = node_table[block_nodes[0], TAGS_ID]
    heading_left = (tag_bits[left_tags] >> heading_bit) & 1
    depth_left = node_table[block_nodes[0], DEPTH]
    length_left = lengths[0]
    bucket_left = _bit_length(length_left + 1)
    for i in range(pairs):
        # Tree distance: the fewest levels climbed from both blocks to a common ancestor (never the -1 above the
        # root), searched up to ``levels`` each.
        cost = far
        for a in range(levels + 1):
            node = chain[i, a]
            if node < 0 or a >= cost:
                break
            for b in range(levels + 1):
                if a + b >= cost:
                    break
                if chain[i + 1, b] == node:
                    cost = a + b
                    break
        right_tags = node_table[block_nodes[i + 1], TAGS_ID]
        heading_right = (tag_bits[right_tags] >> heading_bit) & 1
        depth_right = node_table[block_nodes[i + 1], DEPTH]
        length_right = lengths[i + 1]
        bucket_right = _bit_length(length_right + 1)
        link_left, link_right = in_link[i] != 0, in_link[i + 1] != 0
        out[i, 0] = cost == 2
        out[i, 1] = cost == 3
        out[i, 2] = cost == 4
        out[i, 3] = cost > 4
        out[i, 4] = break_before[i + 1] != 0
        out[i, 5] = chain[i, 1] == chain[i + 1, 1]
        out[i, 6] = chain[i, 2] == chain[i + 1, 2] and chain[i, 2] >= 0
        out[i, 7] = chain[i, 3] == chain[i + 1, 3] and chain[i, 3] >= 0
        out[i, 8] = left_tags == right_tags
        out[i, 9] = node_table[block_nodes[i], ATTRIBUTES_ID] == node_table[block_nodes[i + 1], ATTRIBUTES_ID]
        out[i, 10] = path_ids[i] == path_ids[i + 1]
        out[i, 11] = link_left and link_right
        out[i, 12] = link_left != link_right
        out[i, 13] = (last[i] & ends_sentence) != 0
        out[i, 14] = (first[i + 1] & upper) != 0
        out[i, 17] = keywords[i] == keywords[i + 1]
        out[i, 18] = tag_marks[i] == tag_marks[i + 1]
        out[i, 19] = 0
        out[i, 20] = spaces[i] + 1.0 > 10 and spaces[i + 1] + 1.0 > 10
        out[i, 21] = heading_left
        out[i, 22] = heading_right
        out[i, 24] = bucket_left == bucket_right
        ratio[i] = (length_left + 1.0) / (length_right + 1.0)
        gap = starts[i + 1] - ends[i]
        args[0] = gap if gap > 0 else 0
        args[1] = depth_left - depth_right if depth_left >= depth_right else depth_right - depth_left
        args[2] = cost
        for a in range(3):
            if args[a] < known:
                out[i, log_columns[a]] = <float>table[args[a]]
            else:
                pending_at.append(i * out.shape[1] + log_columns[a])
                pending_args.append(args[a])
        left_tags, heading_left, depth_left, length_left, bucket_left = (
            right_tags, heading_right, depth_right, length_right, bucket_right
        )
    return np.array(pending_at, np.int64), np.array(pending_args, np.float64)


cdef inline int64_t _bit_length(int64_t value) noexcept nogil:
    """The bits of ``value`` (> 0): ``floor(log2(value)) + 1``, the length bucket of the reference plus one."""
    cdef int64_t bits = 0
    while value:
        value >>= 1
        bits += 1
    return bits
