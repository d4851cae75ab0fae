# cython: language_level=3, boundscheck=False, wraparound=False
"""The comparisons of the edge features, compiled: one pass over the pairs of neighbouring blocks.

:func:`.edges.edge_comparisons` is the reference and says what each column means; it takes about forty whole-page
numpy operations, each cheap, their fixed costs not.  This pass writes the same 0/1 columns and tree distances
(``tests/test_speedups.py`` holds both equal); the four logarithms stay numpy's, in :func:`.edges.edge_matrix`.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t

import numpy as np

cdef enum:
    _COLUMNS = 25
    _NONE = 99  # no common ancestor within the levels searched


cdef inline void _structure_columns(float[:, ::1] rows, Py_ssize_t i, int64_t d, const int64_t[:, :] chain,
                                    const uint8_t[:] break_before, const uint8_t[:] in_link,
                                    const int64_t[:] path_ids, const int64_t[:] keywords,
                                    const int64_t[:] tag_marks) noexcept nogil:
    """The columns of pair ``i`` that both passes below compute alike: the tree distance ``d``'s, the break, the
    shared ancestors, the tag paths, the links, the keywords and the tag marks."""
    rows[i, 0] = d == 2
    rows[i, 1] = d == 3
    rows[i, 2] = d == 4
    rows[i, 3] = d > 4
    rows[i, 4] = break_before[i + 1] != 0
    rows[i, 5] = chain[i, 1] == chain[i + 1, 1]  # above the root both are -1: the same "parent", as in numpy
    rows[i, 6] = chain[i, 2] == chain[i + 1, 2] and chain[i, 2] >= 0
    rows[i, 7] = chain[i, 3] == chain[i + 1, 3] and chain[i, 3] >= 0
    rows[i, 10] = path_ids[i] == path_ids[i + 1]
    rows[i, 11] = in_link[i] != 0 and in_link[i + 1] != 0
    rows[i, 12] = (in_link[i] != 0) != (in_link[i + 1] != 0)
    rows[i, 17] = keywords[i] == keywords[i + 1]
    rows[i, 18] = tag_marks[i] == tag_marks[i + 1]


def edge_comparisons(const int64_t[:, :] chain, const uint8_t[:] break_before, const uint8_t[:] in_link,
                     const int64_t[:] path_ids, const int64_t[:] keywords, const int64_t[:] tag_marks,
                     const int64_t[:] leaf_tags, const int64_t[:] leaf_attributes, const uint8_t[:] heading,
                     const int64_t[:] spaces, const uint16_t[::1] first, const uint16_t[::1] last,
                     const double[::1] bucket, int levels, uint16_t ends_sentence, uint16_t upper):
    """``(matrix, distance)`` as :func:`.edges.edge_comparisons` returns them (the logarithm columns left 0)."""
    cdef Py_ssize_t pairs = leaf_tags.shape[0] - 1
    out = np.zeros((pairs, _COLUMNS), np.float32)
    distance = np.empty(pairs, np.int64)
    cdef float[:, ::1] rows = out
    cdef int64_t[::1] distances = distance
    cdef Py_ssize_t i
    cdef int64_t d
    for i in range(pairs):
        d = _tree_distance(chain, i, levels)
        distances[i] = d
        _structure_columns(rows, i, d, chain, break_before, in_link, path_ids, keywords, tag_marks)
        rows[i, 8] = leaf_tags[i] == leaf_tags[i + 1]
        rows[i, 9] = leaf_attributes[i] == leaf_attributes[i + 1]
        rows[i, 13] = (last[i] & ends_sentence) != 0
        rows[i, 14] = (first[i + 1] & upper) != 0
        rows[i, 20] = spaces[i] + 1 > 10 and spaces[i + 1] + 1 > 10  # more than ten words each
        rows[i, 21] = heading[i] != 0
        rows[i, 22] = heading[i + 1] != 0
        rows[i, 24] = bucket[i] == bucket[i + 1]
    return out, distance


cdef int64_t _tree_distance(const int64_t[:, :] chain, Py_ssize_t i, int levels) noexcept nogil:
    """The fewest levels climbed from blocks ``i`` and ``i + 1`` to a common ancestor (-1, above the root, meets
    nothing), searched up to ``levels`` each; ``2 * levels + 2`` where there is none."""
    cdef int64_t best = _NONE
    cdef int up, across
    for up in range(levels + 1):
        for across in range(levels + 1):
            if up + across < best and chain[i, up] == chain[i + 1, across] and chain[i + 1, across] >= 0:
                best = up + across
    return 2 * levels + 2 if best == _NONE else best


def edge_rows(const int64_t[:, :] chain, const uint8_t[:] break_before, const uint8_t[:] in_link,
              const int64_t[:] path_ids, const int64_t[:] keywords, const int64_t[:] tag_marks,
              const int64_t[:, :] node_table, const int64_t[:] block_nodes, const uint8_t[:] heading_lists,
              const int64_t[:, :] table, Py_ssize_t spaces_at, Py_ssize_t first_at, Py_ssize_t last_at,
              const int64_t[:] lengths, const double[:] bucket, const int64_t[:] starts, const int64_t[:] ends,
              int levels, uint16_t ends_sentence, uint16_t upper):
    """``(matrix, counts, ratios)``: the matrix of :func:`edge_comparisons` from the page's own arrays, as
    :func:`.edges.edge_matrix` gathers them (each block's node's tag list, attributes and depth from ``node_table``
    through ``block_nodes``, its heading bit from ``heading_lists`` by tag list, its spaces and first and last
    character's property bits from the compiled counts ``table``); what the logarithm columns take the logarithm
    of, in float64: ``counts`` (3, n_blocks - 1) the source gaps (at least 0), depth differences and tree distances,
    ``ratios`` the length ratios."""
    cdef Py_ssize_t pairs = block_nodes.shape[0] - 1, i
    out = np.zeros((pairs, _COLUMNS), np.float32)
    counts_array, ratios_array = np.empty((3, pairs)), np.empty(pairs)
    cdef float[:, ::1] rows = out
    cdef double[:, ::1] counts = counts_array
    cdef double[::1] ratios = ratios_array
    cdef int64_t d, left_node, right_node, left_tags, right_tags, gap, depth_difference
    cdef uint16_t first, last
    for i in range(pairs):
        left_node, right_node = block_nodes[i], block_nodes[i + 1]
        left_tags, right_tags = node_table[left_node, 5], node_table[right_node, 5]
        d = _tree_distance(chain, i, levels)
        last = <uint16_t>table[i, last_at]
        first = <uint16_t>table[i + 1, first_at]
        _structure_columns(rows, i, d, chain, break_before, in_link, path_ids, keywords, tag_marks)
        rows[i, 8] = left_tags == right_tags
        rows[i, 9] = node_table[left_node, 6] == node_table[right_node, 6]
        rows[i, 13] = (last & ends_sentence) != 0
        rows[i, 14] = (first & upper) != 0
        rows[i, 20] = table[i, spaces_at] + 1 > 10 and table[i + 1, spaces_at] + 1 > 10  # over ten words each
        rows[i, 21] = heading_lists[left_tags] != 0
        rows[i, 22] = heading_lists[right_tags] != 0
        rows[i, 24] = bucket[i] == bucket[i + 1]
        gap = starts[i + 1] - ends[i]
        depth_difference = node_table[left_node, 1] - node_table[right_node, 1]
        counts[0, i] = <double>(gap if gap > 0 else 0)
        counts[1, i] = <double>(depth_difference if depth_difference >= 0 else -depth_difference)
        counts[2, i] = <double>d
        ratios[i] = (<double>lengths[i] + 1.0) / (<double>lengths[i + 1] + 1.0)
    return out, counts_array, ratios_array
