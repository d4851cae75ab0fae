"""HTML → Collapsed DOM → blocks: the first stage of the Web2Text chain.

The page is parsed with lxml's HTML parser (no network, no entity
expansion), preprocessed as in Vogels et al. (2018, §3.1) and collapsed:
every node with exactly one child is merged with that child, so that
"parent" and "grandparent" mean the semantic parent (two links in sibling
``<li><a>`` share the ``<ul>``).  The leaves of the Collapsed DOM are the
blocks, in document order.

Everything here is iterative: a page nested 100,000 elements deep cannot
raise ``RecursionError``.  libxml2 itself gives up at an element depth of
2048 and drops the rest of the page; such a page is parsed again with its
nesting beyond :data:`MAX_NESTING` unwrapped (see :func:`flatten_nesting`),
so no text is lost.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

#: Elements with nothing to extract (the paper's list plus the obvious).
SKIPPED_TAGS = frozenset(
    """script style noscript template head title meta link base br hr img
    input iframe frame checkbox svg math canvas object embed video audio
    source track map area param picture textarea""".split()
)

#: Elements that start a new line in an unstyled rendering.
BLOCK_LEVEL_TAGS = frozenset(
    """address article aside blockquote body caption center dd details dialog
    dir div dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4
    h5 h6 header hgroup hr br html legend li main menu nav ol option p pre
    section summary table tbody td tfoot th thead tr ul""".split()
)

#: Blocks past this number are dropped; ``Page.truncated`` says so.
MAX_BLOCKS = 50_000

#: When libxml2 stops at its nesting limit (2048 elements, ``huge_tree`` or
#: not), the page is parsed again with the start and end tags nested deeper
#: than this removed; their text stays where it was.  Pages that never hit
#: the limit are parsed exactly once, unchanged.
MAX_NESTING = 1024

#: A tag path keeps at most this many trailing segments (an id of the full
#: path is kept too), so 100,000-deep pages do not make quadratic strings.
TAG_PATH_SEGMENTS = 24

#: Whitespace and C0 control characters: blank in block text.  C0 controls
#: carry nothing a reader sees, and XML 1.0 (feed exports) forbids them.
_BLANK = re.compile(r"[\s\x00-\x1f]+")


def block_text(raw: str) -> str:
    """A text node as a block's text: blank runs collapsed to one space, trimmed."""
    return _BLANK.sub(" ", raw).strip()
_ANCHOR_WORD = re.compile(r"\w{3,24}|\w+")
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
#: A leading DOCTYPE with an internal subset (``<!DOCTYPE html [<!ENTITY ...>]>``).
#: The HTML parser expands no entities, but it ends the doctype at the first
#: ``>`` and would show the rest of the subset as page text; the subset is
#: cut, the doctype name kept.
_DOCTYPE_SUBSET = re.compile(
    r"""\A((?>\s*<!--(?s:.*?)-->)*+\s*<!DOCTYPE[^\[>]*)\[(?:[^\]"']++|"[^"]*+"|'[^']*+')*+\]\s*>""", re.I
)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _codec_name(label: str | bytes | None) -> str | None:
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    try:
        return codecs.lookup(label.strip().lower()).name
    except LookupError:
        return None


