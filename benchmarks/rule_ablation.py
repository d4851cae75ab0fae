"""The shipped chain with and without its last rules after decoding, page by page, out of fold and on validation.

``collect`` labels every page with the chain minus the rules named by ``--without`` (the last of
``rules.DROPPING``), applies them again one by one and writes per page the word precision / recall / F1 without
them, after each, and trafilatura's.  Out of fold (``--split train``) a page is labelled by the fold model that did
not see it (``--cv STEM``) and typed by that fold's page-type classifier (``--page-types STEM``, from
``page-type-folds``).  ``table`` prints per corpus, WCXB page type and language, for several row files (seeds)::

    python benchmarks/rule_ablation.py page-type-folds -o runs/pt
    python benchmarks/rule_ablation.py collect --split train --cv runs_dist/w05-s0 --page-types runs/pt \\
        --without furniture_phrases outlying_link_lists --peer-cache runs/trafilatura -o runs/ablation-s0.jsonl
    python benchmarks/rule_ablation.py table runs/ablation-s0.jsonl runs/ablation-s1.jsonl runs/ablation-s2.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cross_validation import FOLDS, fold_of  # noqa: E402

import scrapy_web2text.labellers.web2text as web2text  # noqa: E402
from scrapy_web2text.extraction import join_main_text  # noqa: E402
from scrapy_web2text.labellers.web2text.network import load_model  # noqa: E402
from scrapy_web2text.labellers.web2text.page_types import PageTypeModel  # noqa: E402
from scrapy_web2text.labellers.web2text.rules import DROPPING, run_rules  # noqa: E402
from scrapy_web2text.page import parse_page  # noqa: E402
from scrapy_web2text.research.corpus import corpus_name, iter_records  # noqa: E402
from scrapy_web2text.research.data_files import data_files  # noqa: E402
from scrapy_web2text.research.metrics import word_scores  # noqa: E402


def page_row(record, corpus: str, page, gold: str, peer: dict[str, str]) -> dict:
    """What a row says of its page: id, corpus, WCXB page type, the gold's language, trafilatura's word scores."""
    from scrapy_web2text.labellers.web2text.languages import identify

    text = gold or " ".join(page.texts)
    language = (identify(text[:2000]) or "?") if text.strip() else "?"
    traf = [round(v, 4) for v in word_scores(peer.get(record["id"], ""), gold)]
    return {"id": record["id"], "corpus": corpus, "type": record.get("page_type") or "", "lang": language, "traf": traf}


def trafilatura_outputs(records, path: Path) -> dict[str, str]:
    """trafilatura's text of every record, cached in ``path``."""
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as source:
            return json.load(source)
    import trafilatura

    def text(html: str) -> str:
        try:
            return trafilatura.extract(html, include_comments=False, include_tables=True) or ""
        except Exception:  # a page trafilatura fails on scores as an empty output
            return ""

    outputs = {record["id"]: text(record["html"]) for record in records}
    path.parent.mkdir(parents=True, exist_ok=True)  # the default cache is under runs/, which a fresh clone lacks
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(outputs, out)
    return outputs


def groups_of(row) -> list[str]:
    groups = ["all", row["corpus"], *([f"{row['corpus']}/{row['type']}"] if row["type"] else [])]
    return [*groups, f"lang:{row['lang']}"]


def train_page_type_folds(args) -> None:
    """Page-type classifiers of each fold's complement (``STEM-foldN``), for typing pages out of fold."""
    from scrapy_web2text.research.corpus import load_training_splits
    from scrapy_web2text.research.train.page_types import format_confusion, train_page_types

    files = data_files(args.data)
    train_pages, validation_pages = load_training_splits(files)
    for fold in range(FOLDS):
        seen = [page for page in train_pages if fold_of(page.id) != fold]
        model = train_page_types(seen, validation_pages, files)
        model.save(f"{args.output}-fold{fold}")
        print(f"fold {fold}: validation accuracy {model.metadata['training']['validation_accuracy']}")
        print(format_confusion(model))


def last_rules(names: list[str]) -> tuple:
    """The rules named, which must be the chain's last ones, in the chain's order."""
    tail = DROPPING[len(DROPPING) - len(names) :]
    if sorted(rule.name for rule in tail) != sorted(names):
        raise SystemExit(f"--without must name the last rules of the chain: {[rule.name for rule in tail]}")
    return tail


def scores(page, labels, gold: str) -> list[float]:
    return [round(v, 4) for v in word_scores(join_main_text(page, labels), gold)]


def labelled_pages(args, models: list, classifiers: list, files: list[str]):
    """Each page of ``args.split`` with its row (:func:`page_row`) and the models that label it: out of fold
    (``classifiers`` given), the fold model that did not see it, typed by that fold's classifier; else every model."""
    for path in files:
        corpus = corpus_name(path)
        records = list(iter_records(path, args.split))
        peer = trafilatura_outputs(records, Path(f"{args.peer_cache}-{corpus}-{args.split}-None.json.gz"))
        for record in records:
            fold = fold_of(str(record["id"])) if args.split == "train" else 0
            if classifiers:  # the fold's classifier stands in for the shipped one
                web2text.shipped_page_types = lambda chosen=classifiers[fold]: chosen
            gold, page = record.get("text") or "", parse_page(record.get("html") or "")
            row = {**page_row(record, corpus, page, gold, peer), "models": []}
            yield record, page, gold, row, (models if args.split == "validation" else [models[fold]])


