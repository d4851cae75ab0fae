"""Training the BoilerNet baseline (:mod:`scrapy_web2text.labellers.boilernet`) in torch.

Fits on ``train``, keeps the epoch with the best validation block F1, exports the weights for numpy inference.

    python -m scrapy_web2text.research.train.boilernet ../shared/data/cleaneval.jsonl.gz
"""

from __future__ import annotations

import time

import numpy as np

from ...labellers.boilernet import MODELS, BoilerNetModel, build_vocabulary
from ...page import parse_page
from ..alignment import align_labels
from ..corpus import iter_records, load_split
from ..metrics import BlockCounts
from . import require_torch
from .baseline_command import baseline_parser, train_and_save, training_record


def page_inputs(records, pages_data=None):
    """(tag_paths, texts, labels) per record, labels from the aligned corpus cache."""

    out = []
    for k, record in enumerate(records):
        page = parse_page(record.get("html") or "")
        if pages_data is not None and pages_data[k].texts == page.texts:
            labels = pages_data[k].labels
        else:
            labels, _ = align_labels(page, record.get("text") or "")
        out.append((page.tag_paths, page.texts, np.asarray(labels, bool)))
    return out


def train_boilernet(
    train,
    validation,
    *,
    n_tags=50,
    n_words=1000,
    hidden=64,
    embed=64,
    epochs=20,
    window=256,
    batch=32,
    lr=2e-3,
    seed=0,
    corpora=(),
    threads=None,
) -> BoilerNetModel:
    """Fit on ``train`` [(tag_paths, texts, labels)], keep the epoch with the best validation block F1."""

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
        return (
            torch.tensor(flat),
            torch.tensor(offsets),
            lengths,
            torch.nn.utils.rnn.pad_sequence(ys, batch_first=True),
        )

    def export() -> BoilerNetModel:
        state = {k: v.detach().double().numpy().copy() for k, v in net.state_dict().items()}
        arrays = {
            "embed.weight": state["embed.weight"][: shell.n_inputs],
            "embed.bias": state["embed_bias"],
            "out.weight": state["out.weight"],
            "out.bias": state["out.bias"],
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
        "name": "boilernet",
        "corpora": list(corpora),
        "seed": seed,
        "threshold": 0.5,
        "selected": best[2],
        "sizes": {"tags": n_tags, "words": n_words, "embed": embed, "hidden": hidden, "lstm_layers": 1},
        "training": training_record(
            train, validation, started, history, epochs=epochs, window=window, batch=batch, lr=lr
        ),
    }
    return model


def main(argv=None) -> None:
    parser = baseline_parser(__doc__, MODELS / "boilernet", epochs=20)
    args = parser.parse_args(argv)
    data = {}
    for split in ("train", "validation"):
        data[split] = []
        for path in args.corpora:
            data[split].extend(page_inputs(list(iter_records(path, split)), load_split(path, split)))
    train_and_save(args, train_boilernet, data["train"], data["validation"])


if __name__ == "__main__":
    main()
