"""Web archives in, HTML pages out: WARC and ARC records read with warcio, HTML picked by header and content.

Why warcio: it is the Webrecorder project's maintained streaming reader and writer, reads WARC *and* ARC,
gzip-compressed (record by record) or not, and decodes chunked and gzip-encoded HTTP bodies.  WARC records are read
first with FastWARC (it comes with Resiliparse; a record then takes about half the time), and only while it is sure
to read them as warcio does (``_fastwarc``); warcio reads the rest: ARC files, encoded bodies, damage, anything
unusual.

Only ``response`` records whose HTTP payload is HTML are kept.  Everything
else is counted by reason: the record type (``request``, ``metadata``,
``warcinfo``, ``revisit``, ``resource`` ...), ``image``, ``pdf``,
``not_html`` (another declared type), ``no_http`` (a response without HTTP
headers, such as ``dns:`` records), ``empty`` and ``too_large``.

A record that cannot be read (a payload that does not decode, a record cut
short, an archive that ends inside a record or a gzip member) is one
:class:`HtmlRecord` with ``error`` set, counted under ``unreadable``; damage
to the archive itself (truncation, garbage in place of a record) is also
counted under ``truncated``, and reading that archive stops there.  Records
before the damage come out as usual.  Brotli bodies (``Content-Encoding:
br``) are decoded here, not by warcio, whose brotli hook fails with brotli
1.2.
"""

from __future__ import annotations

import codecs
import email.message
import functools
import gzip
import importlib.util
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .._extras import missing_extra
from . import DEFAULT_MAX_BYTES
from ._fastwarc import fastwarc_reads, plan_fast, read_fast

# warcio is imported where a record needs it: FastWARC reads most archives whole, and warcio's import takes 0.05 s.
if importlib.util.find_spec("warcio") is None:
    raise missing_extra("warcio", "warc", "reading web archives")

#: Declared types that are HTML.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: Declared types that say nothing about the bytes, so the content decides.
SNIFFED_TYPES = frozenset({"", "application/octet-stream", "unknown/unknown", "application/unknown", "*/*"})
#: Leading bytes of formats that are never HTML, whatever the header says.
MAGIC = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "image"),
    (b"\xff\xd8\xff", "image"),
    (b"GIF87a", "image"),
    (b"GIF89a", "image"),
    (b"BM", "image"),
    (b"\x00\x00\x01\x00", "image"),
)
HTML_OPENINGS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<title", b"<!--", b"<p", b"<div", b"<meta")
#: ``False`` reads with warcio alone (the parity tests compare both paths).
_FAST = True


@dataclass(frozen=True, slots=True)
class HtmlRecord:
    """One HTML response: its payload bytes and what the archive says about it."""

    url: str | None
    record_id: str | None
    date: str | None
    status: int | None
    charset: str | None
    body: bytes
    #: Why the record could not be read (``body`` is then empty); ``None`` for a record read whole.
    error: str | None = None


def media_type(content_type: str | None) -> tuple[str, str | None]:
    """``("text/html", "iso-8859-1")`` from ``"text/html; charset=ISO-8859-1"``; charset ``None`` if not given."""
    if not content_type:
        return "", None
    if len(content_type) <= 200:  # the cache holds short values only: its memory stays bounded
        return _cached_media_type(content_type)
    return _parse_media_type(content_type)


def _parse_media_type(content_type: str) -> tuple[str, str | None]:
    message = email.message.Message()
    message["Content-Type"] = content_type
    declared = message.get_content_type() if "/" in content_type.split(";", 1)[0] else ""
    charset = message.get_content_charset()
    return declared.lower(), charset.strip() if charset and charset.strip() else None


#: An archive repeats a handful of Content-Type values, and email's header parser is slow.
_cached_media_type = functools.lru_cache(maxsize=512)(_parse_media_type)


