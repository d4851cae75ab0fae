"""One page's :class:`~.model.Metadata`, from its parsed tree and its labelled blocks.

Each field takes the first source that gives it a value, in this order: JSON-LD, microdata, OpenGraph, other
``<meta>`` declarations, then ``<meta>`` dates under other names (:mod:`.written`), ``<time>`` and dated elements,
the visible byline, and the URL.  Structured data comes first because a site writes it for machines, on purpose,
about this page; a ``<meta>`` can be a template's leftover; the visible byline is a guess from the page's layout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from .dates import in_zone, iso_date, on_day, stated_zone, utc_instant
from .embedded import EXTRA_NOTE, ORGANISATION_TYPES, Objects, read_json_ld, read_microdata, types_of
from .head import HeadValues, head_of, read_head
from .language import normalise, page_language
from .links import read_links
from .marked import item_authors, itemprop_authors, rel_authors
from .model import (
    BYLINE,
    DATE_LINE,
    HEADLINE,
    HTML_LANG,
    JSON_LD,
    LINK,
    MAX_DESCRIPTION_CHARS,
    MAX_LIST_ITEMS,
    META,
    MICRODATA,
    OPENGRAPH,
    SCRIPT,
    TEXT,
    URL,
    URL_SCHEME,
    Metadata,
    clean_list,
    clean_text,
    http_url,
)
from .names import is_name, name_key, organisation_keys, trimmed
from .placed import page_date, placed_dates
from .visible import byline_windows, headline_block, read_byline
from .walk import CREATIVE_COMMONS_HOST, page_elements, source_names
from .written import meta_date, script_date, url_date

#: schema.org properties read for each field, in order.
_PROPERTIES = {
    "title": ("headline",),  # a name is often the site's or a product's; the heading on the page is better
    "authors": ("author", "creator"),
    "date_published": ("datePublished", "dateCreated", "uploadDate"),
    "date_modified": ("dateModified",),
    "language": ("inLanguage",),
    "description": ("description", "abstract"),
    "image": ("image", "thumbnailUrl"),
    "canonical_url": ("url", "mainEntityOfPage"),
    "tags": ("keywords",),
    "categories": ("articleSection", "genre"),
    "license": ("license",),
}


class _Fields:
    """The values chosen so far: the first source to give a field a value keeps it."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}
        self.organisations: frozenset[str] = frozenset()  # name keys of the site and its publisher: no author

    def offer(self, name: str, value: Any, source: str | None) -> None:
        if name == "authors" and value:
            value = tuple(author for author in value if name_key(author) not in self.organisations)
        if name not in self.values and value not in (None, "", ()):
            self.values[name] = value
            if source:
                self.sources[name] = source

    def missing(self, name: str) -> bool:
        return name not in self.values


