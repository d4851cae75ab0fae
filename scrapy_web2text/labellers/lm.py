"""The language-model classifier of the thesis in ``seeds/003_*.txt``, as an optional method (``method="lm"``).

Each block is described by three parts, concatenated:

* ``embedding``: its text through a pretrained sentence encoder (:mod:`.encoder`: all-MiniLM-L6-v2 in numpy,
  384 dimensions, mean-pooled; the thesis used DistilBERT's [CLS] vector, 768 dimensions).  MiniLM-L6 is a sixth
  of DistilBERT's size and its weights ship in a pip package, so the method installs and runs offline.
* ``position``: the thesis' sinusoidal positional encoding (Vaswani et al. 2017) of the block's place on the page.
  The thesis stores the place as the block's index over the page's block count and adds the encoding to the
  embedding; here it is concatenated (adding it would move the unit-length sentence vector itself) and the
  relative place is scaled to 0..:data:`POSITION_SCALE` so that the encoding's wavelengths resolve it.
* ``tags``: the bag of the block's own and ancestor tags among the :data:`TAG_VOCABULARY_SIZE` tags most frequent on
  the training blocks (the thesis' 50), as log(1 + count), read from the page's CDOM nodes, independently of the
  Web2Text feature list.

A small head (logistic regression as in the thesis, or one hidden ReLU layer: the choice is the validation split's)
gives p(content) per block; optionally the labels are smoothed with Viterbi over a 2×2 transition matrix estimated
on the training labels (:func:`~.web2text.viterbi.viterbi`).  Training: ``research/train/lm.py`` (torch); the head
is ``models/baselines/lm.npz`` + ``lm.json``, loaded with ``allow_pickle=False`` and validated.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np

from ..page import Page
from .base import Labelling, load_weights_file, weights_files
from .encoder import ENCODER_NAME, MAX_TOKENS, load_encoder
from .web2text.layers import without_subnormals
from .web2text.viterbi import viterbi

MODELS = Path(__file__).resolve().parents[1] / "models" / "baselines"
#: How to make the head where it is missing.
TRAINING = "train one with web2text train --config lm (needs torch)"
FORMAT = "scrapy-web2text-lm"
PARTS = ("embedding", "position", "tags")
POSITION_DIMENSIONS = 32
POSITION_SCALE = 100.0
TAG_VOCABULARY_SIZE = 50

#: Embeddings kept across pages, by text: a site repeats its navigation on every page.  Bounded (about 30 MB).
EMBEDDING_CACHE_SIZE = 20_000
_embedding_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_embedding_cache_lock = threading.Lock()


def positional_encoding(relative: np.ndarray, dimensions: int = POSITION_DIMENSIONS) -> np.ndarray:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), pos = relative place × POSITION_SCALE."""
    position = np.asarray(relative, np.float64)[:, None] * POSITION_SCALE
    frequencies = 1.0 / 10000.0 ** (np.arange(0, dimensions, 2) / dimensions)
    out = np.zeros((len(position), dimensions), np.float32)
    out[:, 0::2] = np.sin(position * frequencies)
    out[:, 1::2] = np.cos(position * frequencies)
    return out


def relative_places(page: Page) -> np.ndarray:
    """Block index over block count, as in the thesis."""
    n = len(page)
    return np.arange(n, dtype=np.float64) / max(n, 1)


def block_tags(page: Page) -> list[list[str]]:
    """Per block: the tags of its CDOM node and of every ancestor (merged nodes count each of their tags)."""
    nodes = page.nodes
    memo: dict[int, list[str]] = {}

    def tags_of(index: int) -> list[str]:
        chain, at = [], index
        while at >= 0 and at not in memo:
            chain.append(at)
            at = nodes[at].parent
        tags = memo.get(at, []) if at >= 0 else []
        for node in reversed(chain):
            tags = tags + [tag for tag in nodes[node].tags if tag != "#text"]
            memo[node] = tags
        return tags

    return [tags_of(int(node)) for node in page.block_nodes]


