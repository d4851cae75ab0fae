"""Dates of structured markup: ISO 8601 values checked, and their instants placed on the reader's day.

Markup (JSON-LD, microdata, OpenGraph) states a date as ISO 8601, often with a time and a zone: it is parsed here
so that the time and zone survive.  Dates written for people (a ``<meta>`` date under another name, a URL, a
``<time>``'s text, a byline) are read to the day by :mod:`.written`.  Nothing here fetches anything.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

#: The earliest plausible date of a web page (htmldate's bound too) and how far ahead of today one may be.
EARLIEST = dt.datetime(1995, 1, 1)
LATEST_AHEAD = dt.timedelta(days=2)
#: An ISO 8601 date, alone or with a time and zone; anything longer is not looked at.
MAX_DATE_CHARS = 40
#: An ISO 8601 date inside a text (a byline's line), with what time and zone follow it.
ISO_IN_TEXT = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?+)?+(?:Z|[+-]\d{2}:?\d{2})?+")
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
    ``25:61``, ``+99:99``).  Such a value is no date, and no other reading of its digits
    is tried (``2024-02-30`` is not the 1st of February)."""
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
