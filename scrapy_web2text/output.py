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
from urllib.parse import quote, urlsplit

from lxml import etree

from .page.compiled import load_lxml_twin

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
#: Characters the URL parser drops anywhere in a URL.
_URL_IGNORED = re.compile("[\t\n\r]")
_C0_AND_SPACE = "".join(map(chr, range(33)))
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


#: The compiled twin of :func:`block_xpaths` (``_paths.pyx``), or ``None`` where it is not built or turned off.
(compiled_block_xpaths,) = load_lxml_twin("scrapy_web2text._paths", "block_xpaths") or (None,)


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


class _AnchoredPaths(_AbsolutePaths):
    """Each element's path from its parent's: ``//*[@id="X"]`` for an element whose ``id`` is unique in the page,
    else the parent's path and the element's step, cut to :data:`MAX_XPATH_CHARS` (the same as cutting the whole
    path: the cut keeps whole last steps)."""

    def __init__(self, tree: Any, unique: set[str]):
        super().__init__(tree)
        self.unique = unique

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
            identifier = node.get("id") if isinstance(node.tag, str) else None
            if identifier in self.unique:
                path = f'//*[@id="{identifier}"]'
            elif parent is None:
                path = cut_xpath(self.tree.getpath(node))  # the root: libxml2's own
            elif not isinstance(node.tag, str):  # a comment or PI: its step as libxml2 writes it
                path = cut_xpath(path + self.tree.getpath(node)[len(self.tree.getpath(parent)) :])
            else:
                if node not in self.steps:
                    self._number_children(parent)
                path = cut_xpath(path + self.steps[node])
            self.paths[node] = path
        return path


# --- clean HTML ----------------------------------------------------------------------------------


#: How deep the clean HTML nests at most: deeper kept elements are unwrapped into the element at this depth (a
#: block-level one leaves a ``<br>``), their text kept in order.  Markdown converters recurse over the tree (400
#: nested ``<div>`` raised ``RecursionError`` in markdownify), and no reader needs more.
MAX_OUTPUT_DEPTH = 48
#: Kept elements that run inline; the others start a new line where they are unwrapped past MAX_OUTPUT_DEPTH.
INLINE_TAGS = frozenset("em strong b i u s sub sup a br code q kbd samp".split())


def clean_html_tree(block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool]) -> Any:
    """A new ``<div>`` holding the kept blocks' text under the structure that carried it (at most
    :data:`MAX_OUTPUT_DEPTH` deep)."""
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
    texts = _TextBuffer()
    # Iterative copy (pages nest thousands of elements deep): (source element, target, target's depth) triples; a
    # tail marker (None, (child, target), depth) adds a child's kept tail text after the child.
    work: list[tuple[Any, Any, int]] = [(top, out, 0)]
    while work:
        source, target, depth = work.pop()
        if source is None:
            child, parent_target = target
            texts.append(parent_target, child.tail)
            continue
        tag = _tag(source)
        copied = "div" if tag in BLOCK_CONTAINERS else tag if tag in KEPT_TAGS else None
        if copied == target.tag and (copied in INLINE_TAGS or copied == "div") and copied != "a":
            # <b> in <b> is one <b>, a <div> first in an empty <div> one <div>: 10,000 nested ones make one
            if copied != "div" or texts.is_empty(target):
                copied = None
        if copied is not None and depth >= MAX_OUTPUT_DEPTH:
            if copied not in INLINE_TAGS:
                texts.line_break(target)
        elif copied is not None:
            target = etree.SubElement(target, copied)
            texts.added(target)
            depth += 1
            if tag == "a" and source.get("href"):
                target.set("href", link_target(source.get("href")))
        if source in kept_text:
            texts.append(target, source.text)
        for child in reversed(source):
            if child in kept_tail:
                work.append((None, (child, target), depth))
            if child in needed or _tag(child) in ("br", "hr"):
                work.append((child, target, depth))
    texts.write()
    return out