def tag_matrix(tag_lists: list[list[str]], vocabulary: list[str]) -> np.ndarray:
    index = {tag: i for i, tag in enumerate(vocabulary)}
    out = np.zeros((len(tag_lists), len(vocabulary)), np.float32)
    for row, tags in enumerate(tag_lists):
        for tag in tags:
            column = index.get(tag)
            if column is not None:
                out[row, column] += 1.0
    return np.log1p(out)


def embed_texts(texts: list[str], max_tokens: int = MAX_TOKENS) -> np.ndarray:
    """Embeddings of ``texts``: each distinct text encoded once, in one batched call, through the process cache."""
    encoder = load_encoder(max_tokens)
    distinct = list(dict.fromkeys(texts))
    found: dict[str, np.ndarray] = {}
    with _embedding_cache_lock:
        for text in distinct:
            vector = _embedding_cache.get(text)
            if vector is not None:
                _embedding_cache.move_to_end(text)
                found[text] = vector
    missing = [text for text in distinct if text not in found]
    if missing:
        vectors = encoder.encode(missing)
        with _embedding_cache_lock:
            for text, vector in zip(missing, vectors):
                found[text] = _embedding_cache[text] = vector
            while len(_embedding_cache) > EMBEDDING_CACHE_SIZE:
                _embedding_cache.popitem(last=False)
    out = np.zeros((len(texts), encoder.dimension), np.float32)
    for row, text in enumerate(texts):
        out[row] = found[text]
    return out


def assemble_inputs(parts: tuple[str, ...], embeddings: np.ndarray, relative: np.ndarray, tags: np.ndarray):
    """The head's input rows from the parts it was trained on, in :data:`PARTS` order."""
    columns = {"embedding": embeddings, "position": positional_encoding(relative), "tags": tags}
    return np.hstack([np.asarray(columns[part], np.float32) for part in PARTS if part in parts])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))


