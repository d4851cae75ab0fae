"""The elements that the metadata readers look for anywhere on the page (body links, scripts, dates), found in one
pass over the tree, and the microdata names its source text holds, found in one pass over the text: each pass visits
the whole page, and on a long page a pass costs more than what a reader does with the little it finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: What a link to a Creative Commons licence holds (:mod:`.links`).
CREATIVE_COMMONS_HOST = "creativecommons.org/"
_TAGS = ("a", "script", "time", "abbr")
#: Elements kept of each kind: more than any reader looks at (a hostile page's millions are not all held at once).
MAX_KEPT = 1000
#: The ``type`` of a JSON-LD script.
JSON_LD_TYPE = "application/ld+json"
#: ``itemscope`` as pages write it (``itemScope`` in templates written for React), and an ``itemprop="author"``:
#: the names share their start, which the engine's fast search finds.
_MICRODATA_NAMES = re.compile(r"item(?:scope|Scope|prop=\"author\"|prop='author')")


@dataclass(frozen=True, slots=True)
class PageElements:
    """In page order, the first :data:`MAX_KEPT` of each: ``<a>`` elements with a ``rel`` and an ``href``; links
    whose ``href`` names :data:`CREATIVE_COMMONS_HOST` (looked for only where asked); ``<script>`` elements; JSON-LD
    scripts; ``<time>`` and ``<abbr>`` elements.  ``times``: whether the page has a ``<time>`` element."""

    rel_links: list[Any]
    creative_commons_links: list[Any]
    scripts: list[Any]
    json_ld: list[Any]
    dated: list[Any]
    times: bool


def page_elements(root: Any, creative_commons: bool = True) -> PageElements:
    """The :class:`PageElements` of ``root`` (itself included), the Creative Commons links only if
    ``creative_commons`` (a page whose text never names the site has none)."""
    rel_links: list[Any] = []
    licences: list[Any] = []
    scripts: list[Any] = []
    json_ld: list[Any] = []
    dated: list[Any] = []
    times = False
    for element in root.iter(*_TAGS):
        tag = element.tag
        if tag == "a":
            get = element.get
            if get("rel") is not None and get("href") is not None and len(rel_links) < MAX_KEPT:
                rel_links.append(element)
            if creative_commons and CREATIVE_COMMONS_HOST in (get("href") or "") and len(licences) < MAX_KEPT:
                licences.append(element)
        elif tag == "script":
            if len(scripts) < MAX_KEPT:
                scripts.append(element)
            if element.get("type") == JSON_LD_TYPE and len(json_ld) < MAX_KEPT:
                json_ld.append(element)
        else:
            times = times or tag == "time"
            if len(dated) < MAX_KEPT:
                dated.append(element)
    return PageElements(rel_links, licences, scripts, json_ld, dated, times)


@dataclass(frozen=True, slots=True)
class SourceNames:
    """Whether a page's source text names microdata items (``itemscope``) and an ``itemprop="author"``."""

    items: bool = True
    author_property: bool = True


def source_names(source: str | None) -> SourceNames:
    """The :class:`SourceNames` of ``source`` (both where the text is not known): a syntax the text never names is
    not searched for in the tree."""
    if source is None:
        return SourceNames()
    items = author_property = False
    for match in _MICRODATA_NAMES.finditer(source):
        if match[0][4] == "p":
            author_property = True
        else:
            items = True
        if items and author_property:
            break
    return SourceNames(items, author_property)
