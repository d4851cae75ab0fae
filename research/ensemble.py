"""Experiment: an ensemble of Web2Text models, the members' probabilities averaged before Viterbi.

:class:`EnsembleModel` is a :class:`~scrapy_web2text.labellers.web2text.network.Web2TextModel` whose
:meth:`~EnsembleModel.potentials` returns the log of the members' mean unary p(label) and mean pairwise
p(transition); ``extract()``, the labellers and the benchmark's page loop run it as they run one model (same
features, same Viterbi, same caption rule).  Its threshold is chosen on the validation pages exactly as the trainer
chooses a single model's (:func:`~scrapy_web2text.research.train.selection.choose_threshold`: 0.30 to 0.75, the
highest within 0.001 of the best mean word F1), unless a spec fixes it.

    # members (the default recipe, one seed each; or the wide unary network, --wide)
    web2text train --data ../shared/data/*.jsonl.gz --config default --output s0 --threads 1 --seed 0
    PYTHONPATH=$PWD python research/ensemble.py train --wide --seed 0 --output w0
    # score: NAME=MEMBER+MEMBER[@THRESHOLD]; MEMBER a model path or a packaged name ("default")
    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python research/ensemble.py score \\
        shipped=default@0.45 s01=s0+s1 s0123=s0+s1+s2+s3 --json scores.json

``score`` prints, per spec, the chosen threshold, the trainer's validation word F1 (mean over pages), the
milliseconds a page the potentials take (all validation pages, best of three passes), then the benchmark's word
F1 / precision / recall per corpus and per WCXB page type (``web2text benchmark --split validation``'s scoring:
every corpus against its own gold), trafilatura beside them.

Result (November 2026, validation, current parsing; trainer's mean word F1 / benchmark word F1): the shipped
weights score .9011 (WCXB .870, Dragnet .906, precision .882 / .917).  Four retrained seeds of the default recipe
score .8927 to .8982; averaged, {0,1} .9024, {0,1,2} .9001, {0,1,2,3} .8995 (all at threshold 0.40), the shipped
weights with them .9003 to .9015.  Every ensemble holding retrained weights lost WCXB F1 (.859 to .866; listings
.55 to .66 against .688) and none reached Dragnet F1 above .912 with precision .933 or more (best: {0,1} .923 at
precision .923; shipped + seed 0, .911 at .933); the wide unary network (three seeds) did no better.  Not shipped.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scrapy_web2text.blas import limit_blas_threads
from scrapy_web2text.labellers.base import get_labeller
from scrapy_web2text.labellers.web2text.network import Web2TextModel, resolve_model_path
from scrapy_web2text.research.corpus import (
    corpus_name,
    iter_records,
    load_split,
    load_training_splits,
)
from scrapy_web2text.research.data_files import MissingData, data_files
from scrapy_web2text.research.peers import load_peers
from scrapy_web2text.research.scoring import score_corpus
from scrapy_web2text.research.train.selection import WordScorer, choose_threshold

#: The wide variant: the unary network's hidden layers twice as wide as the default recipe's.
WIDE_UNARY_FILTERS = [100, 100, 100, 20, 2]


@dataclass(eq=False)
class EnsembleModel(Web2TextModel):
    """Several models read as one: their probabilities averaged, then the usual Viterbi.

    The fields other than ``members`` are the first member's (features, λ, configuration) with the ensemble's
    name and threshold; every member must read the same features and use the same λ.
    """

    members: list[Web2TextModel] = field(default_factory=list)

    @classmethod
    def of(cls, members: list[Web2TextModel], name: str = "ensemble", threshold: float | None = None):
        first = members[0]
        for member in members[1:]:
            if member.extended != first.extended or member.lam != first.lam:
                raise ValueError(f"{member.name}: other features or λ than {first.name}")
        config = {**first.config, "name": name}
        config.pop("threshold", None)
        if threshold is not None:
            config["threshold"] = threshold
        return cls(
            config=config,
            unary=first.unary,
            pairwise=first.pairwise,
            block_mean=first.block_mean,
            block_std=first.block_std,
            edge_mean=first.edge_mean,
            edge_std=first.edge_std,
            metadata={"name": name, "members": [member.path for member in members]},
            members=list(members),
        )

    def potentials(self, block_x: np.ndarray, edge_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log of the members' mean probabilities: unary (n, 2), pairwise (n - 1, 2, 2)."""
        if len(self.members) == 1:
            return self.members[0].potentials(block_x, edge_x)
        unary = pairwise = None
        for member in self.members:
            member_unary, member_pair = member.potentials(block_x, edge_x)
            if unary is None:
                unary, pairwise = np.exp(member_unary, dtype=np.float64), np.exp(member_pair, dtype=np.float64)
            else:
                unary += np.exp(member_unary, dtype=np.float64)
                pairwise += np.exp(member_pair, dtype=np.float64)
        tiny = np.finfo(np.float64).tiny
        count = len(self.members)
        return np.log(np.maximum(unary / count, tiny)), np.log(np.maximum(pairwise / count, tiny))


def load_member(name_or_path: str) -> Web2TextModel:
    return Web2TextModel.load(resolve_model_path(name_or_path))


