"""The blocks of a labelled page as a result holds them: :class:`Block` objects, the main text joined from the
kept ones, and :class:`LabelledPage`, which a result keeps until something reads its blocks (a crawl's records,
labels and paths are read from the page's columns instead of a frozen object per block).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..page import CDOMNode, Page
from . import output

CONTENT, BOILERPLATE = "content", "boilerplate"
_NO_SPACE_BEFORE = frozenset(".,;:!?)]}%”’»")


@dataclass(frozen=True, slots=True)
class Block:
    """One DOM-leaf block: its text, label and where it came from.

    ``start``/``end`` are best-effort character offsets into the decoded
    source; ``node`` is the block's Collapsed-DOM node.
    """

    text: str
    label: str
    probability: float
    tag_path: str
    start: int
    end: int
    node: CDOMNode = field(repr=False, compare=False)
    #: The lxml element holding the text, and whether the text is that element's tail (``None`` when unknown).
    element: Any = field(default=None, repr=False, compare=False)
    in_tail: bool = field(default=False, repr=False, compare=False)
    #: The rule after decoding that changed the block's label (``"comment_sections"``...), ``None`` where the
    #: model's label stands.
    rule: str | None = None

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT

    @property
    def xpath(self) -> str | None:
        """The absolute XPath of the element that holds the block's text (computed on demand)."""
        return None if self.element is None else output.block_xpath(self.element, self.in_tail)

    def to_dict(self, xpath: str | None = None) -> dict[str, Any]:
        """``{"text", "label", "probability"`` (4 decimals) ``, "xpath", "rule"}``; ``xpath`` replaces :attr:`xpath`
        (:meth:`Extraction.xpaths` gives the shorter id-anchored one)."""
        return _full_record(self.text, self.label, self.probability, xpath or self.xpath, self.rule)

    def to_compact(self, xpath: str | None = None) -> list[Any]:
        """``[label, probability, xpath]``: probability to 2 decimals, no text; a list, not a dict, because the
        key names would be a third of a feed's bytes."""
        return _compact_record(self.label, self.probability, xpath or self.xpath)


def _full_record(text: str, label: str, probability: float, xpath: str | None, rule: str | None) -> dict[str, Any]:
    return {"text": text, "label": label, "probability": round(probability, 4), "xpath": xpath, "rule": rule}


def _compact_record(label: str, probability: float, xpath: str | None) -> list[Any]:
    return [label, round(probability, 2), xpath]


def _label_names(keep: np.ndarray) -> list[str]:
    return [CONTENT if kept else BOILERPLATE for kept in keep.tolist()]


def join_main_text(page: Page, keep: np.ndarray) -> str:
    """Content blocks as text, one paragraph per line."""
    # The parts of the text with their separators, joined once: appending to the last line instead would copy it
    # for every inline block (quadratic on a line of many small blocks).
    parts: list[str] = []
    previous = -2
    texts, break_before = page.texts, page.break_before.tolist()
    # A page made without the walk's column (a hand-made one) reads as white space everywhere.
    space_before = page.space_before.tolist() if len(page.space_before) == len(texts) else [True] * len(texts)
    for index in np.flatnonzero(keep).tolist():
        text = texts[index]
        if parts:
            if index == previous + 1 and not break_before[index]:
                # Inline neighbours ("see <a>this</a>.") join with a space where the source has white space between
                # them, as a browser shows them ("<b>Q</b>uil<wbr>lon" is one word), but not before closing
                # punctuation.
                if space_before[index] and text[0] not in _NO_SPACE_BEFORE:
                    parts.append(" ")
            else:
                parts.append("\n")
        parts.append(text)
        previous = index
    return "".join(parts)


def build_blocks(
    page: Page, keep: np.ndarray, probabilities: np.ndarray, rules: Sequence[str | None] | None = None
) -> tuple[Block, ...]:
    """A :class:`Block` per block of ``page``: its text, label (``keep``), p(content), origin, and the rule that
    changed its label (``rules``: one per block, or ``None`` where no rule changed any)."""
    elements = page.block_elements if len(page.block_elements) == len(page.texts) else [(None, False)] * len(page)
    nodes = page.nodes
    return tuple(
        Block(text, label, p, path, start, end, nodes[node], *where, rule)
        for text, label, p, path, start, end, node, where, rule in zip(
            page.texts,
            _label_names(keep),
            probabilities.tolist(),
            page.tag_paths,
            page.starts.tolist(),
            page.ends.tolist(),
            page.block_nodes.tolist(),
            elements,
            rules or [None] * len(page),
        )
    )


@dataclass(frozen=True, slots=True)
class LabelledPage:
    """A page and its labels, held by an :class:`Extraction` until its :class:`Block` objects are built (calling
    it builds them).  The block records and paths of a crawl's items are read from here directly."""

    page: Page
    keep: np.ndarray
    probabilities: np.ndarray
    #: Each block's rule that changed its label, or ``None`` where no rule changed any.
    rules: Sequence[str | None] | None = None

    def __call__(self) -> tuple[Block, ...]:
        return build_blocks(self.page, self.keep, self.probabilities, self.rules)

    def elements(self) -> tuple[list[tuple[Any, bool]], list[bool]]:
        """What ``Extraction._elements`` gives from the built blocks: each block's element and whether it is
        content, where the walk recorded the elements (none otherwise, as :func:`build_blocks` leaves them)."""
        page = self.page
        if len(page.block_elements) != len(page.texts):
            return [], []
        return list(page.block_elements), self.keep.astype(bool).tolist()

    def records(self, form: str, xpaths: list[str | None]) -> list[Any]:
        """:meth:`Extraction.block_records` as :meth:`Block.to_compact`/:meth:`Block.to_dict` write them."""
        columns = _label_names(self.keep), self.probabilities.tolist(), xpaths
        if form == "compact":
            return [_compact_record(*fields) for fields in zip(*columns)]
        rules = self.rules or [None] * len(self.keep)
        return [_full_record(*fields) for fields in zip(self.page.texts, *columns, rules)]
