"""Page bytes → text: the first step of reading a page, by the HTML standard's encoding rules.

The order is the WHATWG "encoding sniffing algorithm", the one a crawl's middleware and ``extract()`` on bytes both
follow: a byte-order mark, then the transport charset (an HTTP ``Content-Type`` header's, passed as ``encoding`` or
inside ``content_type``), then UTF-16 told by its zero bytes around the first ``<`` (an XML document without a BOM,
such as ``<?xml encoding="utf-16le"?>``), then a ``<meta>`` charset in the first 4 KB, then the encoding of an
XML declaration, then a ``<meta>`` charset later in the head, then a sniff: UTF-8 if the bytes are UTF-8 (or almost
all of their non-ASCII bytes are), else the legacy encoding a maintained detector (``charset-normalizer``, MIT,
already a dependency of much of the ecosystem) finds in them, else Windows-1252 when the page opens with ASCII
markup.  Bytes that are none of these (random or compressed data) are not text (:attr:`DecodedBytes.binary`).

Labels are resolved with the WHATWG label table of the ``webencodings`` package (the Encoding Standard's own list,
as browsers use it): an unknown label (``undefined``, ``punycode``, ``utf-7``, ...) is ignored, ``latin1`` means
Windows-1252, and a ``<meta>`` that says UTF-16 means UTF-8 (a page whose ``<meta>`` could be read as ASCII is not
UTF-16).  The chosen encoding decodes with replacement characters: one bad byte never switches the page to another
encoding.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from email.message import Message

import webencodings

#: The byte-order marks the standard knows, after UTF-32's: UTF-32 is no encoding of the web, but a body that opens
#: with its mark is UTF-32 (``FF FE 00 00`` read as UTF-16LE is a NUL for every other byte, skipped as binary).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
#: How far the ``<meta>`` prescan reads (the standard says 1,024 bytes; real heads are often longer).
PRESCAN_BYTES = 4096
#: How far a ``<meta>`` charset is looked for after the prescan, up to the end of the head: heads carry dozens of
#: ``<meta>`` and ``<link>`` elements before the charset.
HEAD_BYTES = 65536
#: How many bytes the detector reads, from just before the first non-ASCII byte: enough for every legacy encoding
#: it knows, and a bounded cost whatever the page's size.
DETECTOR_BYTES = 65536
#: A page not declared and not UTF-8 is read as UTF-8 all the same when at most this share of its non-ASCII
#: characters are decoding errors (a UTF-8 page with a stray Windows-1252 byte).
MOSTLY_UTF8_ERRORS = 0.2
#: The detector's result is set aside for Windows-1252 (the standard's default) when that reads the bytes with at
#: most this much more "chaos" (charset-normalizer's measure of unlikely text): Western pages read alike in many
#: single-byte encodings, and Windows-1252 is the one browsers pick.
CP1252_MARGIN = 0.15
#: Fewer non-ASCII bytes than this (in the sample's first bytes) tell the detector too little: Windows-1252.
MIN_DETECTED_BYTES = 16
#: The detector's names for encodings the WHATWG table knows under another label.
_DETECTOR_NAMES = {
    "cp949": "euc-kr",
    "cp932": "shift_jis",
    "euc_jis_2004": "euc-jp",
    "euc_jisx0213": "euc-jp",
    "big5hkscs": "big5",
    "cp874": "windows-874",
    "tis_620": "windows-874",
    "utf_16_le": "utf-16le",
    "utf_16_be": "utf-16be",
    "iso2022_jp": "iso-2022-jp",
}
#: Share of printable ASCII in the first KB of a page no encoding reads, from which it is read as Windows-1252:
#: HTML in any encoding opens with ASCII markup (doctype, head, meta), random or compressed bytes do not.
MARKUP_ASCII_SHARE = 0.5
_ASCII_TEXT = bytes(range(0x20, 0x7F)) + b"\t\n\x0c\r"
#: Page bytes are cut before the first chunk of this many bytes with more than this share of control characters:
#: valid HTML followed by megabytes of binary junk keeps its article, and the junk is never labelled.
TAIL_CHUNK = 1024
TAIL_CONTROL_SHARE = 0.05
_TAIL_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\x0c\r\x1b")
_TAIL_CONTROL = re.compile(b"[" + re.escape(_TAIL_CONTROLS) + b"]")
#: A ``<meta charset=...>`` or ``<meta http-equiv content="...; charset=...">``; bounded, so linear.
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,200}?charset[\t\n\f\r ]{0,8}=[\t\n\f\r "']{0,8}([^\t\n\f\r "';>/]{1,40})""", re.I
)
_END_OF_HEAD = re.compile(rb"</head|<body", re.I)
#: ``<?xml version="1.0" encoding="..."?>`` at the start, read as ASCII.
_XML_ENCODING = re.compile(
    rb"""\A[\t\n\r ]{0,64}<\?xml[^>]{0,200}?encoding[\t\n\r ]{0,8}=[\t\n\r ]{0,8}["']([^"'>]{1,40})"""
)
#: The first ``<`` of a UTF-16 document without a byte-order mark, after blanks, and the character after it.
_UTF16LE_START = re.compile(rb"\A(?:[\t\n\r ]\x00){0,64}<\x00[^\x00]\x00")
_UTF16BE_START = re.compile(rb"\A(?:\x00[\t\n\r ]){0,64}\x00<\x00[^\x00]")
_META_UTF16 = frozenset({"utf-16be", "utf-16le"})
_NON_ASCII = re.compile(rb"[\x80-\xff]")
#: ISO-2022-JP's escape into JIS X 0208 (``ESC $ B``, ``ESC $ @``) and back to ASCII; UTF-8 text has no ESC.
_ISO2022JP_ESCAPE = re.compile(rb"\x1b\$[@B][\x21-\x7e]{2}")


