"""One pass over the lxml tree: preprocess, collapse, collect blocks (Vogels et al. 2018, §3.1).

:class:`Walker` is the reference of the CDOM walk; ``_walk.pyx`` is its compiled twin (``tests/page/test_speedups.py``
holds them equal).  The walk reads each element twice, at its start and its end, in four named steps:
:meth:`Walker.open_element` (the element's state: tag path, ancestor masks), :meth:`Walker.close_element` (the
preprocessing and the collapse: an element with nothing below is dropped, one with a single child merges into it),
:meth:`Walker.add_block` (a text node becomes a block) and :meth:`Walker.close_root`.  :func:`.numbering.number_nodes`
then numbers the CDOM nodes in pre-order.

While the page is walked, an open element is a :class:`State`, shared by the siblings that look alike (same parent
state, tag, class, id and attribute marks), looked up once per element, at its start.  A CDOM node is numbered when
it is made (a leaf at its text, an inner node when an element with two or more children closes): that is post-order,
and :func:`.numbering.number_nodes` renumbers in pre-order.  A node's tags and attributes are a chain, numbered per
page: (the chain inside it, the tag and the attributes of the element that collapsed around it), so a collapse is one
look-up and equal tag lists are one number; only the distinct chains become tuples and strings, at the end.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any, NamedTuple

from lxml import etree

from .elements import _TAG_TABLE, _describe_tag, describe_element
from .marks import MARKING_ATTRIBUTES, attribute_marks
from .numbering import STATE_COLUMNS
from .tags import MAX_SELECT_ELEMENTS, SHOWN_TEMPLATE_ATTRIBUTES
from .twins import load_twin

#: Trailing segments a tag path keeps (its id tells full paths apart): 100,000-deep pages make no quadratic strings.
TAG_PATH_SEGMENTS = 24

#: Whitespace and C0 control characters: blank in block text (C0 controls show nothing; XML 1.0 forbids them).
_BLANK = re.compile(r"[\s\x00-\x1f]+")
#: Noncharacters that XML 1.0 forbids, as U+FFFD (in the page source and, for trees parsed elsewhere, in blocks).
_NONCHARACTERS = {0xFFFE: 0xFFFD, 0xFFFF: 0xFFFD}
_ANCHOR_WORD = re.compile(r"\w{3,24}|\w+")
#: How far past the previous block a block's first word is searched for in the source.
_OFFSET_WINDOW = 65536
#: Whether an ``<svg>`` holds HTML (a ``foreignObject``, whatever its case or namespace): only such an svg is walked.
_HOLDS_FOREIGN_OBJECT = etree.XPath(
    "boolean(.//*[translate(local-name(), 'FOREIGNOBJECT', 'foreignobject') = 'foreignobject'])"
)
#: ``State.in_svg``: outside any walked svg; in its drawing (its texts are not shown as text); in its HTML.
OUTSIDE_SVG, SVG_DRAWING, SVG_HTML = 0, 1, 2
#: The tags whose elements are skipped or not by more than their tag (:meth:`Walker.skips`).
CHECKED_TAGS = frozenset({"template", "svg", "select"})


def block_text(raw: str) -> str:
    """A text node as a block's text: blank runs collapsed to one space, trimmed, U+FFFE/U+FFFF (not XML) replaced."""
    text = _BLANK.sub(" ", raw).strip()
    return text.translate(_NONCHARACTERS) if "\ufffe" in text or "\uffff" in text else text


_TEXT_CHAIN = 0  # the chain of a leaf: ("#text",), no attributes


class State(NamedTuple):
    """An open element as the walk sees it (the compiled walk reads the same fields by position)."""

    number: int  # its row in ``Walker.state_rows``
    tag: str
    attributes: str  # its class and id, described
    path_id: int  # equal ids: equal tag paths
    tag_mask: int  # the tags around it, as group bits
    keyword_mask: int  # the class/id keywords around it
    in_link: bool
    segment: str  # its step of a tag path
    block_level: bool
    in_svg: int  # OUTSIDE_SVG, SVG_DRAWING or SVG_HTML


