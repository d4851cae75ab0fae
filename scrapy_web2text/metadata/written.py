"""Dates as pages write them: in a short text ("11 June 2024", "11.06.2024", "June 11, 2024", "2024-06-11"), in a
URL (``/2024/06/11/``) and in the ``<meta>`` elements whose name says date, each read to the day.

The patterns and the ``<meta>`` names are those htmldate (trafilatura's date reader) tries first, before its slow
parser: plain regular expressions and a table of month names, so that reading them needs no dependency.  A value
is taken only when its day exists and lies between :data:`~.dates.EARLIEST` and two days ahead; no day is invented
(a month and year alone, ``06/2024``, is no date).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .dates import EARLIEST, ISO_IN_TEXT, impossible_date, iso_date, latest_date

#: A text or a URL is looked at up to this many characters.
MAX_TEXT_SCAN = 200
MAX_URL_SCAN = 500

_DAY, _MONTH, _YEAR = "[0-3]?[0-9]", "[0-1]?[0-9]", "(?:199[0-9]|20[0-3][0-9])"
_URL_DATE = re.compile(rf"\D({_YEAR})[/_-]({_MONTH})[/_-]({_DAY})(?:\D|$)")
_EIGHT_DIGITS = re.compile(r"\b(\d{8})\b")
#: The same separator twice: "9.7/10" is a score, not the 9th of July 2010.
_NUMERIC = re.compile(
    rf"(?:\D|^)(?:(?P<year>{_YEAR})(?P<sep>[-/.])(?P<month>{_MONTH})(?P=sep)(?P<day>{_DAY})|"
    rf"(?P<day2>{_DAY})(?P<sep2>[-/.])(?P<month2>{_MONTH})(?P=sep2)(?P<year2>\d{{2,4}}))(?:\D|$)"
)
#: A word of three letters or more, from its start: the month table decides whether it is a month.
_WORD = r"(?<![^\W\d_])[^\W\d_]{3,}+"
_WRITTEN = re.compile(
    rf"(?P<month>{_WORD})\.?\s(?P<day>{_DAY})(?:st|nd|rd|th)?,?\s(?P<year>{_YEAR})|"
    rf"(?P<day2>{_DAY})(?:st|nd|rd|th|\.|º)?\s(?:of\s|de\s)?(?P<month2>{_WORD})[,.]?\s(?:de\s)?(?P<year2>{_YEAR})",
    re.I,
)
#: A time zone's abbreviation after a date's time ("14:17 GMT"): not an upper-case code (a currency's, an IBAN's).
_ZONE_NAMES = re.compile(r"\b(?:GMT|UTC|BST|CET|CEST|EET|EEST|MEZ|MESZ|[ECMP][SD]T|AE[SD]T)\b")
#: What a date's text is not: a time alone, a year alone, a price, a telephone number or postcode, a URL.
_NOT_A_DATE = re.compile(
    r"^\d{2}:\d{2}(?: |:|$)|^\D*+\d{4}\D*+$|[$€¥£¢₽₱฿#₹®]|[A-Z]{3}[^A-Z]|(?:^|\D)(?:\+\d{2}|\d{3}|\d{5})\D|"
    r"ftps?|https?|\.(?:com|net|org|info|gov|edu|de|fr|io)\b|IBAN|[A-Z]{2}[0-9]{2}"
)


def _fold(word: str) -> str:
    return word.replace("ı", "i").lower()  # lower() alone leaves Turkish's dotless i


_MONTH_NAMES = (
    "jan januar jänner january januari janvier enero gennaio janeiro januarie ocak",
    "feb februar feber february februari février febrero febbraio fevereiro şubat",
    "mar mär märz march maret mart mars marzo março maart",
    "apr april avril abril aprile nisan",
    "may mai mei mayo maggio maio mayıs",
    "jun juni june juin junio giugno junho haziran",
    "jul juli july juillet julio luglio julho temmuz",
    "aug august agustus augustus août aout agosto ağustos",
    "sep sept september septembre septiembre settembre setembro eylül",
    "oct okt oktober october octobre octubre ottobre outubro ekim",
    "nov november novembre noviembre novembro kasım",
    "dec dez dezember december desember décembre diciembre dicembre dezembro aralık",
)
MONTHS = {_fold(name): number for number, names in enumerate(_MONTH_NAMES, 1) for name in names.split()}

#: ``<meta>`` names (``name`` or ``property``, lower case) of a publication date, and of a modification (a reserve
#: where no publication date is stated); ``itemprop`` names of both.
PUBLISHED_NAMES = frozenset(
    """analyticsattributes.articledate article.created article_date_original article:post_date article.published
    article:published article:published_date article:published_time article:publicationdate bt:pubdate citation_date
    citation_publication_date content_create_date created cxenseparse:recs:publishtime date date_created
    date_published datecreated dateposted datepublished dc.date dc.created dc.date.created dc.date.issued
    dc.date.publication dcsext.articlefirstpublished dcterms.created dcterms.date dcterms.issued dc:created dc:date
    displaydate doc_date field-name-post-date gentime mediator_published_time og:article:published
    og:article:published_time og:datepublished og:pubdate og:publish_date og:published_time
    og:question:published_time og:regdate originalpublicationdate parsely-pub-date pdate ptime pubdate publishdate
    publish_date publish_time publish-date published-date published_date published_time publisheddate
    publication_date rbpubdate release_date rnews:datepublished sailthru.date shareaholic:article_published_time
    timestamp twt-published-at video:release_date vr:published_time""".split()
)
MODIFIED_NAMES = frozenset(
    """lastdate lastmod lastmodified last-modified modified utime article:modified article:modified_date
    article:modified_time article:post_modified bt:moddate datemodified dc.modified dcterms.modified modified_time
    modificationdate og:article:modified_time og:modified_time og:updated_time revision_date updated_time""".split()
)
PUBLISHED_ITEMPROPS = frozenset({"datecreated", "datepublished", "pubyear"})
MAX_META = 2000
#: A page's scripts are searched for a publication date up to this many characters and scripts, this many values.
MAX_SCRIPT_SCAN = 500_000
MAX_SCRIPT_DATES = 20
MAX_SCRIPTS = 500
#: A JSON key that ends in "published" ("datePublished", "publishedAt", "publish_date"...) and its string value: the
#: literal "ublish" starts every attempt, found by the engine's fast search instead of trying every quotation mark.
_SCRIPT_DATE = re.compile(r'ublish(?:ed|ed_?[Aa]t|ed_?[Dd]ate|_?[Dd]ate)"\s*+:\s*+"([^"]{8,40})"')


def text_date(text: Any, month_first: bool = False) -> str | None:
    """The day a short text states (``2024-06-11``), or ``None``; ``month_first``: a numeric date with slashes
    whose first two numbers can both be a month is read the American way (``7/3/24``: 3 July), else day first."""
    if not isinstance(text, str):
        return None
    text = " ".join(text[: 4 * MAX_TEXT_SCAN].split())[:MAX_TEXT_SCAN]
    if not 4 <= sum(map(str.isdigit, text)) <= 18 or _NOT_A_DATE.search(_ZONE_NAMES.sub(" ", text)):
        return None
    if any(impossible_date(found.group()) for found in ISO_IN_TEXT.finditer(text)):
        return None  # "2024-02-30T25:61" is no date, not some other reading of its digits
    return next((day for day in map(_plausible, _candidates(text, month_first)) if day), None)


def url_date(url: Any) -> str | None:
    """A ``/2024/06/11/``-style date in ``url``."""
    match = _URL_DATE.search(url[:MAX_URL_SCAN]) if isinstance(url, str) else None
    return _plausible(_day(match[1], match[2], match[3])) if match else None


def script_date(scripts: Sequence[Any]) -> str | None:
    """The first publication date a script's JSON names under a key that ends in "published"
    (``"datePublished": "2025-11-19T13:27:46Z"``, a framework's page state: ``"publishedAt"``): the page's
    ``scripts`` are read, up to :data:`MAX_SCRIPT_SCAN` characters in all, at most
    :data:`MAX_SCRIPT_DATES` values."""
    size = tries = 0
    for script in scripts[:MAX_SCRIPTS]:
        text = script.text
        if not text or size >= MAX_SCRIPT_SCAN:
            continue
        size += len(text)
        for match in _SCRIPT_DATE.finditer(text, 0, MAX_SCRIPT_SCAN):
            day = iso_date(match[1]) or text_date(match[1])
            tries += 1
            if day or tries >= MAX_SCRIPT_DATES:
                return day
    return None


def meta_date(head: Any) -> str | None:
    """The publication date the ``<meta>`` elements under ``head`` state (the first one whose name says so), else
    the first modification date."""
    reserve = None
    for count, element in enumerate(head.iter("meta")):
        if count >= MAX_META:
            break
        content = element.get("content") or element.get("datetime")
        if not content:
            continue
        name = (element.get("name") or element.get("property") or "").strip().lower()
        itemprop = (element.get("itemprop") or "").strip().lower()
        equiv = (element.get("http-equiv") or "").strip().lower()
        if name in PUBLISHED_NAMES or itemprop in PUBLISHED_ITEMPROPS or equiv == "date":
            found = text_date(content)
            if found:
                return found
        elif name in MODIFIED_NAMES or equiv == "last-modified":
            reserve = reserve or text_date(content)
    return reserve


def _candidates(text: str, month_first: bool = False) -> Iterator[dt.date | None]:
    """Readings of ``text``, most precise first: an ISO or ``YYYYMMDD`` date at its start, eight digits, a numeric
    date (year first, else day first), a written one ("11 June 2024", "June 11th, 2024")."""
    if text[:8].isdigit():
        yield _day(text[:4], text[4:6], text[6:8])
    elif text[:4].isdigit():
        try:
            yield dt.datetime.fromisoformat(text).date()
        except ValueError:
            pass
    if match := _EIGHT_DIGITS.search(text):
        yield _day(match[1][:4], match[1][4:6], match[1][6:])
    if match := _NUMERIC.search(text):
        if match["year"]:
            yield _day(match["year"], match["month"], match["day"])
        elif month_first and match["sep2"] == "/":
            yield _day_first(int(match["month2"]), int(match["day2"]), int(match["year2"]))
        else:
            yield _day_first(int(match["day2"]), int(match["month2"]), int(match["year2"]))
    for match in _WRITTEN.finditer(text):
        month = MONTHS.get(_fold(match["month"] or match["month2"]))
        if month is not None:
            yield _day_first(int(match["day"] or match["day2"]), month, int(match["year"] or match["year2"]))


def _day(year: str, month: str, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


def _day_first(day: int, month: int, year: int) -> dt.date | None:
    """A day-month-year date; a two-digit year in 1990-2089; day and month swapped where only that order exists."""
    if year < 100:
        year += 1900 if year >= 90 else 2000
    if month > 12 and day <= 12:
        day, month = month, day
    return _day(str(year), str(month), str(day))


def _plausible(day: dt.date | None) -> str | None:
    if day is None or not EARLIEST.date() <= day <= latest_date().date():
        return None
    return day.isoformat()
