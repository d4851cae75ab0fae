"""Structured data embedded in the page: JSON-LD, and microdata read by ``extruct`` from the tree already parsed,
then reduced to schema.org's objects (:class:`Objects`) that the reader takes fields from.

A JSON-LD script that is JSON (or JSON but for a control character or a trailing comma) is parsed here with
:mod:`json`.  extruct (Zyte's library for this, the ``metadata`` extra) handles what hand-written code gets wrong:
JSON-LD with comments around it, microdata's nested items and ``itemref``; its import costs about a third of a
second, so it is loaded only for a page with microdata or with a script that needs its lenient reader, and where it
is not installed such a script or such a page's microdata is skipped with a note.  What it is given is bounded
first: a JSON-LD script over :data:`MAX_JSON_LD_CHARS` is skipped, a page with more microdata items or properties than
:data:`MAX_MICRODATA_ITEMS`/:data:`MAX_MICRODATA_PROPERTIES` is not read for microdata, and the objects found are
walked up to :data:`MAX_OBJECTS` dictionaries.
"""

from __future__ import annotations

import functools
import json
import re
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from lxml import etree

#: What a note says where extruct is needed and not installed.
EXTRA_NOTE = "needs extruct: pip install 'scrapy-web2text[metadata]'"
MAX_JSON_LD_CHARS = 200_000
MAX_JSON_LD_SCRIPTS = 20
MAX_MICRODATA_ITEMS = 50
MAX_MICRODATA_PROPERTIES = 500
#: Dictionaries visited in the structured data of one page, and the items of one list looked at.
MAX_OBJECTS = 2000
MAX_LIST_WALK = 200
#: A microdata property's text is read up to this many characters.
MAX_PROPERTY_TEXT = 2000
#: A JSON-LD integer longer than this is read as ``null``: Python refuses to convert one past 4,300 digits, and that
#: error made the whole script unreadable (its date, author and headline lost for one useless number).
MAX_NUMBER_DIGITS = 100
#: A headline shorter than this matches a page's title only when equal to it.
MIN_HEADLINE_IN_TITLE = 12

#: What a hand-edited or templated script holds that JSON does not: a control character between tokens (inside a
#: string ``strict=False`` accepts it), a comma before a closing bracket.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_TRAILING_COMMA = re.compile(r",\s*+(?=[}\]])")
#: What a template wraps a script's JSON in for old XHTML parsers: ``<![CDATA[ ... ]]>`` or ``<!-- ... -->``, each
#: marker alone or after ``//``.  Only the script's two ends are looked at.
_WRAPPER_START = re.compile(r"\A\s*+(?://\s*+)?(?:<!\[CDATA\[|<!--)")
_WRAPPER_END = re.compile(r"(?://\s*+)?(?:\]\]>|-->)\s*+\Z")
#: (the attributes counted: a test of each element's attributes in a predicate costs more)
_ITEMSCOPES = etree.XPath("count(descendant-or-self::*/@itemscope)")
_ITEMPROPS = etree.XPath("count(descendant-or-self::*/@itemprop)")

#: schema.org types of a page's main object: text first (an article's embedded video, recipe or product is not the
#: page), then the other things a page is about.
ARTICLE_TYPES = frozenset(
    """Article NewsArticle BlogPosting Report ScholarlyArticle TechArticle AnalysisNewsArticle OpinionNewsArticle
    ReportageNewsArticle ReviewNewsArticle BackgroundNewsArticle LiveBlogPosting SocialMediaPosting
    DiscussionForumPosting""".split()
)
THING_TYPES = frozenset(
    """Review Recipe HowTo Product Event Course Book Movie Episode VideoObject PodcastEpisode JobPosting""".split()
)
ORGANISATION_TYPES = frozenset(
    """Organization NewsMediaOrganization Corporation OnlineBusiness LocalBusiness EducationalOrganization
    GovernmentOrganization NGO WebSite Brand""".split()
)
PAGE_TYPES = frozenset(
    "WebPage ItemPage AboutPage ContactPage CollectionPage ProfilePage FAQPage SearchResultsPage".split()
)


