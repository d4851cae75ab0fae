"""Dates: ISO 8601 values of structured markup checked here, everything else read by ``htmldate``.

Markup (JSON-LD, microdata, OpenGraph) states a date as ISO 8601, often with a time and a zone: it is parsed here
so that the time and zone survive (htmldate gives the day only).  The page's ``<meta>`` date names, its
``<time>`` elements, a date in its URL and the visible date of a byline go to htmldate's readers, the ones
trafilatura uses, on the tree already parsed (read only, never copied: htmldate's full-text search, which copies
and cleans the whole tree, is not run).  Nothing here fetches anything.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import warnings
from typing import Any

#: The earliest plausible date of a web page (htmldate's bound too) and how far ahead of today one may be.
EARLIEST = dt.datetime(1995, 1, 1)
LATEST_AHEAD = dt.timedelta(days=2)
#: An ISO 8601 date, alone or with a time and zone; anything longer is not looked at.
MAX_DATE_CHARS = 40
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
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        moment = dt.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
        offset = _zone(zone)
    except ValueError:
        return None
    if not EARLIEST <= moment <= latest_date():
        return None
    if hour is None:
        return moment.date().isoformat()
    if offset is not None:
        moment = moment.replace(tzinfo=offset)
    return moment.isoformat()


def _zone(zone: str | None) -> dt.tzinfo | None:
    if zone is None:
        return None
    if zone == "Z":
        return dt.UTC
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return dt.timezone(sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


@functools.cache
def _quiet_dateutil() -> None:
    """dateutil (htmldate's) warns on zone names it does not know ("EDT") on every page; the day is still right."""
    from dateutil.parser import UnknownTimezoneWarning

    warnings.filterwarnings("ignore", category=UnknownTimezoneWarning)


def _options(original: bool) -> Any:
    from htmldate.utils import Extractor

    _quiet_dateutil()
    return Extractor(False, latest_date(), EARLIEST, original, "%Y-%m-%d")


def htmldate_header(head: Any, original: bool = True) -> str | None:
    """htmldate's reading of the ``<meta>`` dates under ``head`` (its long list of names and their precedence)."""
    from htmldate.core import examine_header

    return examine_header(head, _options(original))


def htmldate_time_elements(root: Any) -> str | None:
    """htmldate's choice among the page's ``<time datetime>`` elements (``pubdate``, ``entry-date`` first)."""
    from htmldate.core import examine_time_elements

    return examine_time_elements(root, _options(True))


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

    return try_date_expr(text[:MAX_TEXT_SCAN], "%Y-%m-%d", False, EARLIEST, latest_date())


#: A URL or a visible text is looked at up to this many characters.
MAX_URL_SCAN = 500
MAX_TEXT_SCAN = 200
