"""Training labels: align a page's gold text with its blocks (paper §4.1).

CleanEval-style corpora give a page and its cleaned text, not block labels.
Following Vogels et al.: 10-character windows of the gold text that occur
exactly once in the page text (and once in the gold) anchor the two texts
to each other; anchors split both texts in two, and the same search is
repeated inside every gap, where windows unique in the smaller pieces
appear (divide and conquer).  Pieces with no unique window left are aligned
by dynamic programming (longest common subsequence).  A block is content
when at least 2/3 of its characters are aligned with the gold text.

Both texts are compared lower-cased with whitespace runs collapsed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from ..page import Page
from ..page.tags import ANCESTOR_KEYWORD_BITS

WINDOW = 10
CONTENT_SHARE = 2 / 3
#: Gaps with more cells than this are left unaligned rather than run through
#: the quadratic DP (a few MB of int32 per gap at most).
MAX_DP_CELLS = 4_000_000
MIN_RUN = 3
_SPACES = re.compile(r"\s+")


@dataclass
class AlignmentReport:
    """Character counts behind a page's label quality figures."""

    gold_chars: int = 0
    content_chars: int = 0
    matched_in_content: int = 0

    @property
    def coverage(self) -> float:
        """Share of gold text covered by blocks labelled content."""
        return self.matched_in_content / self.gold_chars if self.gold_chars else 1.0

    @property
    def purity(self) -> float:
        """Share of content-labelled text that is in the gold."""
        return self.matched_in_content / self.content_chars if self.content_chars else 1.0

    def __iadd__(self, other: AlignmentReport) -> AlignmentReport:
        self.gold_chars += other.gold_chars
        self.content_chars += other.content_chars
        self.matched_in_content += other.matched_in_content
        return self


def _unique_windows(text: str, start: int, end: int) -> dict[str, int]:
    """Windows of ``text[start:end]`` that occur there once, with their position."""
    seen: dict[str, int] = {}
    repeated: set[str] = set()
    for position in range(start, end - WINDOW + 1):
        window = text[position : position + WINDOW]
        if window in seen:
            repeated.add(window)
        else:
            seen[window] = position
    for window in repeated:
        del seen[window]
    return seen


