"""docs/training.rst, "Your own pages": the code there builds a corpus file that ``train`` and ``evaluate`` take."""

from __future__ import annotations

import gzip
import json
import os
import re

import pytest

from scrapy_web2text.cli import main

from ..helpers import FIXTURES
from ..scrapy_support import REPO

pytest.importorskip("torch", reason="training needs the 'train' extra")  # CI installs it


def documented_builder() -> str:
    """The Python code block of the section."""
    text = (REPO / "docs" / "training.rst").read_text(encoding="utf-8")
    section = text.split("\nYour own pages\n--------------\n", 1)[1]
    block = re.search(r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", section)
    assert block, "the section has no Python code block"
    return "\n".join(line[4:] for line in block.group(1).splitlines())


@pytest.mark.slow
def test_the_documented_corpus_trains_and_evaluates(tmp_path, capsys, monkeypatch):
    pages = tmp_path / "pages"
    pages.mkdir()
    # page11 falls in test, page2 in validation, the others in train (the split is the name's CRC-32 modulo 10).
    for name in ("page0", "page2", "page3", "page4", "page11"):
        (pages / f"{name}.html").write_bytes((FIXTURES / "article.html").read_bytes())
        (pages / f"{name}.txt").write_bytes((FIXTURES / "article.txt").read_bytes())
    monkeypatch.chdir(tmp_path)
    exec(compile(documented_builder(), "docs/training.rst", "exec"), {})  # noqa: S102 - the docs' own code

    with gzip.open(tmp_path / "my-pages.jsonl.gz", "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    assert {record["id"]: record["split"] for record in records} == {
        "mine-page0": "train",
        "mine-page11": "test",
        "mine-page2": "validation",
        "mine-page3": "train",
        "mine-page4": "train",
    }
    stem = str(tmp_path / "my-model")
    common = ["--data", "my-pages.jsonl.gz"]
    train = ["train", *common, "--config", "default", "--iterations", "20", "--output", stem, "--threads", "1"]
    assert main([*train, "--workers", "1", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert os.path.exists(stem + ".npz") and os.path.exists(stem + ".json")
    capsys.readouterr()
    rows = tmp_path / "rows.json"
    assert main(["evaluate", *common, "--split", "test", "--model", stem + ".npz", "--json", str(rows)]) == 0
    (row,) = json.loads(rows.read_text())
    assert row["pages"] == 1 and row["label_coverage"] > 0.9
    assert "my-pages" in capsys.readouterr().out
