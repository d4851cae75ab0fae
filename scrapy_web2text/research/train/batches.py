"""Training data laid out for mini-batches.

Pages are laid end to end with padding rows between them, so a batch is one gather: fragments of consecutive
blocks (the paper's recipe) or, for networks that pool over the whole page, whole pages side by side.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np


@dataclass
class Sequences:
    """Pages laid end to end with padding, so fragments are one gather."""

    x: np.ndarray
    y: np.ndarray
    valid: np.ndarray
    weight: np.ndarray
    starts: np.ndarray
    pages: list[tuple[int, int]]

    @functools.cached_property
    def by_length(self) -> np.ndarray:
        """Page numbers, shortest page first."""
        return np.argsort([n for _, n in self.pages], kind="stable")


def lay_out(inputs: list[np.ndarray], targets: list[np.ndarray], fragment: int, weights: list[np.ndarray]) -> Sequences:
    """``targets``: class numbers (one per row), or class probabilities (a row of them per row: soft targets)."""
    width = inputs[0].shape[1] if inputs else 0
    total = sum(len(x) + fragment for x in inputs)
    x_all = np.zeros((total, width), np.float32)
    soft = bool(targets) and targets[0].ndim == 2
    y_all = np.zeros((total, targets[0].shape[1]), np.float32) if soft else np.zeros(total, np.int64)
    valid = np.zeros(total, bool)
    weight = np.zeros(total, np.float32)
    starts, pages, at = [], [], 0
    for x, y, w in zip(inputs, targets, weights):
        n = len(x)
        x_all[at : at + n], y_all[at : at + n], valid[at : at + n], weight[at : at + n] = x, y, True, w
        if n:
            starts.extend(range(at, at + max(n - fragment, 0) + 1))
            pages.append((at, n))
        at += n + fragment
    return Sequences(x_all, y_all, valid, weight, np.asarray(starts, np.int64), pages)


#: Longest page a training batch holds whole; a longer one is cut to a random stretch of this many blocks.
MAX_TRAINING_PAGE = 600


def page_batch(data: Sequences, generator: np.random.Generator, config: dict):
    """Indices (pages, length) of ``pages_per_batch`` random pages laid side by side, and their mask.

    Padding points at the zero row after the first page, whose weight is zero, so it adds no loss.
    """
    import torch

    # Pages of about the same length go together (neighbours in length order), so little of a batch is padding.
    by_length = data.by_length
    size = min(config.get("pages_per_batch", 4), len(by_length))
    first = int(generator.integers(0, len(by_length) - size + 1))
    chosen = by_length[first : first + size]
    spans = []
    for page in chosen:
        at, n = data.pages[page]
        if n > MAX_TRAINING_PAGE:
            at, n = at + int(generator.integers(0, n - MAX_TRAINING_PAGE + 1)), MAX_TRAINING_PAGE
        spans.append((at, n))
    length = max(n for _, n in spans)
    pad = data.pages[0][0] + data.pages[0][1]  # a padding row: zero features, zero weight
    index = np.full((len(spans), length), pad, np.int64)
    mask = np.zeros((len(spans), length), bool)
    for row, (at, n) in enumerate(spans):
        index[row, :n] = np.arange(at, at + n)
        mask[row, :n] = True
    return torch.from_numpy(index), torch.from_numpy(mask)
