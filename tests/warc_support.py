"""Small web archives for the warc tests, written with warcio's writer (ARC by hand: warcio writes no ARC).

Each builder returns the archive's path and what a correct reader must find in it: the HTML responses
(url, record id or ``None``, payload, header charset) and the skipped records by reason.
"""

from __future__ import annotations

import gzip
import io
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from .site import article_page

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


@dataclass
class Expected:
    html: list[dict] = field(default_factory=list)  # url, record_id, body, charset, title (the <title>)
    skipped: Counter = field(default_factory=Counter)
    records: int = 0
    bad_charsets: int = 0


class ArchiveBuilder:
    def __init__(self, path: Path, compressed: bool, seed: int):
        self.path, self.rng, self.expected = path, random.Random(seed), Expected()
        self.stream = path.open("wb")
        self.writer = WARCWriter(self.stream, gzip=compressed)

    def _write(self, record) -> str:
        self.writer.write_record(record)
        self.expected.records += 1
        return record.rec_headers.get_header("WARC-Record-ID")

    def response(self, url: str, body: bytes, content_type: str | None, skip: str | None = None, **html) -> None:
        headers = [("Content-Type", content_type)] if content_type else []
        http = StatusAndHeaders("200 OK", headers + [("Content-Length", str(len(body)))], protocol="HTTP/1.1")
        record = self.writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
        record_id = self._write(record)
        if skip:
            self.expected.skipped[skip] += 1
        else:
            self.expected.html.append({"url": url, "record_id": record_id, "body": body, **html})

    def article(
        self, url: str, charset: str = "utf-8", header_charset: str | None = "utf-8", meta: str | None = None, **kwargs
    ) -> None:
        html, _paragraphs = article_page(0, self.rng)
        # Accents, so that a wrong charset shows in the title and the text.
        html = html.replace("<title>", "<title>Café Zürich: ", 1).replace("<p>", "<p>Crème brûlée, façade. ", 1)
        title = html.split("<title>", 1)[1].split("</title>", 1)[0]
        html = html.replace('<meta charset="utf-8">', f'<meta charset="{meta or charset}">')
        content_type = kwargs.pop(
            "content_type", "text/html" + (f"; charset={header_charset}" if header_charset else "")
        )
        self.response(url, html.encode(charset), content_type, charset=header_charset, title=title, **kwargs)

    def request(self, url: str) -> None:
        http = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.com")], is_http_request=True)
        self._write(self.writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=http))
        self.expected.skipped["request"] += 1

    def metadata(self, url: str) -> None:
        payload = io.BytesIO(b"via: http://example.com/\nhopsFromSeed: L\n")
        self._write(self.writer.create_warc_record(url, "metadata", payload=payload, warc_content_type="text/plain"))
        self.expected.skipped["metadata"] += 1

    def warcinfo(self) -> None:
        self._write(self.writer.create_warcinfo_record(self.path.name, {"software": "warc tests"}))
        self.expected.skipped["warcinfo"] += 1

    def close(self) -> tuple[Path, Expected]:
        self.stream.close()
        return self.path, self.expected


def mixed_archive(path: Path, compressed: bool, seed: int, pages: int) -> tuple[Path, Expected]:
    """HTML pages with their requests and metadata, images, a PDF, JSON, sniffed and mislabelled payloads."""
    site = "https://news.example.org" if compressed else "http://archive.example.net"
    builder = ArchiveBuilder(path, compressed, seed)
    builder.warcinfo()
    for number in range(pages):
        url = f"{site}/story/{number}.html"
        builder.request(url)
        builder.article(url)
        builder.metadata(url)
    builder.response(f"{site}/logo.png", PNG, "image/png", skip="image")
    builder.response(f"{site}/report.pdf", PDF, "application/pdf", skip="pdf")
    builder.response(f"{site}/api.json", b'{"html": "<p>no</p>"}', "application/json", skip="not_html")
    builder.response(f"{site}/disguised.html", PDF, "text/html", skip="pdf")  # the bytes win over the header
    builder.response(f"{site}/empty.html", b"  \n", "text/html", skip="empty")
    # Declared HTML, no known magic, but binary: extract() itself says so, and the page is skipped.
    noise = random.Random(seed)
    binary = bytes(noise.randrange(256) for _ in range(2000)).replace(b"%PDF", b"%PDX")
    builder.response(f"{site}/noise.html", binary, "text/html", skip="binary")
    # No usable header: the content decides.
    builder.article(f"{site}/octet.html", content_type="application/octet-stream", header_charset=None)
    builder.article(f"{site}/untyped.html", content_type=None, header_charset=None)
    # Latin-1 bytes under a <meta> that says UTF-8: the header charset decides.  A header charset nobody
    # knows falls back to the page's <meta>.
    builder.article(f"{site}/latin.html", charset="iso-8859-1", header_charset="iso-8859-1", meta="utf-8")
    builder.article(f"{site}/bogus.html", charset="windows-1252", header_charset="x-no-such-charset")
    builder.expected.bad_charsets += 1
    return builder.close()


def _arc_record(fields: list[str], content: bytes) -> bytes:
    return " ".join([*fields, str(len(content))]).encode() + b"\n" + content + b"\n"


def arc_archive(path: Path, seed: int, pages: int) -> tuple[Path, Expected]:
    """An ARC (version 1) file, gzip per record, as Heritrix and the Internet Archive wrote them."""
    rng = random.Random(seed)
    expected = Expected()
    description = b"1 0 web2text-tests\nURL IP-address Archive-date Content-type Archive-length\n"
    records = [_arc_record(["filedesc://" + path.name, "0.0.0.0", "20240101000000", "text/plain"], description)]
    expected.skipped["warcinfo"] += 1
    for number in range(pages):
        html, _ = article_page(number, rng)
        title = html.split("<title>", 1)[1].split("</title>", 1)[0]
        body = html.encode("utf-8")
        http = b"HTTP/1.0 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body
        url = f"http://old.example.com/page{number}.html"
        records.append(_arc_record([url, "192.0.2.1", "20040101120000", "text/html"], http))
        expected.html.append({"url": url, "record_id": None, "body": body, "charset": "utf-8", "title": title})
    image = b"HTTP/1.0 200 OK\r\nContent-Type: image/png\r\n\r\n" + PNG
    records.append(_arc_record(["http://old.example.com/a.png", "192.0.2.1", "20040101120000", "image/png"], image))
    expected.skipped["image"] += 1
    expected.records = len(records)
    path.write_bytes(b"".join(gzip.compress(record) for record in records))
    return path, expected
