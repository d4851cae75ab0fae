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

from .elements import _ELEMENT_CACHE, _TAG_TABLE, _describe_element, _describe_tag
from .marks import MARKING_ATTRIBUTES, attribute_marks, head_titles

#: Blocks past this number are dropped; ``Page.truncated`` says so.
MAX_BLOCKS = 50_000

#: A tag path keeps at most this many trailing segments (an id of the full
#: path is kept too), so 100,000-deep pages do not make quadratic strings.
TAG_PATH_SEGMENTS = 24

#: Whitespace and C0 control characters: blank in block text.  C0 controls
#: carry nothing a reader sees, and XML 1.0 (feed exports) forbids them.
_BLANK = re.compile(r"[\s\x00-\x1f]+")
#: Noncharacters that XML 1.0 forbids, as U+FFFD (in the page source and, for trees parsed elsewhere, in blocks).
_NONCHARACTERS = {0xFFFE: 0xFFFD, 0xFFFF: 0xFFFD}


def block_text(raw: str) -> str:
    """A text node as a block's text: blank runs collapsed to one space, trimmed, U+FFFE/U+FFFF (not XML) replaced."""
    text = _BLANK.sub(" ", raw).strip()
    return text.translate(_NONCHARACTERS) if "\ufffe" in text or "\uffff" in text else text


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
    #: Per CDOM node, the columns of ``NODE_COLUMNS``: parent, depth, first_block, end_block, n_children, and
    #: the node's index in ``distinct_tags`` and in ``distinct_attributes`` (equal ids: equal values).
    node_table: np.ndarray = field(default_factory=lambda: np.zeros((0, 7), np.int64))
    distinct_tags: list[tuple[str, ...]] = field(default_factory=list)
    distinct_attributes: list[str] = field(default_factory=list)
    #: The parsed lxml tree (``None`` for an empty page) and, per block, where its text sits in it:
    #: ``(element, False)`` for ``element.text``, ``(element, True)`` for ``element.tail``.  Output formats
    #: (Markdown, clean HTML, titles, block paths) read them; labellers do not.
    root: Any = field(default=None, repr=False)
    block_elements: list[tuple[Any, bool]] = field(default_factory=list, repr=False)
    truncated: bool = False
    title: str = ""  # the <head>'s <title> and og:title ("" if none)
    og_title: str = ""
    #: libxml2 hit its nesting limit: elements nested deeper than
    #: ``MAX_NESTING`` were unwrapped before parsing (their text is kept).
    flattened: bool = False
    #: An element had more than ``attributes.MAX_ATTRIBUTES`` attributes:
    #: those past the cap were removed before parsing.
    stripped_attributes: bool = False

    def __len__(self) -> int:
        return len(self.texts)


#: The per-block columns the walk records, in the order of its rows: each becomes the ``Page`` attribute of
#: that name (an int64 array; bool for those in ``_BOOL_BLOCK_COLUMNS``).  A new per-block column is one name
#: here and one value in the row that :meth:`_Walker.walk` appends for a block.
BLOCK_COLUMNS = ("starts", "ends", "path_ids", "in_link", "break_before", "ancestor_tags", "ancestor_keywords")
_BOOL_BLOCK_COLUMNS = frozenset({"in_link", "break_before"})
#: The per-node columns of ``Page.node_table``, in order.
NODE_COLUMNS = ("parent", "depth", "first_block", "end_block", "n_children", "tags_id", "attributes_id")


def collect_blocks(page: Page, root, max_blocks: int = MAX_BLOCKS) -> None:
    """Walk the lxml tree under ``root`` into ``page``'s CDOM nodes and blocks (and read the head's titles)."""
    page.title, page.og_title = map(block_text, head_titles(root))
    page.root = root
    _Walker(page, max_blocks).walk(root)


# While the page is walked, an open element is a tuple
#   (tag, attributes, path id, ancestor tag mask, ancestor keyword mask, in link, finished children, segment)
# and a finished CDOM subtree a tuple
#   (tags innermost first, attributes innermost first, children, leaf block index or -1).
# The tag list grows at its end as ancestors collapse into the subtree: prepending would cost O(depth).
_TAG, _ATTRIBUTES, _PATH_ID, _TAG_MASK, _KEYWORD_MASK, _IN_LINK, _CHILDREN, _SEGMENT = range(8)


