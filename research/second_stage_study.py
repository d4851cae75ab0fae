"""A learned second stage after the networks, out of fold (issue 51, item 2): does a small classifier over each
block's p(content) in its page context cut the collapsed pages without losing pages elsewhere?

``build`` reads the rows of ``benchmarks/collapsed.py collect`` (per page and seed: p(content), the chain's labels,
block lengths, page-type probabilities) and the corpus pages once, and caches per block the gold label (the training
convention: ``research/corpus.py``'s ``process_record``), the block's structure counts (blocks sharing its tag path,
blocks and units under its container's path) and, per page, what word scoring needs (texts, breaks, gold text).

``study`` cross-fits a second stage by page (the fold models' two folds, ``fold_of``: the stage scoring a page never
saw any row of it, in any seed), a logistic regression or small boosted trees over :data:`FEATURES`, and applies it:
a block is kept where the stage's probability reaches ``--cuts`` (with the chain's blocks, ``--unions union``, or in
their place, ``replace``), on every page (``--gates none``) or only where the chain keeps under a share of the page's
characters (``--gates``), the stage adds ``--ratios`` times what the chain keeps and the page is typed article under
``--max-article``.  ``--fit-gate`` fits the stage on such pages only.  With ``--opinions`` the shipped second opinion
(``second_opinion_study.py``'s replica, on rows collected before it shipped) runs first and the stage only where it
does not fire.  Prints per row file word F1 / P / R before → after, collapsed pages (``collapsed.py``'s measure)
before → after, page-files losing / gaining over 0.02 and the worst groups (``--groups``: every corpus, WCXB page
type and language); ``--verbose`` lists the losing pages and the collapsed ones; ``--validation`` fits on every
out-of-fold row of the recipe and applies the stage to the validation rows of the shipped model::

    python benchmarks/collapsed.py collect ...       # the rows (train: fold models of seeds 0 to 4; validation)
    python benchmarks/second_opinion_study.py collect --split train --rows runs/col-dist-s0.jsonl -o runs/so.jsonl
    python benchmarks/second_opinion_study.py collect --split validation --rows runs/col-val.jsonl -o runs/so-val.jsonl
    python research/second_stage_study.py build --rows runs/col-dist-s{0,1,2,3,4}.jsonl \\
        runs/col-def-s{0,1,2,3,4}.jsonl --validation runs/col-val.jsonl -o runs/stage
    python research/second_stage_study.py study runs/stage --recipe dist --rows-dir runs --opinions runs/so.jsonl \\
        --validation-opinions runs/so-val.jsonl --model logistic --fit-gate 0.3 --gates 0.3 --cuts 0.3 \\
        --ratios 2 4 --validation --groups --verbose

No variant tried cleared the bar for shipping (fewer collapsed pages, no group and no validation page lost); the
figures are in the study's report on issue 51.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from collapsed import HIGH, LOW, groups_of  # noqa: E402

from scrapy_web2text.extraction.blocks import join_main_text  # noqa: E402
from scrapy_web2text.page import parse_page  # noqa: E402
from scrapy_web2text.page.nodes import PARENT  # noqa: E402
from scrapy_web2text.research.corpus import default_data_dir, iter_records  # noqa: E402
from scrapy_web2text.research.corpus import gold_labels as training_labels  # noqa: E402
from scrapy_web2text.research.metrics import bag_scores, tokens  # noqa: E402

TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")
FOLDS = 2


def fold_of(page_id: str) -> int:
    """``benchmarks/cross_validation.py``'s fold of a training page."""
    return zlib.crc32(page_id.encode("utf-8")) % FOLDS


# --- build -----------------------------------------------------------------------------------------------------


