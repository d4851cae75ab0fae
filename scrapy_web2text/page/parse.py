"""HTML → Collapsed DOM → blocks: the first stage of the chain, in the order it runs.

decode (bytes → text, :mod:`.decode`) → cap the attributes per element (:mod:`.attributes`) → normalise for
libxml2 → parse with lxml → if libxml2 stopped at its nesting limit, parse again with the deep nesting unwrapped
(:mod:`.flatten`) → drop closed ``<dialog>`` elements, which browsers do not render → walk the tree into the
Collapsed DOM and its blocks (:mod:`.cdom`) → if the page shows a reader without JavaScript far more text in its
``<noscript>`` elements than outside them, walk it again with them unwrapped.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from lxml import etree

from .attributes import may_have_crowded_tags, strip_excess_attributes
from .cdom import _NONCHARACTERS, MAX_BLOCKS, Page, collect_blocks
from .decode import decode_html_utf8
from .flatten import MAX_NESTING, flatten_nesting
from .marks import tagged_elements

_XML_DECLARATION = re.compile(r"\A\s*+<\?xml[^>]*+(?<=\?)>")
#: A leading DOCTYPE with an internal subset (``<!DOCTYPE html [<!ENTITY ...>]>``).
#: The HTML parser expands no entities, but it ends the doctype at the first
#: ``>`` and would show the rest of the subset as page text; the subset is
#: cut, the doctype name kept.
_DOCTYPE_SUBSET = re.compile(
    r"""\A((?>\s*<!--(?s:.*?)-->)*+\s*<!DOCTYPE[^\[>]*)\[(?:[^\]"']++|"[^"]*+"|'[^']*+')*+\]\s*>""", re.I
)


#: ``collect_ids=False``: libxml2 does not index the ``id`` attributes, which nothing here looks up (no XPath ``id()``),
#: and so does not log an error for each repeated ``id`` (pages repeat them by the hundred): parsing is faster.
PARSER_OPTIONS = dict(
    collect_ids=False,
    remove_comments=True,
    remove_pis=True,
    no_network=True,
    recover=True,
    huge_tree=True,
    default_doctype=False,
    encoding="utf-8",
)


def _to_utf8(html: str, encoded: bytes | None = None) -> tuple[str, bytes]:
    # lxml refuses str with an XML encoding declaration, NUL bytes truncate
    # libxml2's input, lone surrogates cannot be encoded, U+FFFE/U+FFFF are
    # not XML and a DOCTYPE's internal subset would leak into the text:
    # normalise all five and hand
    # lxml UTF-8 bytes with the encoding fixed.  ``encoded``: ``html`` in UTF-8 if the caller has it (the page's
    # own bytes), given back where no step changed the text.
    given = html
    html = _XML_DECLARATION.sub("", html, count=1).replace("\x00", "\ufffd")
    if "\ufffe" in html or "\uffff" in html:
        # Noncharacters that XML 1.0 forbids: a feed export of the text would not parse.
        html = html.translate(_NONCHARACTERS)
    if "[" in html[:4096]:
        # One anchored attempt at the start (linear: the subset's parts are possessive), over the whole page, so a
        # subset of any size is cut whole.
        subset = _DOCTYPE_SUBSET.match(html)
        if subset is not None:
            html = subset.group(1) + ">" + html[subset.end() :]
    if encoded is not None and html is given:  # each step above gives back its very input when it changes nothing
        return html, encoded
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:
        data = html.encode("utf-8", "replace")
        html = data.decode("utf-8")
    return html, data


def parse_page(
    html: str | bytes,
    encoding: str | None = None,
    max_blocks: int = MAX_BLOCKS,
    tree: Any = None,
    encoded: bytes | None = None,
) -> Page:
    """Parse HTML into a :class:`Page` of CDOM nodes and blocks.

    ``html`` may be ``str`` or ``bytes`` (decoded with :func:`decode_html`,
    ``encoding`` being a declared charset).  Offsets in ``Page.starts`` and
    ``Page.ends`` index ``Page.source``, the decoded text.  ``tree`` is an lxml
    root that parsel already built from the same text (``Selector(text=html).root``,
    what Scrapy's ``response.selector`` holds): it is walked instead of parsing
    again where it is the tree this function would build (:func:`reusable_tree`),
    and it is never changed.  ``encoded``: ``html`` (text) in UTF-8, where the caller has it (the page's bytes).
    """
    utf8 = encoded if isinstance(html, str) else None  # the page's bytes, where they are the decoded text's UTF-8
    if isinstance(html, (bytes, bytearray, memoryview)):
        html, utf8 = decode_html_utf8(bytes(html), encoding)
    elif not isinstance(html, str):
        raise TypeError(f"html must be str or bytes, not {type(html).__name__}")
    stripped = 0
    if may_have_crowded_tags(html):
        html, stripped = strip_excess_attributes(html)
        utf8 = None
    source, data = _to_utf8(html, utf8)
    page = Page(source=source, stripped_attributes=stripped > 0)
    if not data.strip():
        return page
    # A text that _to_utf8 had to normalise (XML declaration, NUL, DOCTYPE subset) parsed differently in parsel.
    reused = None if tree is None or source != html else reusable_tree(source, tree)
    if reused is not None:
        reused = _without_closed_dialogs(reused, shared=True)
        collect_blocks(page, reused, max_blocks)
        return _shown_without_scripts(page, reused, max_blocks, tagged_elements(reused))
    root, stopped = _parse_tree(data)
    if stopped:
        # libxml2 gave up at its nesting limit and dropped the rest: parse
        # again with the deep nesting unwrapped, less deep if need be, and
        # as plain text if even that fails.
        page.flattened = True
        for cap in (MAX_NESTING, 256, 32, 0):
            root, stopped = _parse_tree(flatten_nesting(source, cap).encode("utf-8"))
            if not stopped:
                break
    if root is None:
        return page
    root = _without_closed_dialogs(root, shared=False)
    collect_blocks(page, root, max_blocks)
    return _shown_without_scripts(page, root, max_blocks, tagged_elements(root))


def _without_closed_dialogs(root: Any, shared: bool) -> Any:
    """``root`` without its ``<dialog>`` elements that have no ``open`` attribute (a copy when ``shared``, parsel's
    tree).  A browser renders a closed dialog only when a script opens it: newsletter sign-ups, cookie consents and
    other modals.  The text after one (its tail) stays."""
    if next((element for element in root.iter("dialog") if element.get("open") is None), None) is None:
        return root
    if shared:
        root = copy.deepcopy(root)
    closed = [element for element in root.iter("dialog") if element.get("open") is None]
    for element in closed:
        # The dialog is block-level: its tail starts a new line, kept apart from the text before it.
        if element.tail and element.tail.strip():
            element.tail = "\n" + element.tail
        element.tag = _CLOSED_DIALOG
    # One pass in libxml2 that keeps each tail in place: removing them one by one, joining each tail to the text
    # before it, is quadratic on consecutive dialogs.
    etree.strip_elements(root, _CLOSED_DIALOG, with_tail=False)
    return root


#: The tag closed dialogs are renamed to before they are removed together (no HTML element has it).
_CLOSED_DIALOG = "web2text-closed-dialog"


#: A page whose text outside ``<noscript>`` is less than this share of the text inside it, and whose
#: ``<noscript>`` elements hold at least ``MIN_NOSCRIPT_CHARS`` characters, is read from them: it renders its text
#: with scripts and keeps a readable version for readers without JavaScript (a crawler's view).  Discourse forums
#: do this (the whole thread sits in one ``<noscript>``).  A page with text of its own beside a noscript tracking
#: pixel, and a script-only app whose ``<noscript>`` says "You need to enable JavaScript", are left alone.
NOSCRIPT_SHARE = 0.25
MIN_NOSCRIPT_CHARS = 500


_TEXTS_OUTSIDE_SCRIPTS = etree.XPath(".//text()[not(parent::script or parent::style)]")


def _shown_without_scripts(page: Page, root: Any, max_blocks: int, tagged: dict[str, list] | None = None) -> Page:
    """``page``, or the page walked again with its ``<noscript>`` elements unwrapped where they hold its text.
    ``tagged``: :func:`.marks.tagged_elements` of ``root``, kept on the page that is returned where it is ``page``."""
    noscripts = tagged["noscript"] if tagged is not None else root.iter("noscript")
    inside = sum(len(text) for element in noscripts for text in _TEXTS_OUTSIDE_SCRIPTS(element))
    page.tagged = tagged
    if inside < MIN_NOSCRIPT_CHARS:
        return page
    shown = sum(map(len, page.texts))
    if shown >= NOSCRIPT_SHARE * inside:
        return page
    # A copy: parsel's tree is never changed, and ``page`` keeps its own tree if the second walk is not kept.
    root = copy.deepcopy(root)
    etree.strip_tags(root, "noscript")
    unwrapped = Page(source=page.source, flattened=page.flattened, stripped_attributes=page.stripped_attributes)
    collect_blocks(unwrapped, root, max_blocks)
    if sum(map(len, unwrapped.texts)) <= shown:  # raw text in a <noscript> (in a <head>) that shows nothing
        return page
    unwrapped.from_noscript = True
    return unwrapped


def _parse_tree(data: bytes):
    """The lxml root of ``data`` (or None) and whether libxml2 stopped early."""
    parser = etree.HTMLParser(**PARSER_OPTIONS)
    try:
        root = etree.fromstring(data, parser)
    except etree.LxmlError:
        root = None
    stopped = any(error.type == _RESOURCE_LIMIT for error in parser.error_log)
    return root, stopped


_RESOURCE_LIMIT = etree.ErrorTypes.ERR_RESOURCE_LIMIT


#: Where parsel's tree and this module's differ, and the test for each:
#: parsel parses ``text.strip()`` with NULs removed (a text node running to the very start or end of the document, or
#: holding a NUL, would differ: the document must start with a tag and end with ``</html>`` or ``</body>``);
#: :func:`_to_utf8` drops an XML declaration and a DOCTYPE's internal subset (the document must need no such change);
#: libxml2 may stop at its nesting limit, which this module answers by parsing again flattened (no element may be
#: nested 250 deep); parsel keeps comments and processing instructions, which this module's parser drops, joining
#: the text around them (they are dropped from a copy, with the same joining).
_ENDS_WITH_CLOSING_TAG = re.compile(r"</(?:html|body)\s*+>\s*+\Z", re.I)
_DEEP_ELEMENT = etree.XPath("boolean(//*[count(ancestor::*) >= 250])")
_COMMENT_OR_PI = etree.XPath("boolean(//comment() | //processing-instruction())")


def reusable_tree(source: str, tree: Any) -> Any | None:
    """``tree`` (parsel's lxml root of ``source``), as the root :func:`parse_page` would parse, or ``None``."""
    if not isinstance(tree, etree._Element) or tree.getparent() is not None:
        return None
    head = source[:1024].lstrip()
    if not head.startswith("<") or head.startswith("<?") or "\x00" in source:
        return None
    if _ENDS_WITH_CLOSING_TAG.search(source[-1024:]) is None or _DOCTYPE_SUBSET.match(source):
        return None
    if _DEEP_ELEMENT(tree):
        return None
    if _COMMENT_OR_PI(tree):
        tree = copy.deepcopy(tree)
        etree.strip_elements(tree, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    return tree