def decode_html(data: bytes, encoding: str | None = None) -> str:
    """Decode page bytes to text; never raises.

    Order: byte-order mark, then ``encoding`` (an HTTP header's charset, say),
    then a ``<meta charset>`` in the first 4 KiB, then UTF-8, then
    Windows-1252, which accepts every byte sequence after replacement.
    A declared codec that fails strict decoding yields to UTF-8 if UTF-8
    fits; otherwise it is used with replacement characters.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, "replace")
    declared = _codec_name(encoding)
    if declared is None:
        match = _META_CHARSET.search(data[:4096])
        declared = _codec_name(match.group(1)) if match else None
    for name in (declared, "utf-8"):
        if name is None:
            continue
        try:
            return data.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode(declared or "cp1252", "replace")


@dataclass(eq=False, slots=True)
class CDOMNode:
    """A node of the Collapsed DOM.

    ``tags`` lists the merged elements, outermost first; a leaf ends with
    ``"#text"``.  ``attributes`` holds their ``class`` and ``id`` values,
    lower-cased.  ``first_block``/``end_block`` delimit the leaves below the
    node (a half-open range: they are contiguous in document order).
    """

    index: int
    tags: tuple[str, ...]
    attributes: str
    parent: int
    depth: int
    first_block: int = 0
    end_block: int = 0
    n_children: int = 0

    @property
    def is_leaf(self) -> bool:
        return self.tags[-1] == "#text"


@dataclass
class Page:
    """A parsed page: its CDOM nodes and, per block, parallel arrays."""

    source: str
    nodes: list[CDOMNode] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    tag_paths: list[str] = field(default_factory=list)
    #: Per block: CDOM node index, source offsets, flags (numpy arrays).
    block_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    ends: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    path_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    in_link: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    break_before: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: Per block: bit masks of ancestor tags / class-id keywords (features.py).
    ancestor_tags: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    ancestor_keywords: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Per CDOM node: parent, depth, first_block, end_block, n_children.
    node_table: np.ndarray = field(default_factory=lambda: np.zeros((0, 5), np.int64))
    truncated: bool = False
    #: libxml2 hit its nesting limit: elements nested deeper than
    #: ``MAX_NESTING`` were unwrapped before parsing (their text is kept).
    flattened: bool = False

    def __len__(self) -> int:
        return len(self.texts)


# Ancestor markers, as bit positions: semantic containers (HTML5 sectioning
# and friends) and class/id keywords.  features.py turns them into columns.
ANCESTOR_TAGS = (
    "nav",
    "header",
    "footer",
    "aside",
    "article",
    "main",
    "form",
    "table",
    "ul|ol",
    "h1|h2|h3|h4|h5|h6",
    "a",
    "p",
)
ANCESTOR_KEYWORDS = (
    ("nav", r"nav|menu"),
    ("footer", r"foot"),
    ("header", r"head|masthead|banner"),
    ("sidebar", r"side|rail"),
    ("comment", r"comment|repl|discuss"),
    ("social", r"share|social|follow"),
    ("ad", r"\bads?\b|advert|sponsor|promo"),
    ("content", r"content|article|post|entry|story|body|text|main"),
    ("related", r"related|recommend|popular|trending"),
    ("pagination", r"breadcrumb|pager|pagination"),
    ("cookie", r"cookie|consent|gdpr|newsletter|subscribe|signup"),
    ("widget", r"widget|module|teaser"),
    ("byline", r"meta|byline|author|date|time"),
    ("caption", r"caption|credit|figure"),
    ("hidden", r"hidden|skip|sr-only|visually"),
)
_ANCESTOR_TAG_BITS = {tag: 1 << bit for bit, group in enumerate(ANCESTOR_TAGS) for tag in group.split("|")}
_KEYWORD_PATTERNS = [re.compile(pattern) for _, pattern in ANCESTOR_KEYWORDS]
_ANY_KEYWORD = re.compile("|".join(pattern for _, pattern in ANCESTOR_KEYWORDS))


#: (class, id) → (lower-cased "class id", tag-path suffix, keyword mask),
#: shared by all pages: sites repeat their class names on every page.
_ATTRIBUTE_CACHE: dict[tuple[str, str], tuple[str, str, int]] = {}
_ATTRIBUTE_CACHE_SIZE = 100_000


def _describe_attributes(class_name: str, element_id: str) -> tuple[str, str, int]:
    key = (class_name, element_id)
    described = _ATTRIBUTE_CACHE.get(key)
    if described is None:
        attributes = f"{class_name} {element_id}".strip().lower()
        classes = class_name.split()
        mask = 0
        # Most class names ("row", "col-6", ids) hold no keyword at all: one
        # combined search rules them out before the per-group searches.
        if _ANY_KEYWORD.search(attributes):
            for bit, pattern in enumerate(_KEYWORD_PATTERNS):
                if pattern.search(attributes):
                    mask |= 1 << bit
        described = (attributes, "." + classes[0] if classes else "", mask)
        if len(_ATTRIBUTE_CACHE) >= _ATTRIBUTE_CACHE_SIZE:
            _ATTRIBUTE_CACHE.clear()
        _ATTRIBUTE_CACHE[key] = described
    return described


class _Subtree:
    """A finished CDOM subtree while the page is being walked.

    ``tags_inner_first`` grows at the end as ancestors collapse into it:
    prepending would cost O(depth) per merge.
    """

    __slots__ = ("tags_inner_first", "attributes", "children", "leaf")

    def __init__(self, tag: str, attributes: str, leaf: int = -1):
        self.tags_inner_first = [tag]
        self.attributes = [attributes] if attributes else []
        self.children: list[_Subtree] = []
        self.leaf = leaf


class _Open:
    __slots__ = ("tag", "attributes", "children", "path_id", "tag_mask", "keyword_mask", "in_link")

    def __init__(self, tag, attributes, path_id, tag_mask, keyword_mask, in_link):
        self.tag = tag
        self.attributes = attributes
        self.children: list[_Subtree] = []
        self.path_id = path_id
        self.tag_mask = tag_mask
        self.keyword_mask = keyword_mask
        self.in_link = in_link


_PARSER_OPTIONS = dict(
    remove_comments=True,
    remove_pis=True,
    no_network=True,
    recover=True,
    huge_tree=True,
    default_doctype=False,
    encoding="utf-8",
)


def _to_utf8(html: str) -> tuple[str, bytes]:
    # lxml refuses str with an XML encoding declaration, NUL bytes truncate
    # libxml2's input, lone surrogates cannot be encoded and a DOCTYPE's
    # internal subset would leak into the text: normalise all four and hand
    # lxml UTF-8 bytes with the encoding fixed.
    html = _XML_DECLARATION.sub("", html, count=1).replace("\x00", "\ufffd")
    if "[" in html[:4096]:
        # Only the head is searched: the pattern is anchored, and a page
        # without a subset must not cost a scan of megabytes.
        head = _DOCTYPE_SUBSET.sub(r"\1>", html[:65536], count=1)
        html = head + html[65536:]
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:
        data = html.encode("utf-8", "replace")
        html = data.decode("utf-8")
    return html, data


def parse_page(html: str | bytes, encoding: str | None = None, max_blocks: int = MAX_BLOCKS) -> Page:
    """Parse HTML into a :class:`Page` of CDOM nodes and blocks.

    ``html`` may be ``str`` or ``bytes`` (decoded with :func:`decode_html`,
    ``encoding`` being a declared charset).  Offsets in ``Page.starts`` and
    ``Page.ends`` index ``Page.source``, the decoded text.
    """
    if isinstance(html, (bytes, bytearray, memoryview)):
        html = decode_html(bytes(html), encoding)
    elif not isinstance(html, str):
        raise TypeError(f"html must be str or bytes, not {type(html).__name__}")
    source, data = _to_utf8(html)
    page = Page(source=source)
    if not data.strip():
        return page
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
    _Walker(page, max_blocks).walk(root)
    return page


def _parse_tree(data: bytes):
    """The lxml root of ``data`` (or None) and whether libxml2 stopped early."""
    parser = etree.HTMLParser(**_PARSER_OPTIONS)
    try:
        root = etree.fromstring(data, parser)
    except etree.LxmlError:
        root = None
    stopped = any(error.type == _RESOURCE_LIMIT for error in parser.error_log)
    return root, stopped


_RESOURCE_LIMIT = etree.ErrorTypes.ERR_RESOURCE_LIMIT

#: Elements without an end tag: they add no nesting.
_VOID_TAGS = frozenset(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr".split()
)
#: Elements whose content is raw text up to their end tag.
_RAW_TEXT_TAGS = frozenset("script style textarea title xmp iframe noembed noframes".split())
_TAG_NAME = re.compile(r"/?([A-Za-z][^\t\n\f\r />]*)")
#: Inside a start tag: its end, or the start of a quoted attribute value.
_TAG_END_OR_VALUE = re.compile(r""">|=[\t\n\f\r ]*(["'])""")


def flatten_nesting(html: str, cap: int = MAX_NESTING) -> str:
    """``html`` with the start and end tags nested deeper than ``cap`` removed.

    A single forward scan (linear time, whatever the input) that models
    nesting the simple way: void elements add none, an end tag closes up to
    its nearest open namesake, stray end tags are ignored; it may count
    deeper than a browser, never much shallower except around implied
    elements.  An unwrapped block-level element leaves a ``<br>`` so its
    text stays a block of its own; comments, doctypes and raw text (script,
    style, ...) pass through untouched.  ``cap=0`` removes every tag.
    """
    out: list[str] = []
    kept_until = 0
    stack: list[str] = []
    open_counts: dict[str, int] = {}
    position = 0
    length = len(html)
    while True:
        start = html.find("<", position)
        if start < 0 or start + 1 >= length:
            break
        following = html[start + 1]
        if following == "!" or following == "?":  # comment, doctype, CDATA, PI
            if html.startswith("<!--", start):
                close = html.find("-->", start + 4)
                position = close + 3 if close >= 0 else length
            else:
                close = html.find(">", start + 2)
                position = close + 1 if close >= 0 else length
            continue
        name_match = _TAG_NAME.match(html, start + 1)
        if name_match is None:  # a lone "<": text
            position = start + 1
            continue
        name = name_match.group(1).lower()
        is_end = following == "/"
        # Find the tag's ">", skipping quoted attribute values.
        cursor = name_match.end()
        while True:
            found = _TAG_END_OR_VALUE.search(html, cursor)
            if found is None:
                cursor = -1
                break
            if found.group(1) is None:
                cursor = found.end()
                break
            close = html.find(found.group(1), found.end())
            if close < 0:
                cursor = -1
                break
            cursor = close + 1
        if cursor < 0:  # the tag never ends: the rest of the page is inside it
            break
        position = cursor
        drop = False
        if not is_end:
            if name in _RAW_TEXT_TAGS:
                close = re.compile(r"</" + re.escape(name) + r"[\t\n\f\r />]", re.I).search(html, position)
                position = close.start() if close else length
                if cap == 0:  # drop the raw text along with its tags
                    out.append(html[kept_until:start])
                    kept_until = position
                continue
            if name in _VOID_TAGS:
                drop = cap == 0
            else:
                drop = len(stack) >= cap
                stack.append(name)
                open_counts[name] = open_counts.get(name, 0) + 1
        elif open_counts.get(name):
            while True:
                top = stack.pop()
                open_counts[top] -= 1
                if top == name:
                    break
            drop = len(stack) >= cap
        else:
            drop = cap == 0
        if drop:
            out.append(html[kept_until:start])
            out.append("<br>" if cap and name in BLOCK_LEVEL_TAGS else " " if name in BLOCK_LEVEL_TAGS else "")
            kept_until = position
    out.append(html[kept_until:])
    return "".join(out)


class _Walker:
    """One pass over the lxml tree: preprocess, collapse, collect blocks."""

    def __init__(self, page: Page, max_blocks: int):
        self.page = page
        self.max_blocks = max_blocks
        self.stack: list[_Open] = []
        self.paths: dict[tuple[int, str], int] = {}
        self.segments: list[str] = []
        self.pending_break = False
        self.cursor = 0
        self.block_rows: list[tuple] = []

    def walk(self, root) -> None:
        top = _Open("#root", "", 0, 0, 0, False)
        self.stack.append(top)
        events = etree.iterwalk(root, events=("start", "end"))
        skipping: set = set()
        # Bound once: this loop runs twice per element of the page.
        add_text, open_element, close_element = self._add_text, self._open, self._close
        block_level, skipped = BLOCK_LEVEL_TAGS, SKIPPED_TAGS
        for event, element in events:
            tag = element.tag
            if tag.__class__ is not str:  # comment or PI left by a recovering parse
                if event == "end" and element.tail:
                    add_text(element.tail)
                continue
            if tag.startswith("{"):
                tag = tag.rpartition("}")[2]
            tag = tag.lower()
            if event == "start":
                if tag in block_level:
                    self.pending_break = True
                if tag in skipped:
                    events.skip_subtree()
                    skipping.add(element)
                    continue
                open_element(tag, element)
                text = element.text
                if text:
                    add_text(text)
            else:
                if skipping and element in skipping:
                    skipping.discard(element)
                else:
                    close_element()
                if tag in block_level:
                    self.pending_break = True
                tail = element.tail
                if tail:
                    add_text(tail)
        while len(self.stack) > 1:
            close_element()
        self._finish(top)

    def _open(self, tag: str, element) -> None:
        parent = self.stack[-1]
        get = element.get
        class_name = get("class")
        element_id = get("id")
        if class_name or element_id:
            attributes, suffix, keyword_mask = _describe_attributes(class_name or "", element_id or "")
            segment = tag + suffix
            keyword_mask |= parent.keyword_mask
        else:
            attributes, segment, keyword_mask = "", tag, parent.keyword_mask
        key = (parent.path_id, segment)
        path_id = self.paths.get(key)
        if path_id is None:
            path_id = self.paths[key] = len(self.paths) + 1
        self.segments.append(segment)
        self.stack.append(
            _Open(
                tag,
                attributes,
                path_id,
                parent.tag_mask | _ANCESTOR_TAG_BITS.get(tag, 0),
                keyword_mask,
                parent.in_link or tag == "a",
            )
        )

    def _close(self) -> None:
        node = self.stack.pop()
        self.segments.pop()
        children = node.children
        if not children:
            return  # the preprocessing step: nothing to extract below
        if len(children) == 1:  # the collapse step
            merged = children[0]
            merged.tags_inner_first.append(node.tag)
            if node.attributes:
                merged.attributes.append(node.attributes)
        else:
            merged = _Subtree(node.tag, node.attributes)
            merged.children = children
        self.stack[-1].children.append(merged)

    def _add_text(self, raw: str | None) -> None:
        if raw.isspace():
            return
        text = block_text(raw)
        if not text:
            return
        page = self.page
        if len(self.block_rows) >= self.max_blocks:
            page.truncated = True
            return
        parent = self.stack[-1]
        start = self._locate(raw)
        self.cursor = start + len(raw) if start >= self.cursor else self.cursor
        segments = self.segments[-TAG_PATH_SEGMENTS:]
        prefix = "…>" if len(self.segments) > TAG_PATH_SEGMENTS else ""
        page.texts.append(text)
        page.tag_paths.append(prefix + ">".join(segments + ["#text"]))
        self.block_rows.append(
            (
                start,
                min(start + len(raw), len(page.source)),
                parent.path_id,
                parent.in_link,
                self.pending_break,
                parent.tag_mask,
                parent.keyword_mask,
            )
        )
        self.pending_break = False
        parent.children.append(_Subtree("#text", "", leaf=len(self.block_rows) - 1))

    def _locate(self, raw: str) -> int:
        """Best-effort offset of a text node in the source.

        lxml keeps no character offsets, so the first word of the text is
        searched for after the previous block, in a bounded window so a miss
        (an entity-escaped word) costs O(window), not O(page).
        """
        source = self.page.source
        match = _ANCHOR_WORD.search(raw)
        if match:
            found = source.find(match.group(), self.cursor, self.cursor + 65536)
            if found >= 0:
                return max(found - match.start(), self.cursor)
        return min(self.cursor, len(source))

    def _finish(self, top: _Open) -> None:
        page = self.page
        if not top.children:
            return
        root = top.children[0] if len(top.children) == 1 else _Subtree("#root", "")
        if len(top.children) > 1:
            root.children = top.children
        nodes = page.nodes
        block_nodes = np.zeros(len(self.block_rows), np.int64)
        # Per node: parent, depth, first block, end block, children (the
        # feature code's view of the tree, as one array).
        table: list[list[int]] = []
        # Iterative pre-order numbering; a node's leaf range is known once its
        # last child is done, hence the post-visit entries (index < 0).
        work: list[tuple[_Subtree, int, int]] = [(root, -1, 0)]
        leaves_seen = 0
        while work:
            subtree, parent, depth = work.pop()
            if parent < -1:  # post-visit marker: parent holds ~index
                nodes[~parent - 1].end_block = table[~parent - 1][3] = leaves_seen
                continue
            index = len(nodes)
            tags = tuple(reversed(subtree.tags_inner_first))
            attributes = " ".join(reversed(subtree.attributes))
            n_children = len(subtree.children)
            node = CDOMNode(index, tags, attributes, parent, depth, leaves_seen, leaves_seen, n_children)
            nodes.append(node)
            row = [parent, depth, leaves_seen, leaves_seen, n_children]
            table.append(row)
            if subtree.leaf >= 0:
                block_nodes[subtree.leaf] = index
                leaves_seen += 1
                node.end_block = row[3] = leaves_seen
                continue
            work.append((subtree, ~(index + 1), 0))
            for child in reversed(subtree.children):
                work.append((child, index, depth + 1))
        page.node_table = np.array(table, np.int64).reshape(-1, 5)
        columns = np.array(self.block_rows, np.int64).reshape(-1, 7)
        page.block_nodes = block_nodes
        page.starts, page.ends, page.path_ids = columns[:, 0], columns[:, 1], columns[:, 2]
        page.in_link, page.break_before = columns[:, 3].astype(bool), columns[:, 4].astype(bool)
        page.ancestor_tags, page.ancestor_keywords = columns[:, 5], columns[:, 6]
