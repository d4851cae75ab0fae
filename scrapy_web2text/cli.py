"""The ``web2text`` command: extract, train, evaluate, benchmark."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from . import __version__
from ._blas_threads import start_blas_with_requested_threads
from .research.data_files import MissingData, data_files


def progress(iterable: Iterable, total: int | None, description: str, unit: str = "page") -> Iterable:
    """A tqdm progress bar on stderr when it is a terminal; the iterable itself otherwise."""
    if not sys.stderr.isatty():
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=description, unit=unit, file=sys.stderr)


def _extract(args) -> int:
    from .batch.extract_command import extract_command

    return extract_command(
        args,
        report=lambda line: print(f"web2text extract: {line}", file=sys.stderr),
        progress=lambda items, total: progress(items, total, "extract", "file"),
    )


def _train(args) -> int:
    teachers = _teachers(args)
    if args.init:
        from .research.train.holdout import run_command

        return run_command(args, data_files(args.data, required=False))
    files = data_files(args.data)
    if args.config == "lm":
        return _train_lm(args, files)
    if args.config == "page-types":
        return _train_page_types(args, files)
    from .research.corpus import corpus_name, load_training_splits

    try:
        from .research.train.trainer import train
    except ImportError as error:
        raise MissingData(
            f"training needs torch ({error}): pip install 'scrapy-web2text[train]' "
            "(the CPU build: --extra-index-url https://download.pytorch.org/whl/cpu)"
        ) from error
    train_pages, validation_pages = load_training_splits(
        files, cache_dir=args.cache_dir, workers=args.workers, limit=args.limit
    )
    model = train(
        train_pages,
        validation_pages,
        args.config,
        seed=args.seed,
        iterations=args.iterations,
        corpora=[corpus_name(path) for path in files],
        threads=args.threads,
        teachers=teachers,
    )
    if args.name:
        model.metadata["name"] = args.name
    written = model.save(args.output)
    report = model.metadata["training"]
    print(f"model written to {written} (+ .json); {report['train_pages']} training pages, {report['seconds']} s")
    for network in ("unary", "pairwise"):
        figures = report[network]
        print(
            f"  {network}: validation error {figures['validation_error']:.4f} at iteration {figures['best_iteration']}"
        )
    return 0


def _teachers(args) -> list:
    """The models given to ``--teachers``, loaded (and checked) before any page is parsed."""
    if not args.teachers:
        return []
    from .labellers.web2text.network import load_model
    from .research.train.trainer import CONFIGS

    if args.init or not CONFIGS.get(args.config, {}).get("teachers"):
        recipe = "--init" if args.init else f"the {args.config!r} recipe"
        raise MissingData(f"--teachers: {recipe} is not distilled (use --config distilled)")
    return [load_model(path) for path in args.teachers]


def _train_lm(args, files: list[str]) -> int:
    """The language-model classifier's head (needs the 'lm' and 'train' extras)."""
    from .research.train.lm import run

    output = args.output if args.output != "web2text-model" else "lm"
    model = run(
        files,
        output=output,
        train_pages=args.lm_train_pages,
        validation_pages=args.lm_validation_pages,
        epochs=args.iterations or 20,
        seed=args.seed,
        threads=args.threads,
        cache_dir=args.cache_dir,
    )
    selected, report = model.metadata["selected"], model.metadata["training"]
    print(f"head written to {output}.npz (+ .json); {report['train_pages']} training pages, {report['seconds']} s")
    print(f"  selected: {selected}")
    return 0


def _train_page_types(args, files: list[str]) -> int:
    """The page-type classifier (numpy and scipy; no torch)."""
    from .research.corpus import load_training_splits
    from .research.train.page_types import format_confusion, train_page_types

    train_pages, validation_pages = load_training_splits(
        files, cache_dir=args.cache_dir, workers=args.workers, limit=args.limit
    )
    model = train_page_types(train_pages, validation_pages, files)
    output = args.output if args.output != "web2text-model" else "page_types"
    written = model.save(output)
    accuracy = model.metadata["training"]["validation_accuracy"]
    print(f"page-type model written to {written} (+ .json); validation accuracy {accuracy:.3f}")
    print(format_confusion(model))
    return 0