class _Walker:
    """One pass over the lxml tree: preprocess, collapse, collect blocks.

    The loop body runs twice per element of the page, so it is one function with everything it needs bound to
    locals, tuples instead of objects, and a per-tag table instead of string tests.
    """

    def __init__(self, page: Page, max_blocks: int):
        self.page = page
        self.max_blocks = max_blocks
        self.block_rows: list[tuple] = []

    def walk(self, root) -> None:  # noqa: C901 - one loop on purpose (see the class docstring)
        page = self.page
        source = page.source
        source_length = len(source)
        max_blocks = self.max_blocks
        texts, tag_paths, rows, block_elements = page.texts, page.tag_paths, self.block_rows, page.block_elements
        tag_table, element_cache, anchor_search = _TAG_TABLE, _ELEMENT_CACHE, _ANCHOR_WORD.search
        paths: dict[tuple[int, str], int] = {}  # (parent path id, segment) → path id
        path_strings: dict[int, str] = {}  # path id → tag path: the id fixes every segment of the path
        top_children: list = []
        parent = ("#root", "", 0, 0, 0, False, top_children, "")
        stack = [parent]
        pending_break = False
        cursor = 0
        missed_until: dict[str, int] = {}  # word → end of a window it is absent from
        skipped_element = None
        events = etree.iterwalk(root, events=("start", "end"))
        for event, element in events:
            tag = element.tag
            if tag.__class__ is str:
                tag, block_level, skipped, tag_bit, is_link = tag_table.get(tag) or _describe_tag(tag)
                if event == "start":
                    if block_level:
                        pending_break = True
                    if skipped:
                        events.skip_subtree()  # its end event comes next
                        skipped_element = element
                        continue
                    # Open the element: its tag path segment, path id and ancestor masks.
                    get = element.get
                    key = (tag, get("class"), get("id"))
                    attributes, segment, keyword_mask = element_cache.get(key) or _describe_element(*key)
                    key = (parent[_PATH_ID], segment)
                    path_id = paths.get(key)
                    if path_id is None:
                        path_id = paths[key] = len(paths) + 1
                    tag_bit |= 0 if MARKING_ATTRIBUTES.isdisjoint(element.keys()) else attribute_marks(get)
                    parent = (
                        tag,
                        attributes,
                        path_id,
                        parent[_TAG_MASK] | tag_bit,
                        parent[_KEYWORD_MASK] | keyword_mask,
                        parent[_IN_LINK] or is_link,
                        [],
                        segment,
                    )
                    stack.append(parent)
                    raw, is_tail = element.text, False
                else:
                    if element is skipped_element:
                        skipped_element = None
                    else:
                        closed = stack.pop()
                        parent = stack[-1]
                        children = closed[_CHILDREN]
                        # An element with nothing below is dropped (the preprocessing step); one with a
                        # single child merges into it (the collapse step).
                        if children:
                            if len(children) == 1:
                                merged = children[0]
                                merged[0].append(tag)
                                if closed[_ATTRIBUTES]:
                                    merged[1].append(closed[_ATTRIBUTES])
                            else:
                                merged = ([tag], [closed[_ATTRIBUTES]] if closed[_ATTRIBUTES] else [], children, -1)
                            parent[_CHILDREN].append(merged)
                    if block_level:
                        pending_break = True
                    raw, is_tail = element.tail, True
            elif event == "end":  # comment or PI left by a recovering parse: only its tail is text
                raw, is_tail = element.tail, True
            else:
                continue
            if not raw or raw.isspace():
                continue
            # The block text: blank runs collapsed.  str.split() splits on exactly the regex's \s; a text that
            # still holds a C0 control (not printable) goes through the regex.
            text = " ".join(raw.split())
            if not text.isprintable():
                text = block_text(raw)
                if not text:
                    continue
            if len(rows) >= max_blocks:
                page.truncated = True
                continue
            # Best-effort source offset: lxml keeps none, so the first word of the text is searched for after
            # the previous block, in a bounded window so that a miss (an entity-escaped word) costs O(window).
            # Where a word is known to be absent the window is not searched again (the cursor only moves on):
            # 5,000 blocks of one word behind a 200 KB attribute searched 5,000 windows of 64 KiB.
            start = min(cursor, source_length)
            match = anchor_search(raw)
            if match:
                word = match.group()
                window_end = cursor + 65536
                found = source.find(word, max(cursor, missed_until.get(word, 0) - len(word) + 1), window_end)
                if found >= 0:
                    start = max(found - match.start(), cursor)
                else:
                    if len(missed_until) >= 1024:
                        missed_until.clear()
                    missed_until[word] = window_end
            if start >= cursor:
                cursor = start + len(raw)
            path_id = parent[_PATH_ID]
            tag_path = path_strings.get(path_id)
            if tag_path is None:
                segments = [entry[_SEGMENT] for entry in stack[-TAG_PATH_SEGMENTS:] if entry is not stack[0]]
                prefix = "…>" if len(stack) > TAG_PATH_SEGMENTS + 1 else ""
                tag_path = path_strings[path_id] = prefix + ">".join([*segments, "#text"])
            texts.append(text)
            tag_paths.append(tag_path)
            block_elements.append((element, is_tail))
            rows.append(
                (
                    start,
                    min(start + len(raw), source_length),
                    path_id,
                    parent[_IN_LINK],
                    pending_break,
                    parent[_TAG_MASK],
                    parent[_KEYWORD_MASK],
                )
            )
            pending_break = False
            parent[_CHILDREN].append((["#text"], [], (), len(rows) - 1))
        while len(stack) > 1:  # only if the walk stopped early: close what is open
            closed = stack.pop()
            children = closed[_CHILDREN]
            if len(children) == 1:
                children[0][0].append(closed[_TAG])
                if closed[_ATTRIBUTES]:
                    children[0][1].append(closed[_ATTRIBUTES])
                stack[-1][_CHILDREN].append(children[0])
            elif children:
                attributes = [closed[_ATTRIBUTES]] if closed[_ATTRIBUTES] else []
                stack[-1][_CHILDREN].append(([closed[_TAG]], attributes, children, -1))
        self._finish(top_children)

    def _finish(self, top_children: list) -> None:
        page = self.page
        if not top_children:
            return
        root = top_children[0] if len(top_children) == 1 else (["#root"], [], top_children, -1)
        leaf_nodes: list[int] = []  # pre-order meets the leaves in document order: block order
        node_tags: list[tuple[str, ...]] = []
        node_attributes: list[str] = []
        # Equal tag lists and attribute strings are stored once and numbered: the features compare and look up
        # numbers, and nodes share the objects.
        tag_ids: dict[tuple[str, ...], int] = {}
        attribute_ids: dict[str, int] = {"": 0}
        distinct_tags, distinct_attributes = page.distinct_tags, page.distinct_attributes
        distinct_attributes.append("")
        # Per node: NODE_COLUMNS (the feature code's view of the tree, as one array).
        table: list[list[int]] = []
        # Iterative pre-order numbering; a node's leaf range is known once its last child is done, hence the
        # post-visit entries (parent < -1 holds ~(index + 1)).
        work: list[tuple] = [(root, -1, 0)]
        leaves_seen = 0
        while work:
            subtree, parent, depth = work.pop()
            if parent < -1:
                table[~parent - 1][3] = leaves_seen
                continue
            index = len(table)
            tags, attributes, children, leaf = subtree
            tags = tuple(reversed(tags))
            tags_id = tag_ids.get(tags)
            if tags_id is None:
                tags_id = tag_ids[tags] = len(distinct_tags)
                distinct_tags.append(tags)
            node_tags.append(distinct_tags[tags_id])
            if attributes:
                attributes = " ".join(reversed(attributes))
                attributes_id = attribute_ids.get(attributes)
                if attributes_id is None:
                    attributes_id = attribute_ids[attributes] = len(distinct_attributes)
                    distinct_attributes.append(attributes)
                node_attributes.append(distinct_attributes[attributes_id])
            else:
                attributes_id = 0
                node_attributes.append("")
            if leaf >= 0:
                leaf_nodes.append(index)
                table.append([parent, depth, leaves_seen, leaves_seen + 1, 0, tags_id, attributes_id])
                leaves_seen += 1
                continue
            table.append([parent, depth, leaves_seen, leaves_seen, len(children), tags_id, attributes_id])
            work.append((subtree, ~(index + 1), 0))
            depth += 1
            work.extend([(child, index, depth) for child in reversed(children)])
        node_table = np.array(table, np.int64).reshape(-1, len(NODE_COLUMNS))
        page.node_table = node_table
        page.nodes = list(map(CDOMNode, range(len(table)), node_tags, node_attributes, *node_table.T[:5].tolist()))
        page.block_nodes = np.array(leaf_nodes, np.int64)
        columns = np.array(self.block_rows, np.int64).reshape(-1, len(BLOCK_COLUMNS))
        for position, name in enumerate(BLOCK_COLUMNS):
            column = columns[:, position]
            setattr(page, name, column.astype(bool) if name in _BOOL_BLOCK_COLUMNS else column)
