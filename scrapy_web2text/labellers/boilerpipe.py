"""Boilerpipe (Kohlschütter, Fankhauser, Nejdl 2010), ported onto our blocks.

A port of the filter pipelines and decision trees of Boilerpipe 1.1.0 as
walked through in ``shared/seeds/001_*.txt`` (the seed is the source of
truth here; where it is silent, the behaviour of the original Java source
described in the paper "Boilerplate Detection using Shallow Text
Features", WSDM 2010, is followed and marked "not in the seed").

Boilerpipe has its own segmentation: a *TextBlock* is the text between two
block-separating tags (anything but inline tags such as ``a``, ``b``,
``span``), with shallow statistics: number of words, words in anchor text
(link density) and words per wrapped 80-column line (text density).  The
page is re-walked with :mod:`._walk`, whose k-th text node is our block k,
so each TextBlock knows the DOM-leaf blocks it covers; after the pipeline,
a block of ours is content exactly when the TextBlock covering it (after
fusions) is content.  Text inside elements Boilerpipe ignores (``option``,
``applet``, and what our parser skips anyway) is boilerplate.

Extractors (``extract(html, method=...)``):

``boilerpipe-article``
    ArticleExtractor: TerminatingBlocksFinder → DocumentTitleMatchClassifier
    → NumWordsRulesClassifier → IgnoreBlocksAfterContentFilter →
    BlockProximityFusion(1) → BoilerplateBlockFilter →
    BlockProximityFusion(1, content only) → KeepLargestFulltextBlockFilter →
    ExpandTitleToContentFilter.
``boilerpipe-default``
    DefaultExtractor: SimpleBlockFusionProcessor → BlockProximityFusion(1) →
    DensityRulesClassifier.
``boilerpipe-largest``
    LargestContentExtractor (not in the seed; from the Boilerpipe source):
    NumWordsRulesClassifier → BlockProximityFusion(1) → KeepLargestBlockFilter.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from ..page import Page
from ._walk import SKIPPED, START, TEXT, aligned_events
from .base import Labelling

#: Tags that do not end a TextBlock (Boilerpipe's DefaultTagActionMap: the
#: anchor and the inline actions); every other tag, known or not, flushes.
INLINE_TAGS = frozenset("a abbr acronym b code em font i span strike strong sub sup tt u var".split())
#: Tags whose text Boilerpipe ignores (beyond what our parser skips).
IGNORED_TAGS = frozenset("option applet object embed style script noscript".split())

MAX_LINE_LENGTH = 80
_WORD = re.compile(r"[^\W_]")  # a token is a word when it has a letter or digit


@dataclass(eq=False)
class TextBlock:
    text: str
    num_words: int
    num_words_in_anchor: int
    num_words_in_wrapped_lines: int
    num_wrapped_lines: int
    offset_start: int
    offset_end: int
    blocks: list[int] = field(default_factory=list)  # our block indices
    is_content: bool = False
    labels: set[str] = field(default_factory=set)
    text_density: float = 0.0
    link_density: float = 0.0

    def __post_init__(self):
        self.init_densities()

    def init_densities(self) -> None:
        if self.num_words_in_wrapped_lines == 0:
            self.num_words_in_wrapped_lines = self.num_words
            self.num_wrapped_lines = 1
        self.text_density = self.num_words_in_wrapped_lines / self.num_wrapped_lines
        self.link_density = self.num_words_in_anchor / self.num_words if self.num_words else 0.0

    def merge_next(self, other: TextBlock) -> None:
        self.text = f"{self.text}\n{other.text}"
        self.num_words += other.num_words
        self.num_words_in_anchor += other.num_words_in_anchor
        self.num_words_in_wrapped_lines += other.num_words_in_wrapped_lines
        self.num_wrapped_lines += other.num_wrapped_lines
        self.offset_start = min(self.offset_start, other.offset_start)
        self.offset_end = max(self.offset_end, other.offset_end)
        self.blocks.extend(other.blocks)
        self.is_content |= other.is_content
        self.labels |= other.labels
        self.init_densities()


def _make_block(tokens: list[tuple[str, bool]], offset: int, blocks: list[int]) -> TextBlock:
    """Statistics of one TextBlock from its (token, in_anchor) sequence."""
    num_words = num_anchor = num_wrapped_lines = 0
    line_length = words_current_line = 0
    for token, in_anchor in tokens:
        length = len(token)
        line_length += length + 1
        if line_length > MAX_LINE_LENGTH:
            num_wrapped_lines += 1
            line_length = length
            words_current_line = 0
        if _WORD.search(token):
            num_words += 1
            words_current_line += 1
            if in_anchor:
                num_anchor += 1
    if num_wrapped_lines == 0:
        words_in_wrapped, num_wrapped_lines = num_words, 1
    else:
        words_in_wrapped = num_words - words_current_line
    return TextBlock(
        " ".join(token for token, _ in tokens),
        num_words,
        num_anchor,
        words_in_wrapped,
        num_wrapped_lines,
        offset,
        offset,
        blocks,
    )


@dataclass
class TextDocument:
    title: str
    blocks: list[TextBlock]


def build_document(page: Page) -> TextDocument:
    """Boilerpipe's TextDocument for a parsed page (its own block notion)."""
    title = ""
    text_blocks: list[TextBlock] = []
    tokens: list[tuple[str, bool]] = []
    members: list[int] = []
    anchor_depth = ignore_depth = 0

    def flush():
        nonlocal tokens, members
        if tokens:
            text_blocks.append(_make_block(tokens, len(text_blocks), members))
        tokens, members = [], []

    for event in aligned_events(page):
        kind = event[0]
        if kind == TEXT:
            if ignore_depth or event[1] < 0:
                continue
            tokens.extend((token, anchor_depth > 0) for token in event[2].split())
            members.append(event[1])
            continue
        tag, element = event[1], event[2]
        if kind == SKIPPED:
            if tag in ("title", "head") and not title:
                found = element if tag == "title" else element.find(".//title")
                if found is not None:
                    title = " ".join(found.xpath("string()").split())
            if tag not in INLINE_TAGS:
                flush()
            continue
        if tag in IGNORED_TAGS:
            if not ignore_depth:
                flush()
            ignore_depth += 1 if kind == START else -1
            continue
        if tag == "a":
            anchor_depth += 1 if kind == START else -1
            continue
        if tag not in INLINE_TAGS:
            flush()
    flush()
    return TextDocument(title, text_blocks)