@dataclass
class Objects:
    """The schema.org objects of one syntax, each a dict with a ``@type`` list."""

    source: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def of_types(self, types: frozenset[str]) -> list[dict[str, Any]]:
        return [obj for obj in self.objects if types.intersection(obj["@type"])]

    def main(self, title: str | None = None) -> dict[str, Any] | None:
        """The page's main object, its references (``{"@id": ...}``) replaced by the objects they name.

        In order: the object a web page names as its ``mainEntity``, or an article-like one that names the page as
        its ``mainEntityOfPage``; an article (``Article``, ``NewsArticle``...) whose headline is ``title`` (or in
        it: "Headline - Site"); the
        first article; the first other thing (``Recipe``, ``Product``, ``VideoObject``...); the first web page;
        the first object with a headline, an author or a publication date.  An embedded video's ``uploadDate``
        is not the article's date."""
        articles, things = self.of_types(ARTICLE_TYPES), self.of_types(THING_TYPES)
        declared = self._declared_main(articles + things)
        if declared is not None:
            return self.resolved(declared)
        titled = next((obj for obj in articles if _matches(obj.get("headline"), title)), None) if title else None
        for candidates in ([titled] if titled else [], articles, things, self.of_types(PAGE_TYPES)):
            if candidates:
                return self.resolved(candidates[0])
        found = next((obj for obj in self.objects if {"headline", "author", "datePublished"} & obj.keys()), None)
        return self.resolved(found) if found is not None else None

    def _declared_main(self, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
        named = {
            entity["@id"]
            for page in self.of_types(PAGE_TYPES)
            for entity in _listed(page.get("mainEntity"))
            if isinstance(entity, dict) and isinstance(entity.get("@id"), str)
        }
        for obj in candidates:
            if obj.get("@id") in named or obj.get("mainEntityOfPage") not in (None, "", [], False):
                return obj
        return None

    def resolved(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` with each reference among its values (one level, lists included) replaced by the object of the
        same ``@id``: Yoast's graphs name the author, the publisher and the image that way."""
        index = {item["@id"]: item for item in self.objects if isinstance(item.get("@id"), str) and len(item) > 2}
        if not index:
            return obj

        def resolve(value: Any) -> Any:
            if isinstance(value, dict) and isinstance(value.get("@id"), str) and len(value) <= 2:
                return index.get(value["@id"], value)
            return value

        return {
            key: [resolve(item) for item in value[:MAX_LIST_WALK]] if isinstance(value, list) else resolve(value)
            for key, value in obj.items()
        }


def _listed(value: Any) -> list[Any]:
    return value[:MAX_LIST_WALK] if isinstance(value, list) else [value]


def _fold(value: Any) -> str:
    return " ".join(value[:1000].split()).casefold() if isinstance(value, str) else ""


def _matches(headline: Any, title: str) -> bool:
    """``headline`` is the page's title, or a part of it long enough not to match by chance."""
    headline, title = _fold(headline), _fold(title)
    return bool(headline) and (headline == title or len(headline) >= MIN_HEADLINE_IN_TITLE and headline in title)


def types_of(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    # "http://schema.org/NewsArticle", "schema:NewsArticle" -> "NewsArticle"
    return [str(item).rsplit("/", 1)[-1].rsplit(":", 1)[-1] for item in values[:10] if isinstance(item, str)]


def walk_objects(roots: list[Any], source: str, notes: list[str]) -> Objects:
    """Every dict reachable from ``roots`` (``@graph`` included), breadth first, at most :data:`MAX_OBJECTS` lists
    and dicts."""
    found = Objects(source, notes=notes)
    queue = deque(root for root in islice(roots, MAX_LIST_WALK) if isinstance(root, (dict, list)))
    visited = 0
    while queue and visited < MAX_OBJECTS:
        value = queue.popleft()
        visited += 1
        if isinstance(value, list):
            queue.extend(child for child in islice(value, MAX_LIST_WALK) if isinstance(child, (dict, list)))
            continue
        if "@type" in value or len(value) > 1 and "@id" in value:
            found.objects.append({**value, "@type": types_of(value.get("@type"))})
        queue.extend(child for child in islice(value.values(), MAX_LIST_WALK) if isinstance(child, (dict, list)))
    if queue:
        notes.append(f"{source}: more than {MAX_OBJECTS} objects; the rest not read")
    return found


def read_json_ld(scripts: Sequence[Any]) -> Objects:
    """The JSON-LD objects of a page's ``<script type="application/ld+json">`` elements (``scripts``)."""
    items: list[Any] = []
    notes: list[str] = []
    for count, script in enumerate(scripts):
        if count >= MAX_JSON_LD_SCRIPTS:
            notes.append(f"json-ld: more than {MAX_JSON_LD_SCRIPTS} scripts; the rest not read")
            break
        size = len(script.text or "")
        if size > MAX_JSON_LD_CHARS:
            notes.append(f"json-ld: a script of {size} characters skipped (limit {MAX_JSON_LD_CHARS})")
            continue
        try:
            items.extend(_script_items(script))
        except (ValueError, RecursionError, TypeError, AttributeError) as error:
            # invalid JSON (extruct's lenient second try failed too), or nesting deeper than Python's parser goes
            reason = EXTRA_NOTE if str(error) == EXTRA_NOTE else type(error).__name__
            notes.append(f"json-ld: a script that is not valid JSON skipped ({reason})")
    return walk_objects(items, "json-ld", notes)


def read_microdata(root: Any, base_url: str | None) -> Objects:
    """The microdata items of ``root`` as schema.org objects (``{"@type": [...], property: value...}``)."""
    notes: list[str] = []
    items = int(_ITEMSCOPES(root))
    if not items:
        return Objects("microdata")
    properties = int(_ITEMPROPS(root))
    if items > MAX_MICRODATA_ITEMS or properties > MAX_MICRODATA_PROPERTIES:
        notes.append(
            f"microdata: {items} items, {properties} properties: not read (limits {MAX_MICRODATA_ITEMS}, "
            f"{MAX_MICRODATA_PROPERTIES})"
        )
        return Objects("microdata", notes=notes)
    extractor = _bounded_microdata_extractor()
    if extractor is None:
        notes.append(f"microdata: not read ({EXTRA_NOTE})")
        return Objects("microdata", notes=notes)
    try:
        extracted = extractor().extract_items(root, base_url)
    except (ValueError, TypeError, AttributeError) as error:
        notes.append(f"microdata: not read ({type(error).__name__}: {error})")
        return Objects("microdata", notes=notes)
    return walk_objects([_as_json_ld(item, 0) for item in extracted], "microdata", notes)


def _as_json_ld(item: Any, depth: int) -> Any:
    """extruct's microdata item (``{"type", "properties"}``) in JSON-LD's shape (``{"@type", property...}``)."""
    if not isinstance(item, dict) or depth > 20:
        return item if not isinstance(item, dict) else {}
    if "properties" not in item and "type" not in item:
        return item
    converted: dict[str, Any] = {"@type": item.get("type") or "Thing"}
    for name, value in (item.get("properties") or {}).items():
        if isinstance(value, list):
            converted[name] = [_as_json_ld(part, depth + 1) for part in value]
        else:
            converted[name] = _as_json_ld(value, depth + 1)
    if "value" in item and "name" not in converted:
        converted["name"] = item["value"]
    return converted


def unwrapped(text: str) -> str:
    """``text`` without a CDATA section's or a comment's markers around it (``<![CDATA[ {...} ]]>``)."""
    start = _WRAPPER_START.match(text)
    if start is None:
        return text
    end = _WRAPPER_END.search(text, start.end())
    return text[start.end() : end.start() if end else len(text)]


def repaired(text: str) -> str:
    """``text`` without control characters (a space each) and commas before a closing bracket: one linear pass
    each.  A string value that holds ", }" loses its comma; such a script was not JSON to begin with."""
    return _TRAILING_COMMA.sub("", _CONTROL_CHARACTERS.sub(" ", text))


def bounded_int(digits: str) -> int | None:
    """A JSON integer, or ``None`` past :data:`MAX_NUMBER_DIGITS` (never the interpreter's ``ValueError``)."""
    return int(digits) if len(digits) <= MAX_NUMBER_DIGITS else None


def _script_items(script: Any) -> list[Any]:
    """The items of one JSON-LD script: a strict parse that reads an over-long integer as ``null``, then the same
    :func:`repaired` (a stray control character, a trailing comma), then extruct's lenient reader (comments around
    the JSON), imported only for such a script: most pages never load extruct.  A CDATA section or a comment around
    the whole JSON is unwrapped first (extruct's reader does not read the first)."""
    text = unwrapped(script.xpath("string()"))
    try:
        data = json.loads(text, strict=False, parse_int=bounded_int)
    except ValueError:
        try:
            data = json.loads(repaired(text), strict=False, parse_int=bounded_int)
        except ValueError:
            lenient = _lenient_json_ld_extractor()
            if lenient is None:
                raise ValueError(EXTRA_NOTE) from None
            return list(lenient.extract_items(script))  # its XPath is descendant-or-self
    return [item for item in (data if isinstance(data, list) else [data]) if item]


@functools.cache
def _lenient_json_ld_extractor() -> Any:
    try:
        from extruct.jsonld import JsonLdExtractor
    except ImportError:
        return None

    return JsonLdExtractor()


@functools.cache
def _bounded_microdata_extractor() -> type | None:
    try:
        from extruct.w3cmicrodata import MicrodataExtractor
    except ImportError:
        return None

    class BoundedMicrodataExtractor(MicrodataExtractor):
        """extruct's microdata reader with a property's text read up to :data:`MAX_PROPERTY_TEXT` characters: its
        own copies and cleans the whole element (an ``articleBody`` is the whole article)."""

        def _extract_textContent(self, node: Any) -> str:  # noqa: N802 - extruct's name
            return " ".join(_bounded_text(node)).strip()

    return BoundedMicrodataExtractor


def _bounded_text(node: Any) -> Iterator[str]:
    size = 0
    for text in node.itertext():
        if not isinstance(text, str):
            continue
        yield text[: MAX_PROPERTY_TEXT - size]
        size += len(text)
        if size >= MAX_PROPERTY_TEXT:
            return
