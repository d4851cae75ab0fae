"""The networks' layers in numpy: same-padded 1-D convolutions and page-context pooling.

A convolution sees a few blocks on either side (the paper's unary network about ±3, the shipped one ±6).  A
comment section, a teaser list or a footer is easier to recognise from farther away, so a network may pool its
hidden units over wide windows and over the whole page (``"unary_pooling"`` in a model's configuration): after
layer ``after``, each block's hidden vector is joined by the means of the hidden vectors of the blocks within
±w for each ``w`` in ``windows``, and by their mean over the page when ``page`` is true.  The means are prefix
sums, so pooling is linear in the page's length.  ``research/train/networks.py`` computes the same in torch.
"""

from __future__ import annotations

import numpy as np

from ...page.twins import load_twin

Layers = list[tuple[np.ndarray, np.ndarray]]


def pooling_width(pooling: dict | None) -> int:
    """How many copies of the hidden units the pooled layer passes on (1 without pooling)."""
    if not pooling:
        return 1
    return 1 + len(pooling.get("windows", ())) + bool(pooling.get("page"))


def pool(hidden: np.ndarray, pooling: dict) -> np.ndarray:
    """(n, c) hidden units → (n, c × :func:`pooling_width`): the units, their window means, their page mean."""
    n = hidden.shape[0]
    prefix = np.zeros((n + 1, hidden.shape[1]), hidden.dtype)
    np.cumsum(hidden, axis=0, out=prefix[1:])
    index = np.arange(n)
    parts = [hidden]
    for width in pooling.get("windows", ()):
        low, high = np.maximum(index - width, 0), np.minimum(index + width + 1, n)
        parts.append((prefix[high] - prefix[low]) / (high - low)[:, None].astype(hidden.dtype))
    if pooling.get("page"):
        parts.append(np.broadcast_to(prefix[n] / max(n, 1), hidden.shape))
    return np.hstack(parts)


def conv_stack(
    x: np.ndarray | None,
    layers: Layers,
    dilations: list[int] | None = None,
    pooling: dict | None = None,
    first_product: np.ndarray | None = None,
) -> np.ndarray:
    """Run (n, channels) through same-padded conv layers, ReLU between them.

    Each layer is (weight of shape (out, in, kernel), bias of shape (out,)),
    torch's ``Conv1d`` layout; ``dilations`` (default all 1) spread a
    layer's taps apart; ``pooling`` adds the page-context means after layer
    ``pooling["after"]``.  ``first_product``, when given, is the first layer's product already computed (an array
    of its own or a view the caller gives up, :mod:`.first_layers`), and ``x`` is not read.  Returns the last
    layer's (n, out) logits.
    """
    for position, (weight, bias) in enumerate(layers):
        hidden = position < len(layers) - 1  # ReLU between layers, not after the last
        if position == 0 and first_product is not None:
            x = _biased(first_product, bias, hidden)
        elif weight.shape[2] == 1:
            x = _biased(x @ product_matrix(weight), bias, hidden)
        else:
            taps = x @ product_matrix(weight)
            kernel, dilation = weight.shape[2], dilations[position] if dilations else 1
            if _compiled_fits(taps, bias):
                x = compiled_shifted_sum(taps, bias, kernel, dilation, hidden)
            else:
                x = _biased(_shifted_taps(taps, weight.shape[0], kernel, dilation), bias, hidden)
        if pooling and position == pooling["after"]:
            x = pool(x, pooling)
    return x


# The compiled end of a layer (``_layers.pyx``, the same floats to the bit); ``None`` where it is not in use.
compiled_shifted_sum, compiled_add_bias = load_twin(__name__, "shifted_sum", "add_bias")
#: The compiled steps of :func:`log_softmax`; ``None`` where they are not in use.
compiled_shifted_by_maximum, compiled_row_totals, compiled_subtract_rows = load_twin(
    __name__, "shifted_by_maximum", "row_totals", "subtract_rows"
)


def _compiled_fits(x: np.ndarray, bias: np.ndarray) -> bool:
    """Whether the compiled twins take these arrays: float32 throughout (a float64 bias would make numpy add in
    float64), which the shipped models' weights and features are."""
    return compiled_add_bias is not None and x.dtype == np.float32 and bias.dtype == np.float32 and x.ndim == 2


