"""Experiment (issue 9): a gradient-boosted-tree unary labeller on the Web2Text block features.

Trains LightGBM on the ``train`` splits of every corpus (weights: the default recipe's log(1 + characters)),
stops early on ``validation``, then decodes the validation pages twice (the shipped model's pairwise network and
Viterbi with the trees' log-probabilities as unary; a plain threshold) and scores them as the trainer does
(:class:`~scrapy_web2text.research.train.selection.WordScorer`), beside the shipped model on the same pages.
The trees are then evaluated in numpy (all trees at once, level by level) and checked against LightGBM.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python research/gbdt_labeller.py prepare          # cache the matrices
    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python research/gbdt_labeller.py oof              # CNN p(content), --cnn
    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python research/gbdt_labeller.py train --seed 0   # one variant, one seed

LightGBM is needed for training only (``pip install lightgbm``); the numpy evaluation needs nothing but numpy.
``--cnn`` adds the CNN unary p(content) as a block column: out of fold on train (two folds, the default recipe's
unary network), the shipped model's on validation.

Result (November 2026, mean validation word F1 over 365 pages; shipped model 0.8923): the trees alone match the
CNN (0.8898 block features only, 0.8916 with neighbours and aggregates); the best variant, trees over the block
features, neighbours and aggregates plus the out-of-fold CNN p(content), page-balanced weights, reached 0.9010 and
0.8993 (seeds 0, 1) with WCXB word precision 0.008 to 0.010 lower, at +3.4 ms a page: below the bar
(+0.01 on both seeds, WCXB and Dragnet precision up, +20 % time), so it is not integrated.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import time
from pathlib import Path

import numpy as np

from scrapy_web2text.labellers.web2text.features import ALL_BLOCK_FEATURES, EDGE_FEATURES
from scrapy_web2text.labellers.web2text.network import load_model
from scrapy_web2text.labellers.web2text.viterbi import viterbi
from scrapy_web2text.research.corpus import load_split
from scrapy_web2text.research.train.selection import THRESHOLDS, WordScorer, pick_threshold
from scrapy_web2text.research.train.trainer import block_weights

WORK = Path(os.environ.get("GBDT_WORK", "/tmp/gbdt"))
_CHARS = ALL_BLOCK_FEATURES.index("node_log_chars")
_RUN_EDGES = [EDGE_FEATURES.index(name) for name in ("same_parent", "same_grandparent", "same_great_grandparent")]
WINDOWS = (2, 8, 32)


# --- features ----------------------------------------------------------------------------------------------


def tree_features(block_x: np.ndarray, edge_x: np.ndarray, columns: np.ndarray, radius: int) -> np.ndarray:
    """Per block: its features, both edges, ``columns`` of the neighbours within ``radius`` (zero-padded, with
    a pad flag), and character-weighted means of ``columns`` over windows, CDOM-parent runs and the page."""
    n = len(block_x)
    block_x = np.asarray(block_x, np.float32)
    if n == 0:
        return np.zeros((0, tree_feature_count(block_x.shape[1], len(columns), radius)), np.float32)
    parts = [block_x]
    zero_edge = np.zeros((1, edge_x.shape[1]), np.float32)
    edges = np.vstack([zero_edge, edge_x, zero_edge]).astype(np.float32)
    parts += [edges[:-1], edges[1:]]  # the edge to the left, to the right
    selected = block_x[:, columns]
    padded = np.vstack([np.zeros((radius, len(columns)), np.float32), selected, np.zeros((radius, len(columns)))])
    index = np.arange(n)
    for offset in [*range(-radius, 0), *range(1, radius + 1)]:
        parts.append(padded[radius + offset : radius + offset + n])
        parts.append(((index + offset < 0) | (index + offset >= n)).astype(np.float32)[:, None])
    weight = np.expm1(block_x[:, _CHARS].astype(np.float64)) + 1.0
    weighted = weight[:, None] * selected
    weight_sum = np.concatenate(([0.0], np.cumsum(weight)))
    weighted_sum = np.vstack([np.zeros((1, len(columns))), np.cumsum(weighted, axis=0)])
    for width in WINDOWS:
        low, high = np.maximum(index - width, 0), np.minimum(index + width + 1, n)
        parts.append((weighted_sum[high] - weighted_sum[low]) / (weight_sum[high] - weight_sum[low])[:, None])
    for column in _RUN_EDGES:
        breaks = edge_x[:, column] < 0.5 if n > 1 else np.zeros(0, bool)
        run = np.concatenate(([0], np.cumsum(breaks)))
        run_weight = np.bincount(run, weight)
        means = np.stack([np.bincount(run, weighted[:, j]) for j in range(len(columns))], axis=1) / run_weight[:, None]
        parts.append(means[run])
        parts.append(np.log1p(np.bincount(run)[run]).astype(np.float32)[:, None])
        parts.append((run_weight[run] / weight_sum[-1])[:, None])
    parts.append(np.broadcast_to(weighted_sum[-1] / weight_sum[-1], (n, len(columns))))
    return np.hstack(parts).astype(np.float32)


def tree_feature_count(n_block: int, n_columns: int, radius: int) -> int:
    return (
        n_block
        + 2 * len(EDGE_FEATURES)
        + 2 * radius * (n_columns + 1)
        + len(WINDOWS) * n_columns
        + 3 * (n_columns + 2)
        + n_columns
    )


def tree_feature_names(block_names: list[str], columns, radius: int) -> list[str]:
    picked = [block_names[c] for c in columns]
    names = list(block_names) + [f"left_{e}" for e in EDGE_FEATURES] + [f"right_{e}" for e in EDGE_FEATURES]
    for offset in [*range(-radius, 0), *range(1, radius + 1)]:
        names += [f"n{offset:+d}_{p}" for p in picked] + [f"n{offset:+d}_pad"]
    for width in WINDOWS:
        names += [f"w{width}_{p}" for p in picked]
    for run in ("parent", "grandparent", "great_grandparent"):
        names += [f"run_{run}_{p}" for p in picked] + [f"run_{run}_log_blocks", f"run_{run}_r_chars"]
    names += [f"page_mean_{p}" for p in picked]
    return names


# --- data ----------------------------------------------------------------------------------------------------


def load_pages(split: str):
    pages = []
    for path in sorted(glob.glob(str(Path(__file__).resolve().parents[2] / "shared" / "data" / "*.jsonl.gz"))):
        pages += load_split(path, split)
    return pages


def prepare(_args) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    for split in ("train", "validation"):
        pages = load_pages(split)
        np.savez(
            WORK / f"{split}.npz",
            sizes=np.array([len(p) for p in pages]),
            block_x=np.concatenate([p.block_x for p in pages]).astype(np.float32),
            edge_x=np.concatenate([p.edge_x for p in pages]).astype(np.float32),
            labels=np.concatenate([p.labels for p in pages]).astype(np.int8),
            weights=np.concatenate([block_weights(p.texts, "log_chars") for p in pages]),
            corpus=np.array([p.dataset for p in pages]),
        )
        print(split, len(pages), "pages", sum(len(p) for p in pages), "blocks", flush=True)


def split_pages(arrays):
    """(block_x, edge_x) per page from a prepared split."""
    sizes = arrays["sizes"]
    block_at = np.concatenate(([0], np.cumsum(sizes)))
    edge_at = np.concatenate(([0], np.cumsum(np.maximum(sizes - 1, 0))))
    return [
        (arrays["block_x"][block_at[i] : block_at[i + 1]], arrays["edge_x"][edge_at[i] : edge_at[i + 1]])
        for i in range(len(sizes))
    ]


def matrix(pages, columns, radius) -> np.ndarray:
    return np.concatenate([tree_features(b, e, columns, radius) for b, e in pages])


# --- scoring ---------------------------------------------------------------------------------------------------


def word_precisions(scorer: WordScorer, decisions) -> np.ndarray:
    """Per-page word precision of the kept blocks (as research.metrics.word_scores: 1.0 when nothing is kept)."""
    out = np.empty(len(decisions))
    for index, ((gold, owner, flat, size), keep) in enumerate(zip(scorer._pages, decisions)):
        predicted = np.bincount(flat[np.asarray(keep, bool)[owner]], minlength=size) if size else gold
        out[index] = np.minimum(gold, predicted).sum() / predicted.sum() if predicted.sum() else 1.0
    return out


def report(name, scorer, decisions, corpora) -> dict:
    by_corpus = scorer.by_corpus(decisions)
    precision = word_precisions(scorer, decisions)
    row = {"variant": name, "mean": round(scorer.score(decisions), 4), **by_corpus}
    for corpus in ("wcxb", "dragnet"):
        row[f"P_{corpus}"] = round(float(precision[corpora == corpus].mean()), 4)
    print(json.dumps(row), flush=True)
    return row


def sweep(scorer, probabilities, pairwise, lam):
    """Threshold chosen by the trainer's rule, for Viterbi decoding (pairwise given) or a plain threshold."""
    figures, decided = {}, {}
    for threshold in THRESHOLDS:
        threshold = float(threshold)
        if pairwise is None:
            decisions = [p > threshold for p in probabilities]
        else:
            decisions = [
                viterbi(np.log(np.stack([1 - p, p], 1).clip(1e-9)), q, lam, threshold).astype(bool)
                for p, q in zip(probabilities, pairwise)
            ]
        figures[threshold], decided[threshold] = round(scorer.score(decisions), 4), decisions
    best = pick_threshold(figures)
    return best, decided[best], figures


