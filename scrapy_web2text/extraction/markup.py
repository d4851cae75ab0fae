"""The kept blocks as clean HTML and as Markdown, safe to display.

:func:`clean_html_tree` copies the page's lxml tree keeping only the text of content blocks and the elements above
them, and only structure a reader needs (headings, paragraphs, lists, tables, quotes, code, emphasis, links); other
elements (``div``, ``span``...) are unwrapped, their block-level kind kept as a ``div`` so that paragraphs stay
apart, and nothing nests deeper than :data:`MAX_OUTPUT_DEPTH`.  :func:`clean_html` sanitises it with ``nh3`` (the
Ammonia sanitiser: an allow-list of tags, attributes and link schemes).  Markdown is that clean HTML converted by
``markdownify`` (a maintained, MIT-licensed converter with ATX headings, pipe tables and fenced code; ``html2text``
is GPL-3.0, which a BSD-3-Clause package should not pull in), with page text escaped where Markdown would make HTML
or links of it.  :mod:`scrapy_web2text.extraction.output` re-exports all of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from lxml import etree

from ._substitute import SLICE, substitute

#: Elements copied into the clean HTML (with their tag); every other element is unwrapped.
KEPT_TAGS = frozenset(
    "h1 h2 h3 h4 h5 h6 p ul ol li dl dt dd table thead tbody tfoot tr th td caption blockquote pre code "
    "em strong b i u s sub sup a br hr figcaption q kbd samp".split()
)
#: Unwrapped elements that separate their content from their neighbours (a ``div`` in the clean HTML).
BLOCK_CONTAINERS = frozenset(
    "div section article main header footer aside nav form fieldset figure center address details summary".split()
)
_BLANK_LINES = re.compile(r"\n{3,}")
#: Characters the URL parser drops anywhere in a URL.
_URL_IGNORED = re.compile("[\t\n\r]")
_C0_AND_SPACE = "".join(map(chr, range(33)))
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


# --- clean HTML ----------------------------------------------------------------------------------


#: How deep the clean HTML nests at most: deeper kept elements are unwrapped into the element at this depth (a
#: block-level one leaves a ``<br>``), their text kept in order.  Markdown converters recurse over the tree (400
#: nested ``<div>`` raised ``RecursionError`` in markdownify), and no reader needs more.
MAX_OUTPUT_DEPTH = 48
#: Kept elements that run inline; the others start a new line where they are unwrapped past MAX_OUTPUT_DEPTH.
INLINE_TAGS = frozenset("em strong b i u s sub sup a br code q kbd samp".split())


#: A work item of :func:`clean_html_tree` that ends a line where an unwrapped block-level element ended.
_LINE_BREAK = object()


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
        if source is _LINE_BREAK:
            texts.line_break(target)
            continue
        tag = _tag(source)
        if tag == "br" and texts.breaks.get(target, 0) >= 2:
            continue  # a blank line is two; more (500,000 around dropped text) would only cost every output time
        copied = "div" if tag in BLOCK_CONTAINERS else tag if tag in KEPT_TAGS else None
        if copied == target.tag and (copied in INLINE_TAGS or copied == "div") and copied != "a":
            # <b> in <b> is one <b>, a <div> first in an empty <div> one <div>: 10,000 nested ones make one
            if copied != "div" or texts.is_empty(target):
                if copied == "div":
                    work.append((_LINE_BREAK, target, depth))  # what follows it starts a new line all the same
                copied = None
        if copied is not None and depth >= MAX_OUTPUT_DEPTH:
            if copied not in INLINE_TAGS or copied == "br":
                texts.line_break(target)
                work.append((_LINE_BREAK, target, depth))  # after its content, before its tail
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
        self.breaks: dict[Any, int] = {}  # target element -> how many <br> end it, with no text after them

    def added(self, element: Any) -> None:
        parent = element.getparent()
        self.last_child[parent] = element
        self.breaks[parent] = self.breaks.get(parent, 0) + 1 if element.tag == "br" else 0

    def append(self, target: Any, text: str | None) -> None:
        if not text:
            return
        self.breaks[target] = 0
        last = self.last_child.get(target)
        key = (last, True) if last is not None else (target, False)
        self.pieces.setdefault(key, []).append(_NOT_XML.sub(" ", text))

    def is_empty(self, element: Any) -> bool:
        """Nothing was put in ``element`` yet."""
        return element not in self.last_child and (element, False) not in self.pieces

    def line_break(self, target: Any) -> None:
        """A ``<br>`` in ``target``, unless its content is empty or already ends a line (with a ``<br>`` or a
        block-level element)."""
        last = self.last_child.get(target)
        if last is None:
            ends_a_line = (target, False) not in self.pieces
        else:
            ends_a_line = (last, True) not in self.pieces and (last.tag == "br" or last.tag not in INLINE_TAGS)
        if not ends_a_line:
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

    base = _link_base(url)
    clean = functools.partial(
        nh3.clean,
        html,
        tags=set(KEPT_TAGS | {"div"}),
        attributes={"a": {"href"}},
        url_schemes=set(LINK_SCHEMES),
        link_rel=None,
        strip_comments=True,
    )
    if base:
        try:
            return clean(url_relative=("rewrite_with_base", base))
        except ValueError:  # a page URL nh3 cannot parse (a NUL in the host, port 99999): links stay relative
            pass
    return clean(url_relative="pass_through")


def _link_base(url: str | None) -> str | None:
    """``url`` if it is an http(s) URL that parses (``http://[::1`` does not), else ``None``."""
    try:
        return url if url and urlsplit(url).scheme in ("http", "https") else None
    except ValueError:
        return None


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
_MARKDOWN_ACTIVE = re.compile(r"([\\`\[\]<>])|&(?=#?\w++;)")
_BACKTICK_RUNS = re.compile("`+")
#: Characters of a link target that would end it or open HTML in Markdown's ``[text](target)``.
_TARGET_SAFE = "".join(chr(code) for code in range(33, 127) if chr(code) not in "()<>\\")


def _items_before(parent: Any) -> dict[int, int]:
    """How many ``<li>`` come before each ``<li>`` child of ``parent`` (a BeautifulSoup tag), by the child's id."""
    before, count = {}, 0
    for child in parent.children:
        if getattr(child, "name", None) == "li":
            before[id(child)] = count
            count += 1
    return before


#: Where a long text may be cut for :func:`~scrapy_web2text.extraction._substitute.substitute`: after a character
#: no match of markdownify's white-space patterns takes in, and after one no match of ``_MARKDOWN_ACTIVE`` takes in
#: or looks at.
_TEXT_CUT = re.compile(r"[^\t \r\n]")
_ESCAPE_CUT = re.compile(r"[^\w&#]")


def _escape_markdown(text: str) -> str:
    return substitute(_MARKDOWN_ACTIVE, lambda match: "\\" + match.group(0), text, _ESCAPE_CUT)


def _long_text(converter: Any, element: Any, parent_tags: set) -> str:
    """markdownify's ``process_text`` (without wrapping, as configured here) in memory linear in the text: its
    white-space substitutions made a 10 MB text node cost 16 times its size."""
    import markdownify

    text = str(element)
    if "pre" not in parent_tags:
        text = substitute(markdownify.re_newline_whitespace, "\n", text, _TEXT_CUT)
        text = substitute(markdownify.re_whitespace, " ", text, _TEXT_CUT)
    if "_noformat" not in parent_tags:
        text = converter.escape(text, parent_tags)
    outside, inside = markdownify.should_remove_whitespace_outside, markdownify.should_remove_whitespace_inside
    if outside(element.previous_sibling) or (inside(element.parent) and not element.previous_sibling):
        text = text.lstrip(" \t\r\n")
    if outside(element.next_sibling) or (inside(element.parent) and not element.next_sibling):
        text = text.rstrip()
    return text


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

            def process_text(self, el, parent_tags=None):
                if len(el) <= SLICE or self.options["wrap"]:
                    return super().process_text(el, parent_tags)
                return _long_text(self, el, parent_tags or set())

            def convert_li(self, el, text, parent_tags):
                # markdownify numbers an <ol>'s item by counting the items before it, every time: quadratic in the
                # list (20,000 items took 45 s).  Each item's count is looked up in one pass over its list instead.
                parent = el.parent
                if parent is None or parent.name != "ol":
                    return super().convert_li(el, text, parent_tags)
                counts = self.__dict__.setdefault("_items_before", {})
                if id(parent) not in counts:
                    counts[id(parent)] = _items_before(parent)
                before = counts[id(parent)].get(id(el), 0)
                el.find_previous_siblings = lambda *args, **kwargs: range(before)  # what the count is taken from
                try:
                    return super().convert_li(el, text, parent_tags)
                finally:
                    del el.find_previous_siblings

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
