"""The byline and date a reader sees: the short lines just above the main text (and at its very start) that name
an author ("By Aisha Rahman", a ``class="author"`` element) or state a date, for pages whose markup does not.

Only the blocks around the first content block (:data:`BLOCKS_BEFORE`, :data:`BLOCKS_AFTER`), below the headline and
after the last content block are looked at (:func:`byline_windows`), each line up to :data:`MAX_LINE_CHARS`
characters: the cost does not grow with the page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from .dates import iso_date
from .names import DATE_WORDS, PARTICLES, cut_before_date, is_name, trimmed
from .written import text_date

BLOCKS_BEFORE = 15
BLOCKS_AFTER = 6
#: Blocks read below the headline where it sits outside the window of the first kept block.
BLOCKS_AFTER_HEADLINE = 25
#: Blocks around the last kept block read for credits; a headline shorter than this matches only a whole title.
CREDITS_BEFORE, CREDITS_AFTER = 2, 6
MIN_HEADLINE_CHARS = 12
#: A byline or date line is short; a longer one is a paragraph.
MAX_LINE_CHARS = 160
#: Ancestors of a block looked at for a byline's class, id, rel or itemprop.
ANCESTORS = 3

#: A heading is a byline only by its own class (``<h2 class="art-byline">``): the headline is not one, whatever an
#: ancestor's class says (``<article class="... author-carmel-hagen">``).
_HEADINGS = frozenset(("h1", "h2"))
_INLINE = frozenset(
    "a abbr b bdi bdo cite code data em font i img kbd mark q s samp small span strong sub sup time u".split()
)
BYLINE_START = re.compile(
    r"^\s*+(?:by|von|par|por|door|di|av|af|przez|автор|written by|posted by"
    r"|(?:veröffentlicht|erstellt|geschrieben|verfasst)\s++von|publié\s++par|(?:publicado|escrito)\s++por"
    r"|text(?:e)?\s*+:|autor(?:in)?\s*+:|author\s*+:)\s++(.+)",
    re.I,
)
_MARKS = re.compile(r"author|byline|writer|autor|auteur|verfasser|creator", re.I)
#: (not "responsive": a grid's class)
_COMMENTS = re.compile(r"comment|respons(?!iv)|respond|reply|replies|discuss|kommentar", re.I)
_DIGIT = re.compile(r"\d")
_DATE_MARKS = re.compile(r"date|time|publish|posted|datum|fecha", re.I)
#: What ends the names of a byline: a separator, a date, "updated" (a date particle: :func:`~.names.cut_before_date`).
_SEPARATORS = re.compile(r"(?:[|·•–—/]|\bupdated\b|\d)(?s:.*)", re.I)
#: What joins two names: a comma, "&", "and" in a few languages.
_JOINERS = re.compile(r"(?<!\s)\s*+(?:,|&|\b(?:and|und|et|y|e|en)\b)\s*+", re.I)
#: A user name: one word in lower case, or with an underscore ("kovarex", "J_Doe"; a digit ends the names).
_HANDLE = re.compile(r"^(?:[a-z][a-z0-9._-]++|[^\s_]*+_\S*+)$")


#: ``<a>`` elements looked at in a list item (a teaser's), and marked authors (:mod:`.marked`).
MAX_MARKED = 10
#: Ancestors of an ``<a rel="author">`` looked at for a comment section's class or id.
COMMENT_ANCESTORS = 12
#: Ancestors of a byline looked at for the site's chrome (:func:`in_chrome`): a sidebar's byline sits a few levels
#: below it; the layout's wrappers further up name the sidebar beside the text ("content-sidebar-wrap").
CHROME_ANCESTORS = 6
#: Ancestors of a byline looked at for a teaser's list item, and the length of a link that is a story's headline.
TEASER_ANCESTORS = 6
TEASER_LINK_CHARS = 25
#: A class or id word of a sidebar or a navigation bar; a word that only says the layout has one is not.
#: An article's own sidebar ("story_sidebar") holds its authors.
_CHROME_WORD = re.compile(
    r"sidebar|side-bar|sidenav|^(?:(?:site|main|primary|top|global)[-_]*+)?(?:nav|navbar|navigation|menu)$", re.I
)
_LAYOUT_WORD = re.compile(
    r"(?:has|no|with|without)[-_]*+side|wrap|content|layout|container|body|story|post|article|entry", re.I
)


@dataclass(frozen=True, slots=True)
class Byline:
    authors: tuple[str, ...] = ()
    date: str | None = None


def read_byline(
    texts: Sequence[str],
    keep: Sequence[bool],
    elements: Sequence[tuple[Any, bool]],
    want_authors: bool = True,
    want_date: bool = True,
    windows: Sequence[Window] | None = None,
    month_first: bool = False,
    times: bool = True,
) -> Byline:
    """The authors and date stated in the lines around the first content block, then below the headline (block
    ``headline``), then the credits after the last content block (a line that starts with a byline word only):
    ``windows`` (:func:`byline_windows`, by default without a headline); empty when none.  Only what is wanted is
    looked for; ``times``: whether the page has a ``<time>`` element (a line's is looked for only then)."""
    authors: tuple[str, ...] = ()
    date = None
    if windows is None:
        windows = byline_windows(keep)
    text = _text_element(keep, elements) if want_authors else None
    marked: dict[Any, bool] = {}  # whether an element's own class, id, rel or itemprop says author
    # a line read before (in an overlapping window, or a block whose text is its whole line) says nothing new
    read: set[tuple[str, Any]] = set()
    holders: set[Any] = set()  # the lines' elements read so far (a proxy held is the one lxml gives for its node)
    for window in windows if want_authors or want_date else ():
        if window.credits and not want_authors:  # after the text, only credits are read
            continue
        for line, element in _lines(texts, elements, window.blocks.start, window.blocks.stop, holders):
            if (line, element) in read:
                continue
            read.add((line, element))
            if want_authors and not authors and (not window.credits or BYLINE_START.match(line)):
                authors = _authors_of(line, element, marked)
                if authors and element is not None and not of_this_text(element, text):
                    authors = ()
            if want_date and date is None and not window.credits:  # after the text: a teaser's (see .placed)
                date = _date_of(line, element, month_first, times)
            if (authors or not want_authors) and (date or not want_date):
                return Byline(authors, date)
    return Byline(authors, date)


def _text_element(keep: Sequence[bool], elements: Sequence[tuple[Any, bool]]) -> Any:
    """The element holding the first kept block's text."""
    first = next((index for index, kept in enumerate(keep) if kept), None)
    if first is None or first >= len(elements) or elements[first][0] is None:
        return None
    element, in_tail = elements[first]
    return element.getparent() if in_tail else element


@dataclass(frozen=True, slots=True)
class Window:
    """Blocks where a byline is looked for, the block it is measured from, and whether it follows the text."""

    blocks: range
    anchor: int
    credits: bool = False


def byline_windows(keep: Sequence[bool], headline: int | None = None) -> list[Window]:
    """Around the first kept block; below the headline where that reaches elsewhere (a byline 90 blocks above the
    first kept paragraph, under the ``<h1>``); after the last kept block (credits: "Text: Ursula Eggers")."""
    first = next((index for index, kept in enumerate(keep) if kept), None)
    if first is None:
        return []
    last = len(keep) - 1 - next(index for index, kept in enumerate(reversed(keep)) if kept)
    windows = [Window(range(max(0, first - BLOCKS_BEFORE), first + BLOCKS_AFTER), first)]
    # (a headline's window ends where the first one does: below it, the text and what follows it are not a byline)
    end = min(headline + BLOCKS_AFTER_HEADLINE, first + BLOCKS_AFTER) if headline is not None else 0
    below_headline = range(headline, end) if headline is not None and headline < windows[0].blocks.start else range(0)
    if below_headline:
        windows.append(Window(below_headline, headline))
    windows.append(Window(range(max(0, last - CREDITS_BEFORE, first + BLOCKS_AFTER), last + CREDITS_AFTER), last, True))
    return windows


def headline_block(texts: Sequence[str], keep: Sequence[bool], title: str | None) -> int | None:
    """The first block above the first kept block's window whose text is the page's title, or the part of it
    before the site's name."""
    wanted = _fold(title)
    first = next((index for index, kept in enumerate(keep) if kept), None)
    if not wanted or first is None:
        return None
    for index in range(min(first - BLOCKS_BEFORE, len(texts))):
        size = len(texts[index])
        text = _fold(texts[index]) if MIN_HEADLINE_CHARS <= size <= len(wanted) + 20 or size == len(wanted) else ""
        if text and (text == wanted or len(text) >= MIN_HEADLINE_CHARS and wanted.startswith(text)):
            return index
    return None


def _fold(text: str | None) -> str:
    return " ".join(text[: 2 * MAX_LINE_CHARS].split()).casefold() if text else ""


def of_this_text(element: Any, text: Any = None) -> bool:
    """Whether a byline or an author's element can name the author of the page's text (whose first kept block is
    held by ``text``, where known): not in a comment section (a commenter), nor in the site's chrome
    (:func:`in_chrome`), nor in a teaser (:func:`in_teaser`)."""
    return not in_comments(element) and not in_chrome(element) and not in_teaser(element, text)


def in_teaser(element: Any, text: Any = None) -> bool:
    """Whether ``element`` sits in a list item that links to another story by its headline (a link of at least
    :data:`TEASER_LINK_CHARS` characters beside the byline) and does not hold the page's ``text``: "most read",
    "related" and index lists name their stories' authors, not this text's.  A byline's own list (``<li>By Ann
    Lee</li><li>June 5</li>``) links no headline; a post shown as a list item (a Facebook note) holds the text."""
    for ancestor in islice(element.iterancestors(), TEASER_ANCESTORS):
        if ancestor.tag in ("body", "main"):
            return False
        if ancestor.tag == "li":
            if text is not None and any(holder is ancestor for holder in text.iterancestors()):
                return False
            return any(
                link.get("href") and element not in link.iterancestors() and _long_text(link)
                for link in islice(ancestor.iter("a"), MAX_MARKED)
            )
    return False


def _long_text(link: Any) -> bool:
    text = bounded_text(link, MAX_LINE_CHARS)
    return text is None or len(text) >= TEASER_LINK_CHARS


def in_chrome(element: Any) -> bool:
    """Whether ``element`` sits in a sidebar or a navigation bar or menu (``<nav>``, a class or id that says so),
    below no ``<article>`` or ``<main>``: "By John Gruber" beside every page of a blog, a profile widget, name the
    site's owner, not the author of this text (Readability.js drops such blocks before it looks for a byline).  An
    article's own footer or aside is the article's: a post's "Posted by" stays."""
    for ancestor in islice(chain((element,), element.iterancestors()), CHROME_ANCESTORS + 1):
        tag = ancestor.tag
        if tag in ("article", "main", "body"):
            return False
        if tag == "nav":
            return True
        names = f"{ancestor.get('class') or ''} {ancestor.get('id') or ''}"[:300].split()
        if any(_CHROME_WORD.search(word) and not _LAYOUT_WORD.search(word) for word in names):
            return True
    return False


def in_comments(element: Any) -> bool:
    """Whether ``element`` sits in a comment section: an ancestor below ``<body>`` whose class or id says so (the
    body's and the root's classes describe the whole page: "comments-open")."""
    for ancestor in islice(element.iterancestors(), COMMENT_ANCESTORS):
        if ancestor.tag in ("body", "html"):
            return False
        names = " ".join(ancestor.get(name) or "" for name in ("class", "id"))
        if names.strip() and _COMMENTS.search(names[:300]):
            return True
    return False


def split_names(names: str) -> list[str]:
    return [trimmed(part.strip(" .:")) for part in _JOINERS.split(cut_before_date(_SEPARATORS.sub("", names[:500])))]


def _lines(texts: Sequence[str], elements: Sequence[tuple[Any, bool]], start: int, end: int, seen: set[Any]):
    """(text, element or None) for the blocks in ``start:end``: the text of a block's nearest block-level element
    (``By`` + ``<a>Aisha Rahman</a>`` + ``<time>``: one line), once per such element not in ``seen`` (which it is
    added to), then the block's own text with the element holding it."""
    for index in range(start, min(end, len(texts))):
        if len(texts[index]) > MAX_LINE_CHARS:  # a paragraph: its line is longer still
            continue
        element, in_tail = elements[index] if index < len(elements) else (None, False)
        if element is not None and in_tail:  # the text follows the element: it sits in the element's parent
            element = element.getparent()
        line_holder = line_element(element) if element is not None else None
        if line_holder is not None and line_holder not in seen:
            seen.add(line_holder)
            line = bounded_text(line_holder)
            if line is not None:
                yield line, line_holder
        yield texts[index], element


def line_element(element: Any) -> Any:
    """``element``'s nearest ancestor-or-self that is not inline (the line a reader sees it on)."""
    for _ in range(6):
        if not isinstance(element.tag, str) or element.tag not in _INLINE:
            return element
        parent = element.getparent()
        if parent is None:
            return element
        element = parent
    return element


def bounded_text(element: Any, limit: int = MAX_LINE_CHARS) -> str | None:
    """``element``'s text with its white space collapsed, ``None`` past ``limit`` characters (read no further)."""
    parts, size = [], 0
    for text in element.itertext():
        size += len(text)
        if size > limit:
            return None
        parts.append(text)
    return " ".join(" ".join(parts).split())


def _marked(
    element: Any, pattern: re.Pattern[str], ancestors: int = ANCESTORS, seen: dict[Any, bool] | None = None
) -> bool:
    """``element`` or one of its first ``ancestors`` has a class, id, rel or itemprop matching ``pattern``.  ``seen``
    keeps each element's own answer for ``pattern`` (keyed by the element, which keeps its proxy alive: lxml gives
    the same proxy for a node while one is held): the lines of a byline's window share their ancestors."""
    for _ in range(ancestors + 1):
        if element is None:
            return False
        own = seen.get(element) if seen is not None else None
        if own is None:
            get = element.get
            names = f"{get('class') or ''} {get('id') or ''} {get('rel') or ''} {get('itemprop') or ''}"
            own = len(names) > 3 and pattern.search(names[:300]) is not None
            if seen is not None:
                seen[element] = own
        if own:
            return True
        element = element.getparent()
    return False


def _authors_of(line: str, element: Any, seen: dict[Any, bool] | None = None) -> tuple[str, ...]:
    match = BYLINE_START.match(line)
    if match is not None:
        names = match.group(1)
    elif (
        element is not None
        and " " in line.strip()
        and line[:1].isupper()
        and _marked(element, _MARKS, 0 if element.tag in _HEADINGS else ANCESTORS, seen)
    ):
        names = line  # (the class is looked at only for a line that could hold a full name)
    else:
        return ()
    parts = split_names(names)
    found = tuple(name for name in parts if looks_like_name(name))
    if not any(" " in name for name in found):
        if match is None:
            return ()  # a marked element's single word ("Guides", a user name) is too weak without a "By"
        if len(parts) > 1 and any(_HANDLE.match(part) for part in parts):
            return ()  # "Posted by kovarex, TOGos, Ernestas, Albert": one user name among single words: accounts
    return found[:5]


def looks_like_name(text: str) -> bool:
    words = text.split()
    if BYLINE_START.match(text + " x") and len(words) <= 2:  # "By", "Written by": the byline's word, not a name
        return False
    if not 1 <= len(words) <= 5 or len(text) > 60 or any(char in text for char in '@:;!?()[]{}<>"='):
        return False
    if any(word.lower().strip(".,") in DATE_WORDS for word in words) or not is_name(text):
        return False
    return all(word[0].isupper() or word.lower() in PARTICLES for word in words) and any(
        word[0].isupper() for word in words
    )


def _date_of(line: str, element: Any, month_first: bool = False, times: bool = True) -> str | None:
    """The date of a line: a ``<time>`` element's in it (looked for only where the page has one: ``times``), else
    its text's (a long line's where its element is marked as a date's)."""
    if element is not None and times:
        for time in islice(element.iter("time"), 10):
            stated = iso_date((time.get("datetime") or "")[:40])
            if stated:
                return stated
    if len(_DIGIT.findall(line)) < 4:  # no year: no date (htmldate's own first test)
        return None
    if element is None or len(line) <= 80 or _marked(element, _DATE_MARKS):
        return text_date(line, month_first)
    return None