def sniff(head: bytes) -> str | None:
    """The skip reason for a payload that starts with ``head``, or ``None`` if it looks like HTML."""
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    if head[4:12] in (b"ftypavif", b"ftypheic") or (head.startswith(b"RIFF") and head[8:12] == b"WEBP"):
        return "image"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or head[:1] == b"\x00" or head[1:2] == b"\x00":
        head = head.replace(b"\x00", b"")[2 if head[:2] in (b"\xff\xfe", b"\xfe\xff") else 0 :]  # UTF-16's ASCII
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n\f").lower()
    return None if start.startswith(HTML_OPENINGS) else "not_html"


def classify(declared: str, head: bytes) -> str | None:
    """``None`` for HTML, else why the payload is skipped; the header decides unless it is missing or generic."""
    by_content = sniff(head)
    if by_content in ("pdf", "image"):
        return by_content
    if declared in HTML_TYPES:
        return None
    if declared in SNIFFED_TYPES:
        return by_content
    if declared.startswith("image/"):
        return "image"
    if declared == "application/pdf":
        return "pdf"
    return "not_html"


#: How a WARC record (``WARC/1.0``, ``WARC/1.1``) and an ARC file's first record (``filedesc://``) begin.
ARCHIVE_OPENINGS = (b"WARC/", b"filedesc://")


def check_archive(path: str | Path) -> None:
    """``ValueError`` naming ``path`` unless it starts like a WARC or ARC file, gzip-compressed or not."""
    with Path(path).open("rb") as stream:
        head = stream.read(64)
    if head.startswith(b"\x1f\x8b"):
        try:
            with gzip.open(path, "rb") as stream:
                head = stream.read(64)
        except (OSError, EOFError, zlib.error):
            head = b""
    if not head.startswith(ARCHIVE_OPENINGS):
        raise ValueError(f"{path} is not a WARC or ARC file (it starts with {head[:16]!r})")


def _open(path: Path, offset: int):
    stream = path.open("rb")
    stream.seek(offset)
    return stream


def plan_chunks(path: str | Path, records_per_chunk: int) -> list[tuple[int, int]]:
    """``(offset, records)`` pieces of at most ``records_per_chunk`` records that cover the archive.

    Record offsets are where warcio starts a record, so a piece can be read
    on its own (a gzip-compressed archive is one gzip member per record);
    FastWARC lists them when it reads the whole archive cleanly.
    """
    if records_per_chunk < 1:
        raise ValueError(f"records per chunk must be at least 1, not {records_per_chunk}")
    if _FAST and (pieces := plan_fast(path, records_per_chunk)) is not None:
        return pieces  # FastWARC read the whole archive, record after record: warcio would find the same
    from warcio.archiveiterator import ArchiveIterator

    pieces: list[tuple[int, int]] = []
    with _open(Path(path), 0) as stream:
        records = ArchiveIterator(stream, arc2warc=False)
        try:
            for index, _record in enumerate(records):
                if index % records_per_chunk == 0:
                    pieces.append((records.get_record_offset(), 0))
                offset, count = pieces[-1]
                pieces[-1] = (offset, count + 1)
        except Exception:  # damage: the last piece takes it in, and reports it as a row
            offset, count = pieces[-1] if pieces else (0, 0)
            pieces[-1:] = [(offset, count + 1)]
    # At least one piece: the reader of an archive cut before its first record reports the cut.
    return pieces or [(0, 0)]


def _arc_date(value: str | None) -> str | None:
    from warcio.timeutils import timestamp_to_iso_date

    try:
        return timestamp_to_iso_date(value) if value else None
    except (ValueError, TypeError):
        return None


