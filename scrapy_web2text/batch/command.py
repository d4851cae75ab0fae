"""The ``web2text warc`` sub-command: arguments, the run, the summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_site_model_option(parser: argparse.ArgumentParser) -> None:
    """``--site-model DOMAIN=MODEL`` (repeatable), for the commands that label pages: ``extract`` and ``warc``."""
    parser.add_argument(
        "--site-model",
        action="append",
        default=[],
        metavar="DOMAIN=MODEL",
        help="label a site's pages with another model: DOMAIN (its subdomains too) or DOMAIN/PATH/, = a model's name "
        "or NAME.npz (repeatable; the longest match wins)",
    )


def add_warc_command(commands, parents: list[argparse.ArgumentParser] = ()) -> None:
    """Register ``warc`` on the ``web2text`` sub-command parser (nothing heavy is imported here)."""
    from . import DEFAULT_MAX_BYTES

    warc = commands.add_parser(
        "warc",
        parents=list(parents),
        help="main text of every HTML response in WARC/ARC files, here or on a Dask cluster (needs the 'warc' extra)",
        description="One JSON line per HTML response record: url, warc_record_id, warc_date, http_status, title, "
        "main_text, main_<format> for each further format and, with --with-metadata, metadata. Inputs already done "
        "(OUT.jsonl.done) are skipped.",
    )
    warc.add_argument("inputs", nargs="+", metavar="INPUT", help="WARC or ARC files, gzip-compressed or not")
    warc.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", help="JSON Lines output (appended)")
    where = warc.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=int,
        default=None,
        help="N worker processes: 1 (the default) runs in this process, 2 or more start a local Dask cluster",
    )
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="join a running Dask cluster instead")
    warc.add_argument(
        "--formats", default="text", help="comma-separated: text plus renderings Extraction provides (e.g. markdown)"
    )
    warc.add_argument(
        "--with-metadata", action="store_true", help="a 'metadata' object per row: authors, dates, language, site..."
    )
    warc.add_argument("--model", default=None, help="packaged model name or path to NAME.npz (default: shipped)")
    add_site_model_option(warc)
    warc.add_argument("--chunk-records", type=int, default=None, help="records per task (default 1000)")
    warc.add_argument(
        "--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="skip larger pages (default 5000000; 0: no limit)"
    )
    warc.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="default: on a TTY")
    warc.set_defaults(handler=run_warc_command)


def run_warc_command(args) -> int:
    from .runner import DEFAULT_CHUNK_RECORDS, Options, check_formats, resolve_inputs, run
    from .warc import check_archive

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    if Path(args.output).is_dir():
        raise ValueError(f"-o {args.output} is a folder: give a JSON Lines file (e.g. {args.output}/a.jsonl)")
    for path in resolve_inputs(args.inputs):  # missing files and other formats fail before a cluster starts
        check_archive(path)
    from ..extraction.site_models import load_site_models, parse_site_models

    site_models = parse_site_models(args.site_model, "--site-model")
    load_site_models(site_models, "web2text", "--site-model")  # a missing or broken model fails before any record
    options = Options(
        check_formats(args.formats.split(",")),
        args.model,
        max(0, args.max_bytes),
        metadata=args.with_metadata,
        site_models=site_models,
    )
    summary = run(
        args.inputs,
        args.output,
        workers=args.workers,
        scheduler=args.scheduler,
        options=options,
        chunk_records=args.chunk_records or DEFAULT_CHUNK_RECORDS,
        show_progress=args.progress,
    )
    for line in summary.lines():
        print(f"web2text warc: {line}", file=sys.stderr)
    # A damaged or cut archive is an error (its records before the damage are written all the same).
    return 1 if summary.failed or summary.counts["truncated"] else 0