# --- classifiers -------------------------------------------------------------


def _neighbours(blocks: list[TextBlock]):
    empty = TextBlock("", 0, 0, 0, 0, -1, -1)
    padded = [empty, *blocks, empty]
    for position in range(1, len(padded) - 1):
        yield padded[position - 1], padded[position], padded[position + 1]


def num_words_rules_classifier(doc: TextDocument) -> None:
    """Algorithm 2 of the paper (seed: NumWordsRulesClassifier)."""
    for prev, curr, nxt in _neighbours(doc.blocks):
        if curr.link_density <= 0.333333:
            if prev.link_density <= 0.555556:
                if curr.num_words <= 16:
                    if nxt.num_words <= 15:
                        content = prev.num_words > 4
                    else:
                        content = True
                else:
                    content = True
            else:
                if curr.num_words <= 40:
                    content = nxt.num_words > 17
                else:
                    content = True
        else:
            content = False
        curr.is_content = content


def density_rules_classifier(doc: TextDocument) -> None:
    """Algorithm 1 of the paper (seed: DensityRulesClassifier)."""
    for prev, curr, nxt in _neighbours(doc.blocks):
        if curr.link_density <= 0.333333:
            if prev.link_density <= 0.555556:
                if curr.text_density <= 9:
                    if nxt.text_density <= 10:
                        content = prev.text_density > 4
                    else:
                        content = True
                else:
                    content = nxt.text_density != 0
            else:
                content = nxt.text_density > 11
        else:
            content = False
        curr.is_content = content


INDICATES_END_OF_TEXT = "INDICATES_END_OF_TEXT"
TITLE = "TITLE"
MIGHT_BE_CONTENT = "MIGHT_BE_CONTENT"

