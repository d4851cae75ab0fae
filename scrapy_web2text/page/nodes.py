"""The Collapsed DOM's node objects (:class:`CDOMNode`), made from a page's node table on first read.

The walk numbers a page's CDOM nodes into ``Page.node_table``, one row each, which the features and the networks
read.  The objects are for readers that want one per node (a result's blocks, the LM labeller, research code):
making them for every page would cost every page for the few readers, so the walk leaves ``Page.nodes`` unset and
the page makes them here when they are first read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


def nodes_from_table(
    table: np.ndarray, distinct_tags: list[tuple[str, ...]], distinct_attributes: list[str]
) -> list[CDOMNode]:
    """A :class:`CDOMNode` per row of a ``Page.node_table`` (``cdom.NODE_COLUMNS``), in order."""
    tags = list(map(distinct_tags.__getitem__, table[:, 5].tolist()))
    attributes = list(map(distinct_attributes.__getitem__, table[:, 6].tolist()))
    return list(map(CDOMNode, range(len(table)), tags, attributes, *table.T[:5].tolist()))
