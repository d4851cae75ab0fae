"""Choosing what users score: validation word F1 from block decisions.

Checkpoints and the default threshold are chosen on the mean per-page word
F1 of the kept blocks against the gold text (the benchmark's ``word_f1``),
over the validation pages of every corpus.  Block accuracy rewards getting
many two-word links right; users score words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...labellers.web2text.viterbi import viterbi
from ..corpus import PageData
from ..metrics import tokens


class WordScorer:
    """Per-page bags of words, as integer ids, so one decision costs a bincount."""

    def __init__(self, pages: Sequence[PageData]):
        self.corpora = [page.dataset for page in pages]
        self._pages = []
        for page in pages:
            vocabulary: dict[str, int] = {}
            gold = np.bincount(
                [vocabulary.setdefault(word, len(vocabulary)) for word in tokens(page.gold)], minlength=0
            )
            ids = [[vocabulary.setdefault(word, len(vocabulary)) for word in tokens(text)] for text in page.texts]
            owner = np.repeat(np.arange(len(ids)), [len(block) for block in ids])
            flat = np.fromiter((i for block in ids for i in block), np.int64)
            gold = np.pad(gold, (0, len(vocabulary) - len(gold))).astype(np.int64)
            self._pages.append((gold, owner, flat, len(vocabulary)))

    def page_scores(self, decisions: Sequence[np.ndarray]) -> np.ndarray:
        """Word F1 of each page given its kept blocks."""
        out = np.empty(len(self._pages))
        for index, ((gold, owner, flat, size), keep) in enumerate(zip(self._pages, decisions)):
            predicted = np.bincount(flat[np.asarray(keep, bool)[owner]], minlength=size) if size else gold
            gold_total, predicted_total = gold.sum(), predicted.sum()
            if gold_total == 0 and predicted_total == 0:
                out[index] = 1.0
                continue
            common = np.minimum(gold, predicted).sum()
            out[index] = 2 * common / (gold_total + predicted_total) if common else 0.0
        return out

    def score(self, decisions: Sequence[np.ndarray]) -> float:
        """Mean page word F1 over every validation page.

        Not the mean of the corpora's means: that gave Readability's 9 validation pages the weight of WCXB's 128,
        and a checkpoint 0.1 better on those 9 pages won while it lost on every large corpus.
        """
        return float(self.page_scores(decisions).mean())

    def by_corpus(self, decisions: Sequence[np.ndarray]) -> dict[str, float]:
        scores = self.page_scores(decisions)
        corpora = np.asarray(self.corpora)
        return {name: round(float(scores[corpora == name].mean()), 4) for name in dict.fromkeys(self.corpora)}


THRESHOLDS = tuple(np.round(np.arange(0.3, 0.76, 0.05), 2))
#: Thresholds whose validation word F1 is within this of the best tie; the highest of them wins.  Word F1 is
#: flat across a wide band of thresholds, and pages the model has never seen have been scored lower on precision
#: than on recall, so a tie goes to precision.
PRECISION_TIE = 0.001


def page_potentials(model, pages: Sequence[PageData]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each page's unary and pairwise potentials under ``model`` (the page's features cut to the model's columns)."""
    width = len(model.block_features)
    return [model.potentials(page.block_x[:, :width], page.edge_x) for page in pages]


def page_decisions(model, potentials: Sequence[tuple], threshold: float | None = None) -> list[np.ndarray]:
    """Each page's Viterbi labels (True: content) from its potentials, at ``threshold`` (default: the model's)."""
    threshold = model.threshold if threshold is None else threshold
    return [viterbi(unary, pair, model.lam, threshold).astype(bool) for unary, pair in potentials]


def choose_threshold(model, pages: Sequence[PageData], scorer: WordScorer) -> tuple[float, dict]:
    """The decoding threshold with the best validation word F1 (ties to the higher one), and the figures."""
    potentials = page_potentials(model, pages)
    figures = {}
    for threshold in THRESHOLDS:
        figures[float(threshold)] = round(scorer.score(page_decisions(model, potentials, float(threshold))), 4)
    return pick_threshold(figures), figures


def pick_threshold(figures: dict[float, float]) -> float:
    """The highest threshold whose figure ties with the best (within :data:`PRECISION_TIE`)."""
    best = max(figures.values())
    return max(threshold for threshold, figure in figures.items() if figure >= best - PRECISION_TIE)
