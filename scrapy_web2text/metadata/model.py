"""The :class:`Metadata` of a page, where each value came from, and the bounds every value is held to."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import urljoin, urlsplit

#: Where a value came from, in the words :attr:`Metadata.sources` uses.
JSON_LD, MICRODATA, OPENGRAPH, META, TIME_ELEMENT = "json-ld", "microdata", "opengraph", "meta", "time-element"
HTML_LANG, TEXT, HEADLINE, BYLINE, URL = "html-lang", "text", "headline", "byline", "url"
DATE_ELEMENT = "date-element"  # an <abbr>, or an element whose class or id says date, meta, published...
SCRIPT = "script"  # a script's JSON that is not JSON-LD (a framework's page state)
DATE_LINE = "date-line"  # a short line that states a date, anywhere on the page: the last resort
LINK = "link"  # a body link: rel="license", a Creative Commons link, rel="category", rel="tag"
SOURCES = (
    JSON_LD,
    MICRODATA,
    OPENGRAPH,
    META,
    TIME_ELEMENT,
    DATE_ELEMENT,
    DATE_LINE,
    SCRIPT,
    HTML_LANG,
    TEXT,
    HEADLINE,
    BYLINE,
    URL,
    LINK,
)

#: Bounds: a value past them is cut (and :attr:`Metadata.notes` says so), so hostile markup costs bounded time and
#: gives a bounded record.
MAX_TEXT_CHARS = 300  # a title, a name, a site name, a tag
MAX_DESCRIPTION_CHARS = 1000
MAX_URL_CHARS = 2000
MAX_LIST_ITEMS = 20  # authors, tags, categories, breadcrumbs

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_SPACE = re.compile(r"\s+")
#: A URL's scheme and its colon, as the URL Standard reads it (a text that starts so is a URL, whatever follows).
#: The lookbehind starts an attempt only where a run of scheme characters starts: one scan of each run.
URL_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*+:")
#: What no URL of an output holds: controls, white space (a parser would drop or encode them; a consumer may not).
_NOT_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f]")
#: What a URL parser strips from both ends before reading a URL: C0 controls and the space.
_URL_STRIPPED = "".join(map(chr, range(0x21)))


def clean_text(value: Any, limit: int = MAX_TEXT_CHARS) -> str | None:
    """``value`` as one line of displayable text (entities decoded, control and direction characters removed,
    white space collapsed), at most ``limit`` characters; ``None`` for a non-string or an empty one."""
    if not isinstance(value, str):
        return None
    # Only a bounded head is looked at: a 1 MB "name" costs as much as a short one.
    text = _SPACE.sub(" ", _CONTROL.sub("", html.unescape(value[: 4 * limit]))).strip()
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text or None


def http_url(value: Any, base: str | None = None) -> str | None:
    """``value`` as an absolute ``http(s)`` URL with a host, resolved against ``base``; ``None`` for anything else
    (``javascript:``, ``data:`` and every other scheme, however spelt; a URL that does not parse; controls or white
    space inside).  Every URL-valued field of :class:`Metadata` passes here."""
    if not isinstance(value, str) or len(value) > MAX_URL_CHARS:
        return None
    value = value.strip(_URL_STRIPPED)
    try:
        resolved = urljoin(base, value) if base else value
        host = urlsplit(resolved).hostname
    except ValueError:  # "http://[::1": a bracket never closed
        return None
    if not resolved.startswith(("http://", "https://")) or not host or _NOT_IN_URL.search(resolved):
        return None
    return resolved


def clean_list(values: Iterable[Any], limit: int = MAX_LIST_ITEMS) -> tuple[str, ...]:
    """Distinct cleaned strings of ``values``, in order, at most ``limit`` (the iterable is read no further)."""
    seen: dict[str, None] = {}
    for count, value in enumerate(values):
        text = clean_text(value)
        if text and text.casefold() not in {key.casefold() for key in seen}:
            seen[text] = None
        if len(seen) >= limit or count >= 10 * limit:
            break
    return tuple(seen)


@dataclass(frozen=True, slots=True)
class Metadata:
    """What a page says about itself: who wrote it, when, in which language, on which site, about what.

    Every field is ``None`` (or an empty tuple) when the page does not say; :attr:`sources` names, for each field
    that has a value, where it came from (``"json-ld"``, ``"microdata"``, ``"opengraph"``, ``"meta"``,
    ``"time-element"``, ``"date-element"``, ``"date-line"``, ``"script"``, ``"html-lang"``, ``"text"``, ``"headline"``,
    ``"byline"``, ``"url"``, ``"link"``).
    Dates are ISO 8601 (``2024-06-11`` or ``2024-06-11T08:30:00+02:00``: a time and a zone only where the page gives
    them); ``language`` is a BCP 47 tag (``en``, ``pt-BR``); ``image``, ``canonical_url`` and ``license`` (when a
    URL) are absolute.
    :attr:`notes` says what was cut or skipped (``"json-ld: a script of 1048576 characters skipped"``).
    """

    title: str | None = None
    authors: tuple[str, ...] = ()
    date_published: str | None = None
    date_modified: str | None = None
    language: str | None = None
    site_name: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    image: str | None = None
    tags: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    breadcrumbs: tuple[str, ...] = ()
    license: str | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    notes: tuple[str, ...] = ()

    def found(self) -> list[str]:
        """The names of the fields that have a value, in field order."""
        return [name for name in FIELDS if getattr(self, name) not in (None, ())]

    def to_dict(self) -> dict[str, Any]:
        """Every field (lists as lists), ``sources`` and, when there are any, ``notes``: ready for JSON."""
        out: dict[str, Any] = {}
        for name in FIELDS:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        out["sources"] = dict(self.sources)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


#: The value fields of :class:`Metadata`, in order (``sources`` and ``notes`` are not among them).
FIELDS = tuple(item.name for item in fields(Metadata) if item.name not in ("sources", "notes"))
#: The fields that hold a list of values.
LIST_FIELDS = frozenset(name for name in FIELDS if isinstance(getattr(Metadata(), name), tuple))