_N_COMMENTS = re.compile(r"(?msi)^[0-9]++ (comments|users responded in)")
# The seed's list (lower-cased, as Boilerpipe compares lower-cased text).
_END_STARTS = ("comments", "reuters", "please rate this")
_END_CONTAINS = (
    "what you think...",
    "add your comment",
    "add comment",
    "reader views",
    "have your say",
    "reader comments",
)
_END_EQUALS = ("thanks for your comments - this feedback is now closed",)


def terminating_blocks_finder(doc: TextDocument) -> None:
    for block in doc.blocks:
        if block.num_words >= 20:
            continue
        text = block.text.strip().lower()
        if (
            text.startswith(_END_STARTS)
            or _N_COMMENTS.search(text)
            or any(marker in text for marker in _END_CONTAINS)
            or text in _END_EQUALS
        ):
            block.labels.add(INDICATES_END_OF_TEXT)


# Boilerpipe's title separators, e.g. `[ ]*[|»-][ ]*`.  Written as they are, a long run of spaces not followed by a
# separator is rescanned from each of its spaces (quadratic); here a run of spaces is only entered at its first space
# and taken whole, which splits at the same places.
_TITLE_SEPARATORS = tuple(
    re.compile(r"(?:(?<! ) ++)?[" + separators + r"] *+")
    for separators in ("|»-", "|»:", "|»:()", "|»:()\\-", "|»,:()\\-", "|»,:()\\-\u00a0")
)
_SPACED_TITLE_SEPARATORS = (re.compile(r"(?<! ) ++[|] ++"), re.compile(r"(?<! ) ++- ++"))
_LAST_DASHED_PART = re.compile(r" - [^\-]++$")
_FIRST_DASHED_PART = re.compile(r"\A[^\-]++(?<=[^\-] )- ")


def _longest_part(title: str, pattern: re.Pattern) -> str | None:
    parts = pattern.split(title)
    if len(parts) == 1:
        return None
    longest, most_words = "", 0
    for part in parts:
        if ".com" in part:
            continue
        words = len(part.split())
        if words > most_words or (words == most_words and len(part) > len(longest)):
            longest, most_words = part, words
    return longest.strip() or None


def potential_titles(title: str) -> set[str]:
    """Candidate headline strings from ``<title>`` (not spelled out in the seed;
    the split patterns follow Boilerpipe's DocumentTitleMatchClassifier)."""
    title = title.replace("\u00a0", " ").replace("'", "").strip().lower()
    if not title:
        return set()
    found = {title}
    for pattern in _TITLE_SEPARATORS:
        part = _longest_part(title, pattern)
        if part:
            found.add(part)
    for pattern in _SPACED_TITLE_SEPARATORS:
        parts = pattern.split(title)
        if len(parts) > 1:
            found.update(p.strip() for p in parts if ".com" not in p and len(p.split()) >= 4)
    found.add(_LAST_DASHED_PART.sub("", title, count=1))
    found.add(_FIRST_DASHED_PART.sub("", title, count=1))
    return found


def document_title_match_classifier(doc: TextDocument) -> None:
    titles = potential_titles(doc.title)
    if not titles:
        return
    for block in doc.blocks:
        text = block.text.replace("\u00a0", " ").replace("'", "").strip().lower()
        if text in titles:
            block.labels.add(TITLE)
            break


def _full_text_words(block: TextBlock, min_text_density: float = 9) -> int:
    # Not in the seed: Boilerpipe counts a block's words as "full text" only
    # when its text density reaches 9 (HeuristicFilterBase).
    return block.num_words if block.text_density >= min_text_density else 0


def ignore_blocks_after_content_filter(doc: TextDocument, min_words: int = 60) -> None:
    words = 0
    found_end = False
    for block in doc.blocks:
        end_of_text = INDICATES_END_OF_TEXT in block.labels
        if block.is_content:
            words += _full_text_words(block)
        if end_of_text and words >= min_words:
            found_end = True
        if found_end:
            block.is_content = False


def block_proximity_fusion(doc: TextDocument, max_distance: int = 1, content_only: bool = False) -> None:
    blocks = doc.blocks
    if len(blocks) < 2:
        return
    if content_only:
        start = next((i for i, b in enumerate(blocks) if b.is_content), None)
        if start is None:
            return
    else:
        start = 0
    prev = blocks[start]
    kept = blocks[: start + 1]
    for block in blocks[start + 1 :]:
        if not block.is_content:
            prev = block
            kept.append(block)
            continue
        if block.offset_start - prev.offset_end - 1 <= max_distance and (
            not content_only or (prev.is_content and block.is_content)
        ):
            prev.merge_next(block)
        else:
            prev = block
            kept.append(block)
    doc.blocks = kept