def _evaluate(args) -> int:
    from .labellers.web2text import resolve_model
    from .research.evaluate import evaluate_files
    from .research.tables import EVALUATE_COLUMNS, format_text

    files = data_files(args.data)
    model = resolve_model(args.model) if args.method.startswith("web2text") else args.model
    rows = evaluate_files(
        files, args.split, method=args.method, model=model, threshold=args.threshold, progress=progress
    )
    print(f"method {args.method}, split {args.split}" + (f", model {model.path}" if hasattr(model, "path") else ""))
    print(format_text(rows, EVALUATE_COLUMNS))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def _benchmark(args) -> int:
    from .research import benchmark

    args.data = data_files(args.data)
    return benchmark.main(args)


def build_parser() -> argparse.ArgumentParser:
    from .batch.command import add_site_model_option
    from .labellers import labeller_names

    parser = argparse.ArgumentParser(prog="web2text", description="Main-text extraction with Web2Text.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress (training, evaluation)")
    # -v after the sub-command too; SUPPRESS keeps a sub-command without -v from resetting a -v given before it.
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log progress")
    commands = parser.add_subparsers(dest="command", required=True)

    def add_command(name: str, **options) -> argparse.ArgumentParser:
        return commands.add_parser(name, parents=[verbose], **options)

    def model_options(sub):
        sub.add_argument(
            "--model", default=None, help="packaged model name or path to NAME.npz (default: the shipped model)"
        )
        sub.add_argument(
            "--threshold",
            type=float,
            default=None,
            help="probability a block needs to be kept (default: the model's own, 0.4 for the shipped model, +0.1 on "
            "pages typed as articles)",
        )
        sub.add_argument(
            "--method",
            default="web2text",
            help=f"labelling method: {', '.join(labeller_names())}, or a labeller's dotted path",
        )

    extract = add_command("extract", help="print the main text of HTML files or URLs")
    extract.add_argument(
        "sources",
        nargs="*",
        metavar="FILE|GLOB|URL",
        help="HTML files, globs ('pages/**/*.html'), URLs, - for stdin (read by default when piped)",
    )
    extract.add_argument("--input-dir", metavar="DIR", help="also every file below DIR (then -o is a folder)")
    extract.add_argument(
        "-i", "--input-file", metavar="FILE", help="also the URLs or paths in FILE, one a line (# starts a comment)"
    )
    extract.add_argument(
        "-o",
        "--output",
        metavar="FILE|DIR/",
        help="write to FILE instead of standard output; to a folder (one file per input, its name kept, the suffix "
        "of the form: .txt .md .html .json) when it ends in / or exists as one, or with --input-dir",
    )
    extract.add_argument("--workers", type=int, default=1, help="extract in N processes (default 1)")
    extract.add_argument(
        "--json",
        "--jsonl",
        action="store_true",
        help="JSON Lines: one object per input (url, title, main_text, main_<format>, blocks, source)",
    )
    extract.add_argument(
        "--format",
        choices=("text", "markdown", "html", "csv"),
        default="text",
        help="main content as plain text (default), Markdown or clean HTML (with --json adds that key); csv: a row "
        "per input (url, title, main_text, a column per metadata field unless --no-metadata)",
    )
    extract.add_argument("--no-blocks", dest="blocks", action="store_false", help="with --json: leave out the blocks")
    extract.add_argument(
        "--with-metadata",
        dest="metadata",
        action="store_true",
        default=None,
        help="authors, dates, language, site... (docs: metadata): a 'metadata' object in --json rows and columns "
        "in csv (the default there), a front-matter header between --- lines before the text otherwise",
    )
    extract.add_argument("--no-metadata", dest="metadata", action="store_false", help="with --json or csv: none")
    model_options(extract)
    add_site_model_option(extract)
    extract.set_defaults(handler=_extract)

    train = add_command("train", help="train a model on corpus files (needs the 'train' extra)")
    train.add_argument("--data", nargs="+", metavar="FILE", help="*.jsonl.gz corpora (default: all in $WEB2TEXT_DATA)")
    train.add_argument(
        "--config",
        default="paper",
        choices=["paper", "default", "distilled", "lm", "page-types"],
        help="architecture and recipe; 'distilled': 'default' taught by three models of 'default' (4 trainings); "
        "'lm' trains the language-model classifier's head (needs the 'lm' extra); 'page-types' the page-type "
        "classifier",
    )
    train.add_argument(
        "--iterations", type=int, default=None, help="override the configuration's iterations (lm: epochs)"
    )
    train.add_argument("--seed", type=int, default=0)
    train.add_argument(
        "--teachers",
        nargs="+",
        metavar="MODEL",
        help="distilled recipe: learn from these models instead of training its teachers first (seeds SEED, SEED+1 …)",
    )
    train.add_argument("-o", "--output", default="web2text-model", help="output stem: writes STEM.npz and STEM.json")
    train.add_argument(
        "--name", default=None, help="the model's name (Extraction.model and its JSON; default: the recipe's)"
    )
    train.add_argument("--cache-dir", default=None, help="feature cache (default ~/.cache/scrapy-web2text)")
    train.add_argument("--workers", type=int, default=None, help="processes for feature extraction")
    train.add_argument("--threads", type=int, default=None, help="torch threads")
    train.add_argument("--limit", type=int, default=None, help="use only the first N pages of each split (no cache)")
    train.add_argument("--lm-train-pages", type=int, default=40, help="lm: sampled train pages per corpus")
    train.add_argument("--lm-validation-pages", type=int, default=15, help="lm: sampled validation pages per corpus")
    tuning = train.add_argument_group("fine-tuning a trained model on corrected pages (docs/show.rst)")
    tuning.add_argument("--init", metavar="MODEL", help="start from this model ('default': the shipped one)")
    tuning.add_argument("--pages", metavar="DIR", help="the pages the viewer's labels were saved from")
    tuning.add_argument(
        "--labels", nargs="+", metavar="PATH", help="*.labels.json files or folders of them; corpus *.jsonl[.gz]"
    )
    tuning.add_argument("--mix", type=int, default=None, help="training pages mixed in (default 180)")
    tuning.add_argument("--learning-rate", type=float, default=None, help="Adam's learning rate (default 1e-3)")
    tuning.add_argument(
        "--anchor",
        type=float,
        default=None,
        help="pull towards the initial model's weights: anchor * sum((w - w0)^2) added to the loss (default 0)",
    )
    tuning.add_argument(
        "--site-gate",
        type=float,
        default=None,
        metavar="SHARE",
        help="label a page with the tuned model only where it holds this share of the boilerplate your pages share "
        "(the site's template), elsewhere with the initial model (default 0.3; 0: every page)",
    )
    tuning.add_argument(
        "--no-rebalance",
        dest="rebalance",
        action="store_false",
        help="keep the initial model's threshold (by default it moves so that the tuned model keeps as much of the "
        "mixed-in pages' text as the initial one)",
    )
    tuning.add_argument(
        "--no-check",
        dest="check",
        action="store_false",
        help="keep the tuned model without checking it on each page left out in turn (by default the initial "
        "model is kept where tuning does not help on them)",
    )
    train.set_defaults(handler=_train)

    evaluate = add_command("evaluate", help="score a model on corpus files")
    evaluate.add_argument(
        "--data", nargs="+", metavar="FILE", help="*.jsonl.gz corpora (default: all in $WEB2TEXT_DATA)"
    )
    evaluate.add_argument("--split", default="test", choices=["train", "validation", "test"])
    evaluate.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    model_options(evaluate)
    evaluate.set_defaults(handler=_evaluate)

    from .batch.command import add_warc_command

    add_warc_command(commands, parents=[verbose])

    from .show.command import add_show_command

    add_show_command(commands)

    from .research.benchmark_options import add_benchmark_arguments

    bench = add_command("benchmark", help="every method and installed peer on the same blocks")
    add_benchmark_arguments(bench)
    bench.set_defaults(handler=_benchmark)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Before anything imports numpy (the parser does): the command owns its process.  Training is left to torch.
    command = next((word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")), None)
    try:
        if command != "train":
            start_blas_with_requested_threads()
    except ValueError as error:
        print(f"{' '.join(filter(None, ('web2text', command)))}: {error}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    from .batch.files import ExtractionFailed

    try:
        if sys.stdout is None and args.command in ("evaluate", "benchmark"):
            raise OSError("standard output is closed")
        return args.handler(args)
    except BrokenPipeError:
        # The reader of our output went away (| head): stop quietly, with the status a SIGPIPE death gives.
        _silence_stdout()
        return 141
    except (MissingData, ExtractionFailed, ValueError, ImportError, OSError, EOFError) as error:
        print(f"web2text {args.command}: {error}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush raises nothing either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real file descriptor (a test's captured stream)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
