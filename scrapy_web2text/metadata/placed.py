"""Dates placed on the page: ``<time>`` elements, ``<abbr>`` and elements whose class or id says date, meta,
published or updated (``<span class="heading__meta">Stand - 12.11.2021</span>``), ranked by where they sit.

A related-post teaser or an archive widget carries dates too, often older than the article's: a ``<time>`` or
``<abbr>`` in the byline's windows (around the first kept block, below the headline) comes first, window by window
and the nearest first (the byline reads the other lines there, :mod:`.visible`); one after the last kept block, or an
element marked by class or id there, then any other ``<time>`` or ``<abbr>``, is a last resort (:func:`placed_dates`
gives both groups, the reader tries the URL between them).  At most :data:`MAX_CANDIDATES` elements are looked at,
each text up to :data:`MAX_CANDIDATE_CHARS` characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from .dates import iso_date
from .model import DATE_ELEMENT, TIME_ELEMENT
from .visible import MAX_LINE_CHARS, Window, bounded_text, in_comments
from .written import text_date

MAX_CANDIDATES = 200
#: Blocks of a page read for its date lines.
MAX_PAGE_BLOCKS = 5000
MAX_CANDIDATE_CHARS = 160
MAX_LINE = MAX_LINE_CHARS
#: Levels looked down (elements) and up (ancestors) from a ``<time>``/``<abbr>`` for the block it belongs to, and up
#: from a block after the text for an element marked by class or id.
DESCENDANTS = 30
ANCESTORS = 2

#: Words of a class or id that mark a date's element.
_DATE_CLASS = re.compile(r"date|publish|updated|meta|posted|datum|fecha|time|byline", re.I)
_TWO_DIGITS = re.compile(r"\d\d")
#: What a citation's date says, and the class or id of a reference list.
_CITED = re.compile(r"retrieved|accessed|archived|abgerufen|archiviert|consulté|consultado|\bcited\b", re.I)
_REFERENCES = re.compile(r"citation|reference|footnote|bibliograph", re.I)
#: A date's own elements.
_DATE_TAGS = ("time", "abbr")
#: A date and its source (:data:`~.model.TIME_ELEMENT` or :data:`~.model.DATE_ELEMENT`).
Dated = tuple[str, str]


@dataclass(frozen=True, slots=True)
class PlacedDates:
    near: Dated | None = None  # in or near the main text
    far: Dated | None = None  # elsewhere: the last resort


def placed_dates(
    candidates: Sequence[Any],
    texts: Sequence[str],
    elements: Sequence[tuple[Any, bool]],
    windows: Sequence[Window],
    month_first: bool = False,
) -> PlacedDates:
    """The first date of the ``candidates`` (the page's ``<time>`` and ``<abbr>`` elements, in page order) in the
    byline ``windows`` (:func:`~.visible.byline_windows`: window by
    window, the nearest to its anchor first, a tie to the one below it), and of the others (those after the text
    first, then the page's other ``<time>`` and ``<abbr>`` elements in page order)."""
    holders = _holders(texts, elements, windows)
    near: dict[Any, tuple[int, int, bool, int]] = {}  # keyed by the element (its proxy stays the node's)

    def consider(element: Any, index: int, order: int) -> None:
        rank = next(rank for rank, window in enumerate(windows) if index in window.blocks)
        anchor = windows[rank].anchor
        key = (rank, abs(index - anchor), index < anchor, order)
        if element not in near or key < near[element]:
            near[element] = key

    tagged = list(candidates[:MAX_CANDIDATES])
    for order, element in enumerate(tagged if holders else ()):  # no line in the windows: none is near
        index = _position(element, holders)
        if index is not None:
            consider(element, index, order)
    # an element marked by class or id after the text (within the windows above, the byline reads its text)
    for window in (window for window in windows if window.credits):
        for index in window.blocks:
            if (holder := _holder(elements, index)) in holders:
                for element in _marked_around(holder):
                    consider(element, index, len(tagged))
    ranked = sorted(near.items(), key=lambda item: item[1])
    in_windows = (element for element, key in ranked if not windows[key[0]].credits)
    near_date = next(filter(None, (dated(element, month_first) for element in in_windows)), None)
    if near_date is not None:
        return PlacedDates(near=near_date)
    # after the text, a date may be a teaser's as well as the article's: it comes after the URL's too
    after = [element for element, key in ranked if windows[key[0]].credits]
    others = (element for element in tagged if element not in near)
    far = (dated(element, month_first) for element in chain(after, others))
    return PlacedDates(far=next(filter(None, far), None))


#: Blocks read above the text and in it for a date line (:func:`page_date`), and how long such a line may be.
BLOCKS_ABOVE = 150
BLOCKS_IN = 150
MAX_DATE_LINE = 80


def page_date(
    texts: Sequence[str], keep: Sequence[bool], elements: Sequence[tuple[Any, bool]], month_first: bool = False
) -> str | None:
    """The date of a short line above the main text (the nearest first, up to :data:`BLOCKS_ABOVE` blocks), else
    of one among its first :data:`BLOCKS_IN` blocks: the last resort, where neither markup, the byline's windows nor the
    URL states one.  A date line is at most :data:`MAX_DATE_LINE` characters, in an element whose whole text is at
    most :data:`MAX_LINE` (a longer one is a sentence that mentions a date), and states a whole day
    (:func:`~.written.text_date`: no year alone, no month without its day).  Nothing after the text is read, nor a
    comment's or a citation's line: comments, teasers, archives and cited works date other pages."""
    size = min(len(texts), len(keep), MAX_PAGE_BLOCKS)
    first = next((index for index in range(size) if keep[index]), None)
    if first is None:
        return None
    last = next(index for index in range(size - 1, first - 1, -1) if keep[index])
    above, among = (
        range(first - 1, max(-1, first - BLOCKS_ABOVE - 1), -1),
        range(first, min(last + 1, first + BLOCKS_IN)),
    )
    for index in chain(above, among):
        text = texts[index]
        if len(text) > MAX_DATE_LINE or _TWO_DIGITS.search(text) is None:  # every date has a year's digits
            continue
        day = text_date(text, month_first)
        holder = _holder(elements, index) if day else None
        if day and (holder is None or bounded_text(holder, MAX_LINE) is not None and not _elsewhere(text, holder)):
            return day
    return None


def _elsewhere(text: str, holder: Any) -> bool:
    """Whether a date line dates another document: a comment, a citation ("Retrieved 1 July 2009", ``<cite>``, a
    reference list's item)."""
    if _CITED.search(text) or in_comments(holder):
        return True
    for element in islice(chain((holder,), holder.iterancestors()), ANCESTORS + 3):
        names = f"{element.get('class') or ''} {element.get('id') or ''}"[:300]
        if element.tag == "cite" or len(names) > 1 and _REFERENCES.search(names):
            return True
    return False


def _holder(elements: Sequence[tuple[Any, bool]], index: int) -> Any:
    if index >= len(elements) or elements[index][0] is None:
        return None
    element, in_tail = elements[index]
    return element.getparent() if in_tail else element


def _holders(texts: Sequence[str], elements: Sequence[tuple[Any, bool]], windows: Sequence[Window]) -> dict:
    """Block index by the element holding its text, for the windows' blocks no longer than a line (a longer one is
    a paragraph: a date inside it is one the text mentions).  Keyed by the element: lxml gives the same proxy for a
    node while one is held (an id would be reused once the proxy is freed)."""
    holders: dict[Any, int] = {}
    for window in windows:
        for index in window.blocks:
            holder = _holder(elements, index) if index < len(texts) and len(texts[index]) <= MAX_LINE else None
            if holder is not None:
                holders.setdefault(holder, index)
    return holders


def _position(element: Any, holders: dict[Any, int]) -> int | None:
    """The window block of ``element``: its own text's, one inside it, or its line's (a ``<time>`` without text)."""
    for inner in islice(element.iter(), DESCENDANTS):
        if inner in holders:
            return holders[inner]
    for ancestor in islice(element.iterancestors(), ANCESTORS + 1):
        if ancestor in holders:
            return holders[ancestor]
    return None


def _marked_around(holder: Any) -> list[Any]:
    return [
        candidate
        for candidate in islice(chain((holder,), holder.iterancestors()), ANCESTORS + 1)
        if isinstance(candidate.tag, str) and candidate.tag not in ("body", "html") and _is_marked(candidate)
    ]


def _is_marked(element: Any) -> bool:
    if element.tag in _DATE_TAGS:
        return True
    names = f"{element.get('class') or ''} {element.get('id') or ''}"[:300]
    return len(names) > 1 and _DATE_CLASS.search(names) is not None


def dated(element: Any, month_first: bool = False) -> Dated | None:
    found = date_of(element, month_first)
    return (found, TIME_ELEMENT if element.tag == "time" else DATE_ELEMENT) if found else None


def date_of(element: Any, month_first: bool = False) -> str | None:
    """The date a candidate states: its ``datetime``/``content``/``title`` value (ISO 8601 keeps the time and
    zone), else its short text; a value without four digits (a year) is not read."""
    attributes = (element.get(name) for name in ("datetime", "content", "title"))
    for value in (*attributes, bounded_text(element, MAX_CANDIDATE_CHARS)):
        value = (value or "")[:MAX_CANDIDATE_CHARS].strip()
        if sum(char.isdigit() for char in value) >= 4:
            stated = iso_date(value) or text_date(value, month_first)
            if stated:
                return stated
    return None