_ROOT_STATE = State(0, "#root", "", 0, 0, 0, False, "", False, OUTSIDE_SVG)


def svg_mode(parent_mode: int, tag: str) -> int:
    """An element's ``State.in_svg``: an svg starts a drawing, a foreignObject in a drawing holds HTML."""
    if tag == "svg":
        return SVG_DRAWING
    if tag == "foreignobject" and parent_mode == SVG_DRAWING:
        return SVG_HTML
    return parent_mode


class Walker:
    """The walk of one page into ``page``: its blocks' texts, tag paths and columns, and its CDOM nodes."""

    # What the compiled walk (_walk.pyx) reads of this class, which it fills (the walk's anchor word is _ANCHOR_WORD's
    # match written out there).
    TEXT_CHAIN, TAG_PATH_SEGMENTS = _TEXT_CHAIN, TAG_PATH_SEGMENTS
    STATE_WIDTH = len(STATE_COLUMNS)
    block_text = staticmethod(block_text)

    def __init__(self, page: Any, max_blocks: int):
        self.page = page
        self.max_blocks = max_blocks
        #: Per block, flat: ``TEXT_COLUMNS``, then the state number.
        self.block_rows: list[int] = []
        #: Per state number, flat: ``STATE_COLUMNS``.
        self.state_rows: list[int] = [0] * len(STATE_COLUMNS)  # the root state
        #: Per CDOM node, in post-order: chain, number of children, first node of its subtree.
        self.node_chains: list[int] = []
        self.node_sizes: list[int] = []
        self.node_run_starts: list[int] = []
        #: The children of the inner nodes, one after the other in node order.
        self.children: list[int] = []
        #: (inner chain, tag, attributes) → chain number, numbered in order.
        self.chains: dict[tuple[int, str, str], int] = {(-1, "#text", ""): _TEXT_CHAIN}
        # The walk's own tables: (parent path id, segment) → path id; path id → tag path (the id fixes every
        # segment); (parent state number, lxml tag, class, id[, marks]) → state.
        self._paths: dict[tuple[int, str], int] = {}
        self._path_strings: dict[int, str] = {}
        self._states: dict[tuple, State] = {}
        self._top_children: list[int] = []
        #: The open elements, outermost first, each with the CDOM nodes made under it so far.
        self._stack: list[tuple[State, list[int]]] = [(_ROOT_STATE, self._top_children)]
        self._pending_break = False
        # Whether white space (or a blank text node) came since the previous block: inline neighbours that the
        # source writes without any ("seven<i>teen</i>") join without a space (``space_before``).
        self._pending_space = True
        self._select_elements_left = MAX_SELECT_ELEMENTS
        self._cursor = 0  # where the previous block's text ends in the source (best effort)
        self._missed_until: dict[str, int] = {}  # word → end of a window it is absent from

    def walk(self, root) -> bool:
        """Every element of ``root``'s tree, at its start and its end, then the root node.  Whether the page has a
        node (then :func:`.numbering.number_nodes` numbers them)."""
        events = etree.iterwalk(root, events=("start", "end"))
        skipped, skipped_block_level = None, False  # an element skipped with its subtree: its end event comes next
        for event, element in events:
            if event == "start":
                tag, block_level, skip, tag_bit, is_link = _TAG_TABLE.get(element.tag) or _describe_tag(element.tag)
                if block_level:
                    self._pending_break = True
                if tag in CHECKED_TAGS:
                    skip = self.skips(element, tag)
                if skip:
                    events.skip_subtree()
                    skipped, skipped_block_level = element, block_level
                    continue
                self.open_element(element, tag, tag_bit, is_link, block_level)
                raw, is_tail = element.text, False
            else:
                if element is skipped:
                    skipped = None
                    if skipped_block_level:
                        self._pending_break = True
                else:
                    self.close_element()
                raw, is_tail = element.tail, True
            if raw and self._stack[-1][0].in_svg != SVG_DRAWING:
                if raw.isspace():
                    self._pending_space = True
                else:
                    self.add_block(element, raw, is_tail)
        return self.close_root()

    def skips(self, element, tag: str) -> bool:
        """Whether an element of ``CHECKED_TAGS`` is skipped: a ``<template>`` unless it is a declarative shadow root;
        an svg unless it holds a foreignObject (one inside a walked svg is walked unsearched: nested svgs cost one
        search); a ``<select>`` whose elements would go past the page's ``MAX_SELECT_ELEMENTS``."""
        if tag == "template":
            return all(element.get(name) is None for name in SHOWN_TEMPLATE_ATTRIBUTES)
        if tag == "svg":
            return self._stack[-1][0].in_svg == OUTSIDE_SVG and not _HOLDS_FOREIGN_OBJECT(element)
        left = self._select_elements_left
        count = sum(1 for _ in islice(element.iterdescendants(etree.Element), left + 1))  # stops past the budget
        if count > left:
            return True
        self._select_elements_left = left - count
        return False

    def open_element(self, element, tag: str, tag_bit: int, is_link: bool, block_level: bool) -> None:
        """Push the element's state: found among the states of its look-alike siblings, or made."""
        parent = self._stack[-1][0]
        keys = element.keys()
        if keys:
            get = element.get
            if MARKING_ATTRIBUTES.isdisjoint(keys):
                key = (parent.number, element.tag, get("class"), get("id"))
            else:
                key = (parent.number, element.tag, get("class"), get("id"), attribute_marks(get))
        else:
            key = (parent.number, element.tag)
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = self._new_state(parent, key, tag, tag_bit, is_link, block_level)
        self._stack.append((state, []))

    def _new_state(self, parent: State, key: tuple, tag: str, tag_bit: int, is_link: bool, block_level: bool) -> State:
        attributes, segment, keyword_mask = describe_element(tag, key[2], key[3]) if len(key) > 2 else ("", tag, 0)
        path_key = (parent.path_id, segment)
        path_id = self._paths.get(path_key)
        if path_id is None:
            path_id = self._paths[path_key] = len(self._paths) + 1
        if len(key) > 4:
            tag_bit |= key[4]
        state = State(
            number=len(self.state_rows) // len(STATE_COLUMNS),
            tag=tag,
            attributes=attributes,
            path_id=path_id,
            tag_mask=parent.tag_mask | tag_bit,
            keyword_mask=parent.keyword_mask | keyword_mask,
            in_link=parent.in_link or is_link,
            segment=segment,
            block_level=block_level,
            in_svg=svg_mode(parent.in_svg, tag),
        )
        self.state_rows += (path_id, state.in_link, state.tag_mask, state.keyword_mask)
        return state

    def close_element(self) -> None:
        """Pop the element: with nothing below it is dropped (the preprocessing step); with a single child it merges
        into the child (the collapse step); with more, it becomes an inner CDOM node of its parent."""
        closed, children = self._stack.pop()
        siblings = self._stack[-1][1]
        if len(children) == 1:
            node = children[0]
            link = (self.node_chains[node], closed.tag, closed.attributes)
            self.node_chains[node] = self.chains.setdefault(link, len(self.chains))
            siblings.append(node)
        elif children:
            siblings.append(self._inner_node(closed.tag, closed.attributes, children))
        if closed.block_level:
            self._pending_break = True

    def _inner_node(self, tag: str, attributes: str, children: list[int]) -> int:
        node = len(self.node_chains)
        self.node_chains.append(self.chains.setdefault((-1, tag, attributes), len(self.chains)))
        self.node_sizes.append(len(children))
        self.node_run_starts.append(self.node_run_starts[children[0]])
        self.children += children
        return node

    def add_block(self, element, raw: str, is_tail: bool) -> None:
        """A text node that is not blank becomes a block (a leaf of the CDOM) under the open element."""
        # str.split() splits on exactly the regex's \s; a text that still holds a C0 control goes through the regex.
        text = " ".join(raw.split())
        if not text.isprintable():
            text = block_text(raw)
            if not text:
                self._pending_space = True
                return
        page = self.page
        if len(page.texts) >= self.max_blocks:
            page.truncated = True
            return
        first, last = raw[0], raw[-1]
        space_before = self._pending_space or first <= " " or first.isspace()
        self._pending_space = last <= " " or last.isspace()
        start = self._source_offset(raw)
        state, siblings = self._stack[-1]
        page.texts.append(text)
        page.tag_paths.append(self._tag_path(state.path_id))
        page.block_elements.append((element, is_tail))
        source_length = len(page.source)
        end = start + len(raw)
        end = end if end < source_length else source_length
        self.block_rows += (start, end, self._pending_break, space_before, state.number)
        self._pending_break = False
        node = len(self.node_chains)
        siblings.append(node)
        self.node_chains.append(_TEXT_CHAIN)
        self.node_sizes.append(0)
        self.node_run_starts.append(node)

    def _source_offset(self, raw: str) -> int:
        """Best effort: lxml keeps no source offsets, so the text's first word is searched for after the previous
        block, in a bounded window so that a miss (an entity-escaped word) costs O(window).  Where a word is known to
        be absent the window is not searched again (the cursor only moves on), so that thousands of one-word blocks
        behind a long attribute do not search thousands of windows."""
        source = self.page.source
        cursor, missed_until = self._cursor, self._missed_until
        start = cursor if cursor < len(source) else len(source)
        match = _ANCHOR_WORD.search(raw)
        if match:
            word = match.group()
            window_end = cursor + _OFFSET_WINDOW
            searched_from = max(cursor, missed_until.get(word, 0) - len(word) + 1) if missed_until else cursor
            found = source.find(word, searched_from, window_end)
            if found >= 0:
                start = max(found - match.start(), cursor)
            else:
                if len(missed_until) >= 1024:
                    missed_until.clear()
                missed_until[word] = window_end
        if start >= cursor:
            self._cursor = start + len(raw)
        return start

    def _tag_path(self, path_id: int) -> str:
        """The open element's tag path: its last ``TAG_PATH_SEGMENTS`` steps, made once per path id."""
        tag_path = self._path_strings.get(path_id)
        if tag_path is None:
            stack = self._stack
            segments = [state.segment for state, _ in stack[-TAG_PATH_SEGMENTS:] if state is not _ROOT_STATE]
            prefix = "…>" if len(stack) > TAG_PATH_SEGMENTS + 1 else ""
            tag_path = self._path_strings[path_id] = prefix + ">".join([*segments, "#text"])
        return tag_path

    def close_root(self) -> bool:
        """The top elements side by side become children of a root node.  Whether the page has any node."""
        if len(self._top_children) > 1:
            self._inner_node("#root", "", self._top_children)
        return bool(self._top_children)


def within_size(root, max_elements: int, max_product: int) -> bool:
    """Whether the tree under ``root`` has at most ``max_elements`` elements and at most ``max_product`` elements
    times its depth, counting the nodes the walk reads (elements and entity references) and stopping at the first
    over either: what a reader whose time grows with both may be given (the second opinion's extractor)."""
    if compiled_within_size is not None:
        return compiled_within_size(root, max_elements, max_product)
    elements = depth = deepest = 0
    for event, _ in etree.iterwalk(root, events=("start", "end"), tag=(etree.Element, etree.Entity)):
        if event == "end":
            depth -= 1
            continue
        elements, depth = elements + 1, depth + 1
        deepest = max(deepest, depth)
        if elements > max_elements or elements * deepest > max_product:
            return False
    return True


#: The compiled :func:`within_size` (``_walk.pyx``), or ``None`` where it is not in use.
(compiled_within_size,) = load_twin(__name__, "within_size")
