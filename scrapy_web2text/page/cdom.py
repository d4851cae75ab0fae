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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from .marks import head_titles, unmark_page_wrapper
from .nodes import NODE_COLUMNS, CDOMNode, nodes_from_table
from .numbering import number_nodes
from .twins import load_twin
from .walk import (  # noqa: F401 - the walk's names that callers read from here
    _ANCHOR_WORD,
    _NONCHARACTERS,
    TAG_PATH_SEGMENTS,
    Walker,
    block_text,
)

MAX_BLOCKS = 50_000  # blocks past this number are dropped; Page.truncated says so


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
    #: Per block: white space (or the page's start) precedes it in the source; inline neighbours without any between
    #: them ("seven<i>teen</i>") are one word in the main text.
    space_before: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: Per block: bit masks of ancestor tags / class-id keywords (features.py).
    ancestor_tags: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    ancestor_keywords: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Per CDOM node, the columns of ``NODE_COLUMNS``: parent, depth, first_block, end_block, n_children, and
    #: the node's index in ``distinct_tags`` and in ``distinct_attributes`` (equal ids: equal values).
    node_table: np.ndarray = field(default_factory=lambda: np.zeros((0, len(NODE_COLUMNS)), np.int64))
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
    #: libxml2 hit its nesting limit: elements nested deeper than ``MAX_NESTING`` were unwrapped (text kept).
    flattened: bool = False
    #: An element had more than ``attributes.MAX_ATTRIBUTES`` attributes: those past the cap were removed.
    stripped_attributes: bool = False
    #: The page's text was read from its ``<noscript>`` elements (``parse.NOSCRIPT_SHARE``).
    from_noscript: bool = False
    #: The elements of ``root`` of each tag of ``marks.LOOKED_UP_TAGS``, in document order, found in one pass by the
    #: parse; ``None`` where they were not (a page made otherwise, or read from its ``<noscript>`` elements).
    tagged: dict[str, list[Any]] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    def __getattr__(self, name: str) -> Any:
        # Reached only where the ordinary look-up fails: for ``nodes`` on a page the walk filled, which leaves them
        # to be made on first read (:mod:`.nodes`).  Two threads racing here make equal lists; either one is kept.
        if name != "nodes" or "node_table" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.nodes = nodes_from_table(self.node_table, self.distinct_tags, self.distinct_attributes)
        return self.nodes


#: The compiled walk and numbering (:mod:`.twins`), each ``None`` where it is not in use: :meth:`.walk.Walker.walk`
#: and :func:`.numbering.number_nodes` run.
(compiled_walk,) = load_twin("scrapy_web2text.page.walk", "walk")
(compiled_number_nodes,) = load_twin("scrapy_web2text.page.numbering", "number_nodes")


def collect_blocks(page: Page, root, max_blocks: int = MAX_BLOCKS) -> None:
    """Walk the lxml tree under ``root`` into ``page``'s CDOM nodes and blocks (and read the head's titles)."""
    page.title, page.og_title = map(block_text, head_titles(root))
    page.root = root
    walker = Walker(page, max_blocks)
    walk = Walker.walk if compiled_walk is None or not isinstance(root, etree._Element) else compiled_walk
    if walk(walker, root):
        (number_nodes if compiled_number_nodes is None else compiled_number_nodes)(walker)
    unmark_page_wrapper(page)