def read_html(
    path: str | Path,
    counts: Counter,
    offset: int = 0,
    records: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Iterator[HtmlRecord]:
    """The HTML responses among ``records`` records from ``offset`` (all, if ``None``); counts everything.

    ``counts`` receives ``records``, ``html``, ``skipped/<reason>``,
    ``unreadable`` and ``truncated`` (see the module documentation);
    ``bad_charset`` counts header charsets Python does not know (the page's
    own declaration decides for those, as in :func:`scrapy_web2text.extract`).
    """
    if _FAST and fastwarc_reads(path, offset):
        return read_fast(path, counts, offset, records, max_bytes, _read_warcio, _fast_row)
    return _read_warcio(path, counts, offset, records, max_bytes)


def _fast_row(
    url: str, record_id: str | None, date: str | None, code: str, content_type: str | None, body: bytes, counts, limit
) -> HtmlRecord | None:
    """The row :func:`_read_record` makes of a response the FastWARC path read (``code``: the status's first word)."""
    declared, charset = media_type(content_type)
    if not is_html(body, declared, charset, counts, limit):
        return None
    return HtmlRecord(url, record_id, date, _status(code), charset, body)


def _read_warcio(
    path: str | Path, counts: Counter, offset: int, records: int | None, max_bytes: int, skip: int = 0
) -> Iterator[HtmlRecord]:
    """:func:`read_html` with warcio alone, the first ``skip`` records read but not given out nor counted.

    The FastWARC path hands over to it at its first doubt (``skip``: the records it gave out).
    """
    from warcio.archiveiterator import ArchiveIterator

    with _open(Path(path), offset) as stream:
        iterator = ArchiveIterator(stream, arc2warc=False)
        index, last, damage = 0, None, None
        while damage is None:
            ours = records is None or index < records  # the next record, if any, is another piece's
            mine = index >= skip
            try:
                record = next(iterator, None)
                if record is None:
                    damage = _tail_damage(stream, sum(last) if last else offset)  # the last piece's to check
                    break
                if not ours:
                    return
                seen: Counter = Counter()  # a record cut short counts as that, not as what its start looked like
                read = _read_record(record, seen, max_bytes)
                iterator.read_to_end()
                last = iterator.member_info
                damage = _cut_short(record, iterator)
                if mine or damage is not None:
                    counts.update(seen if damage is None else {"records": 1})
            except Exception as error:  # warcio's own errors are of many types
                if not ours:
                    return
                damage = f"{type(error).__name__}: {error}"
                record = None
            index += 1
            if damage is None and read is not None and mine:
                yield read
    if damage is not None:
        counts["truncated"] += 1
        counts["unreadable"] += 1
        where = last[0] if record is not None else sum(last) if last else offset
        message = f"archive damaged at offset {where}: {damage}"
        yield (
            _error_record(record, message)
            if record is not None
            else HtmlRecord(None, None, None, None, None, b"", message)
        )


def _read_record(record, counts: Counter, max_bytes: int) -> HtmlRecord | None:
    """The HTML response in ``record`` (an error record if its payload does not decode), or ``None`` if skipped."""
    counts["records"] += 1
    arc = record.format == "arc"
    kind = "response" if arc and record.rec_type == "response" else record.rec_type
    if arc and kind == "arc_header":
        kind = "warcinfo"
    if kind != "response":
        counts[f"skipped/{kind}"] += 1
        return None
    if record.http_headers is None:
        counts["skipped/no_http"] += 1
        return None
    declared, charset = media_type(record.http_headers.get_header("Content-Type"))
    try:
        body = _payload(record, max_bytes + 1 if max_bytes else -1)
    except Exception as error:  # one bad payload is one row, never the archive
        counts["unreadable"] += 1
        return _error_record(record, f"unreadable payload: {type(error).__name__}: {error}")
    return _error_record(record, None, charset, body) if is_html(body, declared, charset, counts, max_bytes) else None


def is_html(body: bytes, declared: str, charset: str | None, counts: Counter, max_bytes: int) -> bool:
    """Whether a response's decoded ``body`` is a page to keep; counts it as ``html`` or ``skipped/<reason>``."""
    if not body or body.isspace():  # what body.strip() would strip, without copying the page
        counts["skipped/empty"] += 1
        return False
    reason = classify(declared, body[:512])
    if reason is None and max_bytes and len(body) > max_bytes:
        reason = "too_large"
    if reason is not None:
        counts[f"skipped/{reason}"] += 1
        return False
    if charset is not None and not _known_codec(charset):
        counts["bad_charset"] += 1
    counts["html"] += 1
    return True


def _error_record(record, error: str | None, charset: str | None = None, body: bytes = b"") -> HtmlRecord:
    """An :class:`HtmlRecord` for ``record``: what the archive says about it, and ``body`` or ``error``."""
    arc = record.format == "arc"
    headers = record.rec_headers
    http = record.http_headers
    return HtmlRecord(
        url=headers.get_header("uri") if arc else headers.get_header("WARC-Target-URI"),
        # ARC has no record ids (warcio would invent a new one on every read).
        record_id=None if arc else headers.get_header("WARC-Record-ID"),
        date=_arc_date(headers.get_header("archive-date")) if arc else headers.get_header("WARC-Date"),
        status=_status(http.get_statuscode()) if http is not None else None,
        charset=charset,
        body=body,
        error=error,
    )


#: Compressed bytes read at a time when decoding a brotli body.
BROTLI_CHUNK = 1 << 16


def _payload(record, limit: int) -> bytes:
    """At most ``limit`` bytes (all, if -1) of the decoded HTTP payload; brotli is decoded here."""
    if (record.http_headers.get_header("Content-Encoding") or "").strip().lower() != "br":
        stream = record.content_stream()
        return stream.read() if limit < 0 else stream.read(limit)  # warcio's limited reader reads b"" for -1
    import brotli  # Scrapy's own dependency; only brotli bodies need it
    from warcio.bufferedreaders import ChunkedDataReader

    raw = record.raw_stream
    if record.http_headers.get_header("Transfer-Encoding") == "chunked":
        raw = ChunkedDataReader(raw)
    decoder, out, size = brotli.Decompressor(), [], 0
    while limit < 0 or size < limit:
        data = raw.read(BROTLI_CHUNK) if decoder.can_accept_more_data() else b""
        if not data and decoder.is_finished():
            break
        # The output limit keeps a small body that expands to gigabytes from being decoded whole.
        piece = decoder.process(data, output_buffer_limit=BROTLI_CHUNK)
        if not data and not piece:
            raise ValueError("the brotli body ends before its last block")
        out.append(piece)
        size += len(piece)
    body = b"".join(out)
    return body if limit < 0 else body[:limit]


def _cut_short(record, iterator) -> str | None:
    """Why ``record``, read to its end, is not whole; ``None`` if it is.

    warcio reads a record cut short (by the end of the file or of its gzip
    member) as if it were whole, so the reader's remaining length and the gzip
    member's end are checked here.
    """
    if record.format != "arc" and not (record.rec_headers.get_header("Content-Length") or "").strip().isdigit():
        # WARC requires one; warcio reads a header cut after "Content-Length:" as a record of no block
        return "the record's header is cut short (it has no Content-Length)"
    missing = getattr(record.raw_stream, "limit", 0)
    if missing:
        return f"the archive ends {missing} bytes before this record does"
    member = iterator.reader.decompressor
    if member is not None and not member.eof:
        return "the gzip member of this record is cut short"
    return None


def _tail_damage(stream, end: int) -> str | None:
    """Why the archive from ``end`` (of the last whole record) on is not a clean end; ``None`` if it is.

    warcio ends its iteration quietly at bytes it cannot parse (a record's
    header cut short, its gzip member cut in its first bytes), so nothing but
    blank lines may follow the last record.
    """
    stream.seek(end)
    while data := stream.read(BROTLI_CHUNK):
        if data.strip(b"\r\n\x00"):
            return f"{stream.seek(0, 2) - end} bytes at its end are no whole record"
    return None


def _status(code: str | None) -> int | None:
    try:
        return int(code) if code else None
    except ValueError:
        return None


def _known_codec(label: str) -> bool:
    try:
        codecs.lookup(label)
    except LookupError:
        return False
    return True
