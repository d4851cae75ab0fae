"""Training the CRF baseline (:mod:`scrapy_web2text.labellers.crf`) in torch.

Maximises the conditional log-likelihood computed with the forward algorithm, with L2 on the emission weights;
the L2 strength and the epoch are chosen on the validation split.  Writes ``crf.npz`` + ``crf.json``.

    python -m scrapy_web2text.research.train.crf ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import time

import numpy as np

from ...labellers.crf import MODELS, CRFModel
from ...labellers.web2text.features import BLOCK_FEATURES
from ..corpus import load_training_splits
from ..metrics import BlockCounts
from . import require_torch
from .baseline_command import baseline_parser, train_and_save, training_record
from .trainer import feature_statistics

#: Training pages carry the extended features too; the CRF reads the paper's.
_PAPER = len(BLOCK_FEATURES)


def _chunks(pages, length: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pages cut into pieces of at most ``length`` blocks (the forward loop's
    length is the longest sequence of a batch, so pieces keep it short)."""
    out = []
    for page in pages:
        for start in range(0, len(page.labels), length):
            out.append((page.block_x[start : start + length, :_PAPER], page.labels[start : start + length]))
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

    torch = require_torch()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    started = time.perf_counter()
    rows = np.concatenate([p.block_x[:, :_PAPER] for p in train_pages])
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
                counts.add(candidate.label(page.block_x[:, :_PAPER])[0], page.labels)
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
        "training": training_record(
            train_pages,
            validation_pages,
            started,
            history,
            epochs=epochs,
            lr=lr,
            optimiser=f"adam, batches of {batch} page pieces of <= {chunk} blocks",
        ),
    }
    return model


def main(argv=None) -> None:
    parser = baseline_parser(__doc__, MODELS / "crf", epochs=15)
    args = parser.parse_args(argv)
    train_pages, validation_pages = load_training_splits(args.corpora)
    train_and_save(args, train_crf, train_pages, validation_pages)


if __name__ == "__main__":
    main()
