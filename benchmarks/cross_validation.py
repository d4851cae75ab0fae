"""Score a training recipe on the training pages, out of fold, beside trafilatura.

The ``train`` pages of every corpus are split in two folds by a hash of the page id; a model of the recipe is
trained on each fold's complement and every training page is labelled by the model that never saw it and scored
as ``web2text benchmark`` scores, with trafilatura on the same pages in the same run.

    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python benchmarks/cross_validation.py train --fold 0 --output cv
    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python benchmarks/cross_validation.py train --fold 1 --output cv
    PYTHONPATH=$PWD WEB2TEXT_BLAS_THREADS=1 python benchmarks/cross_validation.py score cv --peers trafilatura

``train`` writes ``OUTPUT-fold0.npz`` (+ ``.json``); ``--recipe`` is JSON over "default".  Results:
docs/evaluation.rst and docs/research/training-experiments.rst.
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections.abc import Iterable, Iterator

from scrapy_web2text.labellers.web2text import web2text
from scrapy_web2text.labellers.web2text.network import Web2TextModel, load_model
from scrapy_web2text.research.corpus import corpus_name, iter_records, load_training_splits
from scrapy_web2text.research.data_files import MissingData, data_files
from scrapy_web2text.research.peers import load_peers
from scrapy_web2text.research.scoring import score_corpus
from scrapy_web2text.research.tables import format_text, write_json

FOLDS = 2


def fold_of(page_id: str) -> int:
    """The fold a training page is held out in: stable across runs, machines and corpus file orders."""
    return zlib.crc32(page_id.encode("utf-8")) % FOLDS


def train_fold(args) -> None:
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    files = data_files(args.data)  # web2text train's: --data, else the data folder; MissingData saying so
    train_pages, validation_pages = load_training_splits(files, cache_dir=args.cache_dir)
    seen = [page for page in train_pages if fold_of(page.id) != args.fold]
    config = {**CONFIGS["default"], **json.loads(args.recipe)}
    corpora = [corpus_name(path) for path in files]
    # A distilled recipe's teachers: this fold's models of earlier runs, or (none given) trained here first.
    teachers = [load_model(f"{stem}-fold{args.fold}.npz") for stem in args.teachers]
    model = train(
        seen, validation_pages, config, seed=args.seed, corpora=corpora, threads=args.threads, teachers=teachers
    )
    written = model.save(f"{args.output}-fold{args.fold}")
    report = model.metadata["training"]
    print(f"{written}: {len(seen)} of {len(train_pages)} training pages, {report['seconds']} s")


class OutOfFold:
    """A labeller that labels each page with the model of the fold that held it out.

    :func:`score_corpus` parses and scores the records one by one, in order, so :meth:`records` notes each
    record's fold as the loop takes it, and the labeller call for that record reads it.
    """

    def __init__(self, models: list[Web2TextModel]):
        self.models = models
        self.current: Web2TextModel | None = None

    def records(self, records: Iterable[dict]) -> Iterator[dict]:
        for record in records:
            self.current = self.models[fold_of(str(record["id"]))]
            yield record

    def __call__(self, page, *, threshold=None, **_):
        return web2text(page, model=self.current, threshold=threshold)


def score(args) -> None:
    labeller = OutOfFold([load_model(f"{args.models}-fold{fold}.npz") for fold in range(FOLDS)])
    peers, notes = load_peers(args.peers)
    rows: list[dict] = []
    for path in data_files(args.data):
        scores = score_corpus(
            labeller.records(iter_records(path, "train")),
            corpus_name(path),
            "train",
            labellers={"web2text": labeller},
            peers=peers,
            options={"web2text": {"threshold": args.threshold}},
            limit=args.limit,
        )
        rows.extend(scores.rows())
        notes.extend(scores.notes)
    print(format_text(rows, notes=notes))
    if args.json:
        write_json(rows, notes, args.json)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    fold = commands.add_parser("train", help="train the recipe on one fold's complement")
    fold.add_argument("--fold", type=int, required=True, choices=range(FOLDS))
    fold.add_argument("--recipe", default="{}", help="JSON merged over the default recipe")
    fold.add_argument("--seed", type=int, default=0)
    fold.add_argument("--threads", type=int, default=1)
    fold.add_argument("--output", required=True, help="stem: writes STEM-foldN.npz and .json")
    fold.add_argument(
        "--teachers", nargs="*", default=[], metavar="STEM", help="distil from these runs' models of the same fold"
    )
    fold.set_defaults(run=train_fold)
    scoring = commands.add_parser("score", help="score every training page with the model that held it out")
    scoring.add_argument("models", help="the stem given to train --output")
    scoring.add_argument("--peers", nargs="*", default=[], help="peers on the same pages (e.g. trafilatura)")
    scoring.add_argument("--threshold", type=float, default=None, help="instead of each model's own")
    scoring.add_argument("--limit", type=int, default=None, help="the first N training pages of each corpus")
    scoring.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    scoring.set_defaults(run=score)
    for sub in (fold, scoring):
        sub.add_argument("--data", nargs="+", metavar="FILE", help="corpora (default: all in $WEB2TEXT_DATA)")
    fold.add_argument("--cache-dir", default=None, help="feature cache (default ~/.cache/scrapy-web2text)")
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except MissingData as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
