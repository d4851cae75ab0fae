"""The one-call API: HTML in, labelled blocks and main text out.

:func:`extract` runs the chain in the order a page goes through it: parse the page into blocks
(:mod:`scrapy_web2text.page`), label every block with the chosen labeller (:mod:`scrapy_web2text.labellers`),
then build the :class:`Extraction`, joining the kept blocks into the main text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .labellers.base import get_labeller
from .labellers.web2text.network import Web2TextModel
from .page import CDOMNode, Page, parse_page

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

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "label": self.label, "probability": round(self.probability, 4)}


@dataclass(frozen=True, slots=True)
class Extraction:
    """The result of :func:`extract`.

    ``truncated`` says blocks past ``page.MAX_BLOCKS`` were dropped;
    ``flattened`` that nesting deeper than libxml2's limit was unwrapped
    (see the robustness documentation).  ``main_text`` joins the content blocks: blocks separated by a line break
    in the unstyled page (or by dropped boilerplate) start a new line,
    inline neighbours are joined with a space.  ``timings`` holds
    milliseconds per stage: ``parse``, ``features``, ``network``, ``decode``.
    """

    main_text: str
    blocks: tuple[Block, ...]
    url: str | None = None
    method: str = "web2text"
    model: str | None = None
    truncated: bool = False
    flattened: bool = False
    timings: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def content_blocks(self) -> list[Block]:
        return [block for block in self.blocks if block.is_content]

    def to_dict(self, include_blocks: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url, "method": self.method, "model": self.model, "main_text": self.main_text}
        if include_blocks:
            out["blocks"] = [block.to_dict() for block in self.blocks]
        return out


def join_main_text(page: Page, keep: np.ndarray) -> str:
    """Content blocks as text, one paragraph per line."""
    lines: list[str] = []
    previous = -2
    for index in np.flatnonzero(keep):
        text = page.texts[index]
        if lines and index == previous + 1 and not page.break_before[index]:
            # Inline neighbours ("see <a>this</a>.") join with a space, but
            # not before closing punctuation.
            lines[-1] += text if text[0] in _NO_SPACE_BEFORE else " " + text
        else:
            lines.append(text)
        previous = index
    return "\n".join(lines)


def build_extraction(page: Page, keep: np.ndarray, probabilities: np.ndarray, **details: Any) -> Extraction:
    blocks = tuple(
        Block(text, CONTENT if kept else BOILERPLATE, float(p), path, int(start), int(end), page.nodes[node])
        for text, kept, p, path, start, end, node in zip(
            page.texts, keep, probabilities, page.tag_paths, page.starts, page.ends, page.block_nodes
        )
    )
    return Extraction(
        main_text=join_main_text(page, keep),
        blocks=blocks,
        truncated=page.truncated,
        flattened=page.flattened,
        **details,
    )


def extract(
    html: str | bytes,
    url: str | None = None,
    *,
    threshold: float | None = None,
    model: Web2TextModel | str | Path | None = None,
    method: str = "web2text",
    encoding: str | None = None,
) -> Extraction:
    """Label every block of ``html`` as content or boilerplate.

    ``html`` is ``str`` or ``bytes`` (bytes are decoded by BOM, ``encoding``,
    ``<meta charset>``, UTF-8, then Windows-1252; never raising).  Any other
    type raises ``TypeError``.  ``threshold`` is the probability a block
    needs to be kept (default: the model's, 0.5); ``model`` a loaded
    :class:`~scrapy_web2text.Web2TextModel`, a packaged model's name or
    a path (default: the shipped model, loaded once per process).
    ``method`` picks the labeller (see :mod:`scrapy_web2text.labellers`; a registered name or a dotted path).
    """
    if not isinstance(html, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"html must be str or bytes, not {type(html).__name__}")
    labeller = get_labeller(method)
    clock = time.perf_counter()
    page = parse_page(html, encoding=encoding)
    parse_ms = 1000 * (time.perf_counter() - clock)
    result = labeller(page, model=model, threshold=threshold)
    timings = {"parse": parse_ms, **result.timings}
    return build_extraction(
        page, result.keep, result.probabilities, url=url, method=method, model=result.model_name, timings=timings
    )
