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

from ...page.nodes cimport DEPTH, END_BLOCK, FIRST_BLOCK, N_CHILDREN

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
