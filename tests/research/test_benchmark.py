"""``web2text benchmark``: rows, tables, files, peers."""

from __future__ import annotations

import argparse
import csv
import gzip
import json

import numpy as np
import pytest

from scrapy_web2text.research import peers
from scrapy_web2text.research.benchmark import add_benchmark_arguments, main, run_benchmark
from scrapy_web2text.research.peers import kept_by_text, load_peers
from scrapy_web2text.research.tables import format_rst

from ..helpers import corpus_file

ARTICLE = "The committee met on Tuesday to discuss the annual budget and its many consequences for the city."
MENU = "".join(f'<li><a href="/{i}">Section {i}</a></li>' for i in range(10))


def _corpus(tmp_path, pages=3):
    path = tmp_path / "tiny.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for number in range(pages):
            html = f"<html><body><ul>{MENU}</ul><p>{ARTICLE} Page {number}.</p><p>{ARTICLE}</p></body></html>"
            record = {
                "id": f"tiny-{number}",
                "split": "test",
                "html": html,
                "text": f"{ARTICLE} Page {number}.\n{ARTICLE}",
            }
            out.write(json.dumps(record) + "\n")
        out.write(json.dumps({"id": "tiny-train", "split": "train", "html": "<p>x</p>", "text": "x"}) + "\n")
    return path


def test_rows_per_method_with_sane_metrics(tmp_path):
    result = run_benchmark([_corpus(tmp_path)], "test", methods=["bte", "boilerpipe-default"], peers=[])
    assert [row["name"] for row in result.rows] == ["bte", "boilerpipe-default"]
    for row in result.rows:
        assert row["corpus"] == "tiny" and row["split"] == "test" and row["pages"] == 3
        for key in ("accuracy", "precision", "recall", "f1", "shingle_f1", "word_f1"):
            assert 0.0 <= row[key] <= 1.0
        assert row["ms_per_page"] > 0
    bte = result.rows[0]
    assert bte["recall"] == 1.0 and bte["precision"] == 1.0  # menu dropped, both paragraphs kept
    table = result.table()
    assert "tiny (test)" in table and "boilerpipe-default" in table


def test_limit_and_split(tmp_path):
    path = _corpus(tmp_path)
    assert run_benchmark([path], "test", methods=["bte"], peers=[], limit=2).rows[0]["pages"] == 2
    assert run_benchmark([path], "train", methods=["bte"], peers=[]).rows[0]["pages"] == 1


def test_method_without_weights_is_skipped_with_a_note(tmp_path, monkeypatch):
    from scrapy_web2text.labellers import crf

    monkeypatch.setattr(crf, "MODELS", tmp_path / "nowhere")
    result = run_benchmark([_corpus(tmp_path)], "test", methods=["bte", "crf"], peers=[])
    assert [row["name"] for row in result.rows] == ["bte"]
    assert any(note.startswith("crf: skipped") for note in result.notes)


def test_unknown_names_are_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown method"):
        run_benchmark([_corpus(tmp_path)], methods=["nope"], peers=[])
    with pytest.raises(ValueError, match="unknown peer"):
        load_peers(["nope"])


def test_missing_peer_is_a_note(monkeypatch):
    def broken():
        raise ImportError("No module named 'trafilatura'")

    monkeypatch.setitem(peers.PEERS, "trafilatura", broken)
    loaded, notes = load_peers(["trafilatura"])
    assert loaded == {} and "trafilatura: skipped" in notes[0]


def test_peer_rows_use_text_containment(tmp_path, monkeypatch):
    monkeypatch.setitem(peers.PEERS, "echo", lambda: lambda html: ARTICLE)
    result = run_benchmark([_corpus(tmp_path)], "test", methods=[], peers=["echo"])
    row = result.rows[0]
    assert row["kind"] == "peer" and row["precision"] == 1.0 and row["recall"] == pytest.approx(0.5)
    assert "* peer" in result.table()


def test_kept_by_text():
    keep = kept_by_text(["Hello world", "Menu", "a  b"], "Hello   world\nand more a b")
    assert keep.tolist() == [True, False, False]


def test_main_writes_csv_json_rst_and_plot(tmp_path, capsys):
    args = add_benchmark_arguments(argparse.ArgumentParser()).parse_args(
        [
            "--data",
            str(_corpus(tmp_path)),
            "--methods",
            "bte",
            "--peers",
            "--csv",
            str(tmp_path / "r.csv"),
            "--json",
            str(tmp_path / "r.json"),
            "--rst",
            str(tmp_path / "r.rst"),
            "--plot",
            str(tmp_path / "r.png"),
        ]
    )
    assert main(args) == 0
    assert "bte" in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "r.csv", encoding="utf-8")))
    assert rows[0]["name"] == "bte" and float(rows[0]["f1"]) == 1.0
    assert json.loads((tmp_path / "r.json").read_text())["rows"][0]["name"] == "bte"
    assert "list-table" in (tmp_path / "r.rst").read_text()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (tmp_path / "r.png").exists()
    else:
        assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_main_reports_a_missing_file(tmp_path, capsys):
    args = add_benchmark_arguments(argparse.ArgumentParser()).parse_args(
        ["--data", str(tmp_path / "missing.jsonl.gz"), "--methods", "bte", "--peers"]
    )
    assert main(args) == 2
    assert "web2text benchmark" in capsys.readouterr().err


def test_rst_table_has_a_row_per_system():
    rows = [
        {
            "corpus": "c",
            "split": "test",
            "name": n,
            "kind": "method",
            "pages": 1,
            "accuracy": 1,
            "precision": 1,
            "recall": 1,
            "f1": 1,
            "shingle_f1": 1,
            "word_f1": 1,
            "word_precision": 1,
            "word_recall": 1,
            "ms_per_page": 2.0,
        }
        for n in ("a", "b")
    ]
    text = format_rst(rows)
    assert text.count("   * - ") == 3  # header + 2 rows


@pytest.mark.slow
def test_cleaneval_sample_reproduces_the_paper_ordering():
    """On CleanEval test pages, Boilerpipe's default extractor beats the
    largest-block one at block F1, as in the paper's table."""
    path = corpus_file("cleaneval")
    result = run_benchmark(
        [path], "test", methods=["boilerpipe-default", "boilerpipe-largest", "bte"], peers=[], limit=25
    )
    f1 = {row["name"]: row["f1"] for row in result.rows}
    assert f1["boilerpipe-default"] > f1["boilerpipe-largest"]
    assert all(np.isfinite(list(f1.values())))
