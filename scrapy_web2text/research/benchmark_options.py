"""The options of ``web2text benchmark``, apart from the benchmark: the CLI builds its parser at every command's start,
and these need neither the corpora's reader nor the scoring."""

from __future__ import annotations

import argparse

from ..labellers.base import labeller_names
from .peers import PEERS


def add_benchmark_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--data", nargs="+", metavar="FILE", help="corpus .jsonl.gz files (default: all in $WEB2TEXT_DATA)"
    )
    parser.add_argument("--split", default="test", choices=("train", "validation", "test"))
    parser.add_argument(
        "--methods",
        nargs="*",
        metavar="NAME",
        help=f"methods (default: all of {', '.join(labeller_names(include_optional=False))}; 'lm' when named)",
    )
    parser.add_argument(
        "--peers",
        nargs="*",
        metavar="NAME",
        help=f"peers (default: the installed ones of {', '.join(PEERS)}); give none for no peers",
    )
    parser.add_argument("--limit", type=int, help="first N pages of each split only")
    parser.add_argument("--model", help="Web2Text model name or path for the web2text methods")
    parser.add_argument("--csv", metavar="PATH", help="write the rows as CSV")
    parser.add_argument("--json", metavar="PATH", help="write the rows and notes as JSON")
    parser.add_argument("--plot", metavar="PNG", help="write an F1 vs ms/page plot (needs matplotlib)")
    parser.add_argument("--rst", metavar="PATH", help="write reStructuredText tables")
    return parser
