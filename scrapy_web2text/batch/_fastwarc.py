"""WARC records read with FastWARC while it is sure to read them as warcio does; warcio reads the rest.

warcio parses in Python, which costs about three times what FastWARC's
compiled reader does per record.  The rule that keeps the rows, counts and
messages exactly those of :func:`~scrapy_web2text.batch.warc._read_warcio`:
a record comes out of this path only when FastWARC read its whole block and
the next record (or the end of the file) starts exactly where this one ends
(plain archives: its header, block and closing blank lines; gzip archives:
the next gzip member, whose predecessor's trailer gives this record's
length).  At the first doubt (FastWARC raises, a position that does not line
up, a header out of the ordinary) warcio reads the piece again from its
start, passing over the records already given out, so damage is always
reported by warcio as it reports it alone.  A whole record whose payload
this path does not decode itself (an encoded or chunked body, HTTP headers
out of the ordinary, an unusual URI, a block far over the size limit) is
read alone by warcio, and this path goes on after it.  Planning follows the
same rule: FastWARC's plan is kept only when every record of the archive
passed it.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path

try:
    from fastwarc.warc import ArchiveIterator
except ImportError:  # Resiliparse without FastWARC: warcio reads everything
    ArchiveIterator = None

#: Record types whose block warcio parses as HTTP when their URI is ``http:`` or ``https:``.
HTTP_RECORDS = frozenset({b"response", b"request", b"revisit"})
#: WARC versions whose records both readers parse alike.
VERSIONS = frozenset({"WARC/1.0", "WARC/1.1"})
#: A block this much over the size limit is read by warcio, which stops at the limit (this path reads blocks whole).
SLACK = 1 << 16

#: The warcio reader, and the function that makes a row (or counts a skip) of a response's payload; both from
#: ``warc``, which imports this module.
Reader = Callable[..., Iterator]
Judge = Callable[..., object]


def fastwarc_reads(path: str | Path, offset: int) -> bool:
    """Whether the archive holds WARC records from ``offset`` (plain or gzip per record), so FastWARC may read."""
    if ArchiveIterator is None:
        return False
    try:
        with Path(path).open("rb") as stream:
            stream.seek(offset)
            head = stream.read(512)
    except OSError:
        return False  # warcio's reader reports it, as before
    if head.startswith(b"\x1f\x8b"):
        try:
            head = zlib.decompressobj(31).decompress(head, 16)
        except zlib.error:
            return False
    return head.startswith(b"WARC/")


def read_fast(
    path: str | Path,
    counts: Counter,
    offset: int,
    records: int | None,
    max_bytes: int,
    fallback: Reader,
    judge: Judge,
) -> Iterator:
    """:func:`~scrapy_web2text.batch.warc.read_html` for WARC files; ``fallback`` is the warcio reader."""
    with Path(path).open("rb") as stream:
        fd = stream.fileno()
        compressed = os.pread(fd, 2, offset) == b"\x1f\x8b"
        end = os.fstat(fd).st_size
        stream.seek(offset)
        iterator = ArchiveIterator(stream, parse_http=False, auto_decode="none", fsspec_args=False)
        done = 0  # records given out (or read by warcio alone)
        held = None  # (offset, length, what it holds) of the record read but not known to be whole yet
        while True:
            try:
                record = next(iterator, None)
            except Exception:  # FastWARC's errors: warcio reads again, and reports them
                break
            if record is None:  # the held record must end the file
                if held is not None and _follows(fd, compressed, *held[:2], end):
                    if (yield from _give(path, counts, *held, max_bytes, fallback)):
                        return
                break
            position = record.stream_pos
            if held is not None:
                if not _follows(fd, compressed, *held[:2], position):
                    break
                if not (yield from _give(path, counts, *held, max_bytes, fallback)):
                    break
                done += 1
                held = None
            elif position != offset:
                break
            if records is not None and done == records:
                if _whole(record):
                    return  # the next record is another piece's; warcio too stops at a record it can parse
                break
            try:
                length, content = _read(record, max_bytes, judge)
            except Exception:
                break
            if length < 0:
                break
            held = (position, length, content)
    # warcio reads the piece again from its start, so that its messages and counts are exactly those it gives
    # when it reads the piece alone (where a damaged gzip member fails depends on where its reads began).
    yield from fallback(path, counts, offset, records, max_bytes, done)


def _give(path, counts, begin, _length, content, max_bytes, fallback):
    """Give out a whole record: its row if any, or warcio's reading of it; ``False`` if warcio found it damaged."""
    if content is None:  # a whole record this path leaves to warcio
        alone: Counter = Counter()
        rows = list(fallback(path, alone, begin, 1, max_bytes))
        if alone["truncated"]:
            return False  # warcio reads the piece again, and reports it as it does alone
        counts.update(alone)
        yield from rows
        return True
    seen, row = content
    counts.update(seen)
    if row is not None:
        yield row
    return True