# --- numpy trees ---------------------------------------------------------------------------------------------


def flatten_trees(dump: dict) -> dict[str, np.ndarray]:
    """Every tree of a LightGBM dump as rows of one padded node table; leaves point at themselves."""
    trees = dump["tree_info"]
    tables = []
    for tree in trees:
        nodes: list[list] = []  # feature, threshold, left, right, value
        _visit(tree["tree_structure"], nodes)
        tables.append(nodes)
    width = max(len(t) for t in tables)
    table = np.zeros((len(tables), width, 5))
    for index, nodes in enumerate(tables):
        table[index, : len(nodes)] = nodes
    depth = max(_depth(t["tree_structure"]) for t in trees)
    return {
        "feature": table[:, :, 0].astype(np.int32),
        "threshold": table[:, :, 1].astype(np.float64),
        "left": table[:, :, 2].astype(np.int32),
        "right": table[:, :, 3].astype(np.int32),
        "value": table[:, :, 4].astype(np.float64),
        "depth": np.array(depth),
    }


def _visit(node: dict, nodes: list[list]) -> int:
    """Append ``node``'s subtree to ``nodes`` (depth first); returns its row."""
    at = len(nodes)
    nodes.append([0, 0.0, at, at, 0.0])
    if "leaf_value" in node:
        nodes[at][4] = node["leaf_value"]
        return at
    if node.get("decision_type", "<=") != "<=" or node.get("missing_type") not in (None, "None"):
        raise ValueError(f"unsupported split {node.get('decision_type')} / {node.get('missing_type')}")
    nodes[at][0], nodes[at][1] = node["split_feature"], node["threshold"]
    nodes[at][2] = _visit(node["left_child"], nodes)
    nodes[at][3] = _visit(node["right_child"], nodes)
    return at