def _increasing_anchors(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest chain of (gold, page) anchors increasing in both (patience sort)."""
    tails: list[int] = []
    tail_index: list[int] = []
    previous = [-1] * len(pairs)
    for index, (_, page_position) in enumerate(pairs):
        slot = bisect_left(tails, page_position)
        if slot == len(tails):
            tails.append(page_position)
            tail_index.append(index)
        else:
            tails[slot] = page_position
            tail_index[slot] = index
        previous[index] = tail_index[slot - 1] if slot else -1
    chain = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


def _lcs_match(page: str, gold: str, offset: int, matched: np.ndarray) -> None:
    """Mark the characters of ``page`` on a longest common subsequence with ``gold``."""
    n, m = len(page), len(gold)
    # Between very unequal pieces an LCS mostly pairs stray letters.
    if n == 0 or m == 0 or n * m > MAX_DP_CELLS or n > 4 * m + 40 or m > 4 * n + 40:
        return
    page_codes = np.frombuffer(page.encode("utf-32-le"), np.uint32)
    gold_codes = np.frombuffer(gold.encode("utf-32-le"), np.uint32)
    table = np.zeros((n + 1, m + 1), np.int32)
    for i in range(1, n + 1):
        # L[i][j] = max(L[i][j-1], L[i-1][j], L[i-1][j-1] + match): the first
        # term is a running maximum, so a row is one numpy pass.
        candidate = np.maximum(table[i - 1, 1:], np.where(gold_codes == page_codes[i - 1], table[i - 1, :-1] + 1, 0))
        np.maximum.accumulate(candidate, out=table[i, 1:])
    local = np.zeros(n, bool)
    i, j = n, m
    while i > 0 and j > 0:
        if page_codes[i - 1] == gold_codes[j - 1] and table[i, j] == table[i - 1, j - 1] + 1:
            local[i - 1] = True
            i, j = i - 1, j - 1
        elif table[i - 1, j] >= table[i, j - 1]:
            i -= 1
        else:
            j -= 1
    # Keep runs of at least MIN_RUN aligned characters: single letters the
    # LCS picks up across unrelated text are noise, not matches.
    edges = np.flatnonzero(np.diff(np.concatenate(([0], local.view(np.int8), [0]))))
    for run_start, run_end in zip(edges[::2], edges[1::2]):
        if run_end - run_start >= MIN_RUN:
            matched[offset + run_start : offset + run_end] = True


def align_text(page_text: str, gold_text: str) -> np.ndarray:
    """Boolean per character of ``page_text``: aligned with ``gold_text``?"""
    matched = np.zeros(len(page_text), bool)
    work = [(0, len(page_text), 0, len(gold_text))]
    while work:
        p0, p1, g0, g1 = work.pop()
        if p1 - p0 < 1 or g1 - g0 < 1:
            continue
        page_windows = _unique_windows(page_text, p0, p1)
        gold_windows = _unique_windows(gold_text, g0, g1)
        pairs = sorted(
            (gold_position, page_windows[window])
            for window, gold_position in gold_windows.items()
            if window in page_windows
        )
        chain = _increasing_anchors(pairs)
        if not chain:
            _lcs_match(page_text[p0:p1], gold_text[g0:g1], p0, matched)
            continue
        # Consecutive anchors that overlap form one run; the gaps between
        # runs are searched again.
        page_cursor, gold_cursor = p0, g0
        for gold_position, page_position in chain:
            if gold_position < gold_cursor or page_position < page_cursor:
                continue  # overlaps the previous anchor's window
            work.append((page_cursor, page_position, gold_cursor, gold_position))
            matched[page_position : page_position + WINDOW] = True
            page_cursor, gold_cursor = page_position + WINDOW, gold_position + WINDOW
            # Extend the run while the texts agree, so overlapping windows
            # of one long match do not each start a search.
            while page_cursor < p1 and gold_cursor < g1 and page_text[page_cursor] == gold_text[gold_cursor]:
                matched[page_cursor] = True
                page_cursor += 1
                gold_cursor += 1
        work.append((page_cursor, p1, gold_cursor, g1))
    return matched


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def align_labels(page: Page, gold_text: str) -> tuple[np.ndarray, AlignmentReport]:
    """Per-block content labels for a page and its gold text, with a report."""
    texts = [_normalise(text) for text in page.texts]
    gold = _normalise(gold_text)
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    joined = " ".join(texts)
    matched = align_text(joined, gold)
    owner = np.repeat(np.arange(len(texts)), lengths + 1)[: len(joined)]
    solid = np.frombuffer(joined.encode("utf-32-le"), np.uint32) != ord(" ")
    block_chars = np.bincount(owner[solid], minlength=len(texts))
    block_matched = np.bincount(owner[solid & matched], minlength=len(texts))
    labels = block_matched >= CONTENT_SHARE * np.maximum(block_chars, 1)
    labels &= block_chars > 0
    report = AlignmentReport(
        gold_chars=len(gold.replace(" ", "")),
        content_chars=int(block_chars[labels].sum()),
        matched_in_content=int(block_matched[labels].sum()),
    )
    return labels, report


#: A gold first line longer than this is body text, never a headline.
MAX_HEADLINE_CHARS = 300


def headline_candidates(page: Page) -> list[str]:
    """Texts a page's headline may carry: ``<title>``, ``og:title``, its ``<h1>`` blocks."""
    candidates = [page.title, page.og_title]
    candidates += [page.texts[i] for i, node in enumerate(page.block_nodes) if "h1" in page.nodes[node].tags]
    return [_normalise(text) for text in candidates if text and text.strip()]


def drop_leading_headline(gold_text: str, page: Page) -> str:
    """The gold text without its first line when that line is the page's headline.

    The label convention (docs/training.rst): the main text excludes the
    headline.  WCXB's gold already does; L3S-GN1's and CleanEval's start
    with it.  The first line is dropped when it equals the ``<title>``,
    ``og:title`` or an ``<h1>`` of the page, or is the start or end of the
    title before or after a separator (``"Headline - Site"``).
    """
    lines = gold_text.strip().split("\n")
    first = _normalise(lines[0]) if lines else ""
    if not first or len(first) > MAX_HEADLINE_CHARS or len(lines) < 2:
        return gold_text
    for candidate in headline_candidates(page):
        if first == candidate or _title_part(first, candidate):
            return "\n".join(lines[1:]).strip()
    return gold_text


_TITLE_SEPARATORS = "-|:–—·•»/"


def _title_part(line: str, title: str) -> bool:
    """``line`` is the title's part before or after a separator ("Headline | Site")."""
    if len(line) < 10 or len(line) >= len(title):
        return False
    if title.startswith(line):
        return title[len(line) :].lstrip()[:1] in _TITLE_SEPARATORS
    if title.endswith(line):
        return title[: -len(line)].rstrip()[-1:] in _TITLE_SEPARATORS
    return False


#: Below this share of a page's content characters, blocks under a comment container are an article's comments
#: (boilerplate by the label convention); above it the comments are the page (a discussion, a forum thread).
MAX_COMMENT_SHARE = 0.5


def drop_comment_labels(labels: np.ndarray, page: Page) -> np.ndarray:
    """``labels`` with the blocks of an article's comment section turned to boilerplate.

    The label convention (docs/training.rst) leaves readers' comments out of the main text unless they are what
    the page is for.  CleanEval's and Readability's gold keep them; Dragnet's and WCXB's do not (WCXB keeps a
    forum's posts).  A block is a comment when an ancestor's class or id says so (``comment``, ``reply``,
    ``discuss``); they are dropped only when they hold under half of the page's content.
    """
    in_comments = (page.ancestor_keywords & ANCESTOR_KEYWORD_BITS["comment"]) != 0
    content = labels.astype(bool)
    lengths = np.fromiter(map(len, page.texts), np.int64, len(page))
    comment_chars = lengths[content & in_comments].sum()
    if not comment_chars or comment_chars >= MAX_COMMENT_SHARE * lengths[content].sum():
        return labels
    return np.where(in_comments, 0, labels).astype(labels.dtype)
