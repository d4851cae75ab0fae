"""The paper's training recipe, seeded and reproducible.

Each network is trained on its own (unary on block labels, pairwise on the
label transitions of neighbouring blocks) with Adam, mini-batches of page
fragments of consecutive blocks, L2 through weight decay, and the
checkpoint with the lowest validation error kept (Vogels et al. §4.1).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import time
from collections.abc import Sequence

import numpy as np

from ...labellers.web2text.features import BLOCK_FEATURE_BINARY, EDGE_FEATURE_BINARY, block_feature_names
from ...labellers.web2text.network import PAPER_CONFIG, Web2TextModel
from ..corpus import PageData
from . import require_torch
from .auto_context import fit_context
from .batches import lay_out
from .distillation import soft_targets, student_seed, teacher_config, teacher_seeds
from .fitting import fit
from .selection import WordScorer, choose_threshold, page_decisions, page_potentials

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
#: card): wider context in the upper layers and a longer schedule; ``distilled``
#: is ``default`` taught by three models of ``default`` (docs/training.rst).
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
        # Training drives some weights to subnormal floats, which many x86 CPUs multiply slowly; flushed to zero
        # the default recipe trains in about two thirds of the time on an Intel Xeon (docs/training.rst).
        "flush_denormals": True,
    },
}
CONFIGS["distilled"] = {**CONFIGS["default"], "name": "distilled", "teachers": 3, "teacher_weight": 0.5}


#: With ``"page_weights": "balanced"``, each page's block weights are scaled to sum to this.
PAGE_WEIGHT = 100.0


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


def _network_inputs(
    pages: Sequence[PageData],
    model: Web2TextModel,
    scheme: str,
    boilerplate_weight: float = 1.0,
    balanced_pages: bool = False,
) -> dict[str, list]:
    out: dict[str, list] = {key: [] for key in ("ux", "uy", "uw", "px", "py", "pw")}
    width = len(model.block_features)
    for page in pages:
        block, edge = model.standardise(page.block_x[:, :width], page.edge_x)
        labels = page.labels.astype(np.int64)
        weights = block_weights(page.texts, scheme)
        if balanced_pages and weights.sum() > 0:
            # Every page weighs the same in all, as every page counts the same in a mean of per-page scores.
            weights = (weights * (PAGE_WEIGHT / weights.sum())).astype(np.float32)
        out["ux"].append(block)
        out["uy"].append(labels)
        # A boilerplate block's unary loss weighs ``boilerplate_weight`` times as much (> 1 leans to precision).
        out["uw"].append(np.where(labels == 0, weights * boilerplate_weight, weights).astype(np.float32))
        if len(block) >= 2:
            out["px"].append(model.pairwise_inputs(block, edge))
            out["py"].append(2 * labels[:-1] + labels[1:])
            out["pw"].append((weights[:-1] + weights[1:]) / 2)
    return out


def train(
    train_pages: Sequence[PageData],
    validation_pages: Sequence[PageData],
    config: dict | str = "paper",
    *,
    seed: int = 0,
    iterations: int | None = None,
    corpora: Sequence[str] = (),
    threads: int | None = None,
    teachers: Sequence[Web2TextModel] = (),
) -> Web2TextModel:
    """Train both networks and return the numpy model (not yet saved).

    A configuration with ``"teachers": N`` is distilled (:mod:`.distillation`): unless ``teachers`` are given, N
    models of the same recipe are trained first, with seeds ``seed`` to ``seed + N - 1``.
    """
    torch = require_torch()
    config = dict(CONFIGS[config] if isinstance(config, str) else config)
    if config.get("teachers") and not teachers:
        teachers = []
        for number in teacher_seeds(config, seed):
            logger.info("training teacher %d of %d (seed %d)", len(teachers) + 1, config["teachers"], number)
            teachers.append(
                train(
                    train_pages,
                    validation_pages,
                    teacher_config(config),
                    seed=number,
                    iterations=iterations,
                    corpora=corpora,
                    threads=threads,
                )
            )
    with _flushing_denormals(torch, bool(config.get("flush_denormals"))):
        return _train(torch, train_pages, validation_pages, config, seed, iterations, corpora, threads, teachers)


@contextlib.contextmanager
def _flushing_denormals(torch, flush: bool):
    """Subnormal floats read as zero in this thread (torch's and numpy's arithmetic) while training, if ``flush``."""
    if not flush:
        yield
        return
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def _train(
    torch, train_pages, validation_pages, config: dict, seed, iterations, corpora, threads, teachers
) -> Web2TextModel:
    """:func:`train`'s work, on ``config``: the caller's copy, which it changes."""
    from .networks import ConvStack

    if iterations is not None:
        config["iterations"] = iterations
    if not train_pages or not validation_pages:
        raise ValueError("training needs at least one training and one validation page")
    if threads:
        torch.set_num_threads(threads)
    command_seed, seed = seed, student_seed(config, seed) if teachers else seed
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
    boilerplate_weight = float(config.get("boilerplate_weight", 1.0))
    page_weights = config.get("page_weights", "blocks")
    if page_weights not in ("blocks", "balanced"):
        raise ValueError(f"page_weights must be 'blocks' or 'balanced', not {page_weights!r}")
    balanced = page_weights == "balanced"
    train_in = _network_inputs(train_pages, model, scheme, boilerplate_weight, balanced)
    valid_in = _network_inputs(validation_pages, model, scheme, boilerplate_weight, balanced)
    if teachers:
        unary_targets, pair_targets = soft_targets(
            teachers, train_pages, train_in["uy"], float(config.get("teacher_weight", 1.0))
        )
        train_in["uy"] = unary_targets
        train_in["py"] = [targets for targets, page in zip(pair_targets, train_pages) if len(page) >= 2]
    unary = ConvStack.from_config(config, "unary", train_in["ux"][0].shape[1])
    pairwise = ConvStack.from_config(config, "pairwise", train_in["px"][0].shape[1])
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

    unary_report = fit(
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
        context, context_report = fit_context(
            torch, unary, train_pages, validation_pages, train_in, valid_in, config, seed + 2, word_f1_on
        )
        model.context = context.export()
    pairwise_report = fit(
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
        "seed": command_seed,
        **({"teachers": [teacher.metadata.get("seed") for teacher in teachers]} if teachers else {}),
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
        decisions = page_decisions(model, page_potentials(model, validation_pages))
        model.metadata["training"]["validation_word_f1"] = scorer.by_corpus(decisions)
    model.check()
    return model