def structure(page) -> np.ndarray:
    """Per block: blocks sharing its tag path (count, share of the page's characters), and for its container (the
    tag path less the block's own element): blocks under that path, the distinct parent nodes they sit in (the
    units: a thread's posts), and their share of the characters.  Dict counts, linear in the page."""
    n = len(page.texts)
    chars = np.fromiter(map(len, page.texts), np.float64, n)
    total = max(chars.sum(), 1.0)
    paths = page.tag_paths
    containers = [path.rsplit(">", 2)[0] for path in paths]
    parents = page.node_table[page.block_nodes, PARENT].tolist() if len(page.block_nodes) == n else [0] * n
    path_n, path_c, box_n, box_c = Counter(), Counter(), Counter(), Counter()
    units: dict = defaultdict(set)
    for i in range(n):
        path_n[paths[i]] += 1
        path_c[paths[i]] += chars[i]
        box_n[containers[i]] += 1
        box_c[containers[i]] += chars[i]
        units[containers[i]].add(parents[i])
    path_id = {p: k for k, p in enumerate(path_n)}
    box_id = {c: k for k, c in enumerate(box_n)}
    out = np.zeros((n, 7), np.float32)
    for i in range(n):
        p, c = paths[i], containers[i]
        out[i] = (path_n[p], path_c[p] / total, box_n[c], box_c[c] / total, len(units[c]), path_id[p], box_id[c])
    return out


def gold_labels(record: dict, page) -> np.ndarray:
    """Block labels as training makes them (:func:`~scrapy_web2text.research.corpus.gold_labels`)."""
    return np.asarray(training_labels(record, page)[1], np.int8)


def read_rows(path: str) -> dict[str, dict]:
    return {row["id"]: row for row in map(json.loads, open(path, encoding="utf-8"))}


def build(args) -> None:
    sets = {"train": [read_rows(p) for p in args.rows], "validation": [read_rows(args.validation)]}
    names = {"train": [Path(p).stem for p in args.rows], "validation": [Path(args.validation).stem]}
    files = sorted(p for p in default_data_dir().glob("*.jsonl.gz") if "metadata" not in p.name)
    start = time.time()
    for split, row_files in sets.items():
        wanted = set(row_files[0])
        pages, blocks = [], defaultdict(list)
        for path in files:
            for record in iter_records(path, split):
                page_id = record["id"]
                if page_id not in wanted:
                    continue
                page = parse_page(record.get("html") or "")
                rows = [rows[page_id] for rows in row_files]
                n = len(page.texts)
                for row in rows:
                    for model in row["models"]:
                        if len(model["p"]) != n:
                            raise SystemExit(f"{page_id}: {n} blocks, the row has {len(model['p'])}")
                blocks["page"].append(np.full(n, len(pages), np.int32))
                blocks["gold"].append(gold_labels(record, page))
                blocks["structure"].append(structure(page))
                blocks["chars"].append(np.fromiter(map(len, page.texts), np.float32, n))
                for k, row in enumerate(rows):
                    model = row["models"][0]
                    blocks[f"p{k}"].append(np.asarray(model["p"], np.float32))
                    blocks[f"kept{k}"].append(np.frombuffer(model["kept"].encode(), np.uint8) - ord("0"))
                pages.append(
                    {
                        "id": page_id,
                        "texts": page.texts,
                        "break_before": np.asarray(page.break_before).tolist(),
                        "space_before": np.asarray(page.space_before).tolist(),
                        "gold": record.get("text") or "",
                        "rows": [{k: v for k, v in row.items() if k != "models"} for row in rows[:1]][0],
                        "models": [
                            {k: row["models"][0][k] for k in ("with", "alone", "types", "threshold")} for row in rows
                        ],
                    }
                )
                if len(pages) % 250 == 0:
                    print(f"{split}: {len(pages)} pages, {time.time() - start:.0f} s", flush=True)
        if len(pages) != len(wanted):
            raise SystemExit(f"{split}: {len(pages)} pages read of {len(wanted)} in the rows")
        arrays = {k: np.concatenate(v) for k, v in blocks.items()}
        np.savez_compressed(f"{args.output}-{split}.npz", **arrays, files=np.array(names[split]))
        with gzip.open(f"{args.output}-{split}.pages.json.gz", "wt", encoding="utf-8") as out:
            json.dump(pages, out)
        print(f"{split}: {len(pages)} pages, {len(arrays['gold'])} blocks, {time.time() - start:.0f} s")


# --- study -----------------------------------------------------------------------------------------------------

FEATURES = (
    "p", "logit", "prev1", "next1", "prev2", "next2", "percentile", "share_above", "p_over_max", "p_minus_threshold",
    "kept", "page_kept_share", "page_max", "page_mean", "page_q50", "page_q90", "log_chars", "char_share",
    "log_path_n", "path_share", "log_box_n", "box_share", "log_units", "path_mean_p", "box_mean_p",
    *(f"type_{t}" for t in TYPES),
)  # fmt: skip


