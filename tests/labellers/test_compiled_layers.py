"""The compiled end of a convolution layer (``labellers/web2text/_layers.pyx``) gives the numpy layers' floats to the
bit: shifted sums, bias and ReLU, on any kernel, dilation and page length, NaN and negative zero included."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_web2text.labellers.web2text import layers
from tests.twins import twin

shifted_sum, add_bias = (getattr(twin(layers.__name__), name) for name in ("shifted_sum", "add_bias"))


def _both(function, *args, **kwargs) -> tuple:
    saved = layers.compiled_shifted_sum, layers.compiled_add_bias
    try:
        layers.compiled_shifted_sum, layers.compiled_add_bias = shifted_sum, add_bias
        compiled = function(*args, **kwargs)
        layers.compiled_shifted_sum, layers.compiled_add_bias = None, None
        python = function(*args, **kwargs)
    finally:
        layers.compiled_shifted_sum, layers.compiled_add_bias = saved
    return compiled, python


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_the_compiled_layers_are_in_use_unless_turned_off() -> None:
    turned_off = os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() not in ("", "0")
    assert (layers.compiled_shifted_sum is None) == turned_off
    assert (layers.compiled_add_bias is None) == turned_off
    assert (layers.compiled_shifted_by_maximum is None) == turned_off


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 40),
    st.lists(st.tuples(st.integers(1, 12), st.sampled_from([1, 3, 5, 7]), st.integers(1, 4)), min_size=1, max_size=4),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_same_layer_outputs(n: int, shape: list, seed: int, pooled: bool) -> None:
    rng = np.random.default_rng(seed)
    width = 6
    x = rng.normal(size=(n, width)).astype(np.float32)
    x[rng.random(x.shape) < 0.2] = -0.0  # ReLU of negative zero and of exact sums of zero
    if n > 3:
        x[1, 2] = np.nan
    stack, dilations = [], []
    for out, kernel, dilation in shape:
        stack.append(
            (rng.normal(size=(out, width, kernel)).astype(np.float32), rng.normal(size=out).astype(np.float32))
        )
        dilations.append(dilation)
        width = out
    pooling = {"after": 0, "windows": [2], "page": True} if pooled and len(stack) > 1 else None
    if pooling:  # the next layer reads the units, their window means and their page mean
        out, _, kernel = stack[1][0].shape
        stack[1] = (rng.normal(size=(out, 3 * stack[0][0].shape[0], kernel)).astype(np.float32), stack[1][1])
    compiled, python = _both(layers.conv_stack, x, stack, dilations, pooling)
    assert _same_bits(compiled, python)


def test_same_outputs_from_a_given_first_product_and_a_float64_bias() -> None:
    rng = np.random.default_rng(7)
    products = rng.normal(size=(9, 12)).astype(np.float32)
    stack = [(rng.normal(size=(4, 3, 1)).astype(np.float32), rng.normal(size=4).astype(np.float32))]
    stack.append((rng.normal(size=(2, 4, 5)).astype(np.float32), rng.normal(size=2)))  # float64 bias: numpy's sums
    compiled, python = _both(
        lambda: layers.conv_stack(None, stack, None, None, products.copy()[:, 4:8])  # a strided part of a product
    )
    assert compiled.dtype == python.dtype and compiled.tobytes() == python.tobytes()


def test_the_compiled_layer_refuses_mismatched_widths() -> None:
    with pytest.raises(ValueError, match="taps of width"):
        shifted_sum(np.zeros((3, 10), np.float32), np.zeros(3, np.float32), 5, 1, True)
    with pytest.raises(ValueError, match="a bias of"):
        add_bias(np.zeros((3, 4), np.float32), np.zeros(3, np.float32), True)


SOFTMAX = twin(layers.__name__)
SOFTMAX_TWINS = {
    name: getattr(SOFTMAX, name.removeprefix("compiled_"))
    for name in ("compiled_shifted_by_maximum", "compiled_row_totals", "compiled_subtract_rows")
}


def _both_softmax(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    saved = {name: getattr(layers, name) for name in SOFTMAX_TWINS}
    try:
        for name, function in SOFTMAX_TWINS.items():
            setattr(layers, name, function)
        compiled = layers.log_softmax(logits)
        for name in SOFTMAX_TWINS:
            setattr(layers, name, None)
        with np.errstate(invalid="ignore"):  # inf - inf in a row of infinities: NaN, as the compiled pass makes it
            python = layers.log_softmax(logits)
    finally:
        for name, function in saved.items():
            setattr(layers, name, function)
    return compiled, python


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 30), st.sampled_from([1, 2, 4]), st.integers(0, 2**32 - 1), st.floats(0.1, 80.0))
def test_same_log_softmax(n: int, classes: int, seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    logits = (rng.normal(size=(n, classes)) * scale).astype(np.float32)
    special = rng.random(logits.shape)
    logits[special < 0.05] = -0.0
    logits[(special >= 0.05) & (special < 0.08)] = 0.0
    logits[(special >= 0.08) & (special < 0.1)] = np.nan
    logits[(special >= 0.1) & (special < 0.12)] = -np.inf
    logits[(special >= 0.12) & (special < 0.13)] = np.inf
    compiled, python = _both_softmax(logits)
    assert compiled.dtype == python.dtype == np.float32 and compiled.shape == python.shape
    assert np.array_equal(compiled, python, equal_nan=True)
    numbers = ~np.isnan(python)
    assert np.array_equal(np.signbit(compiled[numbers]), np.signbit(python[numbers]))  # negative zero too
    assert np.allclose(np.exp(python[~np.isnan(python).any(axis=1)]).sum(axis=1), 1.0, atol=1e-5)