def _biased(x: np.ndarray, bias: np.ndarray, relu: bool) -> np.ndarray:
    """``x + bias``, its ReLU where ``relu``: in place (``x`` is the layer's own new array, or a part of one its
    caller gives up)."""
    if _compiled_fits(x, bias):
        compiled_add_bias(x, bias, relu)
        return x
    x += bias
    if relu:
        np.maximum(x, 0, out=x)
    return x


#: Each weight's :func:`product_matrix`, by the weight array's id; the array is kept with it, so that a later array
#: given a freed array's id is not mistaken for it.  Weights are not changed in place once used (a model's weights are
#: replaced by new arrays when trained).  Bounded: training makes new arrays at every export.
_PRODUCT_MATRICES: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_PRODUCT_MATRICES_KEPT = 256


def product_matrix(weight: np.ndarray) -> np.ndarray:
    """The (in, kernel × out) matrix a layer multiplies its input with: a kernel-1 weight's transposed view, a
    wider one's taps side by side (:func:`_shifted_taps`).  Made once per weight array: copying a wider weight into
    that layout on every call showed in a small page's time."""
    known = _PRODUCT_MATRICES.get(id(weight))
    if known is not None and known[0] is weight:
        return known[1]
    out_channels, in_channels, kernel = weight.shape
    if kernel == 1:
        matrix = weight[:, :, 0].T
    else:
        matrix = weight.transpose(1, 2, 0).reshape(in_channels, kernel * out_channels)
    matrix = without_subnormals(matrix)
    if len(_PRODUCT_MATRICES) >= _PRODUCT_MATRICES_KEPT:
        _PRODUCT_MATRICES.clear()
    _PRODUCT_MATRICES[id(weight)] = weight, matrix
    return matrix


def without_subnormals(weights: np.ndarray) -> np.ndarray:
    """``weights`` with its subnormal numbers (nonzero, smaller than the type's smallest normal number: 1.2e-38 in
    float32) set to zero; ``weights`` itself when it holds none.

    Training leaves some weights there (a model has up to about 1,500 of its 58,000), and on many x86 CPUs a
    multiplication that reads one takes a slow path in microcode: on an Intel Xeon the shipped model's products
    took several times as long (docs/research/speed-rounds.rst).  A product of such a weight with a
    feature is below 1e-33, far under the last bit of the sums it joins, so the potentials do not change."""
    subnormal = np.abs(weights) < np.finfo(weights.dtype).tiny
    subnormal &= weights != 0
    if not subnormal.any():
        return weights
    flushed = weights.copy()
    flushed[subnormal] = 0
    return flushed


def _shifted_taps(taps: np.ndarray, out_channels: int, kernel: int, dilation: int) -> np.ndarray:
    """A same-padded convolution from its one product, ``taps`` = (n, in) @ (in, kernel × out) (every tap's outputs
    for every block at once): output block i adds tap k's row i + dilation × k - pad.  The same sums as a product
    with the (n, kernel × in) window matrix, without building that matrix (faster on pages of a few hundred
    blocks)."""
    n = taps.shape[0]
    pad = kernel // 2
    out = taps[:, pad * out_channels : (pad + 1) * out_channels].copy()
    for k in range(kernel):
        shift = dilation * (k - pad)
        if k == pad or abs(shift) >= n:
            continue
        tap = taps[:, k * out_channels : (k + 1) * out_channels]
        if shift < 0:
            out[-shift:] += tap[: n + shift]
        else:
            out[: n - shift] += tap[shift:]
    return out


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Over the last axis (2 or 4 classes here).  Column by column: numpy's reductions along a short last axis cost
    more than these few operations on whole columns, which take the same maximum and add the same terms in the
    same order as ``max``/``sum(axis=-1)`` (the same floats, to the bit).  The compiled twins do the maximum, the
    sums and the subtractions in three passes, with numpy's ``exp`` and ``log`` between (the same floats again)."""
    if (
        compiled_shifted_by_maximum is not None
        and logits.dtype == np.float32
        and logits.ndim == 2
        and logits.flags.c_contiguous
    ):
        shifted = compiled_shifted_by_maximum(logits)
        total = compiled_row_totals(np.exp(shifted))
        compiled_subtract_rows(shifted, np.log(total, out=total))
        return shifted
    columns = [logits[..., column] for column in range(logits.shape[-1])]
    top = columns[0]
    for column in columns[1:]:
        top = np.maximum(top, column)
    shifted = logits - top[..., None]
    exp = np.exp(shifted)
    total = exp[..., 0]
    for column in range(1, logits.shape[-1]):
        total = total + exp[..., column]
    shifted -= np.log(total)[..., None]
    return shifted
