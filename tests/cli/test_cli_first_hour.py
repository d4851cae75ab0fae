"""``web2text extract`` and its neighbours as a first-time user meets them beside trafilatura's command (issue 55):
piped input, CSV, a clear line for what is not a page or not a file, options that would be ignored refused."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest

from scrapy_web2text.cli import main

from ..helpers import FIXTURES
from .test_cli_inputs import BODY_WORDS, FIRST_LINE, web2text

ARTICLE = FIXTURES / "article.html"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(200)


def test_a_page_piped_in_is_read_without_a_dash():
    done = web2text("extract", input=ARTICLE.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(FIRST_LINE) and BODY_WORDS in done.stdout


def test_csv_has_a_header_and_a_row_per_input(tmp_path, capsys):
    second = tmp_path / "second.html"
    second.write_bytes(ARTICLE.read_bytes())
    assert main(["extract", "--format", "csv", str(ARTICLE), str(second)]) == 0
    out = capsys.readouterr().out
    reader = csv.DictReader(io.StringIO(out))
    rows = list(reader)
    assert reader.fieldnames[:3] == ["url", "title", "main_text"] and "authors" in reader.fieldnames
    assert "==>" not in out and len(rows) == 2
    for row, path in zip(rows, (ARTICLE, second), strict=True):
        assert row["url"] == path.resolve().as_uri() and row["title"] == FIRST_LINE
        assert BODY_WORDS in row["main_text"] and "\n" in row["main_text"]  # its lines kept, quoted
        assert isinstance(json.loads(row["tags"]), list)  # a list field as JSON
    assert main(["extract", "--format", "csv", "--no-metadata", str(ARTICLE)]) == 0
    assert next(csv.reader(io.StringIO(capsys.readouterr().out))) == ["url", "title", "main_text"]


def test_a_file_that_is_not_a_page_is_named_with_its_reason_and_fails(tmp_path, capsys):
    image = tmp_path / "x.png"
    image.write_bytes(PNG)
    assert main(["extract", str(image)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.strip().splitlines()
    assert "x.png" in line and "binary:png" in line and "not an HTML page" in line


def test_a_folder_given_as_an_input_points_at_input_dir(tmp_path, capsys):
    (tmp_path / "pages").mkdir()
    assert main(["extract", str(tmp_path / "pages")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert f"--input-dir {tmp_path / 'pages'}" in line and "folder" in line


def test_input_dir_refuses_a_single_output_file(tmp_path, capsys):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_bytes(ARTICLE.read_bytes())
    single = tmp_path / "single.txt"
    assert main(["extract", "--input-dir", str(tmp_path / "pages"), "-o", str(single)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "-o" in line and "folder" in line
    assert not single.exists()


@pytest.mark.parametrize("form", [[], ["--format", "markdown"], ["--format", "csv"]])
def test_no_blocks_without_json_is_refused(form, capsys):
    assert main(["extract", "--no-blocks", *form, str(ARTICLE)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "--no-blocks" in line and "--json" in line


def test_show_save_page_makes_its_folder(tmp_path, untrained_model):
    page = tmp_path / "pages" / "deeper" / "x.html"
    done = web2text(
        "show",
        str(ARTICLE),
        "-o",
        str(tmp_path / "view.html"),
        "--save-page",
        str(page),
        "--model",
        str(untrained_model),
    )
    assert done.returncode == 0, done.stderr
    assert page.read_bytes() == ARTICLE.read_bytes() and (tmp_path / "view.html").is_file()


def test_the_warc_hint_names_the_command_once(tmp_path, monkeypatch, capsys):
    archive = tmp_path / "a.warc.gz"
    archive.write_bytes(b"")
    for name in [
        name for name in sys.modules if name == "warcio" or name.startswith(("warcio.", "scrapy_web2text.batch.warc"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "warcio", None)  # not installed
    assert main(["warc", str(archive), "-o", str(tmp_path / "out.jsonl")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.count("web2text warc") == 1, line
    assert "warcio" in line and "pip install 'scrapy-web2text[warc]'" in line