def read_metadata(
    root: Any,
    url: str | None,
    texts: Sequence[str],
    keep: Sequence[bool],
    elements: Sequence[tuple[Any, bool]],
    main_text: str,
    headline: str | Callable[[], str | None] | None = None,
    content_language: str | None = None,
    source: str | None = None,
) -> Metadata:
    """The metadata of a parsed page (``root``) whose blocks are ``texts``/``keep``/``elements`` (see
    :attr:`scrapy_web2text.Extraction.metadata`).

    ``headline`` is the extraction's title (tried right after structured data), or what finds it (called only
    where no markup declares a title); ``content_language`` an HTTP ``Content-Language`` header; ``source`` the
    text the tree was parsed from, if known (a page whose text names no structured data is not searched for it).
    """
    if root is None:
        return Metadata()
    base = http_url(url)  # a page URL that does not parse resolves nothing (and names no site)
    chosen = _Fields()
    notes: list[str] = []
    head = read_head(root)
    if head.overflow:
        notes.append("meta: too many <meta>/<link> elements; the rest not read")
    found = page_elements(root, source is None or CREATIVE_COMMONS_HOST in source)
    names = source_names(source)
    structured = _structured_data(root, base, names.items, found.json_ld)
    chosen.organisations = _organisations(structured, head, base)
    title = _page_title(root, head, headline)
    for objects in structured:
        notes += objects.notes
        _from_objects(chosen, objects, base, title)
    if not callable(headline):  # the heading found on the page, already known
        chosen.offer("title", clean_text(headline), HEADLINE)
    _from_head(chosen, head, base)
    _first_publication(chosen, head, base)
    links = read_links(found, base)
    for name in ("license", "categories", "tags"):
        chosen.offer(name, getattr(links, name), LINK)
    if callable(headline) and chosen.missing("title"):  # found now only where the head declares no title
        chosen.offer("title", clean_text(headline()), HEADLINE)
    _dates_from_meta(chosen, root)
    windows = byline_windows(keep, headline_block(texts, keep, title))
    us = _month_first(head, content_language)
    times = found.times
    placed = placed_dates(found.dated, texts, elements, windows, us) if chosen.missing("date_published") else None
    chosen.offer("date_published", *((placed and placed.near) or (None, None)))
    dated_byline = None  # a byline read for its date gives the same date again: kept for _local_day
    if chosen.missing("authors") or chosen.missing("date_published"):
        want = chosen.missing("authors"), chosen.missing("date_published")
        byline = read_byline(texts, keep, elements, *want, windows=windows, month_first=us, times=times)
        dated_byline = byline if want[1] else None
        chosen.offer("authors", byline.authors, BYLINE)
        chosen.offer("date_published", byline.date, BYLINE)
    if chosen.missing("authors"):
        chosen.offer("authors", itemprop_authors(root, names.author_property), MICRODATA)
    if chosen.missing("authors") and any(EXTRA_NOTE in note for note in notes):  # items not read: no extruct
        chosen.offer("authors", item_authors(root, names.author_property), MICRODATA)
    if chosen.missing("authors"):
        chosen.offer("authors", rel_authors(links.authors), BYLINE)
    if chosen.missing("date_published"):  # the page's URL, else its canonical URL (og:url, rel=canonical)
        chosen.offer("date_published", url_date(url) or url_date(chosen.values.get("canonical_url")), URL)
    chosen.offer("date_published", *((placed and placed.far) or (None, None)))  # a teaser's or a widget's date
    if chosen.missing("date_published"):  # a framework's page state, in a script
        chosen.offer("date_published", script_date(found.scripts), SCRIPT)
    if chosen.missing("date_published"):  # a date line above the text or in it: the last resort
        chosen.offer("date_published", page_date(texts, keep, elements, us), DATE_LINE)
    days = (  # each read only where the one before does not decide
        lambda: url_date(url) or url_date(chosen.values.get("canonical_url")),
        lambda: ((placed or placed_dates(found.dated, texts, elements, windows, us)).near or ("",))[0],
        lambda: (dated_byline or read_byline(texts, keep, elements, False, True, windows, us, times)).date,
    )
    _local_day(chosen, head, days)
    _language(chosen, head, main_text, content_language)
    if chosen.missing("site_name") and base:
        chosen.offer("site_name", urlsplit(base).hostname, URL)
    return Metadata(**chosen.values, sources=chosen.sources, notes=tuple(notes))


# --- structured data ------------------------------------------------------------------------------------------


def _structured_data(root: Any, base: str | None, items: bool, json_ld: Sequence[Any]) -> list[Objects]:
    """The objects of the page's JSON-LD scripts (``json_ld``), and its microdata objects where its source text names
    ``itemscope`` (``items``: :func:`~.walk.source_names`; a test of the text costs less than a walk over the
    tree)."""
    found = [read_json_ld(json_ld)] if json_ld else []
    if items:
        found.append(read_microdata(root, base))
    return found


def _from_objects(chosen: _Fields, objects: Objects, base: str | None, title: str | None) -> None:
    source = objects.source
    main = objects.main(title)
    if main is not None:
        for name, properties in _PROPERTIES.items():
            if chosen.missing(name):
                value = next((main[key] for key in properties if main.get(key) not in (None, "", [])), None)
                chosen.offer(name, _CONVERTERS[name](value, base) if value is not None else None, source)
        publisher = main.get("publisher") or main.get("isPartOf")
        chosen.offer("site_name", clean_text(_name(publisher)), source)
    for website in objects.of_types(frozenset({"WebSite"}))[:1]:
        chosen.offer("site_name", clean_text(_name(website)), source)
    for trail in objects.of_types(frozenset({"BreadcrumbList"}))[:1]:
        chosen.offer("breadcrumbs", _breadcrumbs(trail), source)


