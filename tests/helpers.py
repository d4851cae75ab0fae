"""Shared test helpers: fixture pages and the corpus folder."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from scrapy_web2text.research.corpus import default_data_dir

FIXTURES = Path(__file__).parent / "fixtures"
DATA = default_data_dir()


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def corpus_file(name: str) -> Path:
    """A corpus from ../shared/data; the test skips cleanly when it is absent."""
    path = DATA / f"{name}.jsonl.gz"
    if not path.is_file():
        pytest.skip(f"corpus {path} not available")
    return path


def corpus_pages(name: str, split: str, count: int) -> list[dict]:
    pages = []
    with gzip.open(corpus_file(name), "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["split"] == split:
                pages.append(record)
                if len(pages) == count:
                    break
    return pages


def python_paths(root, elements) -> list[str]:
    """The block XPaths of :func:`scrapy_web2text.extraction.output.block_xpaths`'s Python reference, with the
    compiled twin switched off where it is built (no import of the twin: the no-compiler leg runs this too)."""
    from scrapy_web2text.extraction import output

    saved, output.compiled_block_xpaths = output.compiled_block_xpaths, None
    try:
        return output.block_xpaths(root, elements)
    finally:
        output.compiled_block_xpaths = saved
