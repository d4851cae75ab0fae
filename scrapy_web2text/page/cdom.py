"""lxml tree → Collapsed DOM → blocks.

The page is parsed (:mod:`.parse`) with lxml's HTML parser (no network, no entity
expansion), preprocessed as in Vogels et al. (2018, §3.1) and collapsed:
every node with exactly one child is merged with that child, so that
"parent" and "grandparent" mean the semantic parent (two links in sibling
``<li><a>`` share the ``<ul>``).  The leaves of the Collapsed DOM are the
blocks, in document order.

Everything here is iterative: a page nested 100,000 elements deep cannot
raise ``RecursionError``.  libxml2 itself gives up at an element depth of
2048 and drops the rest of the page; such a page is parsed again with its
nesting beyond :data:`~.flatten.MAX_NESTING` unwrapped (see
:func:`~.flatten.flatten_nesting`), so no text is lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from .tags import ANCESTOR_KEYWORDS, ANCESTOR_TAGS, BLOCK_LEVEL_TAGS, SKIPPED_TAGS

#: Blocks past this number are dropped; ``Page.truncated`` says so.
MAX_BLOCKS = 50_000

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
    #: The parsed lxml tree (``None`` for an empty page) and, per block, where its text sits in it:
    #: ``(element, False)`` for ``element.text``, ``(element, True)`` for ``element.tail``.  Output formats
    #: (Markdown, clean HTML, titles, block paths) read them; labellers do not.
    root: Any = field(default=None, repr=False)
    block_elements: list[tuple[Any, bool]] = field(default_factory=list, repr=False)
    truncated: bool = False
    #: libxml2 hit its nesting limit: elements nested deeper than
    #: ``MAX_NESTING`` were unwrapped before parsing (their text is kept).
    flattened: bool = False

    def __len__(self) -> int:
        return len(self.texts)


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


def collect_blocks(page: Page, root, max_blocks: int = MAX_BLOCKS) -> None:
    """Walk the lxml tree under ``root`` into ``page``'s CDOM nodes and blocks."""
    page.root = root
    _Walker(page, max_blocks).walk(root)


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
                    add_text(element.tail, element, True)
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
                    add_text(text, element, False)
            else:
                if skipping and element in skipping:
                    skipping.discard(element)
                else:
                    close_element()
                if tag in block_level:
                    self.pending_break = True
                tail = element.tail
                if tail:
                    add_text(tail, element, True)
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

    def _add_text(self, raw: str, element: Any, is_tail: bool) -> None:
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
        page.block_elements.append((element, is_tail))
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