def _depth(node) -> int:
    return 0 if "leaf_value" in node else 1 + max(_depth(node["left_child"]), _depth(node["right_child"]))


def compile_trees(trees: dict[str, np.ndarray]) -> dict:
    """Global node numbers (tree * width + node), children interleaved (2 * node + goes_right), and the features
    the trees read renumbered to a compact matrix, so each level of every tree is four flat gathers."""
    n_trees, width = trees["feature"].shape
    offset = (np.arange(n_trees) * width)[:, None]
    used = np.unique(trees["feature"])
    renumber = np.zeros(int(used.max()) + 1, np.intp)
    renumber[used] = np.arange(len(used))
    return {
        "used": used,
        "feature": renumber[trees["feature"]].ravel(),
        "threshold": trees["threshold"].ravel(),
        "child": np.stack([trees["left"] + offset, trees["right"] + offset], -1).reshape(-1).astype(np.intp),
        "value": trees["value"].ravel(),
        "roots": (np.arange(n_trees) * width).astype(np.intp),
        "depth": int(trees["depth"]),
    }


def raw_scores(compiled: dict, x: np.ndarray) -> np.ndarray:
    """Sum of every tree's leaf value per row, all trees stepped together one level at a time (leaves loop)."""
    n = len(x)
    columns = np.ascontiguousarray(x[:, compiled["used"]], dtype=np.float64).ravel()
    row_start = (np.arange(n, dtype=np.intp) * len(compiled["used"]))[:, None]
    at = np.broadcast_to(compiled["roots"], (n, len(compiled["roots"])))
    for _ in range(compiled["depth"]):
        goes_right = columns[row_start + compiled["feature"][at]] > compiled["threshold"][at]
        at = compiled["child"][2 * at + goes_right]
    return compiled["value"][at].sum(axis=1)


