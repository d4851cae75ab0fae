"""Training the language-model classifier's head (:mod:`scrapy_web2text.labellers.lm`) in torch.

Pages are parsed and labelled as for every method (same DOM-leaf blocks, same alignment to the gold text).  The
encoder is frozen: each distinct block text is embedded once by the numpy encoder and kept in an on-disk cache
(``lm-embeddings.npz`` in the cache folder) so that later runs and the ablation reuse it.  Embedding is the cost
(about a thousand tokens a second on one shared core), so training uses a seeded sample of each corpus' ``train``
pages and of its ``validation`` pages; the sample sizes are recorded in the model's ``.json``.

For each input set (embedding; + position; + tags) a logistic regression (the thesis' head) and a one-hidden-layer
MLP are trained with Adam on binary cross-entropy; the head and its epoch are chosen by validation block F1.  On
the full input set the Viterbi smoothing weight (0 = none) and the threshold are then chosen on validation.  Every
figure goes into the ``.json`` under ``training.ablation``.

    web2text train --config lm --data ../shared/data/*.jsonl.gz --output scrapy_web2text/models/baselines/lm
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np

from ...labellers.encoder import ENCODER_NAME, load_encoder
from ...labellers.lm import MODELS, PARTS, TAG_VOCABULARY_SIZE, LMModel, assemble_inputs, block_tags, relative_places
from ...page import parse_page
from ..alignment import align_labels
from ..corpus import corpus_name, default_cache_dir, iter_records
from ..metrics import BlockCounts
from . import require_torch
from .baseline_command import baseline_parser

log = logging.getLogger(__name__)

INPUT_SETS = (("embedding",), ("embedding", "position"), PARTS)
SMOOTHING_VALUES = (0.0, 0.25, 0.5, 1.0, 2.0)
THRESHOLDS = (0.3, 0.4, 0.5)


def sample_pages(path: str | Path, split: str, count: int | None, seed: int) -> list[dict]:
    """A seeded sample of ``count`` pages of one split (all of them when ``count`` is None)."""
    records = list(iter_records(path, split))
    if count is not None and count < len(records):
        records = random.Random(f"{seed}-{corpus_name(path)}-{split}").sample(records, count)
    return records


def prepare(records: list[dict]) -> list[dict]:
    """Parse and label pages: texts, relative places, block tags and labels per page."""
    pages = []
    for record in records:
        page = parse_page(record.get("html") or "")
        if not len(page):
            continue
        labels, _ = align_labels(page, record.get("text") or "")
        pages.append(
            {
                "texts": page.texts,
                "relative": relative_places(page),
                "tags": block_tags(page),
                "labels": np.asarray(labels, bool),
                "dataset": record.get("dataset", ""),
            }
        )
    return pages


class EmbeddingStore:
    """Text embeddings on disk, keyed by the SHA-1 of the text (no pickle: a string array and a float array)."""

    def __init__(self, path: Path):
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.is_file():
            with np.load(path, allow_pickle=False) as arrays:
                self.vectors = dict(zip(arrays["keys"].tolist(), arrays["vectors"]))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()

    def fill(self, texts: set[str], chunk: int = 2000) -> None:
        missing = sorted(t for t in texts if self.key(t) not in self.vectors)
        log.info("embedding %d new texts (%d cached)", len(missing), len(texts) - len(missing))
        encoder = load_encoder()
        started = time.perf_counter()
        for start in range(0, len(missing), chunk):
            part = missing[start : start + chunk]
            for text, vector in zip(part, encoder.encode(part)):
                self.vectors[self.key(text)] = vector
            self.save()
            log.info("  %d / %d texts, %.0f s", start + len(part), len(missing), time.perf_counter() - started)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp.npz")
        keys = list(self.vectors)
        vectors = np.stack([self.vectors[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)
        np.savez(temporary, keys=np.array(keys, dtype="U40"), vectors=vectors)
        temporary.replace(self.path)

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[self.key(t)] for t in texts]).astype(np.float32)


def tag_vocabulary(pages: list[dict], size: int = TAG_VOCABULARY_SIZE) -> list[str]:
    """The ``size`` tags on most training blocks (block frequency), as the thesis' 50 most frequent tags."""
    counts = Counter()
    for page in pages:
        for tags in page["tags"]:
            counts.update(set(tags))
    return [tag for tag, _ in counts.most_common(size)]


