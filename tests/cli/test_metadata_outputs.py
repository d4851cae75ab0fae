"""Metadata in the command line's outputs: ``web2text extract`` (JSON by default, text on request) and ``warc``."""

from __future__ import annotations

import json

from scrapy_web2text.batch.runner import Options, available_formats, extract_piece
from scrapy_web2text.cli import main
from scrapy_web2text.extraction import extract

from ..warc_support import mixed_archive

PAGE = (
    "<html lang='en'><head><title>Market plan</title>"
    '<meta property="og:site_name" content="Town Paper"><meta name="author" content="Ann Lee">'
    "</head><body><article><h1>Market plan</h1>"
    + "<p>The council announced a plan to restore the old market, and the residents were asked about it.</p>" * 4
    + "</article></body></html>"
)


def write_page(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_json_rows_carry_metadata_by_default_and_not_with_no_metadata(tmp_path, capsys):
    path = write_page(tmp_path)
    assert main(["extract", "--json", "--no-blocks", str(path)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["metadata"]["authors"] == ["Ann Lee"] and row["metadata"]["site_name"] == "Town Paper"
    assert row["metadata"]["sources"]["authors"] == "meta"
    assert main(["extract", "--json", "--no-metadata", str(path)]) == 0
    assert "metadata" not in json.loads(capsys.readouterr().out)


def test_text_output_has_a_metadata_header_only_on_request(tmp_path, capsys):
    path = write_page(tmp_path)
    assert main(["extract", str(path)]) == 0
    plain = capsys.readouterr().out
    assert "authors:" not in plain
    assert main(["extract", "--with-metadata", str(path)]) == 0
    header, _, text = capsys.readouterr().out.partition("\n\n")
    # front matter: between --- lines, each value in JSON (which YAML reads too)
    lines = header.splitlines()
    assert lines[0] == lines[-1] == "---" and len(lines) > 3
    assert 'authors: ["Ann Lee"]' in lines and 'site_name: "Town Paper"' in lines
    assert text.strip() == plain.strip()


def test_warc_rows_with_metadata_on_request(tmp_path, untrained_model):
    path, expected = mixed_archive(tmp_path / "a.warc.gz", compressed=True, seed=1, pages=4)
    plain, _ = extract_piece(str(path), 0, 10**6, Options(model=str(untrained_model)))
    rows, _ = extract_piece(str(path), 0, 10**6, Options(model=str(untrained_model), metadata=True))
    assert rows and all("metadata" not in row for row in plain)
    pages = {page["url"]: page for page in expected.html}
    for row in rows:
        if "skipped" in row:
            continue
        page = pages[row["url"]]
        reference = extract(page["body"], row["url"], model=str(untrained_model), encoding=page["charset"])
        assert row["metadata"] == reference.metadata.to_dict()
    assert "metadata" not in available_formats()  # not a rendering: --formats metadata stays an error
