# cython: language_level=3, boundscheck=False, wraparound=False
"""The two-state Viterbi recursion of :func:`.viterbi.viterbi`, compiled.

:func:`.viterbi.viterbi` is the reference: it prepares the scores and runs this recursion in Python floats, one
step per block (about a microsecond each, the decoder's whole cost).  This is the same recursion over the same
float64 scores, with the same comparisons and the same tie rule (keep the boilerplate predecessor on a tie), so the
labels are equal; ``tests/page/test_speedups.py`` holds both to that.
"""

import numpy as np


def best_path(const double[::1] boiler, const double[::1] content, const double[:, ::1] transitions):
    """The labels (int8) maximising the scores: ``boiler``/``content`` per block, ``transitions`` (n - 1, 4) as
    00, 01, 10, 11 (previous → next), already weighted."""
    cdef Py_ssize_t n = boiler.shape[0], i
    labels = np.zeros(n, np.int8)
    if n == 0:
        return labels
    cdef signed char[::1] out = labels
    cdef signed char[::1] back0 = np.zeros(n, np.int8)  # best previous label when a block is boilerplate
    cdef signed char[::1] back1 = np.zeros(n, np.int8)  # ... when it is content
    cdef double best0 = boiler[0], best1 = content[0], a, b, c, d, new0, new1
    for i in range(1, n):
        a = best0 + transitions[i - 1, 0]
        b = best1 + transitions[i - 1, 2]
        c = best0 + transitions[i - 1, 1]
        d = best1 + transitions[i - 1, 3]
        if a >= b:
            new0 = a + boiler[i]
        else:
            new0 = b + boiler[i]
            back0[i] = 1
        if c >= d:
            new1 = c + content[i]
        else:
            new1 = d + content[i]
            back1[i] = 1
        best0, best1 = new0, new1
    cdef signed char label = 1 if best1 > best0 else 0
    out[n - 1] = label
    for i in range(n - 1, 0, -1):
        label = back1[i] if label else back0[i]
        out[i - 1] = label
    return labels