def transition_matrix(pages: list[dict]) -> np.ndarray:
    """log p(next label | previous label) over the training pages, add-one smoothed."""
    counts = np.ones((2, 2))
    for page in pages:
        labels = page["labels"].astype(int)
        np.add.at(counts, (labels[:-1], labels[1:]), 1)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


def _f1(model: LMModel, pages_x, pages_y, smoothing: float = 0.0, threshold: float = 0.5) -> dict:
    counts = BlockCounts()
    for x, y in zip(pages_x, pages_y):
        counts.add(model.decide(model.probabilities(x), threshold, smoothing), y)
    return counts.as_dict()


def fit_head(torch, parts, train_x, train_y, validation_x, validation_y, tags, transitions, *, hidden, epochs, seed):
    """One head; returns (validation scores, model at the best epoch, best epoch)."""
    torch.manual_seed(seed)
    x = torch.from_numpy(np.concatenate(train_x))
    y = torch.from_numpy(np.concatenate(train_y).astype(np.float32))
    sizes = [x.shape[1], hidden, 1] if hidden else [x.shape[1], 1]
    modules = []
    for depth in range(len(sizes) - 1):
        modules.append(torch.nn.Linear(sizes[depth], sizes[depth + 1]))
        if depth < len(sizes) - 2:
            modules += [torch.nn.ReLU(), torch.nn.Dropout(0.2)]
    network = torch.nn.Sequential(*modules)
    optimiser = torch.optim.Adam(network.parameters(), lr=3e-3, weight_decay=1e-5)
    loss_function = torch.nn.BCEWithLogitsLoss()
    generator = torch.Generator().manual_seed(seed)
    best = (-1.0, None, 0, {})
    for epoch in range(1, epochs + 1):
        network.train()
        for batch in torch.randperm(len(y), generator=generator).split(512):
            optimiser.zero_grad()
            loss = loss_function(network(x[batch])[:, 0], y[batch])
            loss.backward()
            optimiser.step()
        linear = [m for m in network if isinstance(m, torch.nn.Linear)]
        layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear]
        candidate = LMModel(tuple(parts), tags if "tags" in parts else [], layers, transitions)
        scores = _f1(candidate, validation_x, validation_y)
        if scores["f1"] > best[0]:
            best = (scores["f1"], candidate, epoch, scores)
    return best[3], best[1], best[2]


