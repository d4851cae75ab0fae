"""Dates: ISO 8601 values of structured markup checked here, everything else read by ``htmldate``.

Markup (JSON-LD, microdata, OpenGraph) states a date as ISO 8601, often with a time and a zone: it is parsed here
so that the time and zone survive (htmldate gives the day only).  The page's ``<meta>`` date names, a
date in its URL and a short visible text (``<time>``, a byline, :mod:`.placed`) go to htmldate's readers, the ones
trafilatura uses, on the tree already parsed (read only, never copied: htmldate's full-text search, which copies
and cleans the whole tree, is not run).  Nothing here fetches anything.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import re
import warnings
from collections.abc import Callable
from typing import Any

from lxml import etree

#: The earliest plausible date of a web page (htmldate's bound too) and how far ahead of today one may be.
EARLIEST = dt.datetime(1995, 1, 1)
LATEST_AHEAD = dt.timedelta(days=2)
#: An ISO 8601 date, alone or with a time and zone; anything longer is not looked at.
MAX_DATE_CHARS = 40
#: An ISO 8601 date inside a text (a byline's line), with what time and zone follow it.
_ISO_IN_TEXT = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?+)?+(?:Z|[+-]\d{2}:?\d{2})?+")
_ISO = re.compile(
    r"\A\s*+(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?\s*+(Z|[+-]\d{2}:?\d{2})?)?\s*+"
)


def latest_date() -> dt.datetime:
    return dt.datetime.now() + LATEST_AHEAD


def iso_date(value: Any) -> str | None:
    """``value`` as ISO 8601 if it is a plausible ISO date (1995 to two days ahead): ``2024-06-11``, or with its
    time and zone as given (``2024-06-11T08:30:00+02:00``); ``None`` otherwise (year 99999, month 13, text)."""
    if not isinstance(value, str) or len(value) > MAX_DATE_CHARS:
        return None
    match = _ISO.fullmatch(value)
    if match is None:
        return None
    try:
        moment, offset = _parsed(match)
    except ValueError:
        return None
    if not EARLIEST <= moment <= latest_date():
        return None
    if match.group(4) is None:
        return moment.date().isoformat()
    if offset is not None:
        moment = moment.replace(tzinfo=offset)
    return moment.isoformat()


def stated_zone(value: Any) -> dt.tzinfo | None:
    """The zone of an ISO 8601 date-time, where it states one other than UTC (a page's local offset)."""
    moment = _moment(value)
    if moment is None or moment.utcoffset() in (None, dt.timedelta(0)):
        return None
    return moment.tzinfo


def utc_instant(value: Any) -> bool:
    """Whether ``value`` is a date-time stated in UTC (``Z`` or ``+00:00``): its day may not be the reader's."""
    moment = _moment(value)
    return moment is not None and moment.utcoffset() == dt.timedelta(0)


def in_zone(value: str, zone: dt.tzinfo) -> str:
    """The same instant written in ``zone`` (its day the local day)."""
    moment = _moment(value)
    return moment.astimezone(zone).isoformat() if moment is not None else value


def on_day(value: str, day: str | None) -> str | None:
    """The instant ``value`` (UTC) written at the whole-hour offset nearest UTC that puts it on ``day``, where
    ``day`` is the day before or after its UTC day within the offsets in use (-12 to +14 hours); ``None`` otherwise.
    The instant is kept; the offset is the smallest that agrees with the page (its URL, its visible date)."""
    moment = _moment(value)
    target = iso_date(day[:10]) if isinstance(day, str) else None
    if moment is None or target is None:
        return None
    into_day = moment.hour * 3600 + moment.minute * 60 + moment.second
    shift = dt.date.fromisoformat(target) - moment.date()
    if shift == dt.timedelta(days=-1) and moment.hour + 1 <= 12:
        hours = -(moment.hour + 1)
    elif shift == dt.timedelta(days=1) and -(-(86400 - into_day) // 3600) <= 14:
        hours = -(-(86400 - into_day) // 3600)
    else:
        return None
    return moment.astimezone(dt.timezone(dt.timedelta(hours=hours))).isoformat()


def _moment(value: Any) -> dt.datetime | None:
    """An ISO 8601 date-time with a zone, as an aware datetime; ``None`` for anything else."""
    stated = iso_date(value)
    if stated is None or len(stated) <= 10:
        return None
    moment = dt.datetime.fromisoformat(stated)
    return moment if moment.tzinfo is not None else None


def impossible_date(value: Any) -> bool:
    """Whether ``value`` starts as an ISO 8601 date whose day, time or zone does not exist (``2024-02-30``,
    ``25:61``, ``+99:99``).  htmldate reads ``2024-02-30`` as its month and invents the 1st; such a value is
    kept from it (see :func:`htmldate_header`)."""
    match = _ISO.match(value[:MAX_DATE_CHARS]) if isinstance(value, str) else None
    if match is None:
        return False
    try:
        _parsed(match)
    except ValueError:
        return True
    return False


def _parsed(match: re.Match) -> tuple[dt.datetime, dt.tzinfo | None]:
    """The moment and zone of an :data:`_ISO` match; ``ValueError`` where one does not exist."""
    year, month, day, hour, minute, second, zone = match.groups()
    moment = dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    return moment, _zone(zone)


def _zone(zone: str | None) -> dt.tzinfo | None:
    if zone is None:
        return None
    if zone == "Z":
        return dt.UTC
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError(f"no time zone {zone}")
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


@functools.cache
def _quiet_dateutil() -> None:
    """dateutil (htmldate's) warns on zone names it does not know ("EDT") on every page; the day is still right.
    htmldate writes a DEBUG line for each string it tries, several a page: at Scrapy's default level (DEBUG) a
    crawl's log would hold them all.  Its logger is set to INFO once, when it is first used here; a user who wants
    them sets it back."""
    from dateutil.parser import UnknownTimezoneWarning

    warnings.filterwarnings("ignore", category=UnknownTimezoneWarning)
    logging.getLogger("htmldate").setLevel(logging.INFO)


def _options(original: bool) -> Any:
    from htmldate.utils import Extractor

    _quiet_dateutil()
    return Extractor(False, latest_date(), EARLIEST, original, "%Y-%m-%d")


def htmldate_header(head: Any, original: bool = True) -> str | None:
    """htmldate's reading of the ``<meta>`` dates under ``head`` (its long list of names and their precedence);
    a ``<meta>`` stating an impossible date is not shown to it."""
    from htmldate.core import examine_header

    return _quietly(examine_header, _possible_only(head, "meta", ("content", "datetime")), _options(original))


def _possible_only(root: Any, tag: str, attributes: tuple[str, ...]) -> Any:
    """``root`` itself where none of its ``tag`` elements states an impossible date (in ``attributes`` or its
    text); else a stand-in holding copies of the others (their attributes and text: all htmldate reads)."""
    elements = list(root.iter(tag))
    kept = [
        element
        for element in elements
        if not any(impossible_date(value) for value in (*map(element.get, attributes), element.text))
    ]
    if len(kept) == len(elements):
        return root
    holder = etree.Element("div")
    for element in kept:
        etree.SubElement(holder, tag, dict(element.attrib)).text = element.text
    return holder


def _quietly(examine: Callable[[Any, Any], str | None], tree: Any, options: Any) -> str | None:
    # htmldate raises on some values it accepts (a zone of 24 hours or more in a date it then compares): no date.
    try:
        return examine(tree, options)
    except (ValueError, OverflowError):
        return None


def date_in_url(url: str | None) -> str | None:
    """A ``/2024/06/11/``-style date in ``url`` (htmldate's URL patterns)."""
    if not url:
        return None
    from htmldate.extractors import extract_url_date

    return extract_url_date(url[:MAX_URL_SCAN], _options(True))


def date_in_text(text: str) -> str | None:
    """The date a short visible text states ("11 June 2024", "2024-06-11", "Juni 11, 2024"), by htmldate's fast
    patterns (not its dateparser fallback, which costs milliseconds a string)."""
    from htmldate.extractors import try_date_expr

    _quiet_dateutil()
    text = text[:MAX_TEXT_SCAN]
    if any(impossible_date(found.group()) for found in _ISO_IN_TEXT.finditer(text)):
        return None  # "2024-02-30": htmldate would invent the 1st
    try:
        return try_date_expr(text, "%Y-%m-%d", False, EARLIEST, latest_date())
    except (ValueError, OverflowError):  # htmldate's comparison of a zone it accepted
        return None


#: A URL or a visible text is looked at up to this many characters.
MAX_URL_SCAN = 500
MAX_TEXT_SCAN = 200