class Cache:
    """One split of ``build``'s cache: per block arrays, per page the scoring data."""

    def __init__(self, stem: str, split: str) -> None:
        data = np.load(f"{stem}-{split}.npz")
        self.arrays = {k: data[k] for k in data.files}
        self.files = list(self.arrays.pop("files"))
        with gzip.open(f"{stem}-{split}.pages.json.gz", "rt", encoding="utf-8") as stream:
            self.pages = json.load(stream)
        self.page = self.arrays["page"]
        # Pages without blocks have rows too: searchsorted, not the changes of ``page``.
        self.starts = np.searchsorted(self.page, np.arange(len(self.pages)))
        self.sizes = np.diff(np.r_[self.starts, len(self.page)])
        self.gold = self.arrays["gold"]
        self.chars = self.arrays["chars"].astype(np.float64)
        self._gold_bags: dict[int, Counter] = {}
        #: Per file and page: whether the second opinion fires, and the chain's scores after it (``with_opinion``).
        self.opinion: list | None = None
        #: Per page: the characters the other extractor finds (``with_opinion``); stage inputs with ``use_other``.
        self.other: np.ndarray | None = None
        self.use_other = False

    def with_opinion(self, opinions: str, rows: list[str]) -> None:
        """The second opinion (``second_opinion_study.py``'s replica) on rows collected before it was shipped:
        ``opinions`` its ``collect`` output, ``rows`` the row files in the cache's order (their grids)."""
        from second_opinion_study import step

        found = {row["id"]: row for row in map(json.loads, open(opinions, encoding="utf-8"))}
        self.other = np.array([found[page["id"]]["other"] for page in self.pages], np.float64)
        self.opinion = []
        for path in rows:
            by_id = read_rows(path)
            per_page = []
            for page in self.pages:
                row = by_id[page["id"]]
                model = row["models"][0]
                after = step(row, model, found[page["id"]])
                per_page.append((after is not model["with"], after))
            self.opinion.append(per_page)

    def features(self, k: int) -> np.ndarray:
        """The second stage's inputs for the rows of file ``k`` (one row per block)."""
        page, starts, chars = self.page, self.starts, self.chars
        p = self.arrays[f"p{k}"].astype(np.float64)
        kept = self.arrays[f"kept{k}"].astype(np.float64)
        structure = self.arrays["structure"]
        pages = len(self.pages)
        total = np.maximum(np.bincount(page, chars, pages), 1.0)

        def shift(values, by):
            out = np.zeros_like(values)
            if by > 0:
                out[by:] = values[:-by]
                out[by:][page[by:] != page[:-by]] = 0.0
            else:
                out[:by] = values[-by:]
                out[:by][page[:by] != page[-by:]] = 0.0
            return out

        clipped = np.clip(p, 1e-4, 1 - 1e-4)
        order = np.lexsort((p, page))
        rank = np.empty(len(p))
        rank[order] = np.arange(len(p)) - starts[page[order]]
        percentile = rank / np.maximum(self.sizes[page] - 1, 1)
        cumulative = np.cumsum(chars[order])
        before = cumulative - chars[order] - np.r_[0, cumulative][starts][page[order]]
        share_above = np.empty(len(p))
        share_above[order] = 1.0 - before / total[page[order]]
        page_max = np.zeros(pages)
        np.maximum.at(page_max, page, p)
        page_mean = np.bincount(page, p * chars, pages) / total
        sorted_p = np.r_[p[order], 0.0]
        q50 = sorted_p[starts + (0.5 * np.maximum(self.sizes - 1, 0)).astype(int)]
        q90 = sorted_p[starts + (0.9 * np.maximum(self.sizes - 1, 0)).astype(int)]
        models = [page["models"][k] for page in self.pages]
        thresholds = np.array([m["threshold"] for m in models])
        types = np.array([[m["types"].get(t, 0.0) for t in TYPES] for m in models])

        def group_mean(column):
            key = page.astype(np.int64) * 1_000_000 + structure[:, column].astype(np.int64)
            _, inverse = np.unique(key, return_inverse=True)
            weights = chars + 1.0
            return (np.bincount(inverse, p * weights) / np.bincount(inverse, weights))[inverse]

        columns = [
            p, np.log(clipped / (1 - clipped)), shift(p, 1), shift(p, -1), shift(p, 2), shift(p, -2), percentile,
            share_above, p / np.maximum(page_max[page], 1e-4), p - thresholds[page], kept,
            (np.bincount(page, chars * kept, pages) / total)[page], page_max[page], page_mean[page], q50[page],
            q90[page], np.log1p(chars), chars / total[page], np.log(structure[:, 0]), structure[:, 1],
            np.log(structure[:, 2]), structure[:, 3], np.log(structure[:, 4]), group_mean(5), group_mean(6),
            *types[page].T,
        ]  # fmt: skip
        if self.use_other:  # the second opinion's measure: how much text the other extractor finds on the page
            kept_chars = np.bincount(page, chars * kept, pages)
            columns += [(self.other / total)[page], np.log((self.other + 1) / (kept_chars + 1))[page]]
        return np.column_stack(columns).astype(np.float32)

    def weights(self) -> np.ndarray:
        """Each page weighs as one (word F1 is a mean over pages), its blocks by their characters."""
        total = np.maximum(np.bincount(self.page, self.chars, len(self.pages)), 1.0)
        return (self.chars + 1.0) / (total[self.page] + self.sizes[self.page])

    def scores(self, index: int, k: int, labels: np.ndarray) -> list[float]:
        """Word P / R / F1 of page ``index`` labelled ``labels`` (the row's own where they are the chain's)."""
        start = self.starts[index]
        if np.array_equal(labels, self.arrays[f"kept{k}"][start : start + len(labels)]):
            return self.pages[index]["models"][k]["with"]
        page = self.pages[index]
        if index not in self._gold_bags:
            self._gold_bags[index] = Counter(tokens(page["gold"]))
        view = argparse.Namespace(
            texts=page["texts"],
            break_before=np.asarray(page["break_before"], bool),
            space_before=np.asarray(page["space_before"], bool),
        )
        return list(bag_scores(Counter(tokens(join_main_text(view, labels))), self._gold_bags[index]))


