"""Re-walk a parsed page's DOM, text nodes numbered like ``Page`` blocks.

The baselines that have their own notion of a page (Boilerpipe's
TextBlocks, BTE's tag/word token sequence) need the DOM events between
the blocks that :class:`~scrapy_web2text.page.Page` does not keep.
This module parses ``page.source`` again with the same lxml options and
the same traversal rules as :mod:`scrapy_web2text.page`, so the k-th
text event here *is* block k of the page: labels computed on the
baseline's own units map back to our segmentation exactly, by index.

The correspondence is checked text by text; when it fails (it should not)
the events are re-numbered by matching texts in order, and text events
without a match get block index ``-1``.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from ..page import Page, block_text
from ..page.parse import PARSER_OPTIONS
from ..page.tags import SKIPPED_TAGS

#: Event kinds.
START, END, TEXT, SKIPPED = "start", "end", "text", "skipped"


def _parse(page: Page):
    data = page.source.encode("utf-8", "replace")
    if not data.strip():
        return None
    try:
        return etree.fromstring(data, etree.HTMLParser(**PARSER_OPTIONS))
    except etree.LxmlError:
        return None


def iter_events(page: Page) -> Iterator[tuple]:
    """DOM events in document order.

    Yields ``(START, tag, element)``, ``(END, tag, element)``,
    ``(SKIPPED, tag, element)`` for an element whose subtree the parser
    skips (``script``, ``img``, ``title``…: one event, no START/END), and
    ``(TEXT, block_index, raw_text)`` for every text node that became a
    block.  Tags are lower-case local names.
    """
    root = _parse(page)
    if root is None:
        return
    n_blocks = len(page.texts)
    index = 0

    def text(raw):
        nonlocal index
        if not raw or raw.isspace() or index >= n_blocks:
            return None
        event = (TEXT, index, raw)
        index += 1
        return event

    events = etree.iterwalk(root, events=("start", "end"))
    skipping: set = set()
    for event, element in events:
        tag = element.tag
        if not isinstance(tag, str):
            if event == "end":
                out = text(element.tail)
                if out:
                    yield out
            continue
        tag = tag.lower()
        if tag.startswith("{"):
            tag = tag.rpartition("}")[2]
        if event == "start":
            if tag in SKIPPED_TAGS:
                events.skip_subtree()
                skipping.add(element)
                yield (SKIPPED, tag, element)
                continue
            yield (START, tag, element)
            out = text(element.text)
        else:
            if element in skipping:
                skipping.discard(element)
            else:
                yield (END, tag, element)
            out = text(element.tail)
        if out:
            yield out


def aligned_events(page: Page) -> list[tuple]:
    """:func:`iter_events` as a list, text events checked against ``page.texts``."""
    events = list(iter_events(page))
    texts = page.texts
    ok = True
    seen = 0
    for event in events:
        if event[0] == TEXT:
            if block_text(event[2]) != texts[event[1]]:
                ok = False
                break
            seen += 1
    if ok and seen == len(texts):
        return events
    # Fallback: number the text events by in-order matching of their text.
    out = []
    cursor = 0
    for event in events:
        if event[0] != TEXT:
            out.append(event)
            continue
        normalised = block_text(event[2])
        found = -1
        for k in range(cursor, min(cursor + 50, len(texts))):
            if texts[k] == normalised:
                found = k
                break
        if found >= 0:
            cursor = found + 1
        out.append((TEXT, found, event[2]))
    return out
