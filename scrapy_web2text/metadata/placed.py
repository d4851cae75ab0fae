"""Dates placed on the page: ``<time>`` elements, ``<abbr>`` and elements whose class or id says date, meta,
published or updated (``<span class="heading__meta">Stand - 12.11.2021</span>``), ranked by where they sit.

A related-post teaser or an archive widget carries dates too, often older than the article's: a candidate in the
byline's windows (around the first kept block, below the headline) comes first, window by window and the nearest
first; one after the last kept block, then any other, is a last resort (:func:`placed_dates` gives both groups, the
reader tries the URL between them).  At most :data:`MAX_CANDIDATES` candidates are looked at, each text up to
:data:`MAX_CANDIDATE_CHARS` characters: the cost does not grow past one XPath walk of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from lxml import etree

from .dates import date_in_text, iso_date
from .model import DATE_ELEMENT, TIME_ELEMENT
from .visible import Window

MAX_CANDIDATES = 200
MAX_CANDIDATE_CHARS = 160
#: Levels looked down (elements) and up (ancestors) from a candidate for the block it belongs to.
DESCENDANTS = 30
ANCESTORS = 3

#: Words of a class or id that mark a date's element (lower-cased by ``translate``; an id or class of other
#: letters is matched as written).
DATE_CLASS_WORDS = ("date", "publish", "updated", "meta", "posted", "datum", "fecha", "time", "byline")
_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"
_NAMES = f"translate(concat(@class, ' ', @id), '{_UPPER}', '{_LOWER}')"
_CANDIDATES = etree.XPath(
    "//*[self::time or self::abbr or (@class or @id) and ("
    + " or ".join(f"contains({_NAMES}, '{word}')" for word in DATE_CLASS_WORDS)
    + ")]"
)


#: A date and its source (:data:`~.model.TIME_ELEMENT` or :data:`~.model.DATE_ELEMENT`).
Dated = tuple[str, str]


@dataclass(frozen=True, slots=True)
class PlacedDates:
    near: Dated | None = None  # in or near the main text
    far: Dated | None = None  # elsewhere: the last resort


def placed_dates(root: Any, elements: Sequence[tuple[Any, bool]], windows: Sequence[Window]) -> PlacedDates:
    """The first date of the candidates in the byline ``windows`` (:func:`~.visible.byline_windows`: window by
    window, the nearest to its anchor first, a tie to the one below it), and of the others (those after the text
    first, then page order)."""
    positions = _positions(elements)
    near: list[tuple[int, int, bool, int, Any]] = []
    far: list[Any] = []
    for order, element in enumerate(islice(_CANDIDATES(root), MAX_CANDIDATES)):
        position = _position(element, positions)
        group = next((rank for rank, window in enumerate(windows) if position in window.blocks), None)
        if position is None or group is None:
            far.append(element)
            continue
        anchor = windows[group].anchor
        near.append((group, abs(position - anchor), position < anchor, order, element))
    near.sort(key=lambda item: item[:4])
    # after the text, a date may be a teaser's as well as the article's: it comes after the URL's too
    after = [item[-1] for item in near if windows[item[0]].credits]
    near_date = next(filter(None, (dated(item[-1]) for item in near if not windows[item[0]].credits)), None)
    if near_date is not None:
        return PlacedDates(near=near_date)
    return PlacedDates(far=next(filter(None, map(dated, after + far)), None))


def _positions(elements: Sequence[tuple[Any, bool]]) -> dict[int, int]:
    """Block index by element: the element that holds a block's text (its parent, for a tail)."""
    positions: dict[int, int] = {}
    for index, (element, in_tail) in enumerate(elements):
        holder = element.getparent() if in_tail and element is not None else element
        if holder is not None:
            positions.setdefault(id(holder), index)
    return positions


def _position(element: Any, positions: dict[int, int]) -> int | None:
    for inner in islice(element.iter(), DESCENDANTS):
        if id(inner) in positions:
            return positions[id(inner)]
    for ancestor in islice(element.iterancestors(), ANCESTORS):
        if id(ancestor) in positions:
            return positions[id(ancestor)]
    return None


def dated(element: Any) -> Dated | None:
    found = date_of(element)
    return (found, TIME_ELEMENT if element.tag == "time" else DATE_ELEMENT) if found else None


def date_of(element: Any) -> str | None:
    """The date a candidate states: its ``datetime``/``content``/``title`` value (ISO 8601 keeps the time and
    zone), else its short text; a value without four digits (a year) is not read."""
    for value in (*(element.get(name) for name in ("datetime", "content", "title")), _bounded_text(element)):
        value = (value or "")[:MAX_CANDIDATE_CHARS].strip()
        if sum(char.isdigit() for char in value) >= 4:
            stated = iso_date(value) or date_in_text(value)
            if stated:
                return stated
    return None


def _bounded_text(element: Any) -> str | None:
    parts, size = [], 0
    for text in element.itertext():
        parts.append(text)
        size += len(text)
        if size > MAX_CANDIDATE_CHARS:
            return None
    return " ".join(" ".join(parts).split())