def boilerplate_block_filter(doc: TextDocument) -> None:
    doc.blocks = [block for block in doc.blocks if block.is_content]


def keep_largest_fulltext_block_filter(doc: TextDocument) -> None:
    content = [block for block in doc.blocks if block.is_content]
    if len(content) < 2:
        return
    largest = max(content, key=lambda block: block.num_words)  # first on ties
    for block in doc.blocks:
        if block is largest:
            block.is_content = True
        else:
            block.is_content = False
            block.labels.add(MIGHT_BE_CONTENT)


def keep_largest_block_filter(doc: TextDocument) -> None:
    keep_largest_fulltext_block_filter(doc)


def expand_title_to_content_filter(doc: TextDocument) -> None:
    title = content_start = -1
    for position, block in enumerate(doc.blocks):
        if content_start == -1 and TITLE in block.labels:
            title = position
            content_start = -1
        if content_start == -1 and block.is_content:
            content_start = position
    if title == -1 or content_start <= title:
        return
    for block in doc.blocks[title:content_start]:
        if MIGHT_BE_CONTENT in block.labels:
            block.is_content = True


def simple_block_fusion_processor(doc: TextDocument) -> None:
    blocks = doc.blocks
    if len(blocks) < 2:
        return
    prev = blocks[0]
    kept = [prev]
    for block in blocks[1:]:
        if prev.text_density == block.text_density:
            prev.merge_next(block)
        else:
            prev = block
            kept.append(block)
    doc.blocks = kept


# --- extractors ----------------------------------------------------------------


def article_extractor(doc: TextDocument) -> None:
    terminating_blocks_finder(doc)
    document_title_match_classifier(doc)
    num_words_rules_classifier(doc)
    ignore_blocks_after_content_filter(doc)
    block_proximity_fusion(doc, 1)
    # Seed (Boilerpipe 1.1.0): BoilerplateBlockFilter.INSTANCE, which also
    # drops a non-content title block (1.2 keeps TITLE blocks here).
    boilerplate_block_filter(doc)
    block_proximity_fusion(doc, 1, content_only=True)
    keep_largest_fulltext_block_filter(doc)
    expand_title_to_content_filter(doc)


def default_extractor(doc: TextDocument) -> None:
    simple_block_fusion_processor(doc)
    block_proximity_fusion(doc, 1)
    density_rules_classifier(doc)


def largest_content_extractor(doc: TextDocument) -> None:
    num_words_rules_classifier(doc)
    block_proximity_fusion(doc, 1)
    keep_largest_block_filter(doc)


EXTRACTORS = {"article": article_extractor, "default": default_extractor, "largest": largest_content_extractor}


def document_text(doc: TextDocument) -> str:
    """``TextDocument.getContent()``: the content blocks' text, one per line."""
    return "\n".join(block.text for block in doc.blocks if block.is_content)


def boilerpipe_labels(page: Page, extractor: str = "article") -> tuple[np.ndarray, TextDocument]:
    """Per-block keep mask of ``extractor`` on ``page`` and the final document."""
    doc = build_document(page)
    EXTRACTORS[extractor](doc)
    keep = np.zeros(len(page), bool)
    for block in doc.blocks:
        if block.is_content:
            keep[block.blocks] = True
    return keep, doc


def _labeller(extractor: str):
    def label(page: Page, *, model=None, threshold=None):

        clock = time.perf_counter()
        keep, _ = boilerpipe_labels(page, extractor)
        return Labelling(
            keep, keep.astype(float), f"boilerpipe-{extractor}", {"baseline": 1000 * (time.perf_counter() - clock)}
        )

    label.__name__ = f"boilerpipe_{extractor}"
    label.__doc__ = f"Boilerpipe's {extractor} extractor on the page's blocks."
    return label


article = _labeller("article")
default = _labeller("default")
largest = _labeller("largest")
