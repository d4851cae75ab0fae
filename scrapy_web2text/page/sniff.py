"""Is this body HTML at all?  Magic numbers, control characters and the declared content type.

Images, PDFs and archives parsed as HTML give "text" made of decoding debris, which a labeller would happily
keep.  :func:`non_html_reason` looks at the first bytes only (:data:`SNIFF_BYTES`), and at what the decoder
(:mod:`.decode`) makes of bytes, and says why a body is not labelled: ``"binary:<kind>"`` for a known file
signature, ``"binary"`` for bytes with many NULs or other control characters (outside UTF-16), or bytes that are
text in no encoding (not declared, not UTF-8, and no legacy encoding reads them), ``"not_html:<family>"`` for a
declared content type that is neither HTML nor XHTML (nor a generic type that says nothing, such as
``application/octet-stream``).  The family is one of :data:`TYPE_FAMILIES` (``not_html:json``): a server chooses
its types, and a reason becomes a crawl's stats key, so the type itself, cut and made printable, goes only to the
log.  XHTML served as ``application/xml`` or ``text/xml`` (its root ``<html>`` in the XHTML namespace) is HTML.
"""

from __future__ import annotations

import codecs
import logging
import re

from .decode import DecodedBytes, content_type_charset, printable_ascii_share, read_bytes

#: How much of a body is looked at.
SNIFF_BYTES = 1024

#: Share of C0 control characters, NUL included (not tab, line feed, form feed, carriage return, escape), above
#: which a body counts as binary.  Legacy HTML carries a stray NUL or control character now and then (kept as
#: text: NUL becomes U+FFFD), never this many.  The share is taken of at least :data:`MIN_SNIFF` bytes, so that
#: a short snippet with a NUL or two stays text.
CONTROL_SHARE = 0.10
MIN_SNIFF = 256
#: Share of printable ASCII (and whitespace) below which a head that is not UTF-8 counts as binary: HTML in a
#: legacy encoding still opens with ASCII markup (doctype, head, meta), random or compressed bytes do not.
ASCII_SHARE = 0.5

#: (signature, kind), checked at the start of the body (after leading whitespace for the text formats).
SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"%PDF-", "pdf"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"PK\x03\x04", "zip"),
    (b"\x1f\x8b", "gzip"),
    (b"BM", "bmp"),
    (b"\x00\x00\x01\x00", "ico"),
    (b"wOFF", "woff"),
    (b"wOF2", "woff2"),
    (b"OggS", "ogg"),
    (b"ID3", "mp3"),
    (b"\x7fELF", "elf"),
    (b"%!PS", "postscript"),
    (b"{\\rtf", "rtf"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
#: RIFF containers: the kind is at bytes 8-12.
_RIFF_KINDS = {b"WEBP": "webp", b"WAVE": "wav", b"AVI ": "avi"}

#: Content types labelled as HTML; types that say nothing about the body are sniffed instead.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
UNINFORMATIVE_TYPES = frozenset({"", "application/octet-stream", "application/unknown", "unknown/unknown"})

#: Generic XML types, labelled when the document's root is XHTML's ``<html>``.
XML_TYPES = frozenset({"application/xml", "text/xml"})
#: What ``not_html:`` may be followed by: a family of declared types (by prefix, by exact type, by suffix), or
#: ``other``.
TYPE_FAMILIES = ("xml", "json", "javascript", "css", "text", "image", "audio", "video", "font", "pdf", "other")
_FAMILY_PREFIXES = {"image/": "image", "audio/": "audio", "video/": "video", "font/": "font"}
_FAMILY_TYPES = {
    "application/pdf": "pdf",
    "text/css": "css",
    "application/javascript": "javascript",
    "text/javascript": "javascript",
    "application/x-javascript": "javascript",
    "application/ecmascript": "javascript",
    "application/json": "json",
    "text/json": "json",
    **dict.fromkeys(XML_TYPES, "xml"),
}
#: The first element's name and the rest of its start tag (bounded: a tag is not read past 2,000 characters).
_FIRST_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]{0,64})([^>]{0,2000})")
_XHTML_NAMESPACE = re.compile(r"""\bxmlns\s*+=\s*+["']http://www\.w3\.org/1999/xhtml["']""")
#: How much of an XML body is read for its root element (UTF-32 takes four bytes a character).
XML_SNIFF_BYTES = 16384
#: A declared type is written to the log up to this many characters.
LOGGED_TYPE_CHARS = 100

logger = logging.getLogger(__name__)

_WIDE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_ALLOWED_CONTROLS = frozenset(b"\t\n\x0c\r\x1b")
_CONTROLS = bytes(c for c in range(32) if c not in _ALLOWED_CONTROLS)
_ASCII_TEXT = bytes(range(0x20, 0x7F)) + b"\t\n\x0c\r"


def media_type(content_type: str | bytes | None) -> str:
    """``"text/html; charset=utf-8"`` -> ``"text/html"``."""
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    return (content_type or "").split(";", 1)[0].strip().lower()