@dataclass
class LMModel:
    """The trained head: ``layers`` is [(weight (in, out), bias (out,)), ...], ReLU between them."""

    parts: tuple[str, ...]
    tags: list[str]
    layers: list[tuple[np.ndarray, np.ndarray]]
    transitions: np.ndarray  # (2, 2) log p(next | previous), label 1 = content
    smoothing: float = 0.0  # Viterbi weight of the transitions; 0 = per-block threshold
    threshold: float = 0.5
    max_tokens: int = MAX_TOKENS
    metadata: dict = field(default_factory=dict)

    @property
    def input_size(self) -> int:
        sizes = {"embedding": 384, "position": POSITION_DIMENSIONS, "tags": len(self.tags)}
        return sum(sizes[part] for part in self.parts)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, np.float32)
        for depth, (weight, bias) in enumerate(self.layers):
            h = h @ weight + bias
            if depth < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return _sigmoid(h[:, 0].astype(np.float64))

    def decide(self, probabilities: np.ndarray, threshold: float | None = None, smoothing: float | None = None):
        threshold = self.threshold if threshold is None else threshold
        smoothing = self.smoothing if smoothing is None else smoothing
        if smoothing <= 0 or len(probabilities) < 2:
            return probabilities >= threshold
        p = np.clip(probabilities, 1e-6, 1 - 1e-6)
        unary = np.log(np.stack([1 - p, p], axis=1))
        pairwise = np.broadcast_to(self.transitions, (len(p) - 1, 2, 2))
        return viterbi(unary, pairwise, lam=smoothing, threshold=threshold).astype(bool)

    def inputs(self, page: Page) -> np.ndarray:
        embeddings = embed_texts(page.texts, self.max_tokens) if "embedding" in self.parts else np.zeros((len(page), 0))
        tags = tag_matrix(block_tags(page), self.tags) if "tags" in self.parts else np.zeros((len(page), 0))
        return assemble_inputs(self.parts, embeddings, relative_places(page), tags)

    # --- files ---------------------------------------------------------------

    def save(self, stem: str | Path) -> None:
        npz, description = weights_files(stem)
        npz.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"transitions": self.transitions.astype(np.float64)}
        for depth, (weight, bias) in enumerate(self.layers):
            arrays[f"weight{depth}"], arrays[f"bias{depth}"] = weight.astype(np.float32), bias.astype(np.float32)
        np.savez(npz, **arrays)
        meta = {
            "format": FORMAT,
            "version": 1,
            "encoder": ENCODER_NAME,
            "max_tokens": self.max_tokens,
            "parts": list(self.parts),
            "position": {"dimensions": POSITION_DIMENSIONS, "scale": POSITION_SCALE},
            "tags": self.tags,
            "layers": len(self.layers),
            "smoothing": self.smoothing,
            "threshold": self.threshold,
            **self.metadata,
        }
        description.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, stem: str | Path) -> LMModel:
        npz, description = weights_files(stem)
        meta = json.loads(description.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("version") != 1:
            raise ValueError(f"{description} is not a version-1 language-model head")
        if meta.get("encoder") != ENCODER_NAME:
            raise ValueError(f"{npz}: trained on encoder {meta.get('encoder')!r}, this code runs {ENCODER_NAME}")
        if meta.get("position") != {"dimensions": POSITION_DIMENSIONS, "scale": POSITION_SCALE}:
            raise ValueError(f"{npz}: trained with another positional encoding; retrain it")
        parts = tuple(meta.get("parts") or ())
        if not parts or set(parts) - set(PARTS):
            raise ValueError(f"{npz}: unknown input parts {parts!r}")
        with np.load(npz, allow_pickle=False) as arrays:
            loaded = {key: np.asarray(arrays[key]) for key in arrays.files}
        layers = []
        for depth in range(int(meta.get("layers", 0))):
            try:
                # Subnormal weights slow products down on many CPUs (docs/speed.rst); the shipped head has 284.
                weight = without_subnormals(loaded[f"weight{depth}"].astype(np.float32))
                layers.append((weight, loaded[f"bias{depth}"].astype(np.float32)))
            except KeyError as error:
                raise ValueError(f"{npz} lacks {error}") from error
        transitions = loaded.get("transitions", np.zeros(0)).astype(np.float64)
        model = cls(
            parts,
            list(meta.get("tags") or []),
            layers,
            transitions,
            float(meta.get("smoothing", 0.0)),
            float(meta.get("threshold", 0.5)),
            int(meta.get("max_tokens", MAX_TOKENS)),
        )
        model.metadata = {k: v for k, v in meta.items() if k in ("name", "corpora", "selected", "training")}
        model.validate(npz)
        return model

    def validate(self, where: object = "model") -> None:
        if self.transitions.shape != (2, 2) or not np.all(np.isfinite(self.transitions)):
            raise ValueError(f"{where}: transitions must be a finite 2x2 matrix")
        if not self.layers:
            raise ValueError(f"{where}: the head has no layers")
        size = self.input_size
        for weight, bias in self.layers:
            if weight.ndim != 2 or weight.shape[0] != size or bias.shape != (weight.shape[1],):
                raise ValueError(f"{where}: layer shapes {weight.shape}/{bias.shape} do not chain from {size} inputs")
            if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
                raise ValueError(f"{where}: non-finite weights")
            size = weight.shape[1]
        if size != 1:
            raise ValueError(f"{where}: the head must end in one output, got {size}")
        if not 0.0 < self.threshold < 1.0 or self.smoothing < 0:
            raise ValueError(f"{where}: threshold must lie in (0, 1) and smoothing be >= 0")


def lm(page: Page, *, model=None, threshold=None):
    """The language-model classifier; needs the ``lm`` extra.

    ``model``: an :class:`LMModel` or a head's path; any other object (such as the Web2Text model that the Scrapy
    runtime hands to every method) means the shipped head.
    """
    if isinstance(model, LMModel):
        resolved = model
    else:
        resolved = load_lm(model if isinstance(model, (str, PathLike)) else None)
    clock = time.perf_counter()
    x = resolved.inputs(page)
    embedded = time.perf_counter()
    probabilities = resolved.probabilities(x) if len(page) else np.zeros(0)
    keep = resolved.decide(probabilities, threshold)
    done = time.perf_counter()
    return Labelling(
        keep, probabilities, "lm", {"features": 1000 * (embedded - clock), "network": 1000 * (done - embedded)}
    )


def load_lm(path: str | Path | None = None) -> LMModel:
    """The language-model head at ``path`` (default: the shipped one), loaded once per process."""
    return load_weights_file(LMModel.load, path, MODELS / "lm", "language-model head", TRAINING)