def _follows(fd: int, compressed: bool, begin: int, length: int, position: int) -> bool:
    """Whether a record at ``position`` starts where the one at ``begin``, ``length`` bytes long, ends."""
    if not compressed:  # warcio skips the blank lines after a record, and takes the first line after it for one
        return position == begin + length and os.pread(fd, 4, position - 4) == b"\r\n\r\n"
    # One gzip member per record: the member before the next one is this record's (its trailer holds its length).
    return position > begin and int.from_bytes(os.pread(fd, 4, position - 4), "little") == length & 0xFFFFFFFF


def _whole(record) -> bool:
    """Whether the record's block is there in full, as its Content-Length says."""
    declared = record.headers.get_bytes(b"Content-Length") or b""
    size = record.content_length
    return declared.isdigit() and int(declared) == size and record.reader.consume() == size


def _measure(record) -> tuple[int, dict[bytes, bytes], int]:
    """The record's length as written (WARC header, block, blank lines), its WARC header by lower-cased name, and
    its block's size; the length is -1 for a record warcio might read otherwise (or fail on).
    """
    headers = record.headers
    items = headers.items_bytes()
    # The version line, every "name: value" line, the header's end and the blank lines after the block.
    length = len(headers.status_line_bytes or b"") + 8 + 4 * len(items) + sum(map(len, chain.from_iterable(items)))
    fields = {name.lower(): value for name, value in reversed(items)}  # the first of a name counts, as for warcio
    size = record.content_length
    declared_size = fields.get(b"content-length", b"")
    if headers.status_line not in VERSIONS or not declared_size.isdigit() or int(declared_size) != size:
        return -1, fields, size
    if size and fields.get(b"warc-type") in HTTP_RECORDS and b"warc-target-uri" not in fields:
        return -1, fields, size  # warcio fails on it, and reports that
    return length + size, fields, size


def plan_fast(path: str | Path, records_per_chunk: int) -> list[tuple[int, int]] | None:
    """The pieces :func:`~scrapy_web2text.batch.warc.plan_chunks` makes, or ``None`` at any doubt.

    Sure only of an archive FastWARC reads whole, every record starting where
    the one before ends and the last one ending the file.
    """
    if not fastwarc_reads(path, 0):
        return None
    offsets: list[int] = []
    with Path(path).open("rb") as stream:
        fd = stream.fileno()
        compressed = os.pread(fd, 2, 0) == b"\x1f\x8b"
        held = (0, 0)  # the first record starts the file
        try:
            for record in ArchiveIterator(stream, parse_http=False, auto_decode="none", fsspec_args=False):
                position = record.stream_pos
                if not (_follows(fd, compressed, *held, position) if offsets else position == 0):
                    return None
                length, _fields, size = _measure(record)
                if length < 0 or record.reader.consume() != size:
                    return None
                offsets.append(position)
                held = (position, length)
        except Exception:  # FastWARC's errors: warcio plans, and takes the damage into the last piece
            return None
        if not offsets or not _follows(fd, compressed, *held, os.fstat(fd).st_size):
            return None
    return [(offsets[i], len(offsets[i : i + records_per_chunk])) for i in range(0, len(offsets), records_per_chunk)]