def signature_kind(head: bytes) -> str | None:
    """The file kind of a body that starts with ``head`` by its signature (``"png"``, ``"pdf"``...), or ``None``."""
    for signature, kind in SIGNATURES:
        if head.startswith(signature):
            return kind
    if head.startswith(b"RIFF") and head[8:12] in _RIFF_KINDS:
        return _RIFF_KINDS[head[8:12]]
    if head[4:12] in (b"ftypavif", b"ftypheic", b"ftypisom", b"ftypmp42"):
        return head[8:12].decode("ascii")
    return None


def control_heavy(head: bytes) -> bool:
    """More than :data:`CONTROL_SHARE` of ``head`` are C0 controls (counted over at least :data:`MIN_SNIFF`)."""
    return bool(head) and len(head) - len(head.translate(None, _CONTROLS)) > CONTROL_SHARE * max(len(head), MIN_SNIFF)


def binary_kind(head: bytes) -> str | None:
    """The file kind of a body that starts with ``head``, or ``None`` when it may be text (``""``: binary of no
    known kind).  Used on text already decoded (encoded back as Latin-1); bytes go through :func:`bytes_reason`."""
    kind = signature_kind(head)
    if kind is not None:
        return kind
    if any(head.startswith(bom) for bom in _WIDE_BOMS):
        return None  # UTF-16/32 text: NULs are part of the encoding
    if control_heavy(head):
        return ""
    if len(head) >= MIN_SNIFF and printable_ascii_share(head) < ASCII_SHARE:
        # Mostly non-ASCII: text only if it is UTF-8 (the last character may be cut by the sniff window).
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as error:
            if error.start < len(head) - 4:
                return ""
    return None


def bytes_reason(decoded: DecodedBytes, data: bytes) -> str | None:
    """``"binary"`` for page bytes that are text in no encoding (:func:`.decode.read_bytes` found none, or their
    head is mostly control characters once decoded: NULs are text only in UTF-16 and UTF-32), else ``None``."""
    if decoded.binary:
        return "binary"
    if decoded.encoding.startswith(("utf-16", "utf-32")):
        head = decoded.text[:SNIFF_BYTES].encode("latin-1", "replace")
    else:
        head = data[:SNIFF_BYTES]
    return "binary" if control_heavy(head) else None


def declared_reason(body: str | bytes, content_type: str | bytes | None = None) -> str | None:
    """:func:`non_html_reason` before bytes are decoded: a file signature (for text, also many control characters or
    mostly non-ASCII that is not UTF-8), or a declared content type that is not HTML."""
    if isinstance(body, str):
        # Text already decoded: a binary body decoded as Latin-1 keeps its bytes, as UTF-8 with replacement its
        # ASCII signatures and control characters; either way the encoded head shows them.
        kind = binary_kind(body[:SNIFF_BYTES].encode("latin-1", "replace"))
    else:
        kind = signature_kind(bytes(body[:SNIFF_BYTES]))
    if kind is not None:
        return f"binary:{kind}" if kind else "binary"
    declared = media_type(content_type)
    if declared in HTML_TYPES or declared in UNINFORMATIVE_TYPES:
        return None
    if declared in XML_TYPES and xhtml_root(body, content_type):
        return None
    reason = f"not_html:{type_family(declared)}"
    logger.debug("not labelled (%s): declared content type %s", reason, printable_type(declared))
    return reason


def type_family(declared: str) -> str:
    """The family of a media type (``"application/ld+json"`` -> ``"json"``), one of :data:`TYPE_FAMILIES`."""
    family = _FAMILY_TYPES.get(declared)
    if family is None:
        family = next((name for prefix, name in _FAMILY_PREFIXES.items() if declared.startswith(prefix)), None)
    if family is None and declared.endswith(("+xml", "+json")):
        family = declared.rpartition("+")[2]
    if family is None and declared.startswith("text/"):
        family = "text"
    return family or "other"


def printable_type(declared: str) -> str:
    """A declared type as a log shows it: its first :data:`LOGGED_TYPE_CHARS` characters, non-printable ones
    escaped."""
    cut = declared[:LOGGED_TYPE_CHARS]
    return ascii(cut) + ("…" if len(declared) > LOGGED_TYPE_CHARS else "")


def xhtml_root(body: str | bytes, content_type: str | bytes | None = None) -> bool:
    """Whether the document's first element is ``<html>`` in the XHTML namespace (bytes: decoded by the page's
    rules, as far as :data:`XML_SNIFF_BYTES`)."""
    if isinstance(body, str):
        head = body[:XML_SNIFF_BYTES]
    else:
        head = read_bytes(bytes(body[:XML_SNIFF_BYTES]), content_type_charset(content_type)).text
    first = _FIRST_ELEMENT.search(head)
    return first is not None and first.group(1).lower() == "html" and bool(_XHTML_NAMESPACE.search(first.group(2)))


def non_html_reason(
    body: str | bytes, content_type: str | bytes | None = None, encoding: str | None = None
) -> str | None:
    """Why ``body`` is not labelled as HTML (``"binary:png"``, ``"not_html:json"``...), or ``None``.
    Bytes are decoded by the page's rules (:func:`.decode.read_bytes`, with ``encoding`` or ``content_type``'s
    charset): bytes that are text in a legacy encoding are text."""
    reason = declared_reason(body, content_type)
    if reason is not None or isinstance(body, str):
        return reason
    data = bytes(body)
    return bytes_reason(read_bytes(data, encoding or content_type_charset(content_type)), data)