def collect(args) -> None:
    tail = last_rules(args.without)
    if args.split == "train":
        models = [load_model(f"{args.cv}-fold{fold}.npz") for fold in range(FOLDS)]
        classifiers = [PageTypeModel.load(f"{args.page_types}-fold{fold}") for fold in range(FOLDS)]
    else:
        models, classifiers = [load_model(path) for path in args.models], []
    files = data_files(args.data)
    with open(args.output, "w", encoding="utf-8") as out:
        for _record, page, gold, row, page_models in labelled_pages(args, models, classifiers, files):
            for model in page_models:
                decoded = web2text.web2text_labels(page, model, skip_rules=args.without)
                labels = decoded.keep.astype(np.int8)
                result = {"without": scores(page, labels, gold), "type": decoded.page_type().label}
                for rule in tail:
                    ruled = run_rules(page, labels, decoded.guess, rules=(rule,))
                    changed = ruled.rule_names() is not None
                    labels = ruled.labels
                    result[rule.name] = scores(page, labels, gold) if changed else None
                result["with"] = scores(page, labels, gold)
                row["models"].append(result)
            out.write(json.dumps(row) + "\n")


def table(args) -> None:
    """Per group: F1 / precision without and with the rules (mean of the files), trafilatura's, and the change in
    each file (seed); groups of at least ``--min-pages`` pages."""
    sums: dict = defaultdict(lambda: np.zeros((len(args.rows), 7)))
    for k, path in enumerate(args.rows):
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            without = np.mean([m["without"] for m in row["models"]], axis=0)
            with_rules = np.mean([m["with"] for m in row["models"]], axis=0)
            for group in groups_of(row):
                sums[group][k] += [*without, *with_rules, 1]
    peer: dict = defaultdict(lambda: np.zeros(4))
    for line in open(args.rows[0], encoding="utf-8"):
        row = json.loads(line)
        for group in groups_of(row):
            peer[group] += [*row["traf"], 1]
    print(f"{'group':<20}{'pages':>6}  {'without F1/P':<14} {'with F1/P':<14} {'trafilatura':<14} ΔF1 / ΔP per file")
    for group in sorted(sums, key=lambda g: (g != "all", g.startswith("lang:"), g)):
        n = peer[group][3]
        if n < args.min_pages:
            continue
        per_file = sums[group][:, :6] / sums[group][:, 6:]
        before, after = per_file[:, [2, 0]].mean(axis=0), per_file[:, [5, 3]].mean(axis=0)
        trafilatura = peer[group][[2, 0]] / n
        delta_f = " ".join(f"{d:+.4f}" for d in per_file[:, 5] - per_file[:, 2])
        delta_p = " ".join(f"{d:+.4f}" for d in per_file[:, 3] - per_file[:, 0])
        cells = [f"{a:.4f}/{b:.4f}" for a, b in (before, after, trafilatura)]
        print(f"{group:<20}{int(n):>6}  {cells[0]:<14} {cells[1]:<14} {cells[2]:<14} {delta_f} / {delta_p}")


def collect_arguments(c: argparse.ArgumentParser, models_help: str) -> argparse.ArgumentParser:
    """The options of a ``collect`` command over :func:`labelled_pages`."""
    c.add_argument("--split", choices=["train", "validation"], required=True)
    c.add_argument("--cv", help="fold-model stem (train split)")
    c.add_argument("--page-types", help="fold page-type classifier stem (train split)")
    c.add_argument("--models", nargs="*", default=[], help=models_help)
    c.add_argument("--data", nargs="*")
    c.add_argument("--peer-cache", default="runs/trafilatura")
    c.add_argument("-o", "--output", required=True)
    return c


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    c = collect_arguments(commands.add_parser("collect"), models_help="model paths (validation split)")
    c.add_argument("--without", nargs="+", required=True, help="names of the chain's last rules")
    c.set_defaults(run=collect)
    t = commands.add_parser("table")
    t.add_argument("rows", nargs="+")
    t.add_argument("--min-pages", type=int, default=10)
    t.set_defaults(run=table)
    p = commands.add_parser("page-type-folds")
    p.add_argument("--data", nargs="*")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(run=train_page_type_folds)
    args = parser.parse_args(argv)
    if args.run is collect and args.split == "train" and not (args.cv and args.page_types):
        parser.error("--split train needs --cv and --page-types")
    if args.run is collect and args.split == "validation" and not args.models:
        parser.error("--split validation needs --models")
    args.run(args)


if __name__ == "__main__":
    main()