def fit(model: str, x: np.ndarray, y: np.ndarray, w: np.ndarray):
    if model == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=300)).fit(
            x, y, logisticregression__sample_weight=w
        )
    from sklearn.ensemble import HistGradientBoostingClassifier

    trees = HistGradientBoostingClassifier(max_depth=3, max_iter=100, learning_rate=0.1, random_state=0)
    return trees.fit(x, y, sample_weight=w)


def decide(cache: Cache, k: int, q: np.ndarray, cut: float, gate, union: bool, ratio: float, max_article: float):
    """Each page's labels: the stage's (``q >= cut``), on every page or only where the chain keeps under ``gate``
    of the page's characters, the stage adds at least ``ratio`` times what the chain keeps and the page is typed
    article under ``max_article``; ``union`` keeps the chain's blocks too."""
    kept = cache.arrays[f"kept{k}"]
    out = []
    for index, start in enumerate(cache.starts.tolist()):
        end = start + int(cache.sizes[index])
        chain, chars = kept[start:end], cache.chars[start:end]
        mine = (q[start:end] >= cut).astype(np.uint8)
        kept_chars = float((chars * chain).sum())
        added = float((chars * (mine & (1 - chain))).sum())
        fires = (
            (gate is None or kept_chars < gate * max(chars.sum(), 1.0))
            and added >= ratio * kept_chars
            and cache.pages[index]["models"][k]["types"].get("article", 0.0) < max_article
        )
        out.append((mine | chain if union else mine) if fires else chain)
    return out