def _page_title(root: Any, head: HeadValues, headline: Any) -> str | None:
    """The title a main object's headline is matched against: the heading found, ``og:title``, ``<title>``."""
    if isinstance(headline, str):
        return headline
    title = head_of(root).find("title")
    return head.first("title", OPENGRAPH) or (title.text if title is not None else None)


def _organisations(structured: list[Objects], head: HeadValues, base: str | None) -> frozenset[str]:
    """The site's names (``og:site_name``, ``application-name``), its publisher's and its organisations' (structured
    data), and its host: an author named so is the site, not a person."""
    names = [*head.values.get(("site_name", OPENGRAPH), []), *head.values.get(("site_name", META), [])]
    for objects in structured:  # a publisher is among them: a reference names an object of the graph
        names += map(_name, objects.of_types(ORGANISATION_TYPES)[:MAX_LIST_ITEMS])
    return organisation_keys(names, urlsplit(base).hostname if base else None)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _name(value: Any) -> str | None:
    """A schema.org thing's name (a string as it is; a Person's name or given + family name)."""
    value = _first(value)
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return None
    name = value.get("name")
    if isinstance(name, list):
        name = _first(name)
    if isinstance(name, str):
        return name
    given, family = value.get("givenName"), value.get("familyName")
    if isinstance(given, str) and isinstance(family, str):
        return f"{given} {family}"
    return None


def _each(value: Any) -> list[Any]:
    """A value that may be one thing or a list, as a list of at most ten times the list cap."""
    return value[: 10 * MAX_LIST_ITEMS] if isinstance(value, list) else [value]


def _absolute(value: Any, base: str | None) -> str | None:
    """An http(s) URL, resolved against ``base`` (:func:`~.model.http_url`): no ``javascript:``/``data:`` value
    survives."""
    value = _first(value)
    if isinstance(value, dict):
        value = value.get("url") or value.get("contentUrl") or value.get("@id")
        value = _first(value)
    return http_url(value, base)


def _image(value: Any, base: str | None) -> str | None:
    url = _absolute(value, base)
    return url if url and "#" not in url else None  # ".../#primaryimage": a reference to an object not found


def _authors(value: Any, base: str | None = None) -> tuple[str, ...]:
    # a profile URL, a slug, a handle, a label is not a name (OpenGraph's article:author is usually a URL)
    people = (item for item in _each(value) if not (isinstance(item, dict) and _is_organisation(item)))
    names = (trimmed(clean_text(_name(item)) or "") for item in people)
    return clean_list(name for name in names if is_name(name))


def _is_organisation(item: dict[str, Any]) -> bool:
    return not ORGANISATION_TYPES.isdisjoint(types_of(item.get("@type")))


def _keywords(value: Any, base: str | None = None) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value[:5000].split(",")
    return clean_list(_name(item) for item in _each(value))


def _license(value: Any, base: str | None) -> str | None:
    """An http(s) URL, else a licence's name; a name that reads as a URL of another scheme is none."""
    url = _absolute(value, base)
    if url:
        return url
    name = clean_text(_name(value))
    return None if name is None or URL_SCHEME.match(name) else name


def _language_tag(value: Any, base: str | None = None) -> str | None:
    value = _first(value)
    if isinstance(value, dict):
        value = value.get("alternateName") or value.get("name")
    return normalise(value) if isinstance(value, str) else None


_CONVERTERS: dict[str, Callable[[Any, str | None], Any]] = {
    "title": lambda value, base: clean_text(_name(value)),
    "authors": _authors,
    "date_published": lambda value, base: iso_date(_first(value)),
    "date_modified": lambda value, base: iso_date(_first(value)),
    "language": _language_tag,
    "description": lambda value, base: clean_text(_name(value), MAX_DESCRIPTION_CHARS),
    "image": lambda value, base: _image(value, base),
    "canonical_url": _absolute,
    "tags": _keywords,
    "categories": _keywords,
    "license": _license,
    "site_name": lambda value, base: clean_text(_name(value)),
}


