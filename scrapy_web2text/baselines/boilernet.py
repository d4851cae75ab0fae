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

    python -m scrapy_web2text.baselines.boilernet ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..parsing import Page

MODELS = Path(__file__).resolve().parents[1] / "models" / "baselines"
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
        stem = Path(stem).with_suffix("")
        stem.parent.mkdir(parents=True, exist_ok=True)
        np.savez(stem.with_suffix(".npz"), **{k: v.astype(np.float32) for k, v in self.arrays.items()})
        meta = {"format": FORMAT, "version": 1, "tags": self.tags, "words": self.words, **self.metadata}
        stem.with_suffix(".json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, stem: str | Path) -> BoilerNetModel:
        stem = Path(stem).with_suffix("")
        meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{stem}.json is not a BoilerNet baseline model")
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
            parts = {key: arrays[key].astype(np.float64) for key in arrays.files}
        tags, words = meta.pop("tags"), meta.pop("words")
        meta = {k: v for k, v in meta.items() if k not in ("format", "version")}
        return cls(tags, words, parts, meta)


_loaded: dict[str, BoilerNetModel] = {}
_lock = threading.Lock()


def load_boilernet(path: str | Path | None = None) -> BoilerNetModel:
    key = str(path or MODELS / "boilernet")
    with _lock:
        if key not in _loaded:
            if not Path(key).with_suffix(".npz").exists():
                raise FileNotFoundError(
                    f"no BoilerNet weights at {key}.npz; train them with "
                    "python -m scrapy_web2text.baselines.boilernet CORPUS... (needs the train extra: torch)"
                )
            _loaded[key] = BoilerNetModel.load(key)
        return _loaded[key]


def boilernet(page: Page, *, model=None, threshold=None):
    """The BoilerNet baseline (``model``: a :class:`BoilerNetModel` or a weights path)."""
    from ..methods import Labelling

    resolved = model if isinstance(model, BoilerNetModel) else load_boilernet(model)
    threshold = resolved.metadata.get("threshold", 0.5) if threshold is None else threshold
    clock = time.perf_counter()
    probabilities = resolved.probabilities(page.tag_paths, page.texts)
    return Labelling(probabilities >= threshold, probabilities, "boilernet",
                     {"network": 1000 * (time.perf_counter() - clock)})


# --- training (torch) -----------------------------------------------------------

def page_inputs(records, pages_data=None):
    """(tag_paths, texts, labels) per record, labels from the aligned corpus cache."""
    from ..alignment import align_labels
    from ..parsing import parse_page

    out = []
    for k, record in enumerate(records):
        page = parse_page(record.get("html") or "")
        if pages_data is not None and pages_data[k].texts == page.texts:
            labels = pages_data[k].labels
        else:
            labels, _ = align_labels(page, record.get("text") or "")
        out.append((page.tag_paths, page.texts, np.asarray(labels, bool)))
    return out


def train_boilernet(train, validation, *, n_tags=50, n_words=1000, hidden=64, embed=64, epochs=20, window=256,
                    batch=32, lr=2e-3, seed=0, corpora=(), threads=None) -> BoilerNetModel:
    """Fit on ``train`` [(tag_paths, texts, labels)], keep the epoch with the best validation block F1."""
    from ..metrics import BlockCounts
    from ..training import require_torch

    torch = require_torch()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    tags, words = build_vocabulary([(p, t) for p, t, _ in train], n_tags, n_words)
    shell = BoilerNetModel(tags, words, {})
    train_ids = [(shell.leaf_ids(p, t), y) for p, t, y in train if len(t)]

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.EmbeddingBag(shell.n_inputs + 1, embed, mode="sum", padding_idx=shell.n_inputs)
            self.embed_bias = torch.nn.Parameter(torch.zeros(embed))
            self.lstm = torch.nn.LSTM(embed, hidden, batch_first=True, bidirectional=True)
            self.out = torch.nn.Linear(2 * hidden, 1)

        def forward(self, flat_ids, offsets, lengths):
            x = torch.relu(self.embed(flat_ids, offsets) + self.embed_bias)
            sequences = torch.split(x, lengths)
            padded = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True)
            packed = torch.nn.utils.rnn.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
            hidden_states, _ = self.lstm(packed)
            hidden_states, _ = torch.nn.utils.rnn.pad_packed_sequence(hidden_states, batch_first=True)
            return self.out(hidden_states)[..., 0]

    net = Net()
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)

    def make_batch(chunks):
        flat, offsets, lengths, ys = [], [], [], []
        for ids, y in chunks:
            for active in ids:
                offsets.append(len(flat))
                flat.extend(active or [shell.n_inputs])
            lengths.append(len(ids))
            ys.append(torch.from_numpy(np.asarray(y, np.float32)))
        return (torch.tensor(flat), torch.tensor(offsets), lengths,
                torch.nn.utils.rnn.pad_sequence(ys, batch_first=True))

    def export() -> BoilerNetModel:
        state = {k: v.detach().double().numpy().copy() for k, v in net.state_dict().items()}
        arrays = {
            "embed.weight": state["embed.weight"][: shell.n_inputs], "embed.bias": state["embed_bias"],
            "out.weight": state["out.weight"], "out.bias": state["out.bias"],
            **{k: v for k, v in state.items() if k.startswith("lstm.")},
        }
        return BoilerNetModel(tags, words, arrays)

    best = (-1.0, None, {})
    history = []
    for epoch in range(1, epochs + 1):
        net.train()
        chunks = []
        for ids, y in train_ids:
            offset = int(rng.integers(0, window)) if len(ids) > window else 0
            starts = [0] + list(range(offset, len(ids), window)) if offset else list(range(0, len(ids), window))
            bounds = sorted(set(starts)) + [len(ids)]
            chunks.extend((ids[a:b], y[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a)
        order = rng.permutation(len(chunks))
        total = 0.0
        for start in range(0, len(order), batch):
            flat, offsets, lengths, y = make_batch([chunks[i] for i in order[start : start + batch]])
            logits = net(flat, offsets, lengths)
            mask = torch.zeros_like(y, dtype=torch.bool)
            for row, n in enumerate(lengths):
                mask[row, :n] = True
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits[mask], y[mask])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item()
        candidate = export()
        counts = BlockCounts()
        for paths, texts, labels in validation:
            counts.add(candidate.probabilities(paths, texts) >= 0.5, labels)
        scores = counts.as_dict()
        history.append({"epoch": epoch, "train_loss": total / max(1, -(-len(order) // batch)), **scores})
        if scores["f1"] > best[0]:
            best = (scores["f1"], candidate, {"epoch": epoch, "validation": scores})
    model = best[1]
    model.metadata = {
        "name": "boilernet", "corpora": list(corpora), "seed": seed, "threshold": 0.5, "selected": best[2],
        "sizes": {"tags": n_tags, "words": n_words, "embed": embed, "hidden": hidden, "lstm_layers": 1},
        "training": {"train_pages": len(train), "validation_pages": len(validation), "epochs": epochs,
                     "window": window, "batch": batch, "lr": lr, "seconds": round(time.perf_counter() - started, 1),
                     "torch": torch.__version__, "history": history},
    }
    return model


def main(argv=None) -> None:
    from ..corpus import corpus_name, iter_records, load_split

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", help="corpus .jsonl.gz files (train and validation splits are used)")
    parser.add_argument("--output", default=str(MODELS / "boilernet"))
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    data = {}
    for split in ("train", "validation"):
        data[split] = []
        for path in args.corpora:
            data[split].extend(page_inputs(list(iter_records(path, split)), load_split(path, split)))
    model = train_boilernet(data["train"], data["validation"], epochs=args.epochs, seed=args.seed,
                            threads=args.threads, corpora=[corpus_name(p) for p in args.corpora])
    model.save(args.output)
    print(json.dumps(model.metadata["selected"], indent=1))


if __name__ == "__main__":
    main()