def report(cache: Cache, k: int, labels: list[np.ndarray], title: str, out: dict, pages_losing: bool) -> None:
    sums: dict = defaultdict(lambda: np.zeros(7))
    lost_before, lost_after, losers, gainers = [], [], [], 0
    for index, page in enumerate(cache.pages):
        model, row = page["models"][k], page["rows"]
        old, new = model["with"], cache.scores(index, k, labels[index])
        if cache.opinion is not None:  # the shipped second opinion first; the stage only where it did not fire
            fired, old = cache.opinion[k][index]
            new = old if fired else new
        change = new[2] - old[2]
        for group in groups_of(row):
            sums[group] += [1, *old, *new]
        gainers += change > 0.02
        if change < -0.02:
            losers.append((row["id"], old[2], new[2]))
        rescue = model["alone"][1] > HIGH or row["traf"][1] > HIGH
        if old[1] < LOW and rescue:
            lost_before.append(row["id"])
        if new[1] < LOW and rescue:
            lost_after.append(row["id"])
    n, *means = sums["all"]
    before, after = np.array(means[:3]) / n, np.array(means[3:]) / n
    worst = sorted((s[6] / s[0] - s[3] / s[0], g) for g, s in sums.items() if s[0] >= 10 and g != "all")[:3]
    print(f"  {title}: F1/P/R {before[2]:.4f}/{before[0]:.4f}/{before[1]:.4f} -> {after[2]:.4f}/{after[0]:.4f}/"
          f"{after[1]:.4f} ({after[2] - before[2]:+.4f})  collapsed {len(lost_before)} -> {len(lost_after)}"
          f"  lose/gain {len(losers)}/{gainers}"
          f"  worst {', '.join(f'{g} {d:+.4f}' for d, g in worst)}")  # fmt: skip
    out["moved"][0] += len(losers)
    out["moved"][1] += gainers
    out["collapsed"].append((lost_before, lost_after))
    out["deltas"].append(after[2] - before[2])
    for group, s in sums.items():
        out["groups"][group].append((s[0], s[3] / s[0], s[6] / s[0]))
    if pages_losing:
        for page_id, old, new in losers:
            print(f"    loses {page_id}: {old:.3f} -> {new:.3f}")
        rescued = " ".join(sorted(set(lost_before) - set(lost_after)))
        print(f"    collapsed after: {' '.join(lost_after)}; rescued: {rescued}")


def study(args) -> None:
    train = Cache(args.cache, "train")
    recipe = [k for k, name in enumerate(train.files) if f"-{args.recipe}-" in name]
    folds = np.array([fold_of(page["id"]) for page in train.pages])[train.page]
    if args.opinions:
        train.with_opinion(args.opinions, [str(Path(args.rows_dir) / f"{name}.jsonl") for name in train.files])
        train.use_other = args.other_inputs
    x = {k: train.features(k) for k in recipe}
    y, w = train.gold, train.weights()
    # --fit-gate: the stage learns only from pages the chain keeps under that share of (the pages it may change).
    share = {k: x[k][:, FEATURES.index("page_kept_share")] for k in recipe}
    fitted = {k: share[k] < args.fit_gate for k in recipe}
    start = time.time()
    q = {k: np.zeros(len(y)) for k in recipe}
    for fold in range(FOLDS):
        rows = folds != fold
        stage = fit(args.model, np.concatenate([x[k][rows & fitted[k]] for k in recipe]),
                    np.concatenate([y[rows & fitted[k]] for k in recipe]),
                    np.concatenate([w[rows & fitted[k]] for k in recipe]))  # fmt: skip
        for k in recipe:
            q[k][~rows] = stage.predict_proba(x[k][~rows])[:, 1]
    print(f"fitted {args.model} on {args.recipe} ({len(recipe)} files) in {time.time() - start:.0f} s", flush=True)
    variants = [
        (cut, gate, union, ratio)
        for gate in args.gates
        for cut in args.cuts
        for union in args.unions
        for ratio in args.ratios
    ]
    for cut, gate, union, ratio in variants:
        title = f"cut {cut} gate {gate} {'union' if union else 'replace'} ratio {ratio}"
        print(title)
        out = {"moved": [0, 0], "collapsed": [], "deltas": [], "groups": defaultdict(list)}
        for k in recipe:
            report(
                train,
                k,
                decide(train, k, q[k], cut, gate, union, ratio, args.max_article),
                train.files[k],
                out,
                args.verbose,
            )
        summarise(out, args.min_pages, args.groups)
    if args.validation:
        validation = Cache(args.cache, "validation")
        if args.validation_opinions:
            validation.with_opinion(
                args.validation_opinions, [str(Path(args.rows_dir) / f"{name}.jsonl") for name in validation.files]
            )
            validation.use_other = args.other_inputs
        rows = [fitted[k] for k in recipe]
        stage = fit(
            args.model,
            np.concatenate([x[k][r] for k, r in zip(recipe, rows)]),
            np.concatenate([y[r] for r in rows]),
            np.concatenate([w[r] for r in rows]),
        )
        qv = stage.predict_proba(validation.features(0))[:, 1]
        print("validation (fitted on every out-of-fold row of the recipe):")
        for cut, gate, union, ratio in variants:
            out = {"moved": [0, 0], "collapsed": [], "deltas": [], "groups": defaultdict(list)}
            title = f"cut {cut} gate {gate} {'union' if union else 'replace'} ratio {ratio}"
            report(
                validation, 0, decide(validation, 0, qv, cut, gate, union, ratio, args.max_article), title, out, True
            )