# --- training ------------------------------------------------------------------------------------------------


def train(args) -> None:
    import lightgbm

    started = time.time()
    with np.load(WORK / "train.npz") as archive:
        train_arrays = dict(archive)
    with np.load(WORK / "validation.npz") as archive:
        valid_arrays = dict(archive)
    block_names = list(ALL_BLOCK_FEATURES)
    if args.cnn:  # out-of-fold CNN unary p(content) on train, the shipped model's on validation (oof.py)
        block_names.append("cnn_p_content")
        for arrays, split in ((train_arrays, "train"), (valid_arrays, "valid")):
            arrays["block_x"] = np.hstack([arrays["block_x"], np.load(WORK / f"cnn_{split}.npy")[:, None]])
    train_pages, valid_pages = split_pages(train_arrays), split_pages(valid_arrays)
    if args.page_balanced:  # word F1 is a mean over pages: every page's weights sum to the same total
        for arrays in (train_arrays, valid_arrays):
            page = np.repeat(np.arange(len(arrays["sizes"])), arrays["sizes"])
            totals = np.bincount(page, arrays["weights"])
            arrays["weights"] = arrays["weights"] / totals[page] * totals.mean()
    columns = np.array(json.loads(args.columns), dtype=np.int64) if args.columns else np.arange(0)
    if args.top and not args.base_only:
        gains = json.loads((WORK / "importance_base.json").read_text())
        columns = np.array([ALL_BLOCK_FEATURES.index(name) for name in gains[: args.top]])
    if args.cnn and not args.base_only:
        columns = np.append(columns, len(block_names) - 1).astype(np.int64)
    radius = args.radius if len(columns) else 0
    if args.base_only:
        x_train = train_arrays["block_x"].astype(np.float32)
        x_valid = valid_arrays["block_x"].astype(np.float32)
        names = block_names
    else:
        x_train, x_valid = matrix(train_pages, columns, radius), matrix(valid_pages, columns, radius)
        names = tree_feature_names(block_names, columns, radius)
    print("features", x_train.shape, x_valid.shape, round(time.time() - started), "s", flush=True)
    params = {
        "objective": "binary",
        "learning_rate": args.learning_rate,
        "num_leaves": args.leaves,
        "max_depth": args.max_depth,
        "min_data_in_leaf": args.min_data,
        "feature_fraction": args.feature_fraction,
        "extra_trees": args.extra_trees,
        "bagging_fraction": 0.5,
        "bagging_freq": 1,
        "lambda_l2": args.l2,
        "max_bin": 63,
        "use_missing": False,
        "num_threads": 1,
        "seed": args.seed,
        "bagging_seed": args.seed,
        "feature_fraction_seed": args.seed,
        "verbose": -1,
    }
    train_set = lightgbm.Dataset(
        x_train, train_arrays["labels"], weight=train_arrays["weights"], feature_name=names, free_raw_data=True
    )
    valid_set = lightgbm.Dataset(x_valid, valid_arrays["labels"], weight=valid_arrays["weights"], reference=train_set)
    booster = lightgbm.train(
        params,
        train_set,
        num_boost_round=args.rounds,
        valid_sets=[valid_set],
        keep_training_booster=args.select_word_f1,  # else the booster is cut to the best logloss iteration
        callbacks=[lightgbm.early_stopping(args.patience, verbose=False), lightgbm.log_evaluation(100)],
    )
    print("trees", booster.best_iteration, "trained in", round(time.time() - started), "s", flush=True)
    if args.select_word_f1:
        booster.best_iteration = select_on_word_f1(booster, x_valid, valid_arrays["sizes"])
    gains = booster.feature_importance("gain", iteration=booster.best_iteration)
    order = np.argsort(-gains)
    print("top features", [(names[i], round(float(gains[i]) / gains.sum(), 3)) for i in order[:25]], flush=True)
    if args.base_only and not args.cnn:
        (WORK / "importance_base.json").write_text(json.dumps([names[i] for i in order]))
    booster.save_model(str(WORK / f"{args.name}-s{args.seed}.txt"), num_iteration=booster.best_iteration)

    raw = booster.predict(x_valid, raw_score=True, num_iteration=booster.best_iteration)
    sizes = valid_arrays["sizes"]
    split_at = np.cumsum(sizes)[:-1]
    probabilities = np.split(1 / (1 + np.exp(-raw)), split_at)
    np.save(WORK / f"{args.name}-s{args.seed}-pvalid.npy", np.concatenate(probabilities))
    evaluate(args.name + f" s{args.seed}", probabilities, valid_pages, valid_arrays)

    trees = flatten_trees(booster.dump_model(num_iteration=booster.best_iteration))
    np.savez(WORK / f"{args.name}-s{args.seed}-trees.npz", **trees, columns=columns, radius=np.array(radius))
    check_numpy(trees, booster, valid_pages, columns, radius, args.base_only)


