"""Reading archives without a cluster: HTML sniffing, header charsets, encoded bodies, size guard, pieces."""

from __future__ import annotations

import gzip
import io
from collections import Counter

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_web2text.batch.warc import classify, media_type, plan_chunks, read_html

from ..warc_support import PDF, PNG, mixed_archive


@pytest.mark.parametrize(
    ("declared", "head", "reason"),
    [
        ("text/html", b"<!DOCTYPE html><html>", None),
        ("application/xhtml+xml", b"<?xml version='1.0'?><html>", None),
        ("text/html", PDF, "pdf"),
        ("text/html", PNG, "image"),
        ("", b"\xef\xbb\xbf  <html><body>", None),
        ("application/octet-stream", b"\n<!-- generated -->\n<div>", None),
        ("application/octet-stream", b"\x00\x01binary", "not_html"),
        ("", b"GIF89a....", "image"),
        ("image/svg+xml", b"<svg>", "image"),
        ("application/pdf", b"garbage", "pdf"),
        ("application/json", b"<html>", "not_html"),
        ("text/plain", b"<html>", "not_html"),
    ],
)
def test_classify(declared, head, reason):
    assert classify(declared, head) == reason


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("text/html; charset=ISO-8859-1", ("text/html", "iso-8859-1")),
        ('Text/HTML; Charset="utf-8"', ("text/html", "utf-8")),
        ("text/html;charset=", ("text/html", None)),
        ("text/html", ("text/html", None)),
        ("garbage", ("", None)),
        (None, ("", None)),
        ("text/html; charset=Big5; " + "x=y; " * 100, ("text/html", "big5")),  # long: read without the cache
    ],
)
def test_media_type(header, expected):
    assert media_type(header) == expected


def write_one(path, body: bytes, headers: list[tuple[str, str]]):
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
        writer.write_record(
            writer.create_warc_record("http://x.example/", "response", payload=io.BytesIO(body), http_headers=http)
        )
    return path


def test_gzip_content_encoding_is_decoded(tmp_path):
    page = b"<html><head><title>Zipped</title></head><body><p>Compressed on the wire.</p></body></html>"
    path = write_one(
        tmp_path / "z.warc.gz", gzip.compress(page), [("Content-Type", "text/html"), ("Content-Encoding", "gzip")]
    )
    counts = Counter()
    (record,) = read_html(path, counts)
    assert record.body == page and counts["html"] == 1


def test_size_guard_skips_large_pages(tmp_path):
    page = b"<html><body>" + b"<p>word</p>" * 1000 + b"</body></html>"
    path = write_one(tmp_path / "big.warc.gz", page, [("Content-Type", "text/html")])
    counts = Counter()
    assert list(read_html(path, counts, max_bytes=1000)) == []
    assert counts["skipped/too_large"] == 1
    assert len(list(read_html(path, Counter(), max_bytes=len(page)))) == 1


@pytest.mark.parametrize("compressed", [True, False])
def test_pieces_cover_the_archive_once(tmp_path, compressed):
    path, expected = mixed_archive(tmp_path / "p.warc", compressed=compressed, seed=5, pages=4)
    pieces = plan_chunks(path, 4)
    assert sum(records for _offset, records in pieces) == expected.records
    assert all(records == 4 for _offset, records in pieces[:-1])
    whole, parts = Counter(), Counter()
    urls = [record.url for record in read_html(path, whole)]
    pieced = [record.url for offset, records in pieces for record in read_html(path, parts, offset, records)]
    assert pieced == urls and parts == whole
    with pytest.raises(ValueError):
        plan_chunks(path, 0)
