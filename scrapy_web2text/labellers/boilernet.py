"""BoilerNet (Leonhardt, Anand, Khosla 2020) on our DOM-leaf blocks.

Each leaf (block) is a sparse vector: a bag of its ancestors' tags among
the ``k`` most frequent tags of the training leaves, and a bag of its words
among the most frequent training words.  A dense layer (ReLU) embeds it, a
bidirectional LSTM reads the page's leaf sequence, and a sigmoid per leaf
gives p(content); the loss is binary cross-entropy.  The paper's sizes
(50 tags, 1000 words, 256-unit layers, two BiLSTM layers) are scaled down
to one 64-unit BiLSTM layer so the baseline trains on two CPU cores in
minutes; the sizes are in the model's ``.json``.

Training needs torch (the ``train`` extra); the weights are exported to
``boilernet.npz`` + ``boilernet.json`` and inference runs the LSTM in
numpy, so the method works without torch.  Training uses the same data and
splits as the CRF: ``train`` to fit, ``validation`` to pick the epoch.

    python -m scrapy_web2text.research.train.boilernet ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..page import Page
from .base import Labelling, load_weights_file, read_weights, weights_files

MODELS = Path(__file__).resolve().parents[1] / "models" / "baselines"
#: How to make the weights where they are missing.
TRAINING = "train them with python -m scrapy_web2text.research.train.boilernet CORPUS... (needs the train extra: torch)"
FORMAT = "scrapy-web2text-boilernet"
_WORD = re.compile(r"\w+")


def leaf_tags(tag_path: str) -> list[str]:
    """Ancestor tags of a block from its tag path (class suffixes dropped)."""
    out = []
    for segment in tag_path.split(">"):
        tag = segment.split(".", 1)[0]
        if tag and tag not in ("#text", "…"):
            out.append(tag)
    return out


def leaf_words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def build_vocabulary(pages: list[tuple[list[str], list[str]]], n_tags: int = 50, n_words: int = 1000):
    """Most frequent tags / words over leaves (document frequency) of ``(tag_paths, texts)`` pages."""
    tags, words = Counter(), Counter()
    for tag_paths, texts in pages:
        for path, text in zip(tag_paths, texts):
            tags.update(set(leaf_tags(path)))
            words.update(set(leaf_words(text)))
    return [t for t, _ in tags.most_common(n_tags)], [w for w, _ in words.most_common(n_words)]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@dataclass
class BoilerNetModel:
    tags: list[str]
    words: list[str]
    arrays: dict[str, np.ndarray]
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        self.tag_index = {t: i for i, t in enumerate(self.tags)}
        self.word_index = {w: i + len(self.tags) for i, w in enumerate(self.words)}

    @property
    def n_inputs(self) -> int:
        return len(self.tags) + len(self.words)

    def leaf_ids(self, tag_paths, texts) -> list[list[int]]:
        out = []
        for path, text in zip(tag_paths, texts):
            ids = {self.tag_index[t] for t in leaf_tags(path) if t in self.tag_index}
            ids.update(self.word_index[w] for w in leaf_words(text) if w in self.word_index)
            out.append(sorted(ids))
        return out

    def _embed(self, ids: list[list[int]]) -> np.ndarray:
        weight, bias = self.arrays["embed.weight"], self.arrays["embed.bias"]  # (n_inputs, d), (d,)
        x = np.zeros((len(ids), weight.shape[1]))
        for row, active in enumerate(ids):
            if active:
                x[row] = weight[active].sum(axis=0)
        return np.maximum(x + bias, 0)

    def _lstm(self, x: np.ndarray, suffix: str) -> np.ndarray:
        w_ih = self.arrays[f"lstm.weight_ih_l0{suffix}"]
        w_hh = self.arrays[f"lstm.weight_hh_l0{suffix}"]
        b = self.arrays[f"lstm.bias_ih_l0{suffix}"] + self.arrays[f"lstm.bias_hh_l0{suffix}"]
        hidden = w_hh.shape[1]
        gates_x = x @ w_ih.T + b
        h, c = np.zeros(hidden), np.zeros(hidden)
        out = np.zeros((len(x), hidden))
        for t in range(len(x)):
            gates = gates_x[t] + w_hh @ h
            i, f, g, o = (gates[k * hidden : (k + 1) * hidden] for k in range(4))  # torch's gate order
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
            out[t] = h
        return out

    def probabilities(self, tag_paths, texts) -> np.ndarray:
        if not texts:
            return np.zeros(0)
        x = self._embed(self.leaf_ids(tag_paths, texts))
        forward = self._lstm(x, "")
        backward = self._lstm(x[::-1], "_reverse")[::-1]
        hidden = np.hstack([forward, backward])
        logits = hidden @ self.arrays["out.weight"].T + self.arrays["out.bias"]
        return _sigmoid(logits[:, 0])

    def save(self, stem: str | Path) -> None:
        npz, description = weights_files(stem)
        npz.parent.mkdir(parents=True, exist_ok=True)
        np.savez(npz, **{k: v.astype(np.float32) for k, v in self.arrays.items()})
        meta = {"format": FORMAT, "version": 1, "tags": self.tags, "words": self.words, **self.metadata}
        description.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, stem: str | Path) -> BoilerNetModel:
        _, meta, parts = read_weights(stem, FORMAT, "BoilerNet")
        tags, words = meta.pop("tags"), meta.pop("words")
        meta = {k: v for k, v in meta.items() if k not in ("format", "version")}
        return cls(tags, words, parts, meta)


def boilernet(page: Page, *, model=None, threshold=None):
    """The BoilerNet baseline (``model``: a :class:`BoilerNetModel` or a weights path)."""

    resolved = model if isinstance(model, BoilerNetModel) else load_boilernet(model)
    threshold = resolved.metadata.get("threshold", 0.5) if threshold is None else threshold
    clock = time.perf_counter()
    probabilities = resolved.probabilities(page.tag_paths, page.texts)
    return Labelling(
        probabilities >= threshold, probabilities, "boilernet", {"network": 1000 * (time.perf_counter() - clock)}
    )


def load_boilernet(path: str | Path | None = None) -> BoilerNetModel:
    """The BoilerNet weights at ``path`` (default: the shipped ones), loaded once per process."""
    return load_weights_file(BoilerNetModel.load, path, MODELS / "boilernet", "BoilerNet weights", TRAINING)
