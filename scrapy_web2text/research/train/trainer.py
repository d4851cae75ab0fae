"""The paper's training recipe, seeded and reproducible.

Each network is trained on its own (unary on block labels, pairwise on the
label transitions of neighbouring blocks) with Adam, mini-batches of page
fragments of consecutive blocks, L2 through weight decay, and the
checkpoint with the lowest validation error kept (Vogels et al. §4.1).
"""

from __future__ import annotations

import datetime
import logging
import sys
import time
from collections.abc import Sequence

import numpy as np

from ...labellers.web2text.context import CONTEXT_FEATURES, context_features
from ...labellers.web2text.features import BLOCK_FEATURE_BINARY, EDGE_FEATURE_BINARY, block_feature_names
from ...labellers.web2text.network import PAPER_CONFIG, Web2TextModel
from ...labellers.web2text.viterbi import viterbi
from ..corpus import PageData
from . import require_torch
from .batches import Sequences, lay_out, page_batch
from .selection import WordScorer, choose_threshold

logger = logging.getLogger(__name__)


def feature_statistics(block_rows: np.ndarray, edge_rows: np.ndarray) -> dict[str, np.ndarray]:
    """Training-set means and standard deviations; binary columns stay as they are."""
    out = {}
    block_binary = BLOCK_FEATURE_BINARY[: block_rows.shape[1]]
    for prefix, rows, binary in (("block", block_rows, block_binary), ("edge", edge_rows, EDGE_FEATURE_BINARY)):
        mean = rows.mean(axis=0) if len(rows) else np.zeros(rows.shape[1])
        std = rows.std(axis=0) if len(rows) else np.ones(rows.shape[1])
        std = np.where(std > 1e-6, std, 1.0)
        out[f"{prefix}_mean"] = np.where(binary, 0.0, mean).astype(np.float32)
        out[f"{prefix}_std"] = np.where(binary, 1.0, std).astype(np.float32)
    return out


#: Named configurations.  ``paper`` is the published recipe; ``default`` is
#: what the shipped model uses (chosen on validation figures, see the model
#: card): wider context in the upper layers and a longer schedule.
CONFIGS: dict[str, dict] = {
    "paper": PAPER_CONFIG,
    "default": {
        **PAPER_CONFIG,
        "name": "default",
        "unary_kernels": [1, 1, 5, 5, 5],
        "pairwise_kernels": [1, 1, 5, 5, 5],
        "pairwise_inputs": "edges+blocks",
        "iterations": 8000,
        "fragment_length": 25,
        "batch_size": 64,
        "features": "extended",
        "loss_weight": "log_chars",
        "select_on": "word_f1",
        "choose_threshold": True,
    },
}


def block_weights(texts: Sequence[str], scheme: str) -> np.ndarray:
    """Loss weight of each block: ``none`` (the paper), ``log_chars`` or ``sqrt_chars``
    (longer blocks weigh more: users score words, not blocks)."""
    lengths = np.fromiter(map(len, texts), np.float32, len(texts))
    if scheme == "none":
        return np.ones(len(texts), np.float32)
    if scheme == "log_chars":
        return np.log1p(lengths).astype(np.float32)
    if scheme == "sqrt_chars":
        return np.sqrt(lengths).astype(np.float32)
    raise ValueError(f"unknown loss_weight {scheme!r}")


def _network_inputs(pages: Sequence[PageData], model: Web2TextModel, scheme: str) -> dict[str, list]:
    out: dict[str, list] = {key: [] for key in ("ux", "uy", "uw", "px", "py", "pw")}
    width = len(model.block_features)
    for page in pages:
        block, edge = model.standardise(page.block_x[:, :width], page.edge_x)
        labels = page.labels.astype(np.int64)
        weights = block_weights(page.texts, scheme)
        out["ux"].append(block)
        out["uy"].append(labels)
        out["uw"].append(weights)
        if len(block) >= 2:
            out["px"].append(model.pairwise_inputs(block, edge))
            out["py"].append(2 * labels[:-1] + labels[1:])
            out["pw"].append((weights[:-1] + weights[1:]) / 2)
    return out


