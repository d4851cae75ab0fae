"""The main content in other shapes: clean HTML, Markdown, the headline, and where each block sits.

The block labels decide what is kept.  The clean HTML and the Markdown are built in
:mod:`scrapy_web2text.extraction.markup` (re-exported here); this module adds the headline and each block's XPath.
Everything here runs only when asked for (the :class:`~scrapy_web2text.Extraction` properties), never in the
labelling itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lxml import etree

from ..page.twins import load_twin
from .markup import (  # noqa: F401 - re-exported: the formats of an Extraction are all reached from here
    BLOCK_CONTAINERS,
    INLINE_TAGS,
    KEPT_TAGS,
    LINK_SCHEMES,
    MAX_OUTPUT_DEPTH,
    _owner,
    _tag,
    clean_html,
    clean_html_tree,
    link_target,
    sanitise,
    to_markdown,
)

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# A blank run is entered only at its start and taken whole (linear; `\s+` retried every start of a long run).
_TITLE_SEPARATORS = re.compile(r"(?<!\s)\s++(?:\||-|–|—|·|::|»)\s++")
_NON_WORDS = re.compile(r"\W+")
_BLANKS = re.compile(r"\s+")


# --- block paths ---------------------------------------------------------------------------------


#: The longest block XPath emitted.  A longer one keeps its last steps behind ``//`` (``//div[3]/p[2]``: still a
#: valid XPath, which may match more than the block's element): without a cap, 50,000 blocks 1,900 elements deep
#: made 381 MB of paths from a 0.57 MB page.  Real pages' paths are 40-100 characters.
MAX_XPATH_CHARS = 256


def cut_xpath(path: str, limit: int = MAX_XPATH_CHARS) -> str:
    """``path``, or where it is longer than ``limit``, ``//`` and the longest run of its last whole steps that fits
    (the last step alone where even that is longer)."""
    if len(path) <= limit:
        return path
    start = len(path) - (limit - 1)
    if path.startswith('//*[@id="'):
        start = max(start, path.index('"]') + 2)  # the id itself may hold "/": never cut inside the anchor
    boundary = path.find("/", start)
    if boundary < 0:
        boundary = path.rfind("/")
    return "/" + path[boundary:]


def block_xpath(element: Any, is_tail: bool) -> str:
    """The absolute XPath of the element that holds a block's text (libxml2 computes it, in C), cut to
    :data:`MAX_XPATH_CHARS`."""
    owner = _owner(element, is_tail)
    return cut_xpath(owner.getroottree().getpath(owner))


#: The compiled twin of :func:`block_xpaths` (``_output.pyx``), or ``None`` where it is not in use.
(compiled_block_xpaths,) = load_twin(__name__, "block_xpaths")


def block_xpaths(root: Any, block_elements: Sequence[tuple[Any, bool]]) -> list[str]:
    """Each block's XPath, starting from its nearest ancestor with an ``id`` unique in the page
    (``//*[@id="main"]/div[2]/p``) when there is one: shorter (57 -> 40 characters on Dragnet pages) and still
    valid when the page changes above that element.  Each path is cut to :data:`MAX_XPATH_CHARS`
    (:func:`cut_xpath`), as it is built: a page's paths cost at most that much each, whatever its depth."""
    if root is None:
        return [block_xpath(element, is_tail) for element, is_tail in block_elements]
    if compiled_block_xpaths is not None and isinstance(root, etree._Element):
        paths = compiled_block_xpaths(root, list(block_elements), MAX_XPATH_CHARS)
        if paths is not None:
            return paths
    seen: dict[str, int] = {}
    for element in root.iter():
        identifier = element.get("id") if isinstance(element.tag, str) else None
        if identifier:
            seen[identifier] = seen.get(identifier, 0) + 1
    unique = {identifier for identifier, count in seen.items() if count == 1 and '"' not in identifier}
    anchored = _AnchoredPaths(root.getroottree(), unique)
    return [anchored(_owner(element, is_tail)) for element, is_tail in block_elements]


class _AbsolutePaths:
    """``tree.getpath(element)``, in linear time over a page.

    libxml2 finds an element's position by scanning its siblings on every call: 5,000 sibling blocks cost 25
    million steps.  Here each parent's children are numbered once and each element's path is built from its
    parent's, in libxml2's form (``name[k]`` among same-named siblings, the bare name when it has none).
    """

    def __init__(self, tree: Any):
        self.tree = tree
        self.paths: dict[Any, str] = {}
        self.steps: dict[Any, str] = {}  # element -> its last step, filled for all children of a parent at once

    def __call__(self, element: Any) -> str:
        path = self.paths.get(element)
        if path is not None:
            return path
        chain = []
        while element is not None and element not in self.paths:
            chain.append(element)
            element = element.getparent()
        path = "" if element is None else self.paths[element]
        for node in reversed(chain):
            path = self.paths[node] = self._path(node, node.getparent(), path)
        return path

    def _path(self, node: Any, parent: Any, parent_path: str) -> str:
        """``node``'s path, its parent's being ``parent_path``."""
        if parent is None or not isinstance(node.tag, str):
            return self.tree.getpath(node)  # the root, or a comment or PI: rare, left to libxml2
        return parent_path + self._step(node, parent)

    def _step(self, node: Any, parent: Any) -> str:
        if node not in self.steps:
            self._number_children(parent)
        return self.steps[node]

    def _number_children(self, parent: Any) -> None:
        children = [child for child in parent if isinstance(child.tag, str)]
        totals: dict[str, int] = {}
        for child in children:
            totals[child.tag] = totals.get(child.tag, 0) + 1
        seen: dict[str, int] = {}
        for child in children:
            tag = child.tag
            seen[tag] = seen.get(tag, 0) + 1
            self.steps[child] = f"/{tag}[{seen[tag]}]" if totals[tag] > 1 else f"/{tag}"


class _AnchoredPaths(_AbsolutePaths):
    """Each element's path from its parent's: ``//*[@id="X"]`` for an element whose ``id`` is unique in the page,
    else the parent's path and the element's step, cut to :data:`MAX_XPATH_CHARS` (the same as cutting the whole
    path: the cut keeps whole last steps)."""

    def __init__(self, tree: Any, unique: set[str]):
        super().__init__(tree)
        self.unique = unique

    def _path(self, node: Any, parent: Any, parent_path: str) -> str:
        identifier = node.get("id") if isinstance(node.tag, str) else None
        if identifier in self.unique:
            return f'//*[@id="{identifier}"]'
        if parent is None:
            return cut_xpath(self.tree.getpath(node))  # the root: libxml2's own
        if not isinstance(node.tag, str):  # a comment or PI: its step as libxml2 writes it
            return cut_xpath(parent_path + self.tree.getpath(node)[len(self.tree.getpath(parent)) :])
        return cut_xpath(parent_path + self._step(node, parent))


# --- the headline --------------------------------------------------------------------------------


def _text_of(element: Any) -> str:
    return _BLANKS.sub(" ", "".join(element.itertext())).strip()


def metadata_title(root: Any, tagged: dict[str, list[Any]] | None = None) -> str | None:
    """``og:title``, else ``<title>`` without its " | Site" / " - Site" suffix.  ``tagged``: the tree's ``meta`` and
    ``title`` elements where the parse found them (:attr:`Page.tagged <scrapy_web2text.page.Page.tagged>`)."""
    if root is None:
        return None
    for meta in tagged["meta"] if tagged is not None else root.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").lower() in ("og:title", "twitter:title"):
            content = _BLANKS.sub(" ", meta.get("content") or "").strip()
            if content:
                return content
    for title in tagged["title"] if tagged is not None else root.iter("title"):
        text = _text_of(title)
        if text:
            parts = _TITLE_SEPARATORS.split(text)
            if len(parts) > 1:
                # The site's name is the shorter end: "Article | Site" and "Site | Article" both happen.
                head, tail = " - ".join(parts[:-1]), parts[-1]
                return head if len(head) >= len(parts[0]) and len(head) >= len(tail) else parts[-1]
            return text
    return None


def _comparable(text: str) -> str:
    return _NON_WORDS.sub(" ", text).strip().casefold()


#: A metadata title is cut to this many characters (no headline is longer): matching it against every heading
#: then costs at most this much per heading, not the title's length (quadratic on a huge title and many headings).
MAX_TITLE_CHARS = 1000


def find_title(
    root: Any,
    block_elements: Sequence[tuple[Any, bool]],
    keep: Sequence[bool],
    tagged: dict[str, list[Any]] | None = None,
) -> str | None:
    """The page's headline: a heading block that matches the metadata title, else the first ``h1`` (content
    blocks first), else the metadata title (``tagged``: see :func:`metadata_title`)."""
    from_metadata = metadata_title(root, tagged)
    if from_metadata and len(from_metadata) > MAX_TITLE_CHARS:
        from_metadata = from_metadata[:MAX_TITLE_CHARS].rstrip()
    wanted = _comparable(from_metadata) if from_metadata else ""
    headings = _first_blocks_of_headings(block_elements)
    # Each heading's text is read when it is first needed: the match with the metadata title is most often among
    # the first headings, and the h1 fallback reads only the h1s.
    texts: list[str | None] = [None] * len(headings)
    if wanted:
        for position, (_, heading) in enumerate(headings):
            text = texts[position] = _text_of(heading)
            candidate = _comparable(text) if text else ""
            if candidate and (candidate == wanted or (8 < len(candidate) <= len(wanted) and candidate in wanted)):
                return text
    h1s = [(position, index, heading) for position, (index, heading) in enumerate(headings) if _tag(heading) == "h1"]
    for want_kept in (True, False):
        for position, index, heading in h1s:
            text = texts[position]
            if text is None:
                text = texts[position] = _text_of(heading)
            if text and bool(keep[index]) == want_kept:
                return text
    return from_metadata


#: The inline elements a heading's text may sit in (``<h1><a><span>Title</span></a></h1>``).
_INLINE_IN_HEADINGS = ("a", "span", "em", "strong", "b", "i")
#: The compiled twin of :func:`_first_blocks_of_headings` (``_output.pyx``), or ``None``.
(compiled_first_blocks_of_headings,) = load_twin(__name__, "first_blocks_of_headings")


def _first_blocks_of_headings(block_elements: Sequence[tuple[Any, bool]]) -> list[tuple[int, Any]]:
    """(index of the first block, heading) for each heading a block's text sits in, directly or inside inline
    elements only, in block order."""
    if compiled_first_blocks_of_headings is not None:
        found = compiled_first_blocks_of_headings(list(block_elements), _INLINE_IN_HEADINGS)
        if found is not None:
            return found
    seen: set[Any] = set()
    found = []
    for index, (element, is_tail) in enumerate(block_elements):
        heading = _owner(element, is_tail)
        while heading is not None and _tag(heading) not in _HEADINGS:
            heading = heading.getparent() if _tag(heading) in _INLINE_IN_HEADINGS else None
        if heading is not None and heading not in seen:
            seen.add(heading)
            found.append((index, heading))
    return found
