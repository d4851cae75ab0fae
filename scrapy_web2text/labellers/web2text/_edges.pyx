# cython: language_level=3, boundscheck=False, wraparound=False
"""The comparisons of the edge features, compiled: one pass over the pairs of neighbouring blocks.

:func:`.edges.edge_comparisons` is the reference and says what each column means; it takes about forty whole-page
numpy operations, each cheap, their fixed costs not.  This pass writes the same 0/1 columns and tree distances from
the same :class:`.edges.EdgeInputs` (``tests/labellers/test_compiled_edges.py`` holds both equal); the four
logarithms stay numpy's, in :func:`.edges.edge_matrix`.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t

import numpy as np

cdef enum:
    _COLUMNS = 25
    _NONE = 99  # no common ancestor within the levels searched


def edge_comparisons(inputs, int levels, uint16_t ends_sentence, uint16_t upper):
    """``(matrix, distance)`` as :func:`.edges.edge_comparisons` returns them (the logarithm columns left 0)."""
    cdef const int64_t[:, :] chain = inputs.chain
    cdef const uint8_t[:] break_before = inputs.break_before
    cdef const uint8_t[:] in_link = inputs.in_link
    cdef const int64_t[:] path_ids = inputs.path_ids
    cdef const int64_t[:] keywords = inputs.keywords
    cdef const int64_t[:] tag_marks = inputs.tag_marks
    cdef const int64_t[:] leaf_tags = inputs.leaf_tags
    cdef const int64_t[:] leaf_attributes = inputs.leaf_attributes
    cdef const uint8_t[:] heading = inputs.heading
    cdef const int64_t[:] spaces = inputs.spaces
    cdef const uint16_t[:] first = inputs.first
    cdef const uint16_t[:] last = inputs.last
    cdef const double[:] bucket = inputs.bucket
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
        rows[i, 0] = d == 2
        rows[i, 1] = d == 3
        rows[i, 2] = d == 4
        rows[i, 3] = d > 4
        rows[i, 4] = break_before[i + 1] != 0
        rows[i, 5] = chain[i, 1] == chain[i + 1, 1]  # above the root both are -1: the same "parent", as in numpy
        rows[i, 6] = chain[i, 2] == chain[i + 1, 2] and chain[i, 2] >= 0
        rows[i, 7] = chain[i, 3] == chain[i + 1, 3] and chain[i, 3] >= 0
        rows[i, 8] = leaf_tags[i] == leaf_tags[i + 1]
        rows[i, 9] = leaf_attributes[i] == leaf_attributes[i + 1]
        rows[i, 10] = path_ids[i] == path_ids[i + 1]
        rows[i, 11] = in_link[i] != 0 and in_link[i + 1] != 0
        rows[i, 12] = (in_link[i] != 0) != (in_link[i + 1] != 0)
        rows[i, 13] = (last[i] & ends_sentence) != 0
        rows[i, 14] = (first[i + 1] & upper) != 0
        rows[i, 17] = keywords[i] == keywords[i + 1]
        rows[i, 18] = tag_marks[i] == tag_marks[i + 1]
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
