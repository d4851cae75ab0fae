"""The command line the baselines' training modules share (``python -m scrapy_web2text.research.train.crf ...``)."""

from __future__ import annotations

import argparse
from pathlib import Path


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