def select_on_word_f1(booster, x_valid, sizes) -> int:
    """The number of trees (a multiple of 25) whose plain-threshold validation word F1 is best."""
    scorer = WordScorer(load_pages("validation"))
    split_at = np.cumsum(sizes)[:-1]
    figures = {}
    for count in range(25, booster.current_iteration() + 1, 25):
        probabilities = np.split(
            1 / (1 + np.exp(-booster.predict(x_valid, raw_score=True, num_iteration=count))), split_at
        )
        figures[count] = max(scorer.score([p > t for p in probabilities]) for t in THRESHOLDS)
    print("word F1 by trees", {k: round(v, 4) for k, v in figures.items()}, flush=True)
    return max(figures, key=figures.get)


def evaluate(name, probabilities, valid_pages, valid_arrays) -> None:
    shipped = load_model("default")
    width = len(shipped.block_features)
    scorer = WordScorer(load_pages("validation"))
    corpora = np.asarray(scorer.corpora)
    potentials = [shipped.potentials(b[:, :width], e) for b, e in valid_pages]
    shipped_decisions = [viterbi(u, q, shipped.lam, shipped.config["threshold"]).astype(bool) for u, q in potentials]
    report(f"shipped default (t={shipped.config['threshold']})", scorer, shipped_decisions, corpora)
    pairwise = [q for _, q in potentials]
    best, decisions, figures = sweep(scorer, probabilities, pairwise, shipped.lam)
    report(f"{name} + shipped pairwise/Viterbi (t={best})", scorer, decisions, corpora)
    print("  sweep", figures, flush=True)
    best, decisions, figures = sweep(scorer, probabilities, None, shipped.lam)
    report(f"{name} plain threshold (t={best})", scorer, decisions, corpora)
    print("  sweep", figures, flush=True)


def check_numpy(trees, booster, valid_pages, columns, radius, base_only) -> None:
    errors, times = [], []
    compiled = compile_trees(trees)
    for block_x, edge_x in valid_pages:
        began = time.perf_counter()
        x = block_x.astype(np.float32) if base_only else tree_features(block_x, edge_x, columns, radius)
        ours = raw_scores(compiled, x)
        times.append(time.perf_counter() - began)
        theirs = booster.predict(x, raw_score=True, num_iteration=booster.best_iteration) if len(x) else np.zeros(0)
        errors.append(np.abs(ours - theirs).max() if len(x) else 0.0)
    print(
        f"numpy trees: max |numpy - lightgbm| {max(errors):.2e}; per page median {np.median(times) * 1e3:.2f} ms "
        f"(features + trees; {trees['feature'].shape[0]} trees, depth {int(trees['depth'])})",
        flush=True,
    )


