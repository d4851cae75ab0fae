"""The FastWARC path reads exactly what warcio reads: rows, counts and damage messages, whole or in pieces."""

from __future__ import annotations

import gzip
import io
import random
import uuid
from collections import Counter

import brotli
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_web2text.batch import warc
from scrapy_web2text.batch._fastwarc import fastwarc_reads
from scrapy_web2text.batch.warc import plan_chunks, read_html

from ..warc_support import arc_archive, mixed_archive

PAGE = b"<html><head><title>Varied</title></head><body><p>" + b"Words on a page. " * 40 + b"</p></body></html>"


def chunked(data: bytes, size: int = 100) -> bytes:
    pieces = [data[i : i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def handmade(
    url: str, block: bytes, kind: str = "response", spacing: bytes = b" ", date: bytes = b"2024-05-01T12:00:00Z"
) -> bytes:
    """A WARC record written byte by byte: warcio's writer would tidy the odd HTTP headers up."""
    headers = [
        (b"WARC-Type", kind.encode()),
        (b"WARC-Record-ID", b"<urn:uuid:%s>" % str(uuid.uuid4()).encode()),
        (b"WARC-Target-URI", url.encode()),
        (b"WARC-Date", date),
        (b"Content-Type", b"application/http; msgtype=response"),
        (b"Content-Length", str(len(block)).encode()),
    ]
    lines = b"".join(name + b":" + spacing + value + b"\r\n" for name, value in headers)
    return b"WARC/1.0\r\n" + lines + b"\r\n" + block + b"\r\n\r\n"


def varied_archive(path, compressed: bool, odd_warc_header: bool = False):
    """Every record type, encoded bodies, odd HTTP headers and URIs, a dns: record, an empty and a large body."""
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=compressed)

        def response(url, body, headers=(), status="200 OK", content_type="text/html"):
            http = StatusAndHeaders(status, [("Content-Type", content_type), *headers], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))

        def raw(url, block, content_type="application/http; msgtype=response", kind="response"):
            record = writer.create_warc_record(
                url, kind, payload=io.BytesIO(block), length=len(block), warc_content_type=content_type
            )
            writer.write_record(record)

        def odd(url, head: bytes, **kwargs):
            record = handmade(url, head + PAGE, **kwargs)
            stream.write(gzip.compress(record) if compressed else record)

        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "parity test"}))
        for number in range(3):
            response(f"http://x.example/{number}", PAGE.replace(b"Varied", b"Page %d" % number))
        response("http://x.example/gzip", gzip.compress(PAGE), [("Content-Encoding", "gzip")])
        response("http://x.example/br", brotli.compress(PAGE), [("Content-Encoding", "br")])
        response("http://x.example/chunked", chunked(PAGE), [("Transfer-Encoding", "chunked")])
        response("http://x.example/bad-br", b"not brotli", [("Content-Encoding", "br")])
        response("http://x.example/plain", PAGE, content_type="text/plain")
        response("http://x.example/twice", PAGE, [("Content-Type", "text/plain")])  # the first one counts
        response("http://x.example/json", b'{"a": 1}', status="404 Not Found", content_type="application/json")
        response("http://x.example/empty", b"")
        response("http://x.example/large", PAGE * 40)
        response("http://x.example/charset", PAGE, content_type="text/html; charset=x-nope")
        odd("http://x.example/folded", b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\n")
        odd("http://x.example/no-colon", b"HTTP/1.1 200 OK\r\nbroken line\r\nContent-Type:text/html \r\n\r\n")
        odd("http://x.example/lf", b"HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n\n")
        odd("http://x.example/latin", b"HTTP/1.1 200 OK\r\nX-Note: caf\xe9\r\nContent-Type: text/html\r\n\r\n")
        odd("http://x.example/status", b"HTTP/1.0 2xx\r\nContent-Type: text/html\r\n\r\n")
        odd("http://x.example/no-status", b"\r\nContent-Type: text/html\r\n\r\n")
        odd("<http://x.example/angle>", b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
        raw("dns:x.example", b"20260101000000\nx.example. 60 IN A 10.0.0.1\n", "text/dns")
        raw("http://x.example/resource", PAGE, "text/html", kind="resource")
        raw("http://x.example/", b"GET / HTTP/1.1\r\nHost: x.example\r\n\r\n", "application/http", kind="request")
        raw("http://x.example/void", b"")  # a response of length 0: no HTTP headers
        raw("http://x.example/revisit", b"HTTP/1.1 304 Not Modified\r\n\r\n", kind="revisit")
        raw("http://x.example/meta", b"via: http://x.example/\n", "application/warc-fields", kind="metadata")
        if odd_warc_header:  # from here on warcio reads
            odd("http://x.example/tight", b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", spacing=b"")
            odd("http://x.example/folded-date", b"HTTP/1.1 200 OK\r\n\r\n", date=b"2024-05-01\r\n T12:00:00Z")
        response("http://x.example/last", PAGE)
    return path


def read(path, fast: bool, monkeypatch, offset=0, records=None, max_bytes=warc.DEFAULT_MAX_BYTES):
    monkeypatch.setattr(warc, "_FAST", fast)
    counts = Counter()
    return list(read_html(path, counts, offset, records, max_bytes)), counts


def plan(path, fast: bool, monkeypatch, per_piece: int) -> list[tuple[int, int]]:
    monkeypatch.setattr(warc, "_FAST", fast)
    return plan_chunks(path, per_piece)


def assert_same(path, monkeypatch, per_piece=None, max_bytes=warc.DEFAULT_MAX_BYTES):
    fast = read(path, True, monkeypatch, max_bytes=max_bytes)
    assert fast == read(path, False, monkeypatch, max_bytes=max_bytes)
    pieces = plan(path, True, monkeypatch, per_piece or 3)
    assert pieces == plan(path, False, monkeypatch, per_piece or 3)
    for offset, records in pieces:
        piece = read(path, True, monkeypatch, offset, records, max_bytes)
        assert piece == read(path, False, monkeypatch, offset, records, max_bytes), (offset, records)
    return fast


def spied(monkeypatch) -> Counter:
    """How often warcio reads, by the number of records asked for (``None``: to the end)."""
    calls, reader = Counter(), warc._read_warcio

    def spy(path, counts, offset, records, max_bytes, skip=0):
        calls[records] += 1
        return reader(path, counts, offset, records, max_bytes, skip)

    monkeypatch.setattr(warc, "_read_warcio", spy)
    return calls


@pytest.mark.parametrize("odd_warc_header", [False, True])
@pytest.mark.parametrize("compressed", [True, False])
@pytest.mark.parametrize("max_bytes", [warc.DEFAULT_MAX_BYTES, 2000, 0])
def test_the_fast_path_reads_a_varied_archive_as_warcio_does(
    tmp_path, monkeypatch, compressed, max_bytes, odd_warc_header
):
    path = varied_archive(tmp_path / ("v.warc.gz" if compressed else "v.warc"), compressed, odd_warc_header)
    records, counts = assert_same(path, monkeypatch, max_bytes=max_bytes)
    assert counts["records"] == 28 + 2 * odd_warc_header and counts["truncated"] == 0 and counts["bad_charset"] == 1
    assert records[0].body.startswith(b"<html><head><title>Page 0")
    decoded = [record.body for record in records if record.url.rsplit("/", 1)[1] in ("gzip", "br", "chunked")]
    assert decoded == [PAGE] * 3
    assert counts["skipped/too_large"] == (max_bytes == 2000)
    assert {record.url.rsplit("/", 1)[1]: record.charset for record in records if record.charset} == {
        "charset": "x-nope",
        "folded": "utf-8",  # the continuation line joined to its header
        "lf": "utf-8",
    }


@pytest.mark.parametrize("compressed", [True, False])
def test_the_fast_path_leaves_only_what_it_cannot_decode_to_warcio(tmp_path, monkeypatch, compressed):
    path, expected = mixed_archive(tmp_path / ("m.warc.gz" if compressed else "m.warc"), compressed, seed=9, pages=5)
    calls = spied(monkeypatch)
    records, counts = read(path, True, monkeypatch)
    assert calls == Counter() and counts["records"] == expected.records  # a clean archive: no warcio at all
    binary = {record.url for record in records if record.url.endswith("/noise.html")}  # extract() skips it later
    assert [record.url for record in records if record.url not in binary] == [page["url"] for page in expected.html]
    # Record by record: the encoded bodies (gzip, br, chunked, bad br), the HTTP headers out of the ordinary
    # (folded, LF only, Latin-1, no status line) and the angle-bracket URI.
    read(varied_archive(tmp_path / "v.warc", compressed), True, monkeypatch)
    assert calls == Counter({1: 9})
    # WARC headers FastWARC reads otherwise than they are written (no space after the colon, a folded line):
    # warcio reads the archive again and gives out what follows.
    calls.clear()
    read(varied_archive(tmp_path / "odd.warc", compressed, odd_warc_header=True), True, monkeypatch)
    assert calls == Counter({1: 9, None: 1})


def damaged_copy(path, mode: str, where: float, seed: int):
    data = bytearray(path.read_bytes())
    at = int(len(data) * where)
    if mode == "cut":
        data = data[:at]
    elif mode == "corrupt":
        data[at : at + 64] = random.Random(seed).randbytes(len(data[at : at + 64]))
    else:
        data[at] ^= 1 << seed % 8
    path.write_bytes(bytes(data))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    compressed=st.booleans(),
    varied=st.booleans(),
    mode=st.sampled_from(["cut", "corrupt", "flip"]),
    where=st.floats(0, 0.999),
    seed=st.integers(0, 2**16),
    per_piece=st.integers(1, 6),
)
def test_the_fast_path_reads_a_damaged_archive_as_warcio_does(
    tmp_path, monkeypatch, compressed, varied, mode, where, seed, per_piece
):
    name = "d.warc.gz" if compressed else "d.warc"
    path = (
        varied_archive(tmp_path / name, compressed)
        if varied
        else mixed_archive(tmp_path / name, compressed, seed=4, pages=3)[0]
    )
    damaged_copy(path, mode, where, seed)
    assert_same(path, monkeypatch, per_piece)


def test_arc_files_and_other_formats_are_left_to_warcio(tmp_path, monkeypatch):
    arc = arc_archive(tmp_path / "a.arc.gz", seed=4, pages=3)[0]
    plain, compressed = varied_archive(tmp_path / "v.warc", False), varied_archive(tmp_path / "v.warc.gz", True)
    assert [fastwarc_reads(path, 0) for path in (arc, plain, compressed)] == [False, True, True]
    assert not fastwarc_reads(tmp_path / "missing.warc", 0)  # warcio's reader reports it when read
    calls = spied(monkeypatch)
    records, counts = assert_same(arc, monkeypatch)
    assert calls[None] >= 1 and len(records) == counts["html"] == 3
