"""A page-level second stage after the networks: decode a page again at a lower threshold where a regression over
the page's p(content) summary says that gains (issue 51, collapsed pages; docs/research/quality-round4.rst).

Reads ``benchmarks/collapsed.py collect`` rows (each page's p(content), block lengths, kept blocks, page-type
probabilities, and the chain's scores at a grid of lower thresholds), so no page is labelled again.  For each row
file (a seed) and fold, the stage is fitted on the pages of the other fold and applied to this fold's (nested: no
page's gold is seen by the stage that decides it); ``--validation ROWS`` also fits it on all pages of the first file
and applies it to those rows.  Prints per corpus, WCXB page type and non-English pages the change in word F1 /
precision / recall, collapsed pages before and after, pages losing over 0.01 F1, and the oracle (the best grid
threshold of every page)::

    python research/page_threshold_study.py runs/col-s0.jsonl runs/col-s1.jsonl --validation runs/col-val.jsonl

``--shipped`` scores only the step the labeller ships (``labellers/web2text/sparse_units.py``) on rows collected
before it was, file by file (rows collected with it say so, and are left as they are).
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from collapsed import GRID, HIGH, LOW  # noqa: E402

from scrapy_web2text.labellers.web2text import sparse_units  # noqa: E402

CUTS = (0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")
UNITS = ("collection", "forum", "listing", "product")
#: What the fit searches: the threshold decoded at, the F1 gain that counts as a positive, the probability cut.
THRESHOLDS, GAINS, PROBABILITY_CUTS = tuple(str(t) for t in GRID), (0.05, 0.1, 0.2), (0.5, 0.6, 0.7, 0.8)
#: The fit's objective: the F1 gained over the training fold's pages, less this much per page losing over 0.01.
LOSER_PENALTY = 0.1


class Page:
    """One row's page as one model labelled it, with its summary."""

    def __init__(self, row: dict, result: dict):
        self.id, self.corpus, self.type, self.lang, self.traf = (
            row[k] for k in ("id", "corpus", "type", "lang", "traf")
        )
        self.fold = zlib.crc32(self.id.encode("utf-8")) % 2
        self.chain, self.alone, self.grid, self.types = result["with"], result["alone"], result["grid"], result["types"]
        p, lengths = np.array(result["p"]), np.array(result["chars"], float)
        kept = np.frombuffer(result["kept"].encode(), np.uint8) == ord("1")
        total = max(lengths.sum(), 1.0)
        self.kept_share = lengths[kept].sum() / total if lengths.sum() else 1.0
        self.shipped_step_applied = bool(result.get("sparse_units"))
        kept_share = max(lengths[kept].sum() / total, 1e-3)
        above = [lengths[p >= cut].sum() / total for cut in CUTS]
        self.x = np.array(
            [
                np.log(kept_share),
                *above,
                *(np.log(max(share, 1e-3) / kept_share) for share in above[2:]),
                *(self.types.get(kind, 0.0) for kind in TYPES),
                np.log(total),
                result["threshold"],
            ]
        )

    def scores(self, threshold: str | None) -> list[float]:
        return self.chain if threshold is None else self.grid[threshold][:3]

    def collapsed(self, scores) -> bool:
        return scores[1] < LOW and (self.alone[1] > HIGH or self.traf[1] > HIGH)


