"""The corpus files a research command reads: ``--data`` as given, or the ``*.jsonl.gz`` of the data folder, of which
only corpora of pages are kept."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


class MissingData(Exception):
    """No corpus files: the message says what to give."""


def data_files(given: Sequence[str] | None, *, required: bool = True) -> list[str]:
    """``given`` (each checked to exist and, for ``.gz``, to be gzip), else the data folder's ``*.jsonl.gz``;
    :class:`MissingData` naming both when there is none and ``required``."""
    from .corpus import default_data_dir

    if given:
        missing = [path for path in given if not Path(path).is_file()]
        if missing:
            raise MissingData(f"corpus file(s) not found: {', '.join(missing)}")
        not_gzip = [path for path in given if path.endswith(".gz") and not _is_gzip(path)]
        if not_gzip:
            raise MissingData(f"not gzip-compressed (a .jsonl.gz corpus is expected): {', '.join(not_gzip)}")
        return page_corpora(list(given))
    files = sorted(str(path) for path in default_data_dir().glob("*.jsonl.gz"))
    if not files and required:
        raise MissingData(
            f"no corpus files: give them with --data FILE.jsonl.gz ... or set WEB2TEXT_DATA to a folder of "
            f"*.jsonl.gz corpora (looked in {default_data_dir()}; a checkout keeps them in ../shared/data)"
        )
    return page_corpora(files) if files else []


def page_corpora(files: list[str]) -> list[str]:
    """The files whose pages have HTML.  A file of another kind in the same folder (the metadata gold,
    ``readability-metadata.jsonl.gz``, has one line per page of ``readability.jsonl.gz`` and no HTML) is left out
    with a note, so that ``--data ../shared/data/*.jsonl.gz`` trains and scores on pages only."""
    from .corpus import iter_records

    kept = []
    for path in files:
        first = next(iter_records(path), None)
        if first is not None and "html" not in first:
            print(f"web2text: {path} left out: its records have no 'html' (not a corpus of pages)", file=sys.stderr)
        else:
            kept.append(path)
    if not kept:
        raise MissingData(f"no corpus of pages among {', '.join(files)}: their records have no 'html'")
    return kept


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as stream:
        return stream.read(2) == b"\x1f\x8b"
