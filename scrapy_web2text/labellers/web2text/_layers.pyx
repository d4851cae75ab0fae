# cython: language_level=3, boundscheck=False, wraparound=False
"""The end of a convolution layer of :func:`.layers.conv_stack`, compiled: shifted sums, bias and ReLU in one pass.

:func:`.layers.conv_stack` is the reference.  After a layer's matrix product it makes a copy of the centre tap's
outputs, adds each other tap's shifted rows, adds the bias and takes the ReLU: seven numpy passes over a small array
for a kernel of 5, each a few microseconds whatever the page's size.  Here each output row is summed once, with the
same float32 additions in the same order (centre tap, the other taps from the first, bias) and the ReLU of
``np.maximum(x, 0)`` (NaN kept, -0 made +0), so the outputs are the same to the bit; ``tests/page/test_speedups.py``
holds both to that.
"""

import numpy as np


def shifted_sum(const float[:, ::1] taps, const float[::1] bias, Py_ssize_t kernel, Py_ssize_t dilation, bint relu):
    """Output row ``i``: the centre tap's row ``i``, plus tap ``k``'s row ``i + dilation × (k - kernel // 2)`` for
    each other tap within the page, plus ``bias``; its ReLU where ``relu``.  ``taps`` is ``(n, kernel × out)``,
    tap ``k`` in columns ``k × out`` to ``(k + 1) × out``."""
    cdef Py_ssize_t n = taps.shape[0], width = bias.shape[0], pad = kernel // 2
    if taps.shape[1] != kernel * width:
        raise ValueError(f"taps of width {taps.shape[1]} for {kernel} taps of {width} outputs")
    out_array = np.empty((n, width), np.float32)
    cdef float[:, ::1] out = out_array
    cdef Py_ssize_t i, j, k, source
    cdef float value
    cdef float* row
    cdef const float* tap
    if n == 0:
        return out_array
    for i in range(n):
        # Row pointers: the loops over the outputs then run on contiguous floats, which the compiler vectorises
        # (each output's additions stay in the same order).
        row = &out[i, 0]
        tap = &taps[i, pad * width]
        for j in range(width):
            row[j] = tap[j]
        for k in range(kernel):
            source = i + dilation * (k - pad)
            if k == pad or source < 0 or source >= n:
                continue
            tap = &taps[source, k * width]
            for j in range(width):
                row[j] = row[j] + tap[j]
        for j in range(width):
            value = row[j] + bias[j]
            if relu and not (value > 0 or value != value):
                value = 0
            row[j] = value
    return out_array


def add_bias(float[:, :] x, const float[::1] bias, bint relu):
    """``x += bias`` and, where ``relu``, ``np.maximum(x, 0, out=x)``, in place (``x`` may be a strided view)."""
    cdef Py_ssize_t n = x.shape[0], width = x.shape[1], i, j
    if bias.shape[0] != width:
        raise ValueError(f"a bias of {bias.shape[0]} for {width} outputs")
    cdef float value
    cdef float* row
    if width and x.strides[1] == sizeof(float):
        # Rows of contiguous floats (a whole product, or its first columns): a vectorised loop on each.
        for i in range(n):
            row = &x[i, 0]
            for j in range(width):
                value = row[j] + bias[j]
                if relu and not (value > 0 or value != value):
                    value = 0
                row[j] = value
        return
    for i in range(n):
        for j in range(width):
            value = x[i, j] + bias[j]
            if relu and not (value > 0 or value != value):
                value = 0
            x[i, j] = value


def shifted_by_maximum(const float[:, ::1] logits):
    """``logits`` less each row's maximum, the maximum taken over the columns in order as ``np.maximum`` takes it (a
    NaN wins): the first step of :func:`.layers.log_softmax`, whose exponentials and logarithms stay numpy's."""
    cdef Py_ssize_t n = logits.shape[0], width = logits.shape[1], i, j
    out_array = np.empty((n, width), np.float32)
    cdef float[:, ::1] out = out_array
    cdef float top, value
    if width == 0:
        return out_array
    for i in range(n):
        top = logits[i, 0]
        for j in range(1, width):
            value = logits[i, j]
            if value > top or value != value:
                top = value
        for j in range(width):
            out[i, j] = logits[i, j] - top
    return out_array


def row_totals(const float[:, ::1] values):
    """Each row's sum, its columns added in order in float32 (as :func:`.layers.log_softmax` adds them)."""
    cdef Py_ssize_t n = values.shape[0], width = values.shape[1], i, j
    out_array = np.zeros(n, np.float32)
    cdef float[::1] out = out_array
    cdef float total
    if width == 0:
        return out_array
    for i in range(n):
        total = values[i, 0]
        for j in range(1, width):
            total = total + values[i, j]
        out[i] = total
    return out_array


def subtract_rows(float[:, ::1] x, const float[::1] amounts):
    """``x -= amounts[:, None]``, in place."""
    cdef Py_ssize_t n = x.shape[0], width = x.shape[1], i, j
    if amounts.shape[0] != n:
        raise ValueError(f"{amounts.shape[0]} amounts for {n} rows")
    for i in range(n):
        for j in range(width):
            x[i, j] = x[i, j] - amounts[i]
