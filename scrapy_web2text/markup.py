"""The kept blocks as clean HTML and as Markdown, safe to display.

:func:`clean_html_tree` copies the page's lxml tree keeping only the text of content blocks and the elements above
them, and only structure a reader needs (headings, paragraphs, lists, tables, quotes, code, emphasis, links); other
elements (``div``, ``span``...) are unwrapped, their block-level kind kept as a ``div`` so that paragraphs stay
apart, and nothing nests deeper than :data:`MAX_OUTPUT_DEPTH`.  :func:`clean_html` sanitises it with ``nh3`` (the
Ammonia sanitiser: an allow-list of tags, attributes and link schemes).  Markdown is that clean HTML converted by
``markdownify`` (a maintained, MIT-licensed converter with ATX headings, pipe tables and fenced code; ``html2text``
is GPL-3.0, which a BSD-3-Clause package should not pull in), with page text escaped where Markdown would make HTML
or links of it.  :mod:`scrapy_web2text.output` re-exports all of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from lxml import etree

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
