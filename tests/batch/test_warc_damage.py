"""Records that cannot be read and archives cut short or corrupted: one error row each, never a lost archive."""

from __future__ import annotations

import io
import random
from collections import Counter

import brotli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_web2text.batch.runner import Options, extract_piece
from scrapy_web2text.batch.warc import plan_chunks, read_html

from ..warc_support import arc_archive, mixed_archive

PAGE = (
    b"<html><head><title>Br</title></head><body><p>Compressed with brotli on the wire, then archived.</p></body></html>"
)


def write_records(path, bodies: list[tuple[bytes, list[tuple[str, str]]]], compressed: bool = True):
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=compressed)
        for number, (body, headers) in enumerate(bodies):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), *headers], protocol="HTTP/1.1")
            url = f"http://x.example/{number}"
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))
    return path


def test_brotli_bodies_are_decoded_and_a_bad_one_is_one_error_row(tmp_path):
    br = [("Content-Encoding", "br")]
    path = write_records(
        tmp_path / "br.warc.gz",
        [(PAGE, []), (brotli.compress(PAGE), br), (b"\x8b\x02\x80not brotli at all", br), (PAGE, [])],
    )
    counts = Counter()
    records = list(read_html(path, counts))
    assert [record.body for record in records] == [PAGE, PAGE, b"", PAGE]
    assert records[2].url == "http://x.example/2" and "brotli" in records[2].error.lower()
    assert [record.error is None for record in records] == [True, True, False, True]
    assert counts["unreadable"] == 1 and counts["truncated"] == 0 and counts["html"] == 3
    rows, piece_counts = extract_piece(str(path), 0, 4, Options())
    assert [row["main_text"] is not None for row in rows] == [True, True, False, True]
    assert "Compressed with brotli" in rows[1]["main_text"] and rows[2]["error"] == records[2].error
    assert piece_counts["errors"] == 1 and piece_counts["rows"] == 4


def test_a_brotli_bomb_is_cut_at_the_size_limit(tmp_path):
    bomb = brotli.compress(b"<p>" + b"a" * 50_000_000)
    path = write_records(tmp_path / "bomb.warc.gz", [(bomb, [("Content-Encoding", "br")])])
    counts = Counter()
    assert list(read_html(path, counts, max_bytes=100_000)) == []
    assert counts["skipped/too_large"] == 1


def archive(kind: str, folder):
    if kind == "arc":
        return arc_archive(folder / "a.arc.gz", seed=4, pages=3)[0]
    return mixed_archive(folder / f"a.{kind}", compressed=kind == "warc.gz", seed=4, pages=3)[0]


def record_spans(path) -> dict[str, tuple[int, int]]:
    """(start, end) in the file of each response record, by URL."""
    spans = {}
    with path.open("rb") as stream:
        records = ArchiveIterator(stream, arc2warc=False)
        for record in records:
            url = record.rec_headers.get_header("uri") or record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "response":
                spans[url] = (records.get_record_offset(), records.get_record_offset() + records.get_record_length())
    return spans


def read_in_pieces(path, per_piece: int) -> tuple[list, Counter]:
    counts = Counter()
    return [
        record for offset, n in plan_chunks(path, per_piece) for record in read_html(path, counts, offset, n)
    ], counts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["warc.gz", "warc", "arc"]), where=st.floats(0, 1), per_piece=st.integers(1, 6))
def test_an_archive_cut_anywhere_keeps_the_records_before_the_cut_and_reports_the_cut(tmp_path, kind, where, per_piece):
    path = archive(kind, tmp_path)
    data = path.read_bytes()
    whole = {record.url: record for record in read_html(path, Counter())}
    spans = record_spans(path)
    cut_at = int(len(data) * where)
    path.write_bytes(data[:cut_at])
    counts = Counter()
    records = list(read_html(path, counts))
    inside = any(start < cut_at < end for start, end in _all_spans(data))  # a cut between records goes unseen
    kept = [record for record in records if record.error is None]
    assert kept == [whole[url] for url in whole if spans[url][1] <= cut_at]
    assert counts["truncated"] == int(inside) and len(records) - len(kept) == int(inside)
    if inside:
        assert records[-1].error.startswith("archive damaged at offset")
    assert read_in_pieces(path, per_piece) == (records, counts)


def _all_spans(data: bytes) -> list[tuple[int, int]]:
    with io.BytesIO(data) as stream:
        records = ArchiveIterator(stream, arc2warc=False)
        return [
            (records.get_record_offset(), records.get_record_offset() + records.get_record_length()) for _ in records
        ]


def test_an_archive_cut_just_after_content_length_is_reported_cut(tmp_path):
    """warcio reads a header cut after ``Content-Length:`` as a record with no block: the cut must still show."""
    path = archive("warc", tmp_path)
    data = path.read_bytes()
    middle = data.index(b"Content-Length:", len(data) // 2) + len(b"Content-Length:")
    path.write_bytes(data[:middle])
    counts = Counter()
    records = list(read_html(path, counts))
    assert counts["truncated"] == 1 and records[-1].error.startswith("archive damaged at offset")
    assert "cut short" in records[-1].error
    assert read_in_pieces(path, 2) == (records, counts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["warc.gz", "warc", "arc"]), where=st.floats(0, 0.99), seed=st.integers(0, 2**16))
def test_a_corrupted_archive_never_fails_whole_and_keeps_the_records_before_the_damage(tmp_path, kind, where, seed):
    path = archive(kind, tmp_path)
    data = bytearray(path.read_bytes())
    whole = {record.url: record for record in read_html(path, Counter())}
    spans = record_spans(path)
    start = int(len(data) * where)
    data[start : start + 64] = random.Random(seed).randbytes(len(data[start : start + 64]))
    path.write_bytes(bytes(data))
    counts = Counter()
    records = list(read_html(path, counts))  # never raises
    kept = {record.url: record for record in records if record.error is None}
    assert all(kept[url] == whole[url] for url in whole if spans[url][1] <= start)
    assert (
        counts["unreadable"]
        == len(records) - len(kept)
        <= counts["truncated"] + sum(record.error is not None and "payload" in record.error for record in records)
    )