def _fit(
    torch, network, train: Sequences, validation: Sequences, config: dict, seed: int, label: str, select=None
) -> dict:
    """Train one network; restore and report its best validation checkpoint.

    ``select(network)`` scores a checkpoint (higher is better); without it
    the lowest validation error wins.
    """
    generator = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(network.parameters(), lr=config["learning_rate"], weight_decay=config["weight_decay"])
    loss_function = torch.nn.CrossEntropyLoss(reduction="none")
    fragment = config["fragment_length"]
    offsets = np.arange(fragment)
    iterations = config["iterations"]
    every = max(iterations // 20, 50)
    best = {"error": float("inf"), "score": -float("inf"), "iteration": 0, "state": None}
    initial_error, initial_loss = _validate(torch, network, validation)
    progress = _progress_bar(iterations, label)
    x_train, y_train = torch.from_numpy(train.x), torch.from_numpy(train.y)
    weight_train = torch.from_numpy(train.weight)
    whole_pages = bool(getattr(network, "pooling", None))
    for iteration in range(1, iterations + 1):
        network.train()
        if whole_pages:  # page pooling needs whole pages: a batch of them, padded
            index, mask = page_batch(train, generator, config)
            logits = network(x_train[index], mask)
        else:
            index = torch.from_numpy(
                train.starts[generator.integers(0, len(train.starts), config["batch_size"])][:, None] + offsets
            )
            logits = network(x_train[index])
        weight = weight_train[index].reshape(-1)  # zero on padding
        loss = (
            loss_function(logits.reshape(-1, logits.shape[-1]), y_train[index].reshape(-1)) * weight
        ).sum() / weight.sum().clamp(min=1e-6)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if iteration % every == 0 or iteration == iterations:
            error, validation_loss = _validate(torch, network, validation)
            score = select(network) if select is not None else -error
            if score > best["score"]:
                best = {
                    "score": score,
                    "error": error,
                    "loss": validation_loss,
                    "iteration": iteration,
                    "state": {k: v.detach().clone() for k, v in network.state_dict().items()},
                }
            progress.update(every if iteration % every == 0 else iteration % every)
            progress.set_postfix(
                train_loss=f"{loss.item():.3f}", val_loss=f"{validation_loss:.3f}", val_error=f"{error:.4f}"
            )
            logger.info(
                "%s %d/%d train loss %.4f validation loss %.4f error %.4f",
                label,
                iteration,
                iterations,
                loss.item(),
                validation_loss,
                error,
            )
    progress.close()
    if best["state"] is not None:
        network.load_state_dict(best["state"])
    return {
        "validation_error": best["error"],
        "selection_score": best["score"],
        "validation_loss": best.get("loss"),
        "best_iteration": best["iteration"],
        "initial_validation_error": initial_error,
        "initial_validation_loss": initial_loss,
    }


def _validate(torch, network, data: Sequences) -> tuple[float, float]:
    """Error rate and mean loss over whole validation pages."""
    network.eval()
    wrong = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for at, n in data.pages:
            logits = network(torch.from_numpy(data.x[None, at : at + n]))[0]
            target = torch.from_numpy(data.y[at : at + n])
            loss_sum += torch.nn.functional.cross_entropy(logits, target, reduction="sum").item()
            wrong += int((logits.argmax(-1) != target).sum())
            total += n
    return (wrong / total, loss_sum / total) if total else (0.0, 0.0)


class _NoProgress:
    def update(self, n):
        pass

    def set_postfix(self, **kwargs):
        pass

    def close(self):
        pass


def _progress_bar(total: int, label: str):
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoProgress()
    return tqdm(total=total, desc=f"training {label}", unit="it", disable=not sys.stderr.isatty())


def _with_context(torch, unary, pages: Sequence[PageData], inputs: dict[str, list]) -> list[np.ndarray]:
    """Each page's standardised block features followed by the first pass's context summaries."""
    unary.eval()
    out = []
    with torch.no_grad():
        for page, x in zip(pages, inputs["ux"]):
            if not len(x):
                out.append(np.zeros((0, x.shape[1] + len(CONTEXT_FEATURES)), np.float32))
                continue
            p_content = torch.softmax(unary(torch.from_numpy(x[None]))[0], -1)[:, 1].numpy().astype(np.float64)
            out.append(np.hstack([x, context_features(p_content, page.block_x, page.edge_x)]).astype(np.float32))
    return out


def _out_of_fold_context(torch, train_pages, train_in, valid_in, config, seed, word_f1_on) -> list[np.ndarray]:
    """Context summaries of each training page from a first pass that never saw it.

    The first pass is more confident on its own training pages than on unseen ones, and a second pass trained on
    those summaries learns to trust them too much.  Here the training pages are split in two folds; a first pass
    trained on one fold summarises the other, as the shipped first pass summarises a user's page.
    """
    from .networks import ConvStack

    fragment = config["fragment_length"]
    folds = [list(range(0, len(train_pages), 2)), list(range(1, len(train_pages), 2))]
    out: list = [None] * len(train_pages)
    for fold, held_out in enumerate(folds):
        seen = folds[1 - fold]
        first_pass = ConvStack(
            train_in["ux"][0].shape[1],
            config["unary_filters"],
            config["unary_kernels"],
            config["dropout"],
            config.get("unary_dilations"),
        )
        _fit(
            torch,
            first_pass,
            lay_out(
                [train_in["ux"][i] for i in seen],
                [train_in["uy"][i] for i in seen],
                fragment,
                [train_in["uw"][i] for i in seen],
            ),
            lay_out(valid_in["ux"], valid_in["uy"], fragment, valid_in["uw"]),
            config,
            seed + 10 + fold,
            f"fold {fold}",
            select=word_f1_on(valid_in["ux"]),
        )
        summaries = _with_context(
            torch, first_pass, [train_pages[i] for i in held_out], {"ux": [train_in["ux"][i] for i in held_out]}
        )
        for i, x in zip(held_out, summaries):
            out[i] = x
    return out


def _fit_context(torch, unary, train_pages, validation_pages, train_in, valid_in, config, seed, word_f1_on):
    """The auto-context second pass, trained on the first pass's summaries (labellers/web2text/context.py)."""
    from .networks import ConvStack

    if config.get("auto_context") == "out_of_fold":
        train_x = _out_of_fold_context(torch, train_pages, train_in, valid_in, config, seed, word_f1_on)
    else:
        train_x = _with_context(torch, unary, train_pages, train_in)
    valid_x = _with_context(torch, unary, validation_pages, valid_in)
    context = ConvStack(
        train_x[0].shape[1],
        config["unary_filters"],
        config["unary_kernels"],
        config["dropout"],
        config.get("unary_dilations"),
    )
    fragment = config["fragment_length"]
    report = _fit(
        torch,
        context,
        lay_out(train_x, train_in["uy"], fragment, train_in["uw"]),
        lay_out(valid_x, valid_in["uy"], fragment, valid_in["uw"]),
        config,
        seed,
        "context",
        select=word_f1_on(valid_x),
    )
    return context, report


def train(
    train_pages: Sequence[PageData],
    validation_pages: Sequence[PageData],
    config: dict | str = "paper",
    *,
    seed: int = 0,
    iterations: int | None = None,
    corpora: Sequence[str] = (),
    threads: int | None = None,
) -> Web2TextModel:
    """Train both networks and return the numpy model (not yet saved)."""
    torch = require_torch()
    from .networks import ConvStack

    config = dict(CONFIGS[config] if isinstance(config, str) else config)
    if iterations is not None:
        config["iterations"] = iterations
    if not train_pages or not validation_pages:
        raise ValueError("training needs at least one training and one validation page")
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    started = time.perf_counter()
    width = len(block_feature_names(config.get("features", "paper") == "extended"))
    stats = feature_statistics(
        np.concatenate([p.block_x[:, :width] for p in train_pages]), np.concatenate([p.edge_x for p in train_pages])
    )
    model = Web2TextModel.initialised(config, seed)
    model.block_mean, model.block_std = stats["block_mean"], stats["block_std"]
    model.edge_mean, model.edge_std = stats["edge_mean"], stats["edge_std"]

    fragment = config["fragment_length"]
    scheme = config.get("loss_weight", "none")
    train_in = _network_inputs(train_pages, model, scheme)
    valid_in = _network_inputs(validation_pages, model, scheme)
    dropout = config["dropout"]
    unary = ConvStack(
        train_in["ux"][0].shape[1],
        config["unary_filters"],
        config["unary_kernels"],
        dropout,
        config.get("unary_dilations"),
        config.get("unary_pooling"),
    )
    pairwise = ConvStack(
        train_in["px"][0].shape[1],
        config["pairwise_filters"],
        config["pairwise_kernels"],
        dropout,
        config.get("pairwise_dilations"),
    )
    scorer = WordScorer(validation_pages) if config.get("select_on") == "word_f1" else None

    def word_f1_on(inputs: list[np.ndarray]):
        def select(network) -> float:
            with torch.no_grad():
                decisions = [
                    network(torch.from_numpy(x[None]))[0].argmax(-1).numpy() == 1 if len(x) else np.zeros(0, bool)
                    for x in inputs
                ]
            return scorer.score(decisions)

        return select if scorer is not None else None

    unary_report = _fit(
        torch,
        unary,
        lay_out(train_in["ux"], train_in["uy"], fragment, train_in["uw"]),
        lay_out(valid_in["ux"], valid_in["uy"], fragment, valid_in["uw"]),
        config,
        seed,
        "unary",
        select=word_f1_on(valid_in["ux"]),
    )
    context_report = None
    if config.get("auto_context"):
        context, context_report = _fit_context(
            torch, unary, train_pages, validation_pages, train_in, valid_in, config, seed + 2, word_f1_on
        )
        model.context = context.export()
    pairwise_report = _fit(
        torch,
        pairwise,
        lay_out(train_in["px"], train_in["py"], fragment, train_in["pw"]),
        lay_out(valid_in["px"], valid_in["py"], fragment, valid_in["pw"]),
        config,
        seed + 1,
        "pairwise",
    )
    model.unary, model.pairwise = unary.export(), pairwise.export()
    model.metadata = {
        "name": config["name"],
        "created": datetime.date.today().isoformat(),
        "corpora": list(corpora),
        "seed": seed,
        "training": {
            "train_pages": len(train_pages),
            "train_blocks": int(sum(len(p) for p in train_pages)),
            "validation_pages": len(validation_pages),
            "seconds": round(time.perf_counter() - started, 1),
            "unary": unary_report,
            **({"context": context_report} if context_report else {}),
            "pairwise": pairwise_report,
            "torch": torch.__version__,
        },
    }
    if config.get("choose_threshold"):
        scorer = scorer or WordScorer(validation_pages)
        threshold, figures = choose_threshold(model, validation_pages, scorer)
        model.config["threshold"] = threshold
        model.metadata["training"]["threshold_word_f1"] = {str(k): v for k, v in figures.items()}
    if scorer is not None:
        decisions = [
            viterbi(
                *model.potentials(p.block_x[:, :width], p.edge_x), model.lam, model.config.get("threshold", 0.5)
            ).astype(bool)
            for p in validation_pages
        ]
        model.metadata["training"]["validation_word_f1"] = scorer.by_corpus(decisions)
    model.check()
    return model
