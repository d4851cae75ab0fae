import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_web2text.cli import main

from ..helpers import FIXTURES, fixture_text
from ..scrapy_support import EXAMPLE_PROJECT

EXAMPLE_SITE = EXAMPLE_PROJECT / "site"


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
    assert all(set(block) == {"text", "label", "probability", "xpath", "rule"} for block in document["blocks"])


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


@pytest.mark.slow
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


@pytest.mark.slow
def test_train_distils_from_the_teachers_given_and_refuses_them_for_a_recipe_that_is_not_distilled(
    capsys, tiny_corpus, tmp_path
):
    pytest.importorskip("torch", reason="training needs the 'train' extra")  # CI installs it
    common = ["--data", str(tiny_corpus), "--iterations", "20", "--cache-dir", str(tmp_path / "cache")]
    common += ["--workers", "1", "--threads", "1"]
    for seed in ("0", "1"):
        assert main(["train", *common, "--seed", seed, "--output", str(tmp_path / f"teacher-{seed}")]) == 0
    teachers = [str(tmp_path / "teacher-0.npz"), str(tmp_path / "teacher-1.npz")]
    stem = tmp_path / "student"
    distil = ["train", *common, "--config", "distilled", "--teachers", *teachers, "--name", "ours"]
    assert main([*distil, "--output", str(stem)]) == 0
    card = json.loads((tmp_path / "student.json").read_text())
    assert card["teachers"] == [0, 1] and card["config"]["teacher_weight"] == 0.5
    assert card["name"] == "ours" and card["config"]["name"] == "distilled"
    assert json.loads((tmp_path / "teacher-0.json").read_text())["name"] == "paper"
    capsys.readouterr()
    assert main(["train", *common, "--teachers", *teachers, "--output", str(tmp_path / "plain")]) == 2
    assert "not distilled" in capsys.readouterr().err and not (tmp_path / "plain.npz").exists()
    assert main(["train", *common, "--config", "page-types", "--teachers", *teachers]) == 2
    assert "'page-types' recipe is not distilled" in capsys.readouterr().err
    assert main(["train", *common, "--config", "distilled", "--teachers", str(tmp_path / "none.npz")]) == 2
    assert "none.npz" in capsys.readouterr().err


def test_module_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "scrapy_web2text", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "web2text" in done.stdout


def test_extract_many_files_and_globs_as_json_lines(capsys, tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.html").write_text(fixture_text("article.html"), encoding="utf-8")
    png = EXAMPLE_SITE / "images" / "logo.png"
    assert main(["extract", "--jsonl", "--no-blocks", str(tmp_path / "*.html"), str(png)]) == 0
    lines = capsys.readouterr().out.splitlines()
    documents = [json.loads(line) for line in lines]
    assert [Path(d["source"]).name for d in documents] == ["a.html", "b.html", "logo.png"]
    assert all("Volunteers from neighbouring villages" in d["main_text"] for d in documents[:2])
    assert documents[2]["main_text"] == "" and documents[2]["skipped"] == "binary:png"
    assert all("blocks" not in d for d in documents)


def test_extract_markdown_format(capsys):
    assert main(["extract", "--format", "markdown", str(FIXTURES / "article.html")]) == 0
    out = capsys.readouterr().out
    assert "Volunteers from neighbouring villages" in out and "Most read" not in out
    assert any(line.startswith("#") for line in out.splitlines())


@pytest.mark.parametrize("command", ["evaluate", "benchmark", "train"])
def test_research_commands_without_data_name_what_is_missing(capsys, tmp_path, monkeypatch, command):
    monkeypatch.setenv("WEB2TEXT_DATA", str(tmp_path / "empty"))
    assert main([command]) == 2
    err = capsys.readouterr().err
    assert "--data" in err and "WEB2TEXT_DATA" in err and str(tmp_path / "empty") in err
    assert main([command, "--data", str(tmp_path / "missing.jsonl.gz")]) == 2
    assert "missing.jsonl.gz" in capsys.readouterr().err


def test_a_file_of_records_without_html_is_left_out_of_the_corpora_with_a_note(capsys, tiny_corpus, tmp_path):
    gold = tmp_path / "tiny-metadata.jsonl.gz"
    with gzip.open(gold, "wt", encoding="utf-8") as out:
        out.write(json.dumps({"id": "tiny-0", "dataset": "tiny", "split": "test", "expected": {"title": "A"}}) + "\n")
    assert main(["evaluate", "--data", str(tiny_corpus), str(gold), "--split", "test"]) == 0
    captured = capsys.readouterr()
    assert f"{gold} left out" in captured.err and str(tiny_corpus) not in captured.err
    assert "tiny" in captured.out
    assert main(["evaluate", "--data", str(gold), "--split", "test"]) == 2
    assert "no corpus of pages" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["-v", "evaluate"], ["evaluate", "-v"]])
def test_verbose_before_or_after_the_command(argv, tiny_corpus, capsys):
    from scrapy_web2text.cli import build_parser

    args = build_parser().parse_args([*argv, "--data", str(tiny_corpus)])
    assert args.verbose is True
    assert build_parser().parse_args(["evaluate"]).verbose is False
    assert main([*argv, "--data", str(tiny_corpus), "--split", "test"]) == 0
    assert "tiny" in capsys.readouterr().out


def test_progress_bars_only_on_a_terminal(monkeypatch):
    from tqdm import tqdm

    from scrapy_web2text.cli import progress

    pages = [1, 2, 3]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert progress(pages, 3, "extract") is pages
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    bar = progress(pages, 3, "extract")
    assert isinstance(bar, tqdm) and list(bar) == pages
