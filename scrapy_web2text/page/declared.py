"""What a page says it is: its ``og:type``, the schema.org types of its JSON-LD and microdata, and how many
``<article>`` elements it has.

The page-type classifier (:mod:`scrapy_web2text.labellers.web2text.page_types`) reads these beside the block
features.  They are the publisher's own words, the same in every language: a shop marks its product up as
``Product``, a forum its threads as ``DiscussionForumPosting``, a newspaper its story as ``NewsArticle``.

Reading is bounded whatever the page, and costs a few string searches on most: at most :data:`MAX_SCRIPTS` JSON-LD
scripts of which the first :data:`MAX_SCRIPT_CHARS` characters each, at most :data:`MAX_TYPES` type names of at
most :data:`MAX_TYPE_CHARS` characters, and ``<article>`` elements counted up to :data:`MAX_ARTICLES`.  Scripts and
``itemtype`` attributes are found by searching the page's source rather than by XPaths over its tree (a fraction
of their time; figures in docs/research/speed-rounds.rst), with the walk's compiled search where it is built
(:func:`_find`), and the JSON is not parsed: its ``"@type"`` values are found by a scan (a page's JSON-LD is often
invalid JSON, and parsing a large script costs more than the rest of the classification).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from .cdom import Page
from .marks import first_head
from .twins import load_twin

MAX_SCRIPTS = 20
MAX_SCRIPT_CHARS = 200_000
MAX_TYPES = 100
MAX_TYPE_CHARS = 80
#: ``<article>`` elements are counted up to this many (one is a story; more, a list of them).
MAX_ARTICLES = 2

#: A JSON-LD ``"@type"`` and its value: one quoted name or a short list of them.
_TYPE_VALUE = re.compile(r'"@type"\s{0,20}:\s{0,20}(\[[^\]]{0,500}\]|"[^"]{0,80}")')
_QUOTED_NAME = re.compile(r'"([^"]{1,80})"')

#: An ``itemtype`` attribute's value, matched just after the attribute's name.
_ITEM_TYPE_VALUE = re.compile(r"""\s{0,20}=\s{0,20}(?:"([^"]{0,300})"|'([^']{0,300})'|([^\s>]{1,300}))""")


@dataclass(frozen=True)
class Declared:
    """What the page declares itself to be (empty values where it declares nothing)."""

    #: The ``<head>``'s ``og:type``, lower-cased (``"article"``, ``"website"``, ``"product"``, ...).
    og_type: str = ""
    #: schema.org type names of its JSON-LD and microdata, without their vocabulary prefix (``"NewsArticle"``).
    schema_types: frozenset[str] = field(default_factory=frozenset)
    #: ``<article>`` elements, counted up to :data:`MAX_ARTICLES`.
    articles: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"og_type": self.og_type, "schema_types": sorted(self.schema_types), "articles": self.articles}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Declared:
        return cls(str(value["og_type"]), frozenset(map(str, value["schema_types"])), int(value["articles"]))


def declared_kinds(page: Page) -> Declared:
    """What ``page`` declares itself to be (``Declared()`` for a page without a tree)."""
    root = page.root
    if root is None or not isinstance(root, etree._Element):
        return Declared()
    names: list[str] = []
    for body in _json_ld_bodies(page.source):
        if "@type" in body:
            for value in _TYPE_VALUE.findall(body):
                names += _QUOTED_NAME.findall(value)
        if len(names) >= MAX_TYPES:
            break
    names += _item_types(page.source)
    types = set()
    for value in names[: 2 * MAX_TYPES]:
        for name in value.split()[:MAX_TYPES]:  # an itemtype may list several
            last = _last_part(name)
            if last:
                types.add(last)
    if page.tagged is not None:
        articles = min(len(page.tagged["article"]), MAX_ARTICLES)
    else:
        articles = 0
        for _ in root.iter("article"):
            articles += 1
            if articles >= MAX_ARTICLES:
                break
    return Declared(_og_type(root), frozenset(types), articles)


def _last_part(name: str) -> str:
    """A type name without its vocabulary: ``http://schema.org/NewsArticle`` and ``schema:NewsArticle`` are
    ``NewsArticle``."""
    name = name.rstrip("/")
    return name[max(name.rfind("/"), name.rfind(":"), name.rfind("#")) + 1 :][:MAX_TYPE_CHARS]


def _find(source: str, word: str, start: int) -> int:
    """``source.find(word, start)``: the compiled walk's search where it is built, which compares 16 bytes at a time
    on the two-byte strings of most pages (``_search.h``), where ``str.find`` runs its two-way algorithm one code
    point at a time."""
    if compiled_find is None:
        return source.find(word, start)
    return compiled_find(source, word, start, len(source))


#: The compiled search (``_walk.pyx``, the twin of :mod:`.walk`), or ``None`` where it is not in use.
(compiled_find,) = load_twin("scrapy_web2text.page.walk", "find")


def _json_ld_bodies(source: str) -> Iterator[str]:
    """The text of the first :data:`MAX_SCRIPTS` elements whose opening tag names ``ld+json`` (up to
    :data:`MAX_SCRIPT_CHARS` characters each).  Each search starts where the last ended: one pass over ``source``."""
    start = 0
    for _ in range(MAX_SCRIPTS):
        named = _find(source, "ld+json", start)
        opened = source.find(">", named) if named >= 0 else -1
        if opened < 0:
            return
        closed = _find(source, "</script", opened)
        end = closed if closed >= 0 else len(source)
        yield source[opened + 1 : min(end, opened + 1 + MAX_SCRIPT_CHARS)]
        start = end


def _item_types(source: str) -> list[str]:
    """The values of the first :data:`MAX_TYPES` ``itemtype`` attributes in ``source`` (written in lower case, as
    HTML serialisers, React's included, write it: a second spelling would cost a second pass over the page)."""
    values: list[str] = []
    start = 0
    for _ in range(MAX_TYPES):
        at = _find(source, "itemtype", start)
        if at < 0:
            break
        start = at + len("itemtype")
        value = _ITEM_TYPE_VALUE.match(source, start)
        if value:
            values.append(next(part for part in value.groups() if part is not None))
    return values


def _og_type(root: Any) -> str:
    head = first_head(root)
    for element in head.iter("meta") if head is not None else ():
        if (element.get("property") or element.get("name") or "").lower() == "og:type":
            return " ".join((element.get("content") or "").split())[:MAX_TYPE_CHARS].lower()
    return ""
