"""The main content in other shapes: clean HTML, Markdown, the headline, and where each block sits.

The block labels decide what is kept: :func:`clean_html_tree` copies the page's lxml tree keeping only the text
of content blocks and the elements above them, and only structure a reader needs (headings, paragraphs, lists,
tables, quotes, code, emphasis, links); other elements (``div``, ``span``...) are unwrapped, their block-level kind
kept as a ``div`` so that paragraphs stay apart.  Markdown is that clean HTML converted by ``markdownify``
(a maintained, MIT-licensed converter with ATX headings, pipe tables and fenced code; ``html2text`` is GPL-3.0,
which a BSD-3-Clause package should not pull in).  Everything here runs only when asked for (the
:class:`~scrapy_web2text.Extraction` properties), never in the labelling itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lxml import etree

from .page.compiled import load_twin

#: Elements copied into the clean HTML (with their tag); every other element is unwrapped.
KEPT_TAGS = frozenset(
    "h1 h2 h3 h4 h5 h6 p ul ol li dl dt dd table thead tbody tfoot tr th td caption blockquote pre code "
    "em strong b i u s sub sup a br hr figcaption q kbd samp".split()
)
#: Unwrapped elements that separate their content from their neighbours (a ``div`` in the clean HTML).
BLOCK_CONTAINERS = frozenset(
    "div section article main header footer aside nav form fieldset figure center address details summary".split()
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# A blank run is entered only at its start and taken whole (linear; `\s+` retried every start of a long run).
_TITLE_SEPARATORS = re.compile(r"(?<!\s)\s++(?:\||-|–|—|·|::|»)\s++")
_BLANK_LINES = re.compile(r"\n{3,}")
_NON_WORDS = re.compile(r"\W+")
_BLANKS = re.compile(r"\s+")
#: Characters XML (and so lxml's tree) refuses: C0 controls other than tab and line ends, U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _tag(element: Any) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2].lower()


def _owner(element: Any, is_tail: bool) -> Any:
    """The element a block's text sits directly in."""
    if is_tail:
        parent = element.getparent()
        return parent if parent is not None else element
    return element


# --- block paths ---------------------------------------------------------------------------------


def block_xpath(element: Any, is_tail: bool) -> str:
    """The absolute XPath of the element that holds a block's text (libxml2 computes it, in C)."""
    owner = _owner(element, is_tail)
    return owner.getroottree().getpath(owner)


#: The compiled twin of :func:`block_xpaths` (``_paths.pyx``), or ``None`` where it is not built or turned off.
(compiled_block_xpaths,) = load_twin("scrapy_web2text._paths", "block_xpaths", reads_lxml=True) or (None,)


def block_xpaths(root: Any, block_elements: Sequence[tuple[Any, bool]]) -> list[str]:
    """Each block's XPath, starting from its nearest ancestor with an ``id`` unique in the page
    (``//*[@id="main"]/div[2]/p``) when there is one: shorter (57 -> 40 characters on Dragnet pages) and still
    valid when the page changes above that element."""
    if root is None:
        return [block_xpath(element, is_tail) for element, is_tail in block_elements]
    if compiled_block_xpaths is not None and isinstance(root, etree._Element):
        paths = compiled_block_xpaths(root, list(block_elements))
        if paths is not None:
            return paths
    tree = root.getroottree()
    seen: dict[str, int] = {}
    for element in root.iter():
        identifier = element.get("id") if isinstance(element.tag, str) else None
        if identifier:
            seen[identifier] = seen.get(identifier, 0) + 1
    unique = {identifier for identifier, count in seen.items() if count == 1 and '"' not in identifier}
    absolute = _AbsolutePaths(tree)
    anchors: dict[Any, str] = {}  # element -> the anchored path, shared by the blocks under it
    paths = []
    for element, is_tail in block_elements:
        owner = _owner(element, is_tail)
        path = anchors.get(owner)
        if path is None:
            path = absolute(owner)
            ancestor = owner
            while ancestor is not None:
                identifier = ancestor.get("id") if isinstance(ancestor.tag, str) else None
                if identifier in unique:
                    path = f'//*[@id="{identifier}"]' + path[len(absolute(ancestor)) :]
                    break
                ancestor = ancestor.getparent()
            anchors[owner] = path
        paths.append(path)
    return paths


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
            parent = node.getparent()
            if parent is None or not isinstance(node.tag, str):
                path = self.tree.getpath(node)  # the root, or a comment or PI: rare, left to libxml2
            else:
                if node not in self.steps:
                    self._number_children(parent)
                path = path + self.steps[node]
            self.paths[node] = path
        return path

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


# --- clean HTML ----------------------------------------------------------------------------------