def link_target(href: str) -> str:
    """An ``href`` as a browser reads it: without tabs and line breaks anywhere and without leading or trailing
    controls and spaces (``jav&#x09;ascript:`` is ``javascript:``), and without characters XML refuses."""
    return _NOT_XML.sub("", _URL_IGNORED.sub("", href).strip(_C0_AND_SPACE))


class _TextBuffer:
    """The text of the clean tree, gathered as pieces per element and joined once at the end: adding each piece to
    a growing string (and asking lxml for an element's last child, which counts its children) was quadratic on a
    paragraph of 100,000 ``<br>``."""

    def __init__(self):
        self.last_child: dict[Any, Any] = {}  # target element -> its last element child so far
        self.pieces: dict[tuple[Any, bool], list[str]] = {}  # (element, is_tail) -> text pieces

    def added(self, element: Any) -> None:
        self.last_child[element.getparent()] = element

    def append(self, target: Any, text: str | None) -> None:
        if not text:
            return
        last = self.last_child.get(target)
        key = (last, True) if last is not None else (target, False)
        self.pieces.setdefault(key, []).append(_NOT_XML.sub(" ", text))

    def is_empty(self, element: Any) -> bool:
        """Nothing was put in ``element`` yet."""
        return element not in self.last_child and (element, False) not in self.pieces

    def line_break(self, target: Any) -> None:
        """A ``<br>`` in ``target``, unless its content already ends with one."""
        last = self.last_child.get(target)
        if last is not None and last.tag == "br" and (last, True) not in self.pieces:
            return
        self.added(etree.SubElement(target, "br"))

    def write(self) -> None:
        for (element, is_tail), pieces in self.pieces.items():
            if is_tail:
                element.tail = "".join(pieces)
            else:
                element.text = "".join(pieces)


#: Link schemes the clean HTML and Markdown keep; every other (``javascript:``, ``vbscript:``, ``data:``...) is
#: removed with the link, its text kept.
LINK_SCHEMES = frozenset({"http", "https", "mailto"})


def clean_html(block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool], url: str | None = None) -> str:
    """The kept blocks as clean HTML (a ``<div>``; empty string when nothing is kept), sanitised by ``nh3`` (the
    Ammonia sanitiser): only :data:`KEPT_TAGS`, ``href`` only on links, only :data:`LINK_SCHEMES`; relative links
    made absolute against ``url`` where it is an http(s) URL."""
    tree = clean_html_tree(block_elements, keep)
    if not len(tree) and not (tree.text or "").strip():
        return ""
    _drop_empty(tree)
    return sanitise(etree.tostring(tree, method="html", encoding="unicode"), url)


def sanitise(html: str, url: str | None = None) -> str:
    """``html`` through ``nh3`` with the clean HTML's allow-list (see :func:`clean_html`)."""
    import nh3

    base = url if url and urlsplit(url).scheme in ("http", "https") else None
    return nh3.clean(
        html,
        tags=set(KEPT_TAGS | {"div"}),
        attributes={"a": {"href"}},
        url_schemes=set(LINK_SCHEMES),
        url_relative=("rewrite_with_base", base) if base else "pass_through",
        link_rel=None,
        strip_comments=True,
    )


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
    """Clean HTML as Markdown: ``#`` headings by level, ``-`` lists, pipe tables, ``>`` quotes, fenced code.

    The page's text is escaped where Markdown would read it as markup that acts (``<`` of raw HTML and autolinks,
    ``[``/``]`` of links and images, ``\\``, and ``&`` of a character reference), and link targets are
    percent-encoded where they would end the link: page text never becomes HTML or a live link.  ``*`` and ``_``
    stay unescaped (emphasis is only formatting, and ``snake_case`` stays readable)."""
    if not html:
        return ""
    markdown = _converter().convert(html)
    return _BLANK_LINES.sub("\n\n", markdown).strip()