def _breadcrumbs(trail: dict[str, Any]) -> tuple[str, ...]:
    entries = [entry for entry in _each(trail.get("itemListElement")) if isinstance(entry, dict)]

    def position(entry: dict[str, Any]) -> float:
        try:
            return float(entry.get("position"))
        except (TypeError, ValueError):
            return float("inf")

    return clean_list(_name(entry) or _name(entry.get("item")) for entry in sorted(entries, key=position))


# --- the head and the dates -----------------------------------------------------------------------------------


def _from_head(chosen: _Fields, head: HeadValues, base: str | None) -> None:
    for source in (OPENGRAPH, META):
        for (name, value_source), values in head.values.items():
            if value_source != source or name == "og_type" or not chosen.missing(name):
                continue
            if name in ("authors", "tags", "categories"):
                value: Any = _CONVERTERS[name](values, base)
            else:
                value = _CONVERTERS[name](values[0], base)
            chosen.offer(name, value, source)


def _first_publication(chosen: _Fields, head: HeadValues, base: str | None) -> None:
    """A structured ``datePublished`` that is the day of the page's last modification, where the head states an
    earlier publication (``article:published_time``, a ``<meta>`` date): the head's.  A template that writes the
    modification under both names loses the first day; one date before another stated as the modification is the
    publication."""
    value, source = chosen.values.get("date_published"), chosen.sources.get("date_published")
    if source not in (JSON_LD, MICRODATA) or not isinstance(value, str):
        return
    modified = [chosen.values.get("date_modified")]
    for key in (("date_modified", OPENGRAPH), ("date_modified", META)):
        modified += head.values.get(key, [])[:5]
    if value[:10] not in {str(day)[:10] for day in modified if day}:
        return
    for key in (("date_published", OPENGRAPH), ("date_published", META)):
        earlier = next(filter(None, map(iso_date, head.values.get(key, [])[:5])), None)
        if earlier is not None and earlier[:10] < value[:10]:
            chosen.values["date_published"], chosen.sources["date_published"] = earlier, key[1]
            return


def _dates_from_meta(chosen: _Fields, root: Any) -> None:
    if chosen.missing("date_published"):
        chosen.offer("date_published", meta_date(head_of(root)), META)


def _month_first(head: HeadValues, content_language: str | None) -> bool:
    """Whether the page says it is written for the United States (``<html lang="en-US">``, ``og:locale`` en_US,
    a ``Content-Language``), where ``7/3/24`` is 3 July."""
    declared = (head.html_lang, *head.values.get(("language", OPENGRAPH), [])[:1], content_language)
    return any(isinstance(tag, str) and tag.strip()[:5].replace("_", "-").lower() == "en-us" for tag in declared)


def _local_day(chosen: _Fields, head: HeadValues, days: Sequence[Callable[[], str | None]]) -> None:
    """A publication instant stated in UTC, written in the page's own zone where another of its dates states one,
    else on the day its URL or its visible date names (``2023-11-09T03:28:35Z`` on a page of ``/2023/11/08/``:
    ``2023-11-08T23:28:35-04:00``, the same instant).  ``days`` (the URL's, the visible one) are read in turn, and
    only for a UTC instant."""
    value = chosen.values.get("date_published")
    if not utc_instant(value):
        return
    stated = [chosen.values.get("date_modified")]
    for key in (("date_published", OPENGRAPH), ("date_modified", OPENGRAPH), ("date_published", META)):
        stated += head.values.get(key, [])[:5]
    zone = next(filter(None, map(stated_zone, stated)), None)
    if zone is not None:
        chosen.values["date_published"] = in_zone(value, zone)
        return
    chosen.values["date_published"] = next(filter(None, (on_day(value, day()) for day in days)), value)


def _language(chosen: _Fields, head: HeadValues, main_text: str, content_language: str | None) -> None:
    declared, source = chosen.values.pop("language", None), chosen.sources.pop("language", None)
    for candidate, candidate_source in ((head.html_lang, HTML_LANG), (content_language, META)):
        if declared is None and normalise(candidate):
            declared, source = normalise(candidate), candidate_source
    language, identified_by = page_language(declared, main_text)
    chosen.offer("language", language, identified_by or source or TEXT)
