"""Body Text Extraction (Finn, Kushmerick, Smyth 2001) on our blocks.

The page is a token sequence B_0..B_{N-1}: 1 for a tag, 0 for a word.
BTE picks the one span i..j maximising

    T(i, j) = sum_{n<i} B_n + sum_{i<=n<=j} (1 - B_n) + sum_{n>j} B_n
            = (number of tags) + sum_{i<=n<=j} s_n,   s_n = +1 word, -1 tag,

so the best span is the maximum-sum subarray of s (Kadane), O(N) rather
than the naive O(N²) over all (i, j).  Runs of equal tokens are
collapsed first — all of a block's words form one +w run, the tags
between two blocks one -t run — which leaves the optimum unchanged (an
optimal span never cuts a run: extending it over the rest of a +run
gains, and entering a -run part-way only loses), so a block is content
exactly when its run lies in the span.

Tags are counted from the re-walked DOM (:mod:`._walk`): one token per
start tag and one per end tag, one for an element our parser skips
(``img``, ``br``, ``script``…, whose inner text is not words).  Words are
whitespace-separated tokens of the block texts.
"""

from __future__ import annotations

import time

import numpy as np

from ..page import Page
from ._walk import TEXT, aligned_events
from .base import Labelling


def max_subarray(values: np.ndarray) -> tuple[int, int, float]:
    """(i, j, sum) of the maximum-sum contiguous span values[i:j+1], O(n).

    Vectorised Kadane: with prefix sums P (P[0] = 0), the best span ending
    at j starts after the argmin of P[0..j].  Ties go to the earliest end
    and, for it, the latest minimum (the shortest span).  Empty input or
    all-negative input gives the single largest element.
    """
    n = len(values)
    if n == 0:
        return 0, -1, 0.0
    prefix = np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))
    running_min = np.minimum.accumulate(prefix[:-1])
    gains = prefix[1:] - running_min
    j = int(np.argmax(gains))
    # Start: the last position <= j where the prefix reaches its minimum.
    head = prefix[: j + 1]
    i = int(j - np.argmin(head[::-1]))
    return i, j, float(gains[j])


def token_runs(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """Run-length encoded token sequence: (values, block index or -1 per run).

    Word runs hold +words of one block; tag runs hold -tags between blocks.
    """
    values: list[float] = []
    owners: list[int] = []
    tags = 0
    for event in aligned_events(page):
        if event[0] == TEXT:
            words = len(event[2].split())
            if event[1] < 0 or not words:
                continue
            if tags:
                values.append(-tags)
                owners.append(-1)
                tags = 0
            values.append(words)
            owners.append(event[1])
        else:
            tags += 1  # a start tag, an end tag, or a skipped element
    if tags:
        values.append(-tags)
        owners.append(-1)
    return np.asarray(values, np.float64), np.asarray(owners, np.int64)


def bte_labels(page: Page) -> np.ndarray:
    keep = np.zeros(len(page), bool)
    values, owners = token_runs(page)
    if not (values > 0).any():
        return keep
    i, j, _ = max_subarray(values)
    span = owners[i : j + 1]
    keep[span[span >= 0]] = True
    return keep


def bte(page: Page, *, model=None, threshold=None):
    """BTE's single densest-text span, as per-block labels."""

    clock = time.perf_counter()
    keep = bte_labels(page)
    return Labelling(keep, keep.astype(float), "bte", {"baseline": 1000 * (time.perf_counter() - clock)})


def bte_naive(values: np.ndarray) -> tuple[int, int, float]:
    """The O(n²) definition, for tests: best (i, j, T - tags) by brute force."""
    best = (0, -1, -np.inf)
    for i in range(len(values)):
        total = 0.0
        for j in range(i, len(values)):
            total += values[j]
            if total > best[2]:
                best = (i, j, total)
    return best
