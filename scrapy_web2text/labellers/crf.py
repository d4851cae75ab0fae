"""Linear-chain CRF over the 128 block features (after Victor / Spousta et al.).

The CleanEval winner labelled DOM-leaf blocks with a conditional random
field over hand-made block features.  Here the CRF sees exactly Web2Text's
128 block features (standardised with training-set means and deviations,
binary columns untouched), so the comparison isolates the model: a linear
emission score per label, a 2×2 transition matrix, start and end scores.

Training (torch, the ``train`` extra) maximises the conditional
log-likelihood computed with the forward algorithm, with L2 on the
emission weights; the L2 strength and the epoch are chosen on the
validation split.  Inference is numpy only: Viterbi for the labels,
forward-backward for the per-block marginals p(content) (used when a
``threshold`` is given).  Weights are ``crf.npz`` + ``crf.json`` under
``scrapy_web2text/models/baselines/``, loaded with ``allow_pickle=False``.

    python -m scrapy_web2text.research.train.crf ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..page import Page
from .base import Labelling, load_weights_file, read_weights, weights_files
from .web2text.features import BLOCK_FEATURES, block_features

MODELS = Path(__file__).resolve().parents[1] / "models" / "baselines"
#: How to make the weights where they are missing.
TRAINING = "train them with python -m scrapy_web2text.research.train.crf CORPUS..."
FORMAT = "scrapy-web2text-crf"


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = a.max(axis=axis, keepdims=True)
    return (top + np.log(np.exp(a - top).sum(axis=axis, keepdims=True))).squeeze(axis)


@dataclass
class CRFModel:
    mean: np.ndarray
    std: np.ndarray
    weight: np.ndarray  # (2, features): label 0 = boilerplate, 1 = content
    bias: np.ndarray  # (2,)
    transitions: np.ndarray  # (2, 2): previous -> next
    start: np.ndarray  # (2,)
    end: np.ndarray  # (2,)
    metadata: dict = field(default_factory=dict)

    def emissions(self, block_x: np.ndarray) -> np.ndarray:
        x = (np.asarray(block_x, np.float64) - self.mean) / self.std
        return x @ self.weight.T + self.bias

    def viterbi(self, emissions: np.ndarray) -> np.ndarray:
        n = len(emissions)
        if n == 0:
            return np.zeros(0, bool)
        back = np.zeros((n, 2), np.int64)
        score = self.start + emissions[0]
        for i in range(1, n):
            candidates = score[:, None] + self.transitions  # (prev, next)
            back[i] = candidates.argmax(axis=0)
            score = candidates.max(axis=0) + emissions[i]
        score = score + self.end
        labels = np.zeros(n, np.int64)
        labels[-1] = int(score.argmax())
        for i in range(n - 1, 0, -1):
            labels[i - 1] = back[i, labels[i]]
        return labels.astype(bool)

    def marginals(self, emissions: np.ndarray) -> np.ndarray:
        """p(content) per block by forward-backward in log space."""
        n = len(emissions)
        if n == 0:
            return np.zeros(0)
        alpha = np.zeros((n, 2))
        beta = np.zeros((n, 2))
        alpha[0] = self.start + emissions[0]
        for i in range(1, n):
            alpha[i] = _logsumexp(alpha[i - 1][:, None] + self.transitions, 0) + emissions[i]
        beta[-1] = self.end
        for i in range(n - 2, -1, -1):
            beta[i] = _logsumexp(self.transitions + (emissions[i + 1] + beta[i + 1])[None, :], 1)
        joint = alpha + beta
        joint -= _logsumexp(joint, 1)[:, None]
        return np.exp(joint[:, 1])

    def label(self, block_x: np.ndarray, threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        emissions = self.emissions(block_x)
        probabilities = self.marginals(emissions)
        keep = self.viterbi(emissions) if threshold is None else probabilities >= threshold
        return keep, probabilities

    # --- files ---------------------------------------------------------------

    def save(self, stem: str | Path) -> None:
        npz, description = weights_files(stem)
        npz.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            npz,
            mean=self.mean,
            std=self.std,
            weight=self.weight,
            bias=self.bias,
            transitions=self.transitions,
            start=self.start,
            end=self.end,
        )
        meta = {"format": FORMAT, "version": 1, "block_features": list(BLOCK_FEATURES), **self.metadata}
        description.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, stem: str | Path) -> CRFModel:
        npz, meta, parts = read_weights(stem, FORMAT, "CRF")
        if meta.get("block_features") != list(BLOCK_FEATURES):
            raise ValueError(f"{npz}: trained on other block features; retrain it")
        meta = {k: v for k, v in meta.items() if k not in ("format", "version", "block_features")}
        return cls(metadata=meta, **parts)


def crf(page: Page, *, model=None, threshold=None):
    """The CRF baseline (``model``: a :class:`CRFModel` or a weights path)."""

    resolved = model if isinstance(model, CRFModel) else load_crf(model)
    clock = time.perf_counter()
    block_x = block_features(page)
    features_done = time.perf_counter()
    keep, probabilities = resolved.label(block_x, threshold)
    done = time.perf_counter()
    return Labelling(
        keep,
        probabilities,
        "crf",
        {"features": 1000 * (features_done - clock), "decode": 1000 * (done - features_done)},
    )


def load_crf(path: str | Path | None = None) -> CRFModel:
    """The CRF weights at ``path`` (default: the shipped ones), loaded once per process."""
    return load_weights_file(CRFModel.load, path, MODELS / "crf", "CRF weights", TRAINING)
