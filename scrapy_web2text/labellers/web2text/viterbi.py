"""Viterbi decoding of the block labels (Vogels et al. 2018, §3.5).

The labelling maximises

    sum_i [log p_i(l_i) + b * l_i]  +  lambda * sum_i log p_i,i+1(l_i → l_i+1)

where label 1 is content, lambda weighs the pairwise term (0.1 in the
paper) and b = log((1 - t) / t) is the threshold bias.  With t = 0.5 the
bias is 0 and this is the paper's objective.  Without the pairwise term a
block is kept exactly when p_i(content) > t, so raising ``threshold``
trades recall for precision; with it, neighbours can still pull a block
over or under the line.
"""

from __future__ import annotations

import math

import numpy as np

from ...page.twins import load_twin


def threshold_bias(threshold: float) -> float:
    """The log-odds added to every block's content score for ``threshold``."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie strictly between 0 and 1, got {threshold!r}")
    return math.log((1.0 - threshold) / threshold)


def viterbi(unary: np.ndarray, pairwise: np.ndarray, lam: float = 0.1, threshold: float = 0.5) -> np.ndarray:
    """Most likely 0/1 labels for unary (n, 2) and pairwise (n - 1, 2, 2) log potentials."""
    n = len(unary)
    if n == 0:
        return np.zeros(0, np.int8)
    bias = threshold_bias(threshold)
    content = np.asarray(unary[:, 1], np.float64) + bias
    boiler = np.ascontiguousarray(unary[:, 0], np.float64)
    transitions = (lam * np.asarray(pairwise, np.float64)).reshape(-1, 4)
    if compiled_best_path is not None:
        return compiled_best_path(boiler, content, transitions)
    return _best_path(boiler.tolist(), content.tolist(), transitions.tolist())


def _best_path(boiler: list[float], content: list[float], t: list[list[float]]) -> np.ndarray:
    """The recursion over plain floats: with two states, numpy per step would cost more than it saves."""
    n = len(boiler)
    back0 = [0] * n  # best previous label when this block is boilerplate
    back1 = [0] * n  # ... when it is content
    best0, best1 = boiler[0], content[0]
    for i in range(1, n):
        t00, t01, t10, t11 = t[i - 1]
        a, b = best0 + t00, best1 + t10
        c, d = best0 + t01, best1 + t11
        if a >= b:
            new0 = a + boiler[i]
        else:
            new0, back0[i] = b + boiler[i], 1
        if c >= d:
            new1 = c + content[i]
        else:
            new1, back1[i] = d + content[i], 1
        best0, best1 = new0, new1
    labels = np.zeros(n, np.int8)
    label = 1 if best1 > best0 else 0
    labels[-1] = label
    for i in range(n - 1, 0, -1):
        label = back1[i] if label else back0[i]
        labels[i - 1] = label
    return labels


# The compiled recursion (``_viterbi.pyx``); ``None`` where it is not in use.
(compiled_best_path,) = load_twin(__name__, "best_path")


def sequence_score(labels, unary, pairwise, lam: float = 0.1, threshold: float = 0.5) -> float:
    """The objective above for one labelling (for tests and diagnostics)."""
    bias = threshold_bias(threshold)
    total = sum(float(unary[i, label]) + bias * label for i, label in enumerate(labels))
    total += lam * sum(float(pairwise[i, labels[i], labels[i + 1]]) for i in range(len(labels) - 1))
    return total
