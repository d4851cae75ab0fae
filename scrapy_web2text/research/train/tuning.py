"""Fine-tuning a trained model on a few corrected pages of one site (``web2text train --init``).

The networks start from the given model's weights and keep its feature statistics and architecture.  Adam runs a
few hundred steps (the recipe's learning rate, a thirtieth of its steps) on fragments of consecutive blocks, half of
each batch from the user's pages and half from a sample of the training corpora's ``train`` splits (the shipped
recipe's data, each corpus in proportion to its split), optionally with a penalty ``anchor · Σ (w − w₀)²`` that pulls
the weights back towards the model's own (L2-SP: Li, Grandvalet and Davoine, "Explicit inductive bias for transfer
learning with convolutional networks", ICML 2018).  Then the threshold is moved so that the tuned model keeps as
much of the mixed-in pages' text as the model did: the site is learnt, the balance elsewhere kept.

Labels come from the viewer's ``*.labels.json`` (:mod:`scrapy_web2text.show`), matched to the page's blocks by
XPath, or from gold text in the corpus format (aligned as for training); blocks a labels file does not name weigh 0.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import logging
import random
import time
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...extraction.output import block_xpaths
from ...labellers.web2text import page_type_on_demand
from ...labellers.web2text.features import block_features, edge_features
from ...labellers.web2text.network import Web2TextModel
from ...labellers.web2text.rules import overruled_rules
from ...labellers.web2text.site_gate import template_digests
from ...page import Page, parse_page
from ..corpus import PageData, corpus_name, iter_records, process_record
from . import require_torch
from .batches import Sequences, lay_out
from .rebalance import rebalanced_threshold
from .trainer import block_weights

logger = logging.getLogger(__name__)

#: The recipe's defaults (docs/show.rst has the figures they were chosen on).
ITERATIONS = 300
LEARNING_RATE = 1e-3
USER_SHARE = 0.5
MIX_PAGES = 180
ANCHOR = 0.0
REBALANCE = True
#: The tuned model labels a page only where the page holds this share of the site's template
#: (:mod:`~scrapy_web2text.labellers.web2text.site_gate`); 0: every page (no gate).
SITE_GATE = 0.3


@dataclass
class TuningPage:
    """A page to tune on: its features, its labels, and which blocks carry a label (``known``)."""

    source: str
    url: str | None
    sha256: str
    labels_from: str  # "viewer" or "gold"
    texts: list[str]
    block_x: np.ndarray
    edge_x: np.ndarray
    labels: np.ndarray
    known: np.ndarray
    changed: int = 0
    #: The parsed page, where there is one: the rules after decoding are checked against the labels on it.
    page: Page | None = None

    @classmethod
    def from_page_data(cls, data: PageData, source: str, page: Page | None = None) -> TuningPage:
        digest, known = hashlib.sha256(data.id.encode("utf-8")).hexdigest(), np.ones(len(data), bool)
        return cls(source, data.url, digest, "gold", data.texts, data.block_x, data.edge_x, data.labels, known, 0, page)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def page_from_labels(html: bytes, document: dict, source: str) -> TuningPage:
    """The page's blocks labelled from a viewer's labels file: the k-th block with an XPath takes the k-th label
    the file gives that XPath (blocks of one element share it: its text and its children's tails)."""
    page = parse_page(html)
    queues: dict[str | None, deque] = defaultdict(deque)
    for record in document.get("blocks", []):
        if record.get("label") in ("content", "boilerplate"):
            queues[record.get("xpath")].append(record["label"] == "content")
    have_elements = len(page.block_elements) == len(page.texts)
    xpaths = block_xpaths(page.root, page.block_elements) if have_elements else [None] * len(page.texts)
    labels, known = np.zeros(len(page.texts), bool), np.zeros(len(page.texts), bool)
    for index, xpath in enumerate(xpaths):
        if queues.get(xpath):
            labels[index], known[index] = queues[xpath].popleft(), True
    changed = sum(bool(record.get("changed")) for record in document.get("blocks", []))
    return TuningPage(
        source,
        document.get("url"),
        hashlib.sha256(html).hexdigest(),
        "viewer",
        page.texts,
        block_features(page, extended=True),
        edge_features(page),
        labels,
        known,
        changed,
        page,
    )


def read_labelled_pages(pages_dir: str | Path | None, labels: Sequence[str | Path]) -> list[TuningPage]:
    """Pages for :func:`fine_tune`: viewer labels (``*.labels.json`` files or folders of them, their pages found
    in ``pages_dir`` by the hash they name) and corpus files (``*.jsonl[.gz]``: every page, labelled by its gold)."""
    label_files: list[Path] = []
    tuned: list[TuningPage] = []
    for entry in map(Path, labels):
        if entry.is_dir():
            label_files += sorted(entry.glob("*.labels.json"))
        elif entry.name.endswith((".jsonl", ".jsonl.gz")):
            for record in iter_records(entry):
                page = parse_page(record.get("html") or "")  # kept: the rules after decoding are checked on it
                source = f"{entry}:{record.get('id')}"
                tuned.append(TuningPage.from_page_data(process_record(record, page), source, page))
        elif entry.is_file():
            label_files.append(entry)
        else:
            raise FileNotFoundError(f"labels not found: {entry}")
    if label_files:
        if pages_dir is None:
            raise ValueError("viewer labels need --pages: the folder of the pages they were saved from")
        by_hash = {sha256_file(path): path for path in sorted(Path(pages_dir).rglob("*.htm*")) if path.is_file()}
        for file in label_files:
            document = json.loads(file.read_text(encoding="utf-8"))
            if not isinstance(document, dict) or not str(document.get("format", "")).startswith("web2text-labels/"):
                raise ValueError(f"{file}: not a labels file saved by web2text show")
            page_path = by_hash.get(document.get("sha256"))
            if page_path is None:
                raise ValueError(
                    f"{file}: no page in {pages_dir} has the hash it names ({document.get('sha256')}); "
                    "keep the page's bytes (web2text show --save-page) beside the labels"
                )
            tuned.append(page_from_labels(page_path.read_bytes(), document, str(page_path)))
    if not tuned:
        raise ValueError("no labelled pages: give *.labels.json files (or folders of them) or corpus files")
    return tuned


def sample_training_pages(files: Sequence[str | Path], total: int, seed: int = 0) -> list[PageData]:
    """About ``total`` random pages of the corpora's ``train`` splits, each corpus in proportion to its split (as the
    recipe saw them: an equal share each would tilt the model towards the small corpora)."""
    sizes = {path: sum(1 for _ in iter_records(path, "train")) for path in files}
    everything = sum(sizes.values())
    sampled: list[PageData] = []
    for path, size in sizes.items():
        wanted = max(1, round(total * size / everything)) if size and everything else 0
        generator = random.Random(f"{seed}-{corpus_name(path)}")
        chosen = set(generator.sample(range(size), min(wanted, size)))
        sampled += [process_record(r) for n, r in enumerate(iter_records(path, "train")) if n in chosen]
    return sampled


def _inputs(model: Web2TextModel, pages: Sequence, scheme: str) -> dict[str, list]:
    """The two networks' inputs, targets and loss weights; unknown labels weigh nothing."""
    out: dict[str, list] = {key: [] for key in ("ux", "uy", "uw", "px", "py", "pw")}
    width = len(model.block_features)
    for page in pages:
        if not len(page.texts):
            continue
        block, edge = model.standardise(page.block_x[:, :width], page.edge_x)
        labels = np.asarray(page.labels).astype(np.int64)
        known = getattr(page, "known", None)
        weights = block_weights(page.texts, scheme) * (1.0 if known is None else known.astype(np.float32))
        out["ux"].append(block)
        out["uy"].append(labels)
        out["uw"].append(weights.astype(np.float32))
        if len(block) >= 2:
            out["px"].append(model.pairwise_inputs(block, edge))
            out["py"].append(2 * labels[:-1] + labels[1:])
            both = np.minimum(weights[:-1], weights[1:]) > 0
            out["pw"].append(((weights[:-1] + weights[1:]) / 2 * both).astype(np.float32))
    return out


def _batches(user: Sequences, mix: Sequences | None, batch_size: int, share: float, generator) -> np.ndarray:
    """Fragment starts of one batch: ``share`` of them from the user's pages, the rest from the mixed-in ones."""
    from_user = batch_size if mix is None or not len(mix.starts) else max(1, round(batch_size * share))
    starts = [user.starts[generator.integers(0, len(user.starts), from_user)]]
    if from_user < batch_size:
        starts.append(mix.starts[generator.integers(0, len(mix.starts), batch_size - from_user)] + len(user.x))
    return np.concatenate(starts)


def _distance_to(network, anchors: list):
    """Σ (w − w₀)² over the network's weights: how far tuning has taken it from where it started."""
    return sum(((weight - start) ** 2).sum() for weight, start in zip(network.parameters(), anchors))


def _tune_network(torch, network, user: Sequences, mix: Sequences | None, settings: dict, seed: int) -> float:
    """Adam on the network from its current weights, pulled back towards them by ``settings["anchor"]``; how far
    the weights moved (Σ (w − w₀)²)."""
    anchors = [weight.detach().clone() for weight in network.parameters()]
    generator = np.random.default_rng(seed)
    x = np.concatenate([user.x, mix.x]) if mix is not None else user.x
    y = np.concatenate([user.y, mix.y]) if mix is not None else user.y
    w = np.concatenate([user.weight, mix.weight]) if mix is not None else user.weight
    x_all, y_all, w_all = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(w)
    optimiser = torch.optim.Adam(
        network.parameters(), lr=settings["learning_rate"], weight_decay=settings["weight_decay"]
    )
    loss_function = torch.nn.CrossEntropyLoss(reduction="none")
    offsets = np.arange(settings["fragment_length"])
    loss = torch.zeros(())
    network.train()
    for _ in range(settings["iterations"]):
        starts = _batches(user, mix, settings["batch_size"], settings["user_share"], generator)
        index = torch.from_numpy(starts[:, None] + offsets)
        logits = network(x_all[index])
        weight = w_all[index].reshape(-1)
        loss = (loss_function(logits.reshape(-1, logits.shape[-1]), y_all[index].reshape(-1)) * weight).sum()
        loss = loss / weight.sum().clamp(min=1e-6)
        if settings["anchor"]:
            loss = loss + settings["anchor"] * _distance_to(network, anchors)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    network.eval()
    with torch.no_grad():
        return float(_distance_to(network, anchors))


def fine_tune(
    model: Web2TextModel,
    pages: Sequence[TuningPage | PageData],
    mix: Sequence[PageData] = (),
    *,
    iterations: int = ITERATIONS,
    learning_rate: float = LEARNING_RATE,
    user_share: float = USER_SHARE,
    anchor: float = ANCHOR,
    rebalance: bool = REBALANCE,
    networks: Sequence[str] = ("unary", "pairwise"),
    site_gate: float = SITE_GATE,
    seed: int = 0,
    threads: int | None = None,
) -> Web2TextModel:
    """A copy of ``model`` tuned on ``pages`` (with ``mix`` mixed in); its card says what it was tuned on.
    ``anchor`` weighs the pull back towards ``model``'s weights (0: none); ``networks`` names those tuned (the
    others keep their weights); ``site_gate`` is the share of the pages' template a page must hold to be labelled
    by the tuned networks, others being labelled by ``model`` (0: no gate)."""
    if anchor < 0:
        raise ValueError(f"anchor must be 0 or more, not {anchor}")
    if not 0 <= site_gate <= 1:
        raise ValueError(f"site_gate must be between 0 and 1, not {site_gate}")
    torch = require_torch()
    from .networks import ConvStack

    config = model.config
    if config.get("auto_context") or config.get("unary_pooling"):
        raise ValueError(f"{model.name}: fine-tuning supports models without page pooling or a context pass")
    if not any(len(page.texts) for page in pages):
        raise ValueError("no blocks to tune on: the labelled pages are empty")
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    started = time.perf_counter()
    fragment = int(config["fragment_length"])
    settings = {
        "iterations": iterations,
        "learning_rate": learning_rate,
        "weight_decay": config.get("weight_decay", 0.0),
        "fragment_length": fragment,
        "batch_size": int(config.get("batch_size", 64)),
        "user_share": user_share,
        "anchor": anchor,
    }
    scheme = config.get("loss_weight", "none")
    user_in, mix_in = _inputs(model, pages, scheme), _inputs(model, mix, scheme) if mix else None
    layers, moved = {}, {}
    for offset, (name, x, y, w) in enumerate((("unary", "ux", "uy", "uw"), ("pairwise", "px", "py", "pw"))):
        user = lay_out(user_in[x], user_in[y], fragment, user_in[w])
        mixed = lay_out(mix_in[x], mix_in[y], fragment, mix_in[w]) if mix_in and mix_in[x] else None
        network = ConvStack.from_config(config, name, user.x.shape[1])
        network.load(getattr(model, name))
        if len(user.starts) and name in networks:
            moved[name] = round(_tune_network(torch, network, user, mixed, settings, seed + offset), 6)
        layers[name] = network.export()
    metadata = {
        **{key: value for key, value in model.metadata.items() if key not in ("training", "path")},
        "name": f"{model.name}-tuned",
        "created": datetime.date.today().isoformat(),
        "fine_tuned": {
            "from": model.path or model.name,
            "from_name": model.name,
            "pages": [_page_card(page) for page in pages],
            "mixed_in": dict(sorted(_count_corpora(mix).items())),
            "settings": {
                **{key: settings[key] for key in ("iterations", "learning_rate", "user_share", "anchor", "batch_size")},
                "networks": list(networks),
                "site_gate": site_gate,
            },
            "distance_moved": moved,
            "seed": seed,
            "seconds": round(time.perf_counter() - started, 1),
            "torch": torch.__version__,
        },
        "base_training": model.metadata.get("training"),
    }
    tuned = dataclasses.replace(
        model,
        config={key: value for key, value in config.items() if key != "site_gate"},  # the gate of this tuning's pages
        unary=layers["unary"],
        pairwise=layers["pairwise"],
        metadata=metadata,
        path=None,
        fallback=None,
    )
    if rebalance and mix:
        threshold, offsets = rebalanced_threshold(model, tuned, mix)
        tuned.config["threshold"] = metadata["fine_tuned"]["threshold"] = threshold
        tuned.config["threshold_offsets"] = metadata["fine_tuned"]["threshold_offsets"] = offsets
    overruled = sorted(_overruled(pages, model) - model.skipped_rules)
    if overruled:  # the rules after decoding would drop what the labels keep: the tuned model skips them
        tuned.config["skip_rules"] = sorted(model.skipped_rules.union(overruled))
        metadata["fine_tuned"]["skip_rules"] = overruled
    template = template_digests(_boilerplate_texts(page) for page in pages) if site_gate else []
    if template:
        tuned.config["site_gate"] = {"min_share": site_gate, "digests": template}
        tuned.fallback = model
    tuned.check()
    return tuned


def _boilerplate_texts(page: TuningPage | PageData) -> list[str]:
    """The texts of the page's blocks labelled boilerplate (unlabelled blocks say nothing)."""
    known = getattr(page, "known", None)
    known = np.ones(len(page.texts), bool) if known is None else np.asarray(known, bool)
    return [text for text, label, k in zip(page.texts, page.labels, known) if k and not label]


def _overruled(pages: Sequence[TuningPage | PageData], model: Web2TextModel) -> set[str]:
    """The rules that, run as the chain runs them on each labelled page, drop blocks its labels call content."""
    found: set[str] = set()
    for page in pages:
        if isinstance(page, TuningPage) and page.page is not None and len(page.page) == len(page.labels):
            guess = page_type_on_demand(page.page, block_features(page.page, extended=model.extended))
            found |= overruled_rules(page.page, page.labels, page.known, guess)
    return found


def _page_card(page) -> dict:
    if isinstance(page, TuningPage):
        return {
            "source": page.source,
            "url": page.url,
            "sha256": page.sha256,
            "labels": page.labels_from,
            "blocks": int(len(page.texts)),
            "labelled_blocks": int(page.known.sum()),
            "changed": page.changed,
        }
    return {"source": f"{page.dataset}:{page.id}", "url": page.url, "labels": "gold", "blocks": len(page)}


def _count_corpora(pages: Sequence[PageData]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for page in pages:
        counts[page.dataset] += 1
    return counts
