import gzip
import json
import subprocess
import sys

import pytest

from scrapy_web2text.cli import main

from .helpers import FIXTURES, fixture_text


def test_extract_prints_main_text(capsys):
    assert main(["extract", str(FIXTURES / "article.html")]) == 0
    out = capsys.readouterr().out
    assert "Volunteers from neighbouring villages" in out
    assert "Most read" not in out


def test_extract_json_with_blocks(capsys):
    assert main(["extract", "--json", "--threshold", "0.6", str(FIXTURES / "article.html")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["url"].startswith("file://")
    labels = {block["label"] for block in document["blocks"]}
    assert labels == {"content", "boilerplate"}
    assert all(set(block) == {"text", "label", "probability", "xpath"} for block in document["blocks"])


def test_extract_unary_method_and_missing_file(capsys, tmp_path):
    assert main(["extract", "--method", "web2text-unary", str(FIXTURES / "article.html")]) == 0
    assert "Three weeks after" in capsys.readouterr().out
    assert main(["extract", str(tmp_path / "missing.html")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_bad_threshold_is_a_clear_error(capsys):
    assert main(["extract", "--threshold", "1.5", str(FIXTURES / "article.html")]) == 2
    assert "threshold must lie strictly between 0 and 1" in capsys.readouterr().err


@pytest.fixture()
def tiny_corpus(tmp_path):
    html, text = fixture_text("article.html"), fixture_text("article.txt")
    path = tmp_path / "tiny.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for index, split in enumerate(["train"] * 4 + ["validation"] * 2 + ["test"] * 2):
            out.write(
                json.dumps(
                    {"id": f"tiny-{index}", "dataset": "tiny", "split": split, "url": None, "html": html, "text": text}
                )
                + "\n"
            )
    return path


def test_evaluate_prints_a_row_per_corpus(capsys, tiny_corpus, tmp_path):
    rows_path = tmp_path / "rows.json"
    assert main(["evaluate", "--data", str(tiny_corpus), "--split", "test", "--json", str(rows_path)]) == 0
    out = capsys.readouterr().out
    assert "tiny" in out and "shingleF1" in out
    (row,) = json.loads(rows_path.read_text())
    assert row["pages"] == 2 and row["f1"] > 0.8 and row["label_coverage"] > 0.95


def test_train_writes_a_loadable_model(capsys, tiny_corpus, tmp_path):
    pytest.importorskip("torch", reason="training needs the 'train' extra")  # CI installs it
    stem = tmp_path / "trained"
    code = main(
        [
            "train",
            "--data",
            str(tiny_corpus),
            "--iterations",
            "20",
            "--output",
            str(stem),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--workers",
            "1",
            "--threads",
            "1",
        ]
    )
    assert code == 0
    assert "validation error" in capsys.readouterr().out
    assert main(["extract", "--model", str(stem) + ".npz", str(FIXTURES / "article.html")]) == 0


def test_module_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "scrapy_web2text", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "web2text" in done.stdout