def load(path: str) -> list[Page]:
    return [Page(row, row["models"][0]) for row in map(json.loads, open(path, encoding="utf-8"))]


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0):
    """L2-regularised logistic regression by Newton's method on standardised columns."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    a = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    beta, ridge = np.zeros(a.shape[1]), l2 * np.diag(np.r_[np.ones(a.shape[1] - 1), 0.0])
    for _ in range(100):
        p = 1 / (1 + np.exp(-a @ beta))
        step = np.linalg.solve((a * (p * (1 - p))[:, None]).T @ a + ridge, a.T @ (p - y) + ridge @ beta)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return lambda z: 1 / (1 + np.exp(-(((z - mean) / scale) @ beta[:-1] + beta[-1])))


def fit_stage(pages: list[Page], eligible):
    """The threshold, positive gain and cut with the best objective on ``pages``; a page → threshold or None."""
    best, best_objective = None, 0.0
    for threshold in THRESHOLDS:
        train = [page for page in pages if eligible(page) and threshold in page.grid]
        if not train:
            continue
        x = np.array([page.x for page in train])
        delta = np.array([page.scores(threshold)[2] - page.chain[2] for page in train])
        for gain in GAINS:
            if (delta > gain).sum() < 3:
                continue
            predict = fit_logistic(x, (delta > gain).astype(float))
            probability = predict(x)
            for cut in PROBABILITY_CUTS:
                chosen = delta[probability > cut]
                objective = chosen.sum() - LOSER_PENALTY * (chosen < -0.01).sum()
                if objective > best_objective:
                    best, best_objective = (threshold, cut, predict), objective
    if best is None:
        return lambda page: None
    threshold, cut, predict = best

    def stage(page: Page) -> str | None:
        fits = eligible(page) and threshold in page.grid
        return threshold if fits and predict(page.x[None])[0] > cut else None

    return stage


def report(label: str, pages: list[Page], choose) -> None:
    sums: dict = defaultdict(lambda: np.zeros(7))
    lose, before, after, lost = 0, 0, 0, []
    for page in pages:
        old, new = np.array(page.chain), np.array(page.scores(choose(page)))
        if new[2] - old[2] < -0.01:
            lose += 1
            lost.append(f"{page.id[:20]} {new[2] - old[2]:+.2f}")
        before, after = before + page.collapsed(old), after + page.collapsed(new)
        groups = ["all", page.corpus, *([f"{page.corpus}/{page.type}"] if page.type else [])]
        for group in [*groups, *(["non-English"] if page.lang not in ("en", "?") else [])]:
            sums[group] += [*old, *new, 1]
    print(f"{label}: collapsed {before} -> {after}, {lose} pages lose over 0.01 F1")
    for group in sorted(sums, key=lambda g: (g != "all", g)):
        n = sums[group][6]
        if n >= 10:
            old, new = sums[group][:3] / n, sums[group][3:6] / n
            change = " ".join(f"{d:+.4f}" for d in (new - old)[[2, 0, 1]])
            print(f"  {group:<20}{int(n):>6}  F1 {old[2]:.4f} -> {new[2]:.4f}  ΔF1/ΔP/ΔR {change}")
    print("  losing:", ", ".join(lost[:15]))


def shipped_step(page: Page) -> str | None:
    """The page-level step the labeller ships (``labellers/web2text/sparse_units.py``), on rows collected before it
    was: the grid's decoding at its threshold where the chain kept under its share of a page typed as units."""
    if page.shipped_step_applied or str(sparse_units.LOWER_THRESHOLD) not in page.grid:
        return None
    units = sum(page.types.get(kind, 0.0) for kind in sparse_units.UNIT_TYPES)
    typed = units >= sparse_units.MIN_UNIT_PROBABILITY
    typed = typed and page.types.get("article", 0.0) < sparse_units.MAX_ARTICLE_PROBABILITY
    return str(sparse_units.LOWER_THRESHOLD) if typed and page.kept_share < sparse_units.MAX_KEPT_SHARE else None


def oracle(page: Page) -> str | None:
    return max(page.grid, key=lambda t: page.grid[t][2], default=None) if page.grid else None


VARIANTS = {
    "every page": lambda page: True,
    "collections, forums, listings, products (p >= 0.5)": lambda page: sum(page.types.get(k, 0) for k in UNITS) >= 0.5,
    "not articles (p < 0.8)": lambda page: page.types.get("article", 0.0) < 0.8,
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", help="benchmarks/collapsed.py collect rows, out of fold (one per seed)")
    parser.add_argument("--validation", help="rows of the validation split (fitted on the first file's pages)")
    parser.add_argument("--shipped", action="store_true", help="only the shipped step, on rows collected without it")
    args = parser.parse_args(argv)
    seeds = [load(path) for path in args.rows]
    if args.shipped:
        for k, pages in enumerate([*seeds, *([load(args.validation)] if args.validation else [])]):
            report(f"file {k}, the shipped step (sparse_units)", pages, shipped_step)
        return
    for k, pages in enumerate(seeds):
        report(
            f"seed file {k}, oracle",
            pages,
            lambda page: oracle(page) if oracle(page) and page.grid[oracle(page)][2] > page.chain[2] else None,
        )
        for name, eligible in VARIANTS.items():
            stages = [fit_stage([page for page in pages if page.fold != fold], eligible) for fold in (0, 1)]
            report(f"seed file {k}, {name}", pages, lambda page, stages=stages: stages[page.fold](page))
    if args.validation:
        validation = load(args.validation)
        for name, eligible in VARIANTS.items():
            report(f"validation, {name}", validation, fit_stage(seeds[0], eligible))


if __name__ == "__main__":
    main()