def clean_html_tree(block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool]) -> Any:
    """A new ``<div>`` holding the kept blocks' text under the structure that carried it."""
    # Sets of the elements themselves, not of id(): lxml creates element proxies on access, and only a live
    # proxy keeps its identity.
    kept_text: set[Any] = set()
    kept_tail: set[Any] = set()
    needed: set[Any] = set()
    for (element, is_tail), kept in zip(block_elements, keep):
        if not kept:
            continue
        (kept_tail if is_tail else kept_text).add(element)
        ancestor = _owner(element, is_tail)
        while ancestor is not None and ancestor not in needed:
            needed.add(ancestor)
            ancestor = ancestor.getparent()
    out = etree.Element("div")
    if not needed:
        return out
    top = next(iter(block_elements))[0].getroottree().getroot()
    # Iterative copy (pages nest thousands of elements deep): (source element, target) pairs; a tail marker
    # (None, (child, target)) adds a child's kept tail text after the child.
    work: list[tuple[Any, Any]] = [(top, out)]
    while work:
        source, target = work.pop()
        if source is None:
            child, parent_target = target
            _append_text(parent_target, child.tail)
            continue
        tag = _tag(source)
        if tag in KEPT_TAGS:
            target = etree.SubElement(target, tag)
            if tag == "a" and source.get("href"):
                target.set("href", _NOT_XML.sub("", source.get("href")))
        elif tag in BLOCK_CONTAINERS:
            target = etree.SubElement(target, "div")
        if source in kept_text:
            _append_text(target, source.text)
        for child in reversed(source):
            if child in kept_tail:
                work.append((None, (child, target)))
            if child in needed or _tag(child) in ("br", "hr"):
                work.append((child, target))
    return out


def _append_text(target: Any, text: str | None) -> None:
    if not text:
        return
    text = _NOT_XML.sub(" ", text)
    if len(target):
        last = target[-1]
        last.tail = (last.tail or "") + text
    else:
        target.text = (target.text or "") + text


def clean_html(block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool]) -> str:
    """The kept blocks as clean HTML (a ``<div>``; empty string when nothing is kept)."""
    tree = clean_html_tree(block_elements, keep)
    if not len(tree) and not (tree.text or "").strip():
        return ""
    _drop_empty(tree)
    return etree.tostring(tree, method="html", encoding="unicode")


def _drop_empty(tree: Any) -> None:
    """Remove elements left with neither text nor children (a list whose items were all boilerplate)."""
    for element in reversed(list(tree.iter())):
        if element is tree or _tag(element) in ("br", "hr"):
            continue
        if not len(element) and not (element.text or "").strip():
            parent = element.getparent()
            if element.tail:
                _append_tail(element, element.tail)
            parent.remove(element)


def _append_tail(element: Any, text: str) -> None:
    previous = element.getprevious()
    parent = element.getparent()
    if previous is not None:
        previous.tail = (previous.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


# --- Markdown ------------------------------------------------------------------------------------


def to_markdown(html: str) -> str:
    """Clean HTML as Markdown: ``#`` headings by level, ``-`` lists, pipe tables, ``>`` quotes, fenced code."""
    if not html:
        return ""
    from markdownify import markdownify

    markdown = markdownify(
        html,
        heading_style="ATX",
        bullets="-",
        code_language="",
        table_infer_header=True,
        escape_underscores=False,
        escape_asterisks=False,
        bs4_options="lxml",  # lxml's parser: about twice as fast as html.parser on these trees
    )
    return _BLANK_LINES.sub("\n\n", markdown).strip()


# --- the headline --------------------------------------------------------------------------------


def _text_of(element: Any) -> str:
    return _BLANKS.sub(" ", "".join(element.itertext())).strip()


def metadata_title(root: Any) -> str | None:
    """``og:title``, else ``<title>`` without its " | Site" / " - Site" suffix."""
    if root is None:
        return None
    for meta in root.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").lower() in ("og:title", "twitter:title"):
            content = _BLANKS.sub(" ", meta.get("content") or "").strip()
            if content:
                return content
    for title in root.iter("title"):
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


def find_title(root: Any, block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool]) -> str | None:
    """The page's headline: a heading block that matches the metadata title, else the first ``h1`` (content
    blocks first), else the metadata title."""
    from_metadata = metadata_title(root)
    wanted = _comparable(from_metadata) if from_metadata else ""
    headings: list[tuple[bool, str, str]] = []  # (kept, tag, text)
    for index, heading in _first_blocks_of_headings(block_elements):
        text = _text_of(heading)
        if text:
            headings.append((bool(keep[index]), _tag(heading), text))
    if wanted:
        for _, _, text in headings:
            candidate = _comparable(text)
            if candidate and (candidate == wanted or (len(candidate) > 8 and candidate in wanted)):
                return text
    for want_kept in (True, False):
        for kept, tag, text in headings:
            if tag == "h1" and kept == want_kept:
                return text
    return from_metadata


#: The inline elements a heading's text may sit in (``<h1><a><span>Title</span></a></h1>``).
_INLINE_IN_HEADINGS = ("a", "span", "em", "strong", "b", "i")
#: The compiled twin of :func:`_first_blocks_of_headings` (``_paths.pyx``), or ``None``.
(compiled_first_blocks_of_headings,) = load_twin(
    "scrapy_web2text._paths", "first_blocks_of_headings", reads_lxml=True
) or (None,)


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
