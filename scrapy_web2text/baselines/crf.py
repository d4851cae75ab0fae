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

    python -m scrapy_web2text.baselines.crf ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..features import BLOCK_FEATURES, block_features
from ..parsing import Page

MODELS = Path(__file__).resolve().parents[1] / "models" / "baselines"
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
        stem = Path(stem).with_suffix("")
        stem.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            stem.with_suffix(".npz"),
            mean=self.mean,
            std=self.std,
            weight=self.weight,
            bias=self.bias,
            transitions=self.transitions,
            start=self.start,
            end=self.end,
        )
        meta = {"format": FORMAT, "version": 1, "block_features": list(BLOCK_FEATURES), **self.metadata}
        stem.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, stem: str | Path) -> CRFModel:
        stem = Path(stem).with_suffix("")
        meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{stem}.json is not a CRF baseline model")
        if meta.get("block_features") != list(BLOCK_FEATURES):
            raise ValueError(f"{stem}: trained on other block features; retrain it")
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
            parts = {key: arrays[key].astype(np.float64) for key in arrays.files}
        meta = {k: v for k, v in meta.items() if k not in ("format", "version", "block_features")}
        return cls(metadata=meta, **parts)


_loaded: dict[str, CRFModel] = {}
_lock = threading.Lock()


def load_crf(path: str | Path | None = None) -> CRFModel:
    key = str(path or MODELS / "crf")
    with _lock:
        if key not in _loaded:
            if not Path(key).with_suffix(".npz").exists():
                raise FileNotFoundError(
                    f"no CRF weights at {key}.npz; train them with python -m scrapy_web2text.baselines.crf CORPUS..."
                )
            _loaded[key] = CRFModel.load(key)
        return _loaded[key]


def crf(page: Page, *, model=None, threshold=None):
    """The CRF baseline (``model``: a :class:`CRFModel` or a weights path)."""
    from ..methods import Labelling

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


# --- training (torch) -----------------------------------------------------------


def _chunks(pages, length: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pages cut into pieces of at most ``length`` blocks (the forward loop's
    length is the longest sequence of a batch, so pieces keep it short)."""
    out = []
    for page in pages:
        for start in range(0, len(page.labels), length):
            out.append((page.block_x[start : start + length], page.labels[start : start + length]))
    return out


def _pad(torch, chunks, mean, std):
    length = max(len(y) for _, y in chunks)
    x = np.zeros((len(chunks), length, len(mean)), np.float32)
    y = np.zeros((len(chunks), length), np.int64)
    mask = np.zeros((len(chunks), length), bool)
    for row, (block_x, labels) in enumerate(chunks):
        n = len(labels)
        x[row, :n] = (block_x - mean) / std
        y[row, :n] = labels
        mask[row, :n] = True
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(mask)


def _nll(torch, params, x, y, mask):
    """Mean negative log-likelihood of a padded batch (forward algorithm)."""
    weight, bias, transitions, start, end = params
    emissions = x @ weight.T + bias  # (b, n, 2)
    b, n, _ = emissions.shape
    rows = torch.arange(b)
    # Gold path score.
    gold = start[y[:, 0]] + emissions[rows, 0, y[:, 0]]
    alpha = start + emissions[:, 0]
    last = y[:, 0].clone()
    for i in range(1, n):
        m = mask[:, i]
        step = transitions[y[:, i - 1], y[:, i]] + emissions[rows, i, y[:, i]]
        gold = gold + torch.where(m, step, torch.zeros_like(step))
        new_alpha = torch.logsumexp(alpha[:, :, None] + transitions[None], dim=1) + emissions[:, i]
        alpha = torch.where(m[:, None], new_alpha, alpha)
        last = torch.where(m, y[:, i], last)
    gold = gold + end[last]
    log_z = torch.logsumexp(alpha + end, dim=1)
    return (log_z - gold).sum() / mask.sum()


def train_crf(
    train_pages,
    validation_pages,
    *,
    l2_values=(1e-4, 1e-2),
    epochs: int = 15,
    seed: int = 0,
    corpora=(),
    lr: float = 0.05,
    chunk: int = 100,
    batch: int = 64,
    threads: int | None = None,
) -> CRFModel:
    """Fit on ``train_pages``; pick L2 and epoch by validation block F1."""
    from ..metrics import BlockCounts
    from ..model import feature_statistics
    from ..training import require_torch

    torch = require_torch()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    started = time.perf_counter()
    rows = np.concatenate([p.block_x for p in train_pages])
    stats = feature_statistics(rows, np.zeros((1, 25), np.float32))
    mean, std = stats["block_mean"].astype(np.float64), stats["block_std"].astype(np.float64)
    chunks = _chunks([p for p in train_pages if len(p.labels)], chunk)
    order = np.random.default_rng(seed).permutation(len(chunks))
    batches = [_pad(torch, [chunks[i] for i in order[k : k + batch]], mean, std) for k in range(0, len(order), batch)]
    best: tuple[float, CRFModel | None, dict] = (-1.0, None, {})
    history = []
    for l2 in l2_values:
        torch.manual_seed(seed)
        params = [
            torch.zeros(2, len(mean), requires_grad=True),
            torch.zeros(2, requires_grad=True),
            torch.zeros(2, 2, requires_grad=True),
            torch.zeros(2, requires_grad=True),
            torch.zeros(2, requires_grad=True),
        ]
        optimiser = torch.optim.Adam(params, lr=lr)
        generator = np.random.default_rng(seed)
        for epoch in range(1, epochs + 1):
            total = 0.0
            for k in generator.permutation(len(batches)):
                x, y, mask = batches[k]
                optimiser.zero_grad()
                loss = _nll(torch, params, x, y, mask) + l2 * (params[0] ** 2).sum()
                loss.backward()
                optimiser.step()
                total += loss.item()
            if epoch % 3 and epoch != epochs:
                continue
            candidate = CRFModel(mean, std, *[p.detach().double().numpy().copy() for p in params])
            counts = BlockCounts()
            for page in validation_pages:
                counts.add(candidate.label(page.block_x)[0], page.labels)
            scores = counts.as_dict()
            history.append({"l2": l2, "epoch": epoch, "train_loss": total / len(batches), **scores})
            if scores["f1"] > best[0]:
                best = (scores["f1"], candidate, {"l2": l2, "epoch": epoch, "validation": scores})
    model = best[1]
    model.metadata = {
        "name": "crf",
        "corpora": list(corpora),
        "seed": seed,
        "selected": best[2],
        "training": {
            "train_pages": len(train_pages),
            "validation_pages": len(validation_pages),
            "epochs": epochs,
            "lr": lr,
            "optimiser": f"adam, batches of {batch} page pieces of <= {chunk} blocks",
            "seconds": round(time.perf_counter() - started, 1),
            "torch": torch.__version__,
            "history": history,
        },
    }
    return model


def main(argv=None) -> None:
    from ..corpus import corpus_name, load_split

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", help="corpus .jsonl.gz files (train and validation splits are used)")
    parser.add_argument("--output", default=str(MODELS / "crf"))
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train_pages = [p for path in args.corpora for p in load_split(path, "train")]
    validation_pages = [p for path in args.corpora for p in load_split(path, "validation")]
    model = train_crf(
        train_pages,
        validation_pages,
        epochs=args.epochs,
        seed=args.seed,
        threads=args.threads,
        corpora=[corpus_name(p) for p in args.corpora],
    )
    model.save(args.output)
    print(json.dumps(model.metadata["selected"], indent=1))


if __name__ == "__main__":
    main()