def _read(record, max_bytes: int, judge: Judge) -> tuple[int, tuple[Counter, object] | None]:
    """The record's length as written (WARC header, block, blank lines) and what it holds.

    The length is -1 for a record that warcio might not read whole (a block
    cut short, an unusual header, see :func:`_measure`); what it holds is
    ``(counts, row or None)``, or ``None`` for a whole record that warcio must
    read alone.
    """
    length, fields, size = _measure(record)
    if length < 0:
        return -1, None
    kind = fields.get(b"warc-type")
    uri = fields.get(b"warc-target-uri")
    if kind is None or not kind.isascii():
        return length, None
    seen = Counter(records=1)
    if kind != b"response":
        if record.reader.consume() != size:
            return -1, None
        seen[f"skipped/{kind.decode()}"] += 1
        return length, (seen, None)
    if uri is not None and (not uri.isascii() or uri.startswith(b"<") or b" " in uri):
        return length, None  # warcio cleans such URIs up its own way
    if any(b"\n" in value or b"\r" in value for value in (uri or b"", *_row_fields(fields))):
        return length, None  # a folded WARC header: warcio joins its lines its own way
    if size == 0 or not uri.startswith((b"http:", b"https:")):
        if record.reader.consume() != size:
            return -1, None
        seen["skipped/no_http"] += 1
        return length, (seen, None)
    if max_bytes and size > max_bytes + SLACK:
        return length, None  # warcio reads such a block only up to the limit
    block = record.reader.read(size)
    if len(block) != size:
        return -1, None
    parsed = _http(block)
    if parsed is None:
        return length, None
    code, http, body = parsed
    if "content-encoding" in http or "transfer-encoding" in http:
        return length, None  # decoded by warcio and the brotli code
    if max_bytes:
        body = body[: max_bytes + 1]
    row = judge(
        uri.decode(),
        _text(fields.get(b"warc-record-id")),
        _text(fields.get(b"warc-date")),
        code,
        http.get("content-type"),
        body,
        seen,
        max_bytes,
    )
    return length, (seen, row)


def _row_fields(fields: dict[bytes, bytes]) -> tuple[bytes, bytes]:
    """The WARC header values a row shows besides the URI (empty where missing)."""
    return fields.get(b"warc-record-id", b""), fields.get(b"warc-date", b"")


def _http(block: bytes) -> tuple[str, dict[str, str], bytes] | None:
    """Status code (as written), headers (first of each name, lower-cased) and payload as warcio parses them.

    ``None`` unless sure: ASCII headers, every line ending in CRLF and not
    blank, no continuation line, a status line that starts with ``HTTP/``.
    warcio's parser then ends the headers at the first blank line and strips
    names and values as done here (a line with no colon it drops, as here).
    """
    end = block.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = block[:end]
    if not head.isascii():
        return None
    lines = head.decode("ascii").split("\r\n")
    breaks = len(lines) - 1
    if head.count(b"\n") != breaks or head.count(b"\r") != breaks:
        return None
    first = lines[0].rstrip()
    if not first.startswith("HTTP/"):
        return None
    parts = first.split(" ", 1)
    statusline = parts[1].strip() if len(parts) > 1 else ""
    http: dict[str, str] = {}
    for raw in lines[1:]:
        line = raw.rstrip()
        if not line or raw.startswith((" ", "\t")):
            return None  # warcio would end the headers here, or join the line to the one before
        name, colon, value = line.partition(":")
        if colon:
            http.setdefault(name.rstrip(" \t").lower(), value.lstrip())
    return statusline.split(" ", 1)[0], http, block[end + 4 :]


def _text(value: bytes | None) -> str | None:
    """A WARC header value as warcio decodes its line: UTF-8, else ISO-8859-1."""
    if value is None:
        return None
    try:
        return value.decode()
    except UnicodeDecodeError:
        return value.decode("iso-8859-1")
