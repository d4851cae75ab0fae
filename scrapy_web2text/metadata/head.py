"""The page's own declarations outside structured data: ``<meta>`` (OpenGraph, article:, Twitter, Dublin Core,
``name=``), ``<link rel=canonical|license>`` and ``<html lang>``, read in one pass over those elements.

These are flat name/value pairs: a loop reads them all at once, where a library reading OpenGraph alone (extruct's
needs ``lxml.html`` elements, which this tree is not) would walk the same elements again per syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: At most this many ``<meta>``/``<link>`` elements are read (real pages have tens).
MAX_HEAD_ELEMENTS = 2000
#: At most this many values are kept per field and source (a list field keeps fewer still, ``MAX_LIST_ITEMS``).
MAX_VALUES_PER_NAME = 50
#: Names read from one element's space-separated ``property``.
MAX_KEYS_PER_ELEMENT = 5

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

#: meta name or property (lower case) -> (field, source).  The first of a field's names found wins within a
#: source; across sources, the reader's order of sources decides.
META_FIELDS: dict[str, tuple[str, str]] = {
    "og:title": ("title", "opengraph"),
    "og:site_name": ("site_name", "opengraph"),
    "og:description": ("description", "opengraph"),
    "og:image": ("image", "opengraph"),
    "og:image:url": ("image", "opengraph"),
    "og:image:secure_url": ("image", "opengraph"),
    "og:url": ("canonical_url", "opengraph"),
    "og:locale": ("language", "opengraph"),
    "og:type": ("og_type", "opengraph"),
    "article:published_time": ("date_published", "opengraph"),
    "article:modified_time": ("date_modified", "opengraph"),
    "og:updated_time": ("date_modified", "opengraph"),
    "article:author": ("authors", "opengraph"),
    "article:tag": ("tags", "opengraph"),
    "article:section": ("categories", "opengraph"),
    "author": ("authors", "meta"),
    "dc.creator": ("authors", "meta"),
    "dcterms.creator": ("authors", "meta"),
    "citation_author": ("authors", "meta"),
    "parsely-author": ("authors", "meta"),
    "sailthru.author": ("authors", "meta"),
    "byl": ("authors", "meta"),
    "description": ("description", "meta"),
    "dc.description": ("description", "meta"),
    "twitter:description": ("description", "meta"),
    "twitter:title": ("title", "meta"),
    "twitter:image": ("image", "meta"),
    "twitter:image:src": ("image", "meta"),
    "application-name": ("site_name", "meta"),
    "keywords": ("tags", "meta"),
    "news_keywords": ("tags", "meta"),
    "parsely-tags": ("tags", "meta"),
    "parsely-section": ("categories", "meta"),
    "dc.subject": ("tags", "meta"),
    "date": ("date_published", "meta"),
    "pubdate": ("date_published", "meta"),
    "publishdate": ("date_published", "meta"),
    "publish-date": ("date_published", "meta"),
    "parsely-pub-date": ("date_published", "meta"),
    "sailthru.date": ("date_published", "meta"),
    "citation_publication_date": ("date_published", "meta"),
    "citation_date": ("date_published", "meta"),
    "dc.date": ("date_published", "meta"),
    "dc.date.issued": ("date_published", "meta"),
    "dcterms.created": ("date_published", "meta"),
    "dcterms.issued": ("date_published", "meta"),
    "last-modified": ("date_modified", "meta"),
    "dcterms.modified": ("date_modified", "meta"),
    "dc.date.modified": ("date_modified", "meta"),
    "dc.language": ("language", "meta"),
    "dc.rights": ("license", "meta"),
    "dcterms.license": ("license", "meta"),
    "content-language": ("language", "meta"),
}
#: Fields whose ``<meta>`` value is a list: several elements, or one of comma-separated values.
_COMMA_LISTS = frozenset({"tags"})


@dataclass
class HeadValues:
    """The raw declarations: ``values[(field, source)]`` lists each value in page order (bounded)."""

    values: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    html_lang: str | None = None
    overflow: bool = False
    author_keys: dict[str, str] = field(default_factory=dict)  # the first name that gave authors, per source

    def first(self, name: str, source: str) -> str | None:
        found = self.values.get((name, source))
        return found[0] if found else None

    def add(self, name: str, source: str, value: str) -> None:
        found = self.values.setdefault((name, source), [])
        if len(found) < MAX_VALUES_PER_NAME:
            found.append(value)


def head_of(root: Any) -> Any:
    """The ``<head>`` element (where the parser puts every ``<meta>`` and ``<link>`` before ``<body>``), else the
    root."""
    head = root.find("head")
    return head if head is not None else root


def read_head(root: Any) -> HeadValues:
    """Every known ``<meta>`` and ``<link rel=canonical|license>`` of the page's head, and its ``<html lang>``."""
    head = HeadValues()
    if root.tag == "html":
        head.html_lang = root.get("lang") or root.get(_XML_LANG)
    # iter() walks lazily: the cap stops it, where an XPath would first collect every match of a hostile page
    for count, element in enumerate(head_of(root).iter("meta", "link")):
        if count >= MAX_HEAD_ELEMENTS:
            head.overflow = True
            break
        if element.tag == "link":
            _read_link(head, element)
        else:
            _read_meta(head, element)
    return head


def _read_link(head: HeadValues, element: Any) -> None:
    if not element.get("href"):
        return
    relations = (element.get("rel") or "")[:200].lower().split()
    if "canonical" in relations:
        head.add("canonical_url", "meta", element.get("href"))
    elif "license" in relations:
        head.add("license", "meta", element.get("href"))


def _read_meta(head: HeadValues, element: Any) -> None:
    content = element.get("content") or ""
    if not content.strip():
        return
    # RDFa lets a property list several names ("dc:creator twitter:site_name"); a name is one ("Updated Date");
    # Dublin Core is written with a colon as often as with a dot
    properties = (element.get("property") or "")[:200].lower().split()[:MAX_KEYS_PER_ELEMENT]
    name = (element.get("name") or element.get("http-equiv") or "").strip().lower()
    for key in properties or (name,):
        known = META_FIELDS.get(key) or META_FIELDS.get(key.replace(":", ".", 1) if key.startswith("dc") else "")
        if known is not None:
            _add_meta(head, known, key, content)


def _add_meta(head: HeadValues, known: tuple[str, str], key: str, content: str) -> None:
    name, source = known
    if name == "authors":  # several <meta> of one name list the authors; another name restates them
        if head.author_keys.setdefault(source, key) != key:
            return
    if name in _COMMA_LISTS:
        for part in content[:5000].split(","):
            head.add(name, source, part)
    else:
        head.add(name, source, content)