def out_of_fold(args) -> None:
    """The CNN unary p(content) for ``--cnn``: out of fold on train (two folds of the default recipe's unary
    network, each choosing its checkpoint on validation word F1), the shipped model's on validation."""
    import torch

    from scrapy_web2text.labellers.web2text.layers import conv_stack, log_softmax
    from scrapy_web2text.research.train.batches import lay_out
    from scrapy_web2text.research.train.fitting import fit
    from scrapy_web2text.research.train.networks import ConvStack
    from scrapy_web2text.research.train.trainer import CONFIGS, _network_inputs

    torch.set_num_threads(1)
    shipped = load_model("default")
    config = {**CONFIGS["default"], "iterations": args.iterations}
    train_pages, valid_pages = load_pages("train"), load_pages("validation")
    train_in = _network_inputs(train_pages, shipped, "log_chars")
    valid_in = _network_inputs(valid_pages, shipped, "log_chars")
    scorer = WordScorer(valid_pages)

    def select(network) -> float:
        with torch.no_grad():
            return scorer.score(
                [
                    network(torch.from_numpy(x[None]))[0].argmax(-1).numpy() == 1 if len(x) else np.zeros(0, bool)
                    for x in valid_in["ux"]
                ]
            )

    fragment = config["fragment_length"]
    folds = [list(range(0, len(train_pages), 2)), list(range(1, len(train_pages), 2))]
    out: list = [None] * len(train_pages)
    for fold, held_out in enumerate(folds):
        seen = folds[1 - fold]
        torch.manual_seed(10 + fold)
        network = ConvStack.from_config(config, "unary", train_in["ux"][0].shape[1])
        fit(
            torch,
            network,
            lay_out(
                *([train_in[key][i] for i in seen] for key in ("ux", "uy")), fragment, [train_in["uw"][i] for i in seen]
            ),
            lay_out(valid_in["ux"], valid_in["uy"], fragment, valid_in["uw"]),
            config,
            10 + fold,
            f"fold{fold}",
            select=select,
        )
        layers = network.export()
        for i in held_out:
            x = train_in["ux"][i]
            out[i] = np.exp(log_softmax(conv_stack(x, layers))[:, 1]) if len(x) else np.zeros(0)
    np.save(WORK / "cnn_train.npy", np.concatenate(out).astype(np.float32))
    width = len(shipped.block_features)
    valid = [np.exp(shipped.potentials(p.block_x[:, :width], p.edge_x)[0][:, 1]) for p in valid_pages]
    np.save(WORK / "cnn_valid.npy", np.concatenate(valid).astype(np.float32))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare").set_defaults(run=prepare)
    folds = commands.add_parser("oof", help="out-of-fold CNN p(content) for train --cnn")
    folds.add_argument("--iterations", type=int, default=8000)
    folds.set_defaults(run=out_of_fold)
    training = commands.add_parser("train")
    training.add_argument("--name", default="gbdt")
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--base-only", action="store_true", help="the 141 block features alone")
    training.add_argument("--top", type=int, default=24, help="neighbour/aggregate columns: top-N base features")
    training.add_argument("--columns", default="", help="JSON list of block feature columns instead of --top")
    training.add_argument("--radius", type=int, default=4)
    training.add_argument("--learning-rate", type=float, default=0.1)
    training.add_argument("--leaves", type=int, default=63)
    training.add_argument("--max-depth", type=int, default=10)
    training.add_argument("--min-data", type=int, default=200, help="min_data_in_leaf")
    training.add_argument("--l2", type=float, default=1.0, help="lambda_l2")
    training.add_argument("--feature-fraction", type=float, default=0.5)
    training.add_argument("--extra-trees", action="store_true")
    training.add_argument("--select-word-f1", action="store_true", help="number of trees on validation word F1")
    training.add_argument("--cnn", action="store_true", help="add the CNN's p(content) (run oof.py first)")
    training.add_argument("--page-balanced", action="store_true", help="weights summing to the same on every page")
    training.add_argument("--rounds", type=int, default=2000)
    training.add_argument("--patience", type=int, default=50)
    training.set_defaults(run=train)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
