"""The command line the baselines' training modules share (``python -m scrapy_web2text.research.train.crf ...``)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def baseline_parser(doc: str, output: Path, epochs: int | None = None) -> argparse.ArgumentParser:
    """Corpus files, ``--output`` (default ``output``), ``--epochs`` where the method has them, ``--seed`` and
    ``--threads``; the module's docstring's first paragraph is the description."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", help="corpus .jsonl.gz files (train and validation splits are used)")
    parser.add_argument("--output", default=str(output))
    if epochs is not None:
        parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    return parser


def training_record(train: list, validation: list, started: float, history: list, **details: Any) -> dict[str, Any]:
    """The ``training`` entry of a baseline's description: pages, ``details`` (epochs, learning rate...), seconds since
    ``started`` (``time.perf_counter()``), the torch version and the history."""
    import torch

    seconds = round(time.perf_counter() - started, 1)
    pages = {"train_pages": len(train), "validation_pages": len(validation)}
    return {**pages, **details, "seconds": seconds, "torch": torch.__version__, "history": history}


def train_and_save(args: argparse.Namespace, train: Callable[..., Any], train_data: list, validation: list) -> None:
    """Train with the command's options, write the model to ``--output`` and print the checkpoint it selected."""
    from ..corpus import corpus_name

    corpora = [corpus_name(path) for path in args.corpora]
    options = {"epochs": args.epochs, "seed": args.seed, "threads": args.threads, "corpora": corpora}
    model = train(train_data, validation, **options)
    model.save(args.output)
    print(json.dumps(model.metadata["selected"], indent=1))