def summarise(out: dict, min_pages: int, every_group: bool = False) -> None:
    before = sum(len(b) for b, _ in out["collapsed"])
    after = sum(len(a) for _, a in out["collapsed"])
    files = len(out["deltas"])
    lose, gain = out["moved"]
    print(f"  mean {np.mean(out['deltas']):+.4f}, min {min(out['deltas']):+.4f}; collapsed {before / files:.1f} -> "
          f"{after / files:.1f} a file; page-files losing / gaining over 0.02: {lose} / {gain}")  # fmt: skip
    lines = []
    for group, values in out["groups"].items():
        n = values[0][0]
        if n < min_pages or group == "all":
            continue
        deltas = [new - old for _, old, new in values]
        lines.append((min(deltas), group, n, np.mean([v[1] for v in values]), np.mean([v[2] for v in values])))
    if every_group:
        print(f"  {'group':<22}{'pages':>6}  F1 before -> after (mean over files)  min change")
        for d, g, n, o, a in sorted(lines, key=lambda line: (line[1].startswith("lang:"), line[1])):
            print(f"  {g:<22}{int(n):>6}  {o:.4f} -> {a:.4f} ({a - o:+.4f})           {d:+.4f}")
    worst = sorted(lines)[:4]
    print("  worst groups (min over files): " + "; ".join(f"{g} ({int(n)}) {o:.4f}->{a:.4f} min {d:+.4f}"
                                                          for d, g, n, o, a in worst))  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    b = commands.add_parser("build")
    b.add_argument("--rows", nargs="+", required=True, help="out-of-fold row files of collapsed.py collect")
    b.add_argument("--validation", required=True, help="the validation rows (the shipped model)")
    b.add_argument("-o", "--output", required=True, help="stem of the cache files")
    b.set_defaults(run=build)
    s = commands.add_parser("study")
    s.add_argument("cache", help="build's output stem")
    s.add_argument("--recipe", default="dist", help="the row files whose name holds -RECIPE-")
    s.add_argument("--model", choices=("logistic", "trees"), default="logistic")
    s.add_argument("--cuts", type=float, nargs="+", default=[0.4, 0.5, 0.6])
    s.add_argument("--gates", type=lambda v: None if v == "none" else float(v), nargs="+", default=[None, 0.1, 0.2])
    s.add_argument("--unions", type=lambda v: v == "union", nargs="+", default=[True], help="union / replace")
    s.add_argument("--fit-gate", type=float, default=1.01, help="fit on pages the chain keeps under this share of")
    s.add_argument("--ratios", type=float, nargs="+", default=[0.0], help="fire where the stage adds R times the kept")
    s.add_argument("--max-article", type=float, default=1.01, help="fire on pages typed article under this")
    s.add_argument("--validation", action="store_true")
    s.add_argument("--opinions", help="second_opinion_study.py collect's output for the training pages")
    s.add_argument("--validation-opinions", help="the same for the validation pages")
    s.add_argument("--other-inputs", action="store_true", help="the other extractor's share as stage inputs")
    s.add_argument("--rows-dir", help="the folder of the cached row files (with --opinions)")
    s.add_argument("--verbose", action="store_true", help="list every losing page and the collapsed ones")
    s.add_argument("--min-pages", type=int, default=10)
    s.add_argument("--groups", action="store_true", help="print every group's change, not the worst four")
    s.set_defaults(run=study)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
