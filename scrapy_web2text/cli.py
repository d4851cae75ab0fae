"""The ``web2text`` command: extract, train, evaluate, benchmark."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import urllib.request
from pathlib import Path

from . import __version__


def _read_source(source: str) -> tuple[bytes, str | None, str | None]:
    """Bytes, declared charset and URL of a file path, ``-`` or an http(s) URL."""
    if source == "-":
        return sys.stdin.buffer.read(), None, None
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"User-Agent": f"scrapy-web2text/{__version__}"})
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the user asked for this URL
            return response.read(), response.headers.get_content_charset(), source
    path = Path(source)
    return path.read_bytes(), None, path.resolve().as_uri()


def _extract(args) -> int:
    from .extraction import extract

    status = 0
    for source in args.sources:
        try:
            data, charset, url = _read_source(source)
        except OSError as error:
            print(f"web2text: cannot read {source}: {error}", file=sys.stderr)
            status = 1
            continue
        result = extract(
            data, url=url, threshold=args.threshold, model=args.model, method=args.method, encoding=charset
        )
        if args.json:
            print(json.dumps(result.to_dict(include_blocks=args.blocks), ensure_ascii=False))
        else:
            if len(args.sources) > 1:
                print(f"==> {source} <==")
            print(result.main_text)
    return status


def _default_data_files() -> list[str]:
    from .research.corpus import default_data_dir

    return sorted(str(path) for path in default_data_dir().glob("*.jsonl.gz"))


def _train(args) -> int:
    from .research.corpus import corpus_name, load_split
    from .research.train.trainer import train

    files = args.data or _default_data_files()
    if not files:
        print("web2text train: no --data files given and none found in the default data folder", file=sys.stderr)
        return 2
    train_pages, validation_pages = [], []
    for path in files:
        train_pages += load_split(path, "train", cache_dir=args.cache_dir, workers=args.workers, limit=args.limit)
        validation_pages += load_split(
            path, "validation", cache_dir=args.cache_dir, workers=args.workers, limit=args.limit
        )
    model = train(
        train_pages,
        validation_pages,
        args.config,
        seed=args.seed,
        iterations=args.iterations,
        corpora=[corpus_name(path) for path in files],
        threads=args.threads,
    )
    written = model.save(args.output)
    report = model.metadata["training"]
    print(f"model written to {written} (+ .json); {report['train_pages']} training pages, {report['seconds']} s")
    for network in ("unary", "pairwise"):
        figures = report[network]
        print(
            f"  {network}: validation error {figures['validation_error']:.4f} at iteration {figures['best_iteration']}"
        )
    return 0


def _evaluate(args) -> int:
    from .labellers.web2text import resolve_model
    from .research.evaluate import evaluate_files
    from .research.tables import EVALUATE_COLUMNS, format_text

    files = args.data or _default_data_files()
    model = resolve_model(args.model) if args.method.startswith("web2text") else args.model
    rows = evaluate_files(files, args.split, method=args.method, model=model, threshold=args.threshold)
    print(f"method {args.method}, split {args.split}" + (f", model {model.path}" if hasattr(model, "path") else ""))
    print(format_text(rows, EVALUATE_COLUMNS))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def _benchmark(args) -> int:
    from .research import benchmark

    return benchmark.main(args)


def build_parser() -> argparse.ArgumentParser:
    from .labellers import labeller_names

    parser = argparse.ArgumentParser(prog="web2text", description="Main-text extraction with Web2Text.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (training, evaluation)")
    commands = parser.add_subparsers(dest="command", required=True)

    def model_options(sub):
        sub.add_argument(
            "--model", default=None, help="packaged model name or path to NAME.npz (default: the shipped model)"
        )
        sub.add_argument(
            "--threshold", type=float, default=None, help="probability a block needs to be kept (default 0.5)"
        )
        sub.add_argument(
            "--method",
            default="web2text",
            help=f"labelling method: {', '.join(labeller_names())}, or a labeller's dotted path",
        )

    extract = commands.add_parser("extract", help="print the main text of HTML files or URLs")
    extract.add_argument("sources", nargs="+", metavar="FILE|URL", help="HTML file, http(s) URL, or - for stdin")
    extract.add_argument("--json", action="store_true", help="one JSON object per source")
    extract.add_argument("--no-blocks", dest="blocks", action="store_false", help="with --json: leave out the blocks")
    model_options(extract)
    extract.set_defaults(handler=_extract)

    train = commands.add_parser("train", help="train a model on corpus files (needs the 'train' extra)")
    train.add_argument("--data", nargs="+", metavar="FILE", help="*.jsonl.gz corpora (default: all in the data folder)")
    train.add_argument("--config", default="paper", choices=["paper", "default"], help="architecture and recipe")
    train.add_argument("--iterations", type=int, default=None, help="override the configuration's iterations")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--output", default="web2text-model", help="output stem: writes STEM.npz and STEM.json")
    train.add_argument("--cache-dir", default=None, help="feature cache (default ~/.cache/scrapy-web2text)")
    train.add_argument("--workers", type=int, default=None, help="processes for feature extraction")
    train.add_argument("--threads", type=int, default=None, help="torch threads")
    train.add_argument("--limit", type=int, default=None, help="use only the first N pages of each split (no cache)")
    train.set_defaults(handler=_train)

    evaluate = commands.add_parser("evaluate", help="score a model on corpus files")
    evaluate.add_argument(
        "--data", nargs="+", metavar="FILE", help="*.jsonl.gz corpora (default: all in the data folder)"
    )
    evaluate.add_argument("--split", default="test", choices=["train", "validation", "test"])
    evaluate.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    model_options(evaluate)
    evaluate.set_defaults(handler=_evaluate)

    from .batch.command import add_warc_command

    add_warc_command(commands)

    from .research import benchmark

    bench = commands.add_parser("benchmark", help="every method and installed peer on the same blocks")
    benchmark.add_benchmark_arguments(bench)
    bench.set_defaults(handler=_benchmark)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    try:
        return args.handler(args)
    except (ValueError, ImportError, FileNotFoundError) as error:
        print(f"web2text {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
