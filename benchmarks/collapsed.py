"""Collapsed pages of the shipped chain, out of fold and on validation, beside the model alone and trafilatura.

A page *collapses* where the chain keeps under 40 % of the gold words while the model alone (``rules=False``) or
trafilatura keeps over 70 % (issue 51).  ``collect`` labels every page as ``web2text_labels`` does at the model's
own threshold (checked against it page by page) and writes per page and model the word precision / recall / F1 of
the chain and of the model alone, the chain's scores (and characters kept) at a grid of lower thresholds, and the
page's p(content) and block lengths (for studying a page-level decision offline); ``table`` prints per corpus, WCXB
page type and language the means over row files (seeds), and lists the collapsed pages with their cause
(:func:`cause`)::

    python benchmarks/cross_validation.py train --fold 0 --seed 0 --output runs/cv-s0    # and --fold 1
    python benchmarks/rule_ablation.py page-type-folds -o runs/pt
    python benchmarks/collapsed.py collect --split train --cv runs/cv-s0 --page-types runs/pt -o runs/col-s0.jsonl
    python benchmarks/collapsed.py collect --split validation -o runs/col-val.jsonl     # the shipped model
    python benchmarks/collapsed.py table runs/col-s0.jsonl runs/col-s1.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cross_validation import FOLDS  # noqa: E402
from rule_ablation import collect_arguments, labelled_pages  # noqa: E402

import scrapy_web2text.labellers.web2text as web2text  # noqa: E402
from scrapy_web2text.extraction import join_main_text  # noqa: E402
from scrapy_web2text.labellers.web2text import second_opinion, sparse_units  # noqa: E402
from scrapy_web2text.labellers.web2text.features import page_features  # noqa: E402
from scrapy_web2text.labellers.web2text.network import load_model  # noqa: E402
from scrapy_web2text.labellers.web2text.page_types import PageTypeModel  # noqa: E402
from scrapy_web2text.labellers.web2text.viterbi import viterbi  # noqa: E402
from scrapy_web2text.research.data_files import data_files  # noqa: E402
from scrapy_web2text.research.metrics import word_scores  # noqa: E402

#: Thresholds below the model's own that ``collect`` scores the chain at.
GRID = (0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.07, 0.05)
#: The collapse measure: the chain's word recall under LOW while the model alone's or trafilatura's is over HIGH.
LOW, HIGH = 0.4, 0.7


def decode(page, model, unary, pair, guess, threshold: float, rules: bool = True) -> np.ndarray:
    """``web2text_labels``' labels at the model's own threshold, here ``threshold`` (:func:`.web2text.decode_at`)."""
    probabilities = np.exp(unary[:, 1])
    return web2text.decode_at(
        page, unary, pair, model.lam, guess, probabilities, threshold, rules=rules, skipped=model.skipped_rules
    )[0]


def scores(page, labels, gold: str) -> list[float]:
    return [round(v, 4) for v in word_scores(join_main_text(page, labels), gold)]


def label_page(page, model, gold: str) -> dict:
    block_x, edge_x = page_features(page, extended=model.extended)
    unary, pair = model.potentials(block_x, edge_x)
    guess = web2text.page_type_on_demand(page, block_x)
    own = web2text.page_threshold(model, guess)
    first = decode(page, model, unary, pair, guess, own)
    # The page-level step after the rules (sparse_units.py): the chain at a lower threshold on such a page.
    lower = sparse_units.LOWER_THRESHOLD
    stepped = (
        sparse_units.REASON not in model.skipped_rules and lower < own and sparse_units.sparse_units(page, first, guess)
    )
    chain = decode(page, model, unary, pair, guess, lower) if stepped else first
    # The second opinion (second_opinion.py): the chain again at lower thresholds on a page kept almost empty.
    before_opinion, opinion = chain, second_opinion.wanted_chars(page, chain, guess, model.skipped_rules)
    lowered = opinion and second_opinion.decode_lower(
        page, own, opinion, lambda threshold: (decode(page, model, unary, pair, guess, threshold),)
    )
    chain = lowered[0] if lowered else chain
    result = {
        "threshold": round(own, 4),
        "with": scores(page, chain, gold),
        "alone": scores(page, decode(page, model, unary, pair, guess, own, rules=False), gold),
        "kept": _bits(chain),
        "sparse_units": bool(stepped),
        # The chain before the second opinion, where it changed the labels (second_opinion_study.py reads these).
        **(
            {"before_opinion": scores(page, before_opinion, gold), "kept_before_opinion": _bits(before_opinion)}
            if chain is not before_opinion
            else {}
        ),
        "p": np.round(np.exp(unary[:, 1]), 4).tolist(),
        "chars": [len(text) for text in page.texts],
        "types": {k: round(v, 4) for k, v in guess.probabilities.items()},
        "grid": {},
    }
    lengths = np.fromiter(map(len, page.texts), np.int64, len(page))
    first_scores = scores(page, first, gold) if stepped else result["with"]
    previous, previous_scores = viterbi(unary, pair, model.lam, own), [*first_scores, int(lengths[first != 0].sum())]
    for threshold in GRID:
        if threshold >= own:
            continue
        decoded = viterbi(unary, pair, model.lam, threshold)
        if not (decoded.any() and (decoded == previous).all()):  # the same decoding keeps the same text
            labels = decode(page, model, unary, pair, guess, threshold)
            previous_scores = [*scores(page, labels, gold), int(lengths[labels != 0].sum())]
        result["grid"][str(threshold)] = previous_scores
        previous = decoded
    return result


def _bits(labels) -> str:
    return "".join(map(str, labels.astype(int).tolist()))


def collect(args) -> None:
    if args.split == "train":
        models = [load_model(f"{args.cv}-fold{fold}.npz") for fold in range(FOLDS)]
        classifiers = [PageTypeModel.load(f"{args.page_types}-fold{fold}") for fold in range(FOLDS)]
    else:
        models, classifiers = [load_model(path) for path in args.models or [None]], []
    files = data_files(args.data)
    checked = 0
    with open(args.output, "w", encoding="utf-8") as out:
        for record, page, gold, row, page_models in labelled_pages(args, models, classifiers, files):
            for model in page_models:
                result = label_page(page, model, gold)
                if checked < args.check:  # the replica above is the labeller's own decision
                    shipped = web2text.web2text_labels(page, model).keep.astype(int)
                    if "".join(map(str, shipped.tolist())) != result["kept"]:
                        raise SystemExit(f"{record['id']}: collect's decision differs from web2text_labels'")
                    checked += 1
                row["models"].append(result)
            out.write(json.dumps(row) + "\n")
    print(f"{args.output}: {checked} pages checked against web2text_labels")


def collapsed(result: dict, traf_recall: float, key: str = "with") -> bool:
    return result[key][1] < LOW and (result["alone"][1] > HIGH or traf_recall > HIGH)


def groups_of(row) -> list[str]:
    groups = ["all", row["corpus"], *([f"{row['corpus']}/{row['type']}"] if row["type"] else [])]
    english = ["lang:non-en"] if row["lang"] not in ("en", "?") else []
    return [*groups, f"lang:{row['lang']}", *english]


def read_rows(paths: list[str]) -> list[list[dict]]:
    return [[json.loads(line) for line in open(path, encoding="utf-8")] for path in paths]


def table(args) -> None:
    """Per group: F1 / P / R of the chain, the model alone and trafilatura (means over files), then the collapsed
    pages with the number of files each collapses in."""
    files = read_rows(args.rows)
    sums: dict = defaultdict(lambda: np.zeros((len(files), 7)))
    peer: dict = defaultdict(lambda: np.zeros(4))
    lost: dict = defaultdict(list)
    for k, rows in enumerate(files):
        for row in rows:
            chain = np.mean([m[args.key] for m in row["models"]], axis=0)
            alone = np.mean([m["alone"] for m in row["models"]], axis=0)
            for group in groups_of(row):
                sums[group][k] += [*chain, *alone, 1]
                if k == 0:
                    peer[group] += [*row["traf"], 1]
            for m in row["models"]:
                if collapsed(m, row["traf"][1], args.key):
                    lost[row["id"]].append((row, m))
    line = "{:<22}{:>6}  {:<21} {:<21} {:<21}"
    print(line.format("group", "pages", "chain F1/P/R", "model alone F1/P/R", "trafilatura F1/P/R"))
    for group in sorted(sums, key=lambda g: (g != "all", g.startswith("lang:"), g)):
        n = peer[group][3]
        if n < args.min_pages:
            continue
        per_file = sums[group][:, :6] / sums[group][:, 6:]
        mean = per_file.mean(axis=0)
        cells = [mean[[2, 0, 1]], mean[[5, 3, 4]], peer[group][[2, 0, 1]] / n]
        print(line.format(group, int(n), *("/".join(f"{v:.4f}" for v in cell) for cell in cells)))
    models = sum(len(row["models"]) for rows in files for row in rows)
    pages = models / len(files)
    count = sum(len(v) for v in lost.values())
    print(f"\ncollapsed: {count / len(files):.1f} pages a file, {100 * count / models:.2f} % of {pages:.0f}")
    causes = Counter(cause(m) for hits in lost.values() for _, m in hits)
    print("causes (pages a file): " + ", ".join(f"{name} {n / len(files):.1f}" for name, n in sorted(causes.items())))
    for page_id, hits in sorted(lost.items(), key=lambda item: (-len(item[1]), item[0])):
        row = hits[0][0]
        chain = np.mean([m[args.key][1] for _, m in hits])
        alone = np.mean([m["alone"][1] for _, m in hits])
        causes = "/".join(sorted({cause(m) for _, m in hits}))
        print(
            f"  {page_id[:24]:<25}{row['corpus']:<16}{row['type'] or '-':<14}{row['lang']:<4} recall chain {chain:.2f}"
            f" alone {alone:.2f} trafilatura {row['traf'][1]:.2f}  in {len(hits)} of {int(models / pages)}  {causes}"
        )


def cause(result: dict) -> str:
    """Why a page collapsed: ``rules`` where the model alone keeps enough, ``threshold`` where the chain at some
    lower threshold of the grid keeps over HIGH of the gold words, else ``ranking`` (the model ranks other blocks
    above the main text)."""
    if result["alone"][1] >= LOW:
        return "rules"
    if any(scores[1] > HIGH for scores in result["grid"].values()):
        return "threshold"
    return "ranking"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    c = collect_arguments(commands.add_parser("collect"), "model paths (validation split; default: the shipped)")
    c.add_argument("--check", type=int, default=50, help="pages checked against web2text_labels")
    c.set_defaults(run=collect)
    t = commands.add_parser("table")
    t.add_argument("rows", nargs="+")
    t.add_argument("--min-pages", type=int, default=10)
    t.add_argument("--key", default="with", help="the labelling scored (a row's key)")
    t.set_defaults(run=table)
    args = parser.parse_args(argv)
    if args.run is collect and args.split == "train" and not (args.cv and args.page_types):
        parser.error("--split train needs --cv and --page-types")
    args.run(args)


if __name__ == "__main__":
    main()