#: Markdown-significant characters of page text that could make HTML or a link, and a character reference's ``&``.
_MARKDOWN_ACTIVE = re.compile(r"([\\`\[\]<>])|&(?=#?\w+;)")
_BACKTICK_RUNS = re.compile("`+")
#: Characters of a link target that would end it or open HTML in Markdown's ``[text](target)``.
_TARGET_SAFE = "".join(chr(code) for code in range(33, 127) if chr(code) not in "()<>\\")


def _escape_markdown(text: str) -> str:
    return _MARKDOWN_ACTIVE.sub(lambda match: "\\" + match.group(0), text)


_CONVERTER_CLASS = None


def _converter():
    """A Markdown converter (markdownify's, with the escaping and link targets above); one per call, as a
    converter keeps state while it converts."""
    global _CONVERTER_CLASS
    if _CONVERTER_CLASS is None:
        from markdownify import MarkdownConverter

        class _SafeConverter(MarkdownConverter):
            def escape(self, text, parent_tags):
                return _escape_markdown(super().escape(text, parent_tags)) if text else ""

            def convert_a(self, el, text, parent_tags):
                if el.get("href"):
                    el["href"] = quote(el["href"], safe=_TARGET_SAFE)
                return super().convert_a(el, text, parent_tags)

            def convert_pre(self, el, text, parent_tags):
                # A fence longer than any run of backticks in the code: a "```" line of the page cannot close it.
                converted = super().convert_pre(el, text, parent_tags)
                longest = max(map(len, _BACKTICK_RUNS.findall(text or "")), default=0)
                if longest < 3 or not converted:
                    return converted
                fence = "`" * (longest + 1)
                opening, _, rest = converted.partition("```")
                body, _, closing = rest.rpartition("```")
                return f"{opening}{fence}{body}{fence}{closing}"

        _CONVERTER_CLASS = _SafeConverter
    return _CONVERTER_CLASS(
        heading_style="ATX",
        bullets="-",
        code_language="",
        table_infer_header=True,
        escape_underscores=False,
        escape_asterisks=False,
        escape_misc=False,
        autolinks=False,
        bs4_options="lxml",  # lxml's parser: about twice as fast as html.parser on these trees
    )


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


#: A metadata title is cut to this many characters (no headline is longer): matching it against every heading
#: then costs at most this much per heading, not the title's length (a 1 MB title and 20,000 headings took 3.5 s).
MAX_TITLE_CHARS = 1000


def find_title(root: Any, block_elements: Sequence[tuple[Any, bool]], keep: Sequence[bool]) -> str | None:
    """The page's headline: a heading block that matches the metadata title, else the first ``h1`` (content
    blocks first), else the metadata title."""
    from_metadata = metadata_title(root)
    if from_metadata and len(from_metadata) > MAX_TITLE_CHARS:
        from_metadata = from_metadata[:MAX_TITLE_CHARS].rstrip()
    wanted = _comparable(from_metadata) if from_metadata else ""
    headings: list[tuple[bool, str, str]] = []  # (kept, tag, text)
    for index, heading in _first_blocks_of_headings(block_elements):
        text = _text_of(heading)
        if text:
            headings.append((bool(keep[index]), _tag(heading), text))
    if wanted:
        for _, _, text in headings:
            candidate = _comparable(text)
            if candidate == wanted or (8 < len(candidate) <= len(wanted) and candidate in wanted):
                return text
    for want_kept in (True, False):
        for kept, tag, text in headings:
            if tag == "h1" and kept == want_kept:
                return text
    return from_metadata


#: The inline elements a heading's text may sit in (``<h1><a><span>Title</span></a></h1>``).
_INLINE_IN_HEADINGS = ("a", "span", "em", "strong", "b", "i")
#: The compiled twin of :func:`_first_blocks_of_headings` (``_paths.pyx``), or ``None``.
(compiled_first_blocks_of_headings,) = load_lxml_twin("scrapy_web2text._paths", "first_blocks_of_headings") or (None,)


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