def train_lm(train_pages, validation_pages, *, epochs=20, hidden_sizes=(0, 128), seed=0, threads=None, store=None):
    """Heads for every input set (the ablation); returns the model of the full input set, smoothing chosen."""
    torch = require_torch()
    if threads:
        torch.set_num_threads(threads)
    started = time.perf_counter()
    store.fill({t for page in [*train_pages, *validation_pages] for t in page["texts"]})
    tags = tag_vocabulary(train_pages)
    transitions = transition_matrix(train_pages)

    def rows(pages, parts):
        from ...labellers.lm import tag_matrix

        out = []
        for page in pages:
            embeddings = store.embed(page["texts"])
            tag_x = tag_matrix(page["tags"], tags) if "tags" in parts else np.zeros((len(embeddings), 0))
            out.append(assemble_inputs(parts, embeddings, page["relative"], tag_x))
        return out

    train_y = [p["labels"] for p in train_pages]
    validation_y = [p["labels"] for p in validation_pages]
    ablation, chosen = [], None
    for parts in INPUT_SETS:
        train_x, validation_x = rows(train_pages, parts), rows(validation_pages, parts)
        best = None
        for hidden in hidden_sizes:
            scores, model, epoch = fit_head(
                torch, parts, train_x, train_y, validation_x, validation_y, tags, transitions,
                hidden=hidden, epochs=epochs, seed=seed,
            )  # fmt: skip
            row = {"parts": "+".join(parts), "hidden": hidden, "epoch": epoch, "smoothing": 0.0, "threshold": 0.5}
            row.update(scores)
            ablation.append(row)
            log.info("%s", row)
            if best is None or scores["f1"] > best[0]["f1"]:
                best = (scores, model, row)
        chosen = best
    scores, model, row = chosen
    best_decoding = (scores["f1"], 0.0, 0.5)
    validation_x = rows(validation_pages, PARTS)
    for smoothing in SMOOTHING_VALUES:
        for threshold in THRESHOLDS:
            if (smoothing, threshold) == (0.0, 0.5):
                continue  # the row above
            decoded = _f1(model, validation_x, validation_y, smoothing, threshold)
            ablation.append({**row, "smoothing": smoothing, "threshold": threshold, **decoded})
            if decoded["f1"] > best_decoding[0]:
                best_decoding = (decoded["f1"], smoothing, threshold)
    model.smoothing, model.threshold = best_decoding[1], best_decoding[2]
    model.metadata = {
        "name": "lm",
        "selected": {
            "hidden": row["hidden"],
            "epoch": row["epoch"],
            "smoothing": model.smoothing,
            "threshold": model.threshold,
        },
        "training": {
            "encoder": ENCODER_NAME,
            "train_pages": len(train_pages),
            "train_blocks": int(sum(len(y) for y in train_y)),
            "validation_pages": len(validation_pages),
            "validation_blocks": int(sum(len(y) for y in validation_y)),
            "epochs": epochs,
            "optimiser": "adam lr 3e-3, weight decay 1e-5, batches of 512 blocks, dropout 0.2 after the hidden layer",
            "seconds": round(time.perf_counter() - started, 1),
            "torch": torch.__version__,
            "ablation": ablation,
        },
    }
    return model


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--train-pages", type=int, default=40, help="sampled train pages per corpus (embedding cost)")
    parser.add_argument("--validation-pages", type=int, default=15, help="sampled validation pages per corpus")
    parser.add_argument("--epochs", type=int, default=20)
    return parser


def run(files, *, output, train_pages=40, validation_pages=15, epochs=20, seed=0, threads=None, cache_dir=None):
    """Train on ``files`` and write ``output``.npz/.json; returns the model."""
    train_records, validation_records = [], []
    for path in files:
        train_records += sample_pages(path, "train", train_pages, seed)
        validation_records += sample_pages(path, "validation", validation_pages, seed)
    store = EmbeddingStore(Path(cache_dir or default_cache_dir()) / "lm-embeddings.npz")
    model = train_lm(
        prepare(train_records), prepare(validation_records), epochs=epochs, seed=seed, threads=threads, store=store
    )
    model.metadata["corpora"] = [corpus_name(path) for path in files]
    model.metadata["training"]["sample"] = {
        "train_pages_per_corpus": train_pages,
        "validation_pages_per_corpus": validation_pages,
        "seed": seed,
    }
    model.save(output)
    return model


def main(argv=None) -> None:
    parser = baseline_parser(__doc__, MODELS / "lm")
    parser.add_argument("--cache-dir", default=None)
    args = add_arguments(parser).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    model = run(
        args.corpora, output=args.output, train_pages=args.train_pages, validation_pages=args.validation_pages,
        epochs=args.epochs, seed=args.seed, threads=args.threads, cache_dir=args.cache_dir,
    )  # fmt: skip
    print(json.dumps(model.metadata["selected"], indent=1))
    for row in model.metadata["training"]["ablation"]:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
