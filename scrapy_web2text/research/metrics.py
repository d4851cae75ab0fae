"""Scores: block-level (the paper's) and text-level (shingles, words).

Block level: every block weighs the same, counts are pooled over pages, as
in Vogels et al. Table 2.  Text level follows the article-extraction-
benchmark: per page, true/false positives and false negatives over 4-word
shingles are normalised to sum to 1 (long pages do not weigh more), then
precision and recall are averaged over pages and F1 is taken of the means.
Word F1 is the mean per-page F1 of the bags of words (word precision and
recall likewise: means of per-page figures; an empty gold and an empty
output agree fully).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

_TOKEN = re.compile(r"\w+", re.UNICODE)


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass
class BlockCounts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, predicted: np.ndarray, gold: np.ndarray) -> None:
        predicted, gold = np.asarray(predicted, bool), np.asarray(gold, bool)
        self.tp += int(np.sum(predicted & gold))
        self.fp += int(np.sum(predicted & ~gold))
        self.fn += int(np.sum(~predicted & gold))
        self.tn += int(np.sum(~predicted & ~gold))

    @property
    def accuracy(self) -> float:
        total = self.tp + self.fp + self.fn + self.tn
        return (self.tp + self.tn) / total if total else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    def as_dict(self) -> dict[str, float]:
        return {"accuracy": self.accuracy, "precision": self.precision, "recall": self.recall, "f1": self.f1}


def tokens(text: str | None) -> list[str]:
    return _TOKEN.findall(text or "")


def shingles(text: str | None, n: int = 4) -> Counter:
    words = tokens(text)
    return Counter(" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1)) if words[i : i + n])


def shingle_counts(predicted: str, gold: str, n: int = 4) -> tuple[float, float, float]:
    """Normalised (tp, fp, fn) over n-word shingles of one page."""
    a, b = shingles(predicted, n), shingles(gold, n)
    tp = sum((a & b).values())
    fp = sum((a - b).values())
    fn = sum((b - a).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def _precision(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fp) if tp + fp else 0.0


def _recall(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    return tp / (tp + fn) if tp + fn else 0.0


def word_scores(predicted: str, gold: str) -> tuple[float, float, float]:
    """Precision, recall and F1 of the bags of words of one page."""
    return bag_scores(Counter(tokens(predicted)), Counter(tokens(gold)))


def bag_scores(a: Counter, b: Counter) -> tuple[float, float, float]:
    """:func:`word_scores` of two bags of words already counted (a caller scoring one gold text many times keeps
    its bag)."""
    if not a and not b:
        return 1.0, 1.0, 1.0
    common = sum((a & b).values())
    precision = common / sum(a.values()) if a else 1.0
    recall = common / sum(b.values()) if b else 1.0
    return precision, recall, _f1(common / sum(a.values()), common / sum(b.values())) if common else 0.0


def word_f1(predicted: str, gold: str) -> float:
    return word_scores(predicted, gold)[2]


@dataclass
class TextScores:
    """Per-page text-level scores, accumulated."""

    precisions: list[float] = field(default_factory=list)
    recalls: list[float] = field(default_factory=list)
    word_f1s: list[float] = field(default_factory=list)
    word_precisions: list[float] = field(default_factory=list)
    word_recalls: list[float] = field(default_factory=list)

    def add(self, predicted: str, gold: str) -> None:
        counts = shingle_counts(predicted, gold)
        self.precisions.append(_precision(*counts))
        self.recalls.append(_recall(*counts))
        precision, recall, f1 = word_scores(predicted, gold)
        self.word_precisions.append(precision)
        self.word_recalls.append(recall)
        self.word_f1s.append(f1)

    def as_dict(self) -> dict[str, float]:
        precision = float(np.mean(self.precisions)) if self.precisions else 0.0
        recall = float(np.mean(self.recalls)) if self.recalls else 0.0
        return {
            "shingle_precision": precision,
            "shingle_recall": recall,
            "shingle_f1": _f1(precision, recall),
            "word_f1": float(np.mean(self.word_f1s)) if self.word_f1s else 0.0,
            "word_precision": float(np.mean(self.word_precisions)) if self.word_precisions else 0.0,
            "word_recall": float(np.mean(self.word_recalls)) if self.word_recalls else 0.0,
        }
