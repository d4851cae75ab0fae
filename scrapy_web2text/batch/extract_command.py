"""The ``web2text extract`` sub-command's run: its arguments checked, then :func:`~.files.run` on the inputs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..extraction.site_models import load_site_models, parse_site_models
from .files import SUFFIXES, Options, Writer, csv_columns, csv_line, gather_sources, run, stdin_is_piped


def check_arguments(args) -> bool:
    """Refuse combinations that would be silently ignored or surprise (``ValueError`` saying what to give);
    returns whether ``-o`` names a folder."""
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    if not args.blocks and not args.json:
        raise ValueError("--no-blocks applies to --json output only (the other forms have no blocks)")
    if args.json and args.format == "csv":
        raise ValueError("--format csv and --json are two outputs: give one")
    output = args.output
    is_folder = bool(output) and (output.endswith(("/", "\\")) or Path(output).is_dir())
    if args.input_dir is not None and output and not is_folder and (Path(output).suffix or Path(output).exists()):
        raise ValueError(
            f"--input-dir writes a file per input into a folder: -o {output} is a file; give a folder (-o out/)"
        )
    return is_folder


def extract_command(
    args, report: Callable[[str], None], progress: Callable[[Iterable, int], Iterable] | None = None
) -> int:
    """Run ``web2text extract`` with parsed ``args``: 0, or 1 when some input could not be read or was not HTML."""
    is_folder = check_arguments(args)
    sources = gather_sources(args.sources, args.input_dir, args.input_file, stdin_is_piped())
    with_metadata = (args.json or args.format == "csv") if args.metadata is None else args.metadata
    site_models = parse_site_models(args.site_model, "--site-model")
    load_site_models(site_models, args.method, "--site-model")  # a missing or broken model fails before any input
    options = Options(
        args.format, args.json, args.blocks, args.threshold, args.model, args.method, with_metadata, site_models
    )
    folder = bool(args.output) and (args.input_dir is not None or is_folder)
    suffix = SUFFIXES["json" if args.json else args.format]
    preamble = csv_line(csv_columns(with_metadata)) if args.format == "csv" else None
    several = len(sources) > 1
    writer = Writer(args.output, folder, suffix, several, headers=not args.json and preamble is None, preamble=preamble)
    try:
        return run(sources, options, writer, workers=args.workers, report=report, progress=progress)
    finally:
        writer.close()
