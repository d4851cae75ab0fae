"""Page bytes → text: the first step of reading a page."""

from __future__ import annotations

import codecs
import re

_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _codec_name(label: str | bytes | None) -> str | None:
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    try:
        return codecs.lookup(label.strip().lower()).name
    except LookupError:
        return None


def decode_html(data: bytes, encoding: str | None = None) -> str:
    """Decode page bytes to text; never raises.

    Order: byte-order mark, then ``encoding`` (an HTTP header's charset, say),
    then a ``<meta charset>`` in the first 4 KiB, then UTF-8, then
    Windows-1252, which accepts every byte sequence after replacement.
    A declared codec that fails strict decoding yields to UTF-8 if UTF-8
    fits; otherwise it is used with replacement characters.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, "replace")
    declared = _codec_name(encoding)
    if declared is None:
        match = _META_CHARSET.search(data[:4096])
        declared = _codec_name(match.group(1)) if match else None
    for name in (declared, "utf-8"):
        if name is None:
            continue
        try:
            return data.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode(declared or "cp1252", "replace")