@dataclass(frozen=True, slots=True)
class DecodedBytes:
    """Page bytes as text: ``text``; ``utf8`` the bytes themselves where they are exactly ``text`` in UTF-8 (the
    parser reads UTF-8: encoding the text again costs time); ``encoding`` the Python codec used; ``binary`` that
    the bytes are text in no encoding (``text`` is then their Windows-1252 reading)."""

    text: str
    utf8: bytes | None
    encoding: str
    binary: bool = False


def encoding_label(label: str | bytes | None) -> str | None:
    """The Python codec for a WHATWG encoding label, or None for a label the standard does not know."""
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    encoding = webencodings.lookup(label)
    if encoding is None:
        return None
    # x-user-defined maps bytes 0x80-0xFF to private-use characters, which carry no text: read as Windows-1252.
    return "cp1252" if encoding.name == "x-user-defined" else encoding.codec_info.name


def content_type_charset(content_type: str | bytes | None) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` value (``"text/html; charset=Shift_JIS"``), if any."""
    if not content_type:
        return None
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    message = Message()
    message["Content-Type"] = content_type
    charset = message.get_param("charset")
    return (charset.strip() or None) if isinstance(charset, str) else None


def _meta_encoding(head: bytes) -> str | None:
    for match in _META_CHARSET.finditer(head):
        encoding = webencodings.lookup(match.group(1).decode("ascii", "replace"))
        if encoding is None:
            continue  # an unknown label: the prescan goes on
        if encoding.name in _META_UTF16:
            return "utf-8"
        return encoding_label(encoding.name)
    return None


def _wide_encoding(data: bytes) -> str | None:
    """UTF-16 without a byte-order mark, told by the zero byte beside the first ``<`` (XML's autodetection)."""
    if _UTF16LE_START.match(data):
        return "utf-16-le"
    if _UTF16BE_START.match(data):
        return "utf-16-be"
    return None


def _xml_encoding(data: bytes) -> str | None:
    match = _XML_ENCODING.match(data)
    if match is None:
        return None
    encoding = encoding_label(match.group(1))
    return "utf-8" if encoding in ("utf-16-le", "utf-16-be") else encoding  # an ASCII declaration is not UTF-16


def _late_meta_encoding(data: bytes) -> str | None:
    """A ``<meta>`` charset after the prescan window, within the head."""
    head = data[: HEAD_BYTES + PRESCAN_BYTES]
    end = _END_OF_HEAD.search(head, PRESCAN_BYTES - 256)
    return _meta_encoding(head[PRESCAN_BYTES - 256 : end.start() if end else None])


def _sniffed_utf8(data: bytes) -> tuple[str | None, bool]:
    """``data`` as UTF-8 if it is UTF-8, a last character cut short (a truncated body) included, and whether
    ``data`` is all of it, whole (no last character cut short)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(data, final=False)
    except UnicodeDecodeError:
        return None, False
    return (text + "\ufffd", False) if decoder.getstate()[0] else (text, True)


def _detector_sample(data: bytes) -> bytes:
    first = _NON_ASCII.search(data)
    start = max(0, first.start() - 1024) if first else 0
    return data[start : start + DETECTOR_BYTES]


def _mostly_utf8(sample: bytes) -> bool:
    text = sample.decode("utf-8", "replace")
    errors = text.count("\ufffd") - sample.count(b"\xef\xbf\xbd")
    non_ascii = sum(1 for character in text if character > "\x7f") - errors
    return non_ascii > 0 and errors <= MOSTLY_UTF8_ERRORS * (non_ascii + errors)


def detected_encoding(sample: bytes) -> str | None:
    """The legacy encoding of the web ``charset-normalizer`` reads ``sample`` in (Windows-1252 where that reads it
    about as well, or where the sample has too few non-ASCII bytes to tell), or ``None`` where none reads it as
    text."""
    if len(_NON_ASCII.findall(sample)) < MIN_DETECTED_BYTES:
        return "cp1252"
    from charset_normalizer import from_bytes

    matches = []
    for match in from_bytes(sample):
        codec = _web_codec(match.encoding)
        if codec is not None and not _unlikely_korean(match):
            matches.append((codec, match.chaos))
    if not matches:
        return None
    best_chaos = matches[0][1]
    if any(codec == "cp1252" and chaos <= best_chaos + CP1252_MARGIN for codec, chaos in matches):
        return "cp1252"
    return matches[0][0]


def _web_codec(name: str) -> str | None:
    """The codec the web reads the detector's result with (its WHATWG label's: ``euc_kr`` is read as cp949), or
    ``None`` for an encoding no web page uses (DOS and Mac code pages)."""
    name = _DETECTOR_NAMES.get(name, name)
    return encoding_label(name) or encoding_label(name.replace("_", "-"))


def _unlikely_korean(match) -> bool:
    """A Korean reading (cp949) whose syllables are mostly outside the 2,350 of KS X 1001, the ones Korean text
    uses, or that is thick with lone jamo: Shift_JIS and EUC-JP kana read as cp949 give such text, with less
    "chaos" than the right reading."""
    if match.encoding not in ("cp949", "euc_kr"):
        return False
    text = str(match)
    syllables = [character for character in text if "\uac00" <= character <= "\ud7a3"]
    jamo = sum(1 for character in text if "\u3130" <= character <= "\u318f")
    rare = sum(1 for character in syllables if not _in_euc_kr(character))
    return rare > 0.2 * len(syllables) or jamo > 0.1 * (len(syllables) + jamo)


def _in_euc_kr(character: str) -> bool:
    """One of KS X 1001's syllables: both of its cp949 bytes at 0xA1 or above (the rest is cp949's extension)."""
    encoded = character.encode("cp949", "replace")
    return len(encoded) == 2 and encoded[0] >= 0xA1 and encoded[1] >= 0xA1


def printable_ascii_share(head: bytes) -> float:
    """The share of printable ASCII and white space in ``head`` (1.0 for an empty head)."""
    return 1.0 - len(head.translate(None, _ASCII_TEXT)) / len(head) if head else 1.0


def _looks_like_markup(head: bytes) -> bool:
    """The first bytes are mostly printable ASCII: HTML in some encoding, whatever follows it."""
    return printable_ascii_share(head) >= MARKUP_ASCII_SHARE


def declared_encoding(data: bytes, encoding: str | None = None) -> str | None:
    """The encoding the bytes say they are in (BOM, transport charset, UTF-16 layout, ``<meta>``, XML
    declaration), or ``None`` when they say nothing."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return (
        encoding_label(encoding)
        or _wide_encoding(data)
        or _meta_encoding(data[:PRESCAN_BYTES])
        or _xml_encoding(data)
        or (_late_meta_encoding(data) if len(data) > PRESCAN_BYTES - 256 else None)
    )


def read_bytes(data: bytes, encoding: str | None = None) -> DecodedBytes:
    """Decode page bytes by the rules of the module; never raises."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return DecodedBytes(data[len(bom) :].decode(name, "replace"), None, name)
    chosen = declared_encoding(data, encoding)
    if chosen is None or not chosen.startswith("utf-16"):
        data = without_binary_tail(data)
    binary = False
    if chosen is None:
        sniffed, whole = _sniffed_utf8(data)
        if sniffed is not None and not _ISO2022JP_ESCAPE.search(data, 0, DETECTOR_BYTES):
            return DecodedBytes(sniffed, data if whole else None, "utf-8")
        if sniffed is not None:  # 7-bit Japanese: ASCII bytes, with escapes into JIS X 0208
            return DecodedBytes(data.decode("iso2022_jp", "replace"), None, "iso2022_jp")
        sample = _detector_sample(data)
        if _mostly_utf8(sample):
            chosen = "utf-8"
        else:
            chosen = detected_encoding(sample)
            if chosen is None:
                binary = not _looks_like_markup(data[:1024])
                chosen = "cp1252"
    if chosen == "replacement":  # ISO-2022-KR, HZ, ...: the standard decodes these to one U+FFFD
        return DecodedBytes("\ufffd" if data else "", None, chosen)
    if chosen == "utf-8":
        try:
            return DecodedBytes(data.decode("utf-8"), data, chosen)
        except UnicodeDecodeError:  # decoded with replacement characters below: no longer the same bytes
            pass
    try:
        return DecodedBytes(data.decode(chosen, "replace"), None, chosen, binary)
    except LookupError:  # a WHATWG encoding this Python lacks
        return DecodedBytes(data.decode("cp1252", "replace"), None, "cp1252", binary)


def without_binary_tail(data: bytes) -> bytes:
    """``data`` up to where it stops being text: the first :data:`TAIL_CHUNK` bytes holding more than
    :data:`TAIL_CONTROL_SHARE` control characters (random or compressed bytes hold about 11 %, text none), cut at
    the first control character in them or the chunk before.  A page is read whole when its first chunk is such
    (binary, judged as a whole), when none is, or when its last chunk is text (binary amid text is not a tail)."""
    if not _control_heavy(data[-TAIL_CHUNK:]):  # the common case, judged without a pass over the whole page
        return data
    for start in range(0, len(data), TAIL_CHUNK):
        chunk = data[start : start + TAIL_CHUNK]
        if _control_heavy(chunk):
            if not start:
                return data
            control = _TAIL_CONTROL.search(data, start - TAIL_CHUNK, start + TAIL_CHUNK)  # found: the chunk has some
            return data[: control.start()]
    return data


def _control_heavy(chunk: bytes) -> bool:
    return len(chunk) - len(chunk.translate(None, _TAIL_CONTROLS)) > TAIL_CONTROL_SHARE * TAIL_CHUNK


def html_encoding(data: bytes, encoding: str | None = None) -> str:
    """The Python codec :func:`decode_html` reads ``data`` with ("replacement": the page decodes to one U+FFFD)."""
    return read_bytes(data, encoding).encoding


def decode_html(data: bytes, encoding: str | None = None) -> str:
    """Decode page bytes to text by the HTML standard's rules (see the module); never raises."""
    return read_bytes(data, encoding).text


def decode_html_utf8(data: bytes, encoding: str | None = None) -> tuple[str, bytes | None]:
    """:func:`decode_html`'s text, and ``data`` itself where it is exactly that text in UTF-8 (``None`` otherwise):
    the parser reads UTF-8, and encoding the text again would cost every page a copy."""
    decoded = read_bytes(data, encoding)
    return decoded.text, decoded.utf8