def parse_spec(spec: str) -> tuple[str, list[str], float | None]:
    """``NAME=A+B[@T]`` as (name, member paths, fixed threshold or None)."""
    name, _, rest = spec.partition("=")
    if not rest:
        raise SystemExit(f"spec {spec!r}: expected NAME=MEMBER+MEMBER[@THRESHOLD]")
    members, _, threshold = rest.partition("@")
    return name, members.split("+"), float(threshold) if threshold else None


def validation_pages(files: list[str], cache_dir: str | None) -> list:
    pages = []
    for path in files:
        pages += load_split(path, "validation", cache_dir=cache_dir, workers=1)
    return pages


def potentials_ms(model: Web2TextModel, pages: list, passes: int = 3) -> float:
    """Mean milliseconds a page of the potentials alone, best of ``passes`` passes over ``pages``."""
    width = len(model.block_features)
    inputs = [(page.block_x[:, :width], page.edge_x) for page in pages]
    best = float("inf")
    for _ in range(passes):
        clock = time.perf_counter()
        for block_x, edge_x in inputs:
            model.potentials(block_x, edge_x)
        best = min(best, time.perf_counter() - clock)
    return 1000 * best / len(pages)


def score(args) -> int:
    limit_blas_threads()
    files = data_files(args.data)
    pages = validation_pages(files, args.cache_dir)
    scorer = WordScorer(pages)
    loaded: dict[str, Web2TextModel] = {}
    models, summary = {}, {}
    for spec in args.specs:
        name, members, fixed = parse_spec(spec)
        for member in members:
            if member not in loaded:
                loaded[member] = load_member(member)
        model = EnsembleModel.of([loaded[m] for m in members], name)
        threshold, figures = choose_threshold(model, pages, scorer)
        model.config["threshold"] = fixed if fixed is not None else threshold
        models[name] = model
        summary[name] = {
            "members": members,
            "threshold": model.config["threshold"],
            "chosen_threshold": threshold,
            "threshold_word_f1": figures,
            "trainer_word_f1": figures.get(round(model.config["threshold"], 2)),
            "potentials_ms": potentials_ms(model, pages),
        }
        print(
            f"{name}: threshold {model.config['threshold']} (chosen {threshold}), trainer word F1 "
            f"{summary[name]['trainer_word_f1']}, potentials {summary[name]['potentials_ms']:.2f} ms/page",
            flush=True,
        )
    labeller = get_labeller("web2text")
    peers, notes = load_peers(args.peers)
    rows = []
    for path in files:
        scores = score_corpus(
            iter_records(path, "validation"),
            corpus_name(path),
            "validation",
            labellers=dict.fromkeys(models, labeller),
            peers=peers,
            options={name: {"model": model} for name, model in models.items()},
        )
        rows += scores.rows()
        notes += scores.notes
    print_table(rows, list(models) + list(peers))
    for note in notes:
        print("note:", note)
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows, "notes": notes}, indent=1) + "\n")
    return 0


def print_table(rows: list[dict], names: list[str]) -> None:
    corpora = list(dict.fromkeys(row["corpus"] for row in rows))
    by = {(row["corpus"], row["name"]): row for row in rows}
    print(f"{'system':<16}" + "".join(f"{c.replace('wcxb/', 'w/')[:15]:>16}" for c in corpora))
    for name in names:
        cells = []
        for corpus in corpora:
            row = by.get((corpus, name))
            cells.append(
                f"{row['word_f1']:.3f}/{row['word_precision']:.3f}/{row['word_recall']:.3f}"[:15].rjust(16)
                if row
                else " " * 16
            )
        print(f"{name:<16}" + "".join(cells))


def train_member(args) -> int:
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    files = data_files(args.data)
    config = dict(CONFIGS["default"])
    if args.wide:
        config.update(name="default-wide", unary_filters=WIDE_UNARY_FILTERS)
    train_pages, valid_pages = load_training_splits(files, cache_dir=args.cache_dir, workers=1)
    model = train(
        train_pages,
        valid_pages,
        config,
        seed=args.seed,
        corpora=[corpus_name(path) for path in files],
        threads=args.threads,
    )
    written = model.save(args.output)
    report = model.metadata["training"]
    print(f"{written}: {report['seconds']} s, threshold {model.config.get('threshold')}")
    print(json.dumps(report["validation_word_f1"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", metavar="FILE", help="corpus files (default: all in the data folder)")
    parser.add_argument("--cache-dir", default=os.environ.get("WEB2TEXT_CACHE"), help="feature cache")
    commands = parser.add_subparsers(dest="command", required=True)
    scoring = commands.add_parser("score", help="score ensembles on the validation splits")
    scoring.add_argument("specs", nargs="+", metavar="NAME=MEMBER+MEMBER[@THRESHOLD]")
    scoring.add_argument("--peers", nargs="*", default=["trafilatura"], help="peers scored beside them")
    scoring.add_argument("--json", metavar="PATH", help="write the summary and the benchmark rows")
    scoring.set_defaults(handler=score)
    training = commands.add_parser("train", help="train one member (the default recipe, or --wide)")
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--output", required=True)
    training.add_argument("--wide", action="store_true", help=f"unary filters {WIDE_UNARY_FILTERS}")
    training.add_argument("--threads", type=int, default=1)
    training.set_defaults(handler=train_member)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except MissingData as error:
        parser.error(str(error))


if __name__ == "__main__":
    raise SystemExit(main())
