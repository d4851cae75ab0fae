"""``web2text extract`` on many inputs (folders, URL lists, output folders, worker processes) and the command
line's failures: each a one-line message and a non-zero status, never a traceback (issues 32 and 34)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_web2text.cli import main

from ..helpers import FIXTURES
from ..scrapy_support import REPO

ARTICLE = FIXTURES / "article.html"
FIRST_LINE = "River towns rebuild after the flood"
BODY_WORDS = "Volunteers from neighbouring villages"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def web2text(*argv: str, **options) -> subprocess.CompletedProcess:
    """The command in its own process (closed streams and pipes need one)."""
    options.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "scrapy_web2text", *argv], text=True, env=ENV, timeout=300, **options)


def one_line_error(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode != 0, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert all(word in lines[0] for word in words), lines[0]


@pytest.fixture()
def pages(tmp_path) -> Path:
    root = tmp_path / "pages"
    (root / "more").mkdir(parents=True)
    for name in ("one.html", "two.htm", "more/three.html"):
        (root / name).write_bytes(ARTICLE.read_bytes())
    return root


def test_input_dir_writes_one_output_per_input_with_names_kept(pages, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["extract", "--input-dir", str(pages), "-o", str(out), "--workers", "2"]) == 0
    written = sorted(str(path.relative_to(out)) for path in out.rglob("*") if path.is_file())
    assert written == ["more/three.txt", "one.txt", "two.txt"]
    assert all(BODY_WORDS in (out / name).read_text() for name in written)
    assert capsys.readouterr().out == ""


def test_workers_give_the_same_output_in_the_same_order(pages, tmp_path):
    files = sorted(str(path) for path in pages.rglob("*.htm*"))
    (pages / "one.html").write_text(
        "<html><body><p>" + "A different page of its own words. " * 20 + "</p></body></html>"
    )
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert main(["extract", "--json", "--no-blocks", "-o", str(one), *files]) == 0
    assert main(["extract", "--json", "--no-blocks", "-o", str(two), "--workers", "2", *files]) == 0
    rows = [json.loads(line) for line in one.read_text().splitlines()]
    assert [row["source"] for row in rows] == files
    assert one.read_text() == two.read_text()


def test_output_folder_by_trailing_slash_with_the_forms_suffix(tmp_path):
    out = tmp_path / "md"
    assert main(["extract", "--format", "markdown", "-o", f"{out}/", str(ARTICLE)]) == 0
    assert BODY_WORDS in (out / "article.md").read_text()


def test_output_file_collects_every_input(pages, tmp_path):
    out = tmp_path / "all.txt"
    assert main(["extract", "-o", str(out), str(pages / "one.html"), str(pages / "two.htm")]) == 0
    text = out.read_text()
    assert text.count(BODY_WORDS) == 2 and f"==> {pages / 'two.htm'} <==" in text


def test_an_input_file_lists_urls_and_paths(pages, tmp_path, capsys):
    listing = tmp_path / "urls.txt"
    listing.write_text(f"# my pages\n{pages / 'one.html'}\n\n{pages / 'missing.html'}\n")
    assert main(["extract", "-i", str(listing), "--json", "--no-blocks"]) == 1
    captured = capsys.readouterr()
    (row,) = [json.loads(line) for line in captured.out.splitlines()]
    assert row["source"] == str(pages / "one.html") and BODY_WORDS in row["main_text"]
    assert "cannot read" in captured.err and "missing.html" in captured.err


def test_json_rows_carry_the_title_and_main_markdown(capsys):
    assert main(["extract", "--json", "--no-blocks", "--format", "markdown", str(ARTICLE)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["title"] == FIRST_LINE
    assert BODY_WORDS in row["main_markdown"] and "markdown" not in row


def test_no_input_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)  # a terminal: nothing piped in to read
    assert main(["extract"]) == 2
    assert "no input" in capsys.readouterr().err


@pytest.mark.parametrize("place", [0, 1, 2])
def test_verbose_in_any_position(place):
    from scrapy_web2text.cli import build_parser

    argv = ["extract", str(ARTICLE)]
    argv.insert(place, "-v")
    assert build_parser().parse_args(argv).verbose is True


@pytest.mark.parametrize("command", [["warc", "-o", "rows.jsonl", "a.warc", "-v"], ["-v", "warc", "-o", "r", "a"]])
def test_verbose_with_warc(command):
    from scrapy_web2text.cli import build_parser

    assert build_parser().parse_args(command).verbose is True


def test_one_bad_url_among_several_does_not_stop_the_run(tmp_path):
    done = web2text("extract", "http://bad host/", str(ARTICLE), "http://127.0.0.1:9/none", str(ARTICLE))
    assert done.returncode == 1 and done.stdout.count(BODY_WORDS) == 2, done
    assert "Traceback" not in done.stderr
    assert [line.split(":")[0] for line in done.stderr.strip().splitlines()] == ["web2text extract"] * 2


def test_closed_stdin_is_a_one_line_error():
    done = web2text("extract", "-", preexec_fn=lambda: os.close(0))
    one_line_error(done, "standard input is closed")


def test_closed_stdout_is_a_one_line_error():
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_web2text", "extract", str(ARTICLE)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        timeout=300,
        preexec_fn=lambda: os.close(1),
    )
    one_line_error(done, "standard output is closed")


def test_output_into_head_ends_quietly(tmp_path):
    sources = " ".join([str(ARTICLE)] * 200)
    done = subprocess.run(
        f"{sys.executable} -m scrapy_web2text extract {sources} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert done.stdout == f"==> {ARTICLE} <==\n" and done.stderr == "", done


def test_a_method_that_is_not_a_labeller_is_a_one_line_error():
    one_line_error(web2text("extract", "--method", "os:getcwd", str(ARTICLE)), "getcwd", "web2text extract")


def test_data_that_is_not_gzip_is_a_one_line_error(tmp_path):
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(ARTICLE.read_bytes())
    for command in ("evaluate", "benchmark"):
        one_line_error(web2text(command, "--data", str(fake)), "not gzip-compressed", str(fake))


def test_warc_output_into_a_folder_is_a_one_line_error(tmp_path):
    archive = tmp_path / "a.warc.gz"
    with gzip.open(archive, "wb") as out:
        out.write(b"WARC/1.0\r\n")
    one_line_error(web2text("warc", "-o", str(tmp_path), str(archive)), "is a folder")


def test_warc_of_a_file_that_is_no_archive_is_a_one_line_error(tmp_path):
    one_line_error(web2text("warc", "-o", str(tmp_path / "rows.jsonl"), str(ARTICLE)), "not a WARC or ARC file")
    assert not (tmp_path / "rows.jsonl").exists()


def test_a_model_prints_in_one_line():
    from scrapy_web2text import load_model

    model = load_model()
    shown = repr(model)
    assert "\n" not in shown and len(shown) < 300
    assert shown.startswith("Web2TextModel(name='default'") and f"threshold={model.config['threshold']:g}" in shown


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(
        st.binary(min_size=1, max_size=12).map(lambda raw: raw.replace(b"/", b"_").replace(b"\0", b"_")),
        min_size=1,
        max_size=4,
        unique=True,
    )
)
def test_file_names_that_are_not_utf8_are_read_and_written_under_a_safe_name(tmp_path_factory, names):
    """Any bytes as a file name (``caf\\xe9.html``, as ``wget -m`` of a legacy server writes): every file is done,
    each output name is valid UTF-8, and the JSON names its source."""
    names = [name for name in names if name not in (b".", b"..")] or [b"caf\xe9.html"]
    folder, out = tmp_path_factory.mktemp("names"), tmp_path_factory.mktemp("out")
    for number, name in enumerate([*names, b"caf\xe9.html"]):
        (folder / os.fsdecode(name)).write_bytes(f"<p>{FIRST_LINE}, file number {number} of the set.</p>".encode())
    assert main(["extract", "--input-dir", str(folder), "--json", "--no-blocks", "-o", f"{out}/"]) == 0
    outputs = sorted(out.iterdir())
    assert len(outputs) == len(set(names) | {b"caf\xe9.html"})
    rows = [json.loads(path.read_bytes().decode("utf-8")) for path in outputs]  # names and contents are UTF-8
    assert all(FIRST_LINE in row["main_text"] for row in rows)
    assert {row["source"].rsplit("/", 1)[1] for row in rows} >= {"caf\\xe9.html"}
    assert "caf_.json" in {path.name.encode("utf-8").decode() for path in outputs}


def test_a_file_name_that_is_not_utf8_heads_its_text_on_standard_output(tmp_path, capsys):
    for name in (b"caf\xe9.html", b"zz.html"):
        (tmp_path / os.fsdecode(name)).write_bytes(f"<p>{FIRST_LINE}, in a file of the folder.</p>".encode())
    assert main(["extract", str(tmp_path / os.fsdecode(b"caf\xe9.html")), str(tmp_path / "zz.html")]) == 0
    out = capsys.readouterr().out
    assert out.count(FIRST_LINE) == 2 and "caf\\xe9.html <==" in out
    out.encode("utf-8")
