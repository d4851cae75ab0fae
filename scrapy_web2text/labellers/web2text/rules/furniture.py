"""Page furniture that the labelling as a whole shows not to be main text: text no reader sees, readers' comments,
asides, buyers' reviews, bylines, the page's navigation, footer and complementary landmarks, and text for screen
readers.

:func:`hidden_blocks`, :func:`comment_sections`, :func:`aside_sections`, :func:`review_sections`,
:func:`byline_sections`, :func:`landmark_sections` and :func:`screen_reader_blocks` take a page and its decoded labels
and return the kept blocks they find, as a mask; :mod:`.registry` runs the first two on pages typed as articles
(on a forum the replies are the content; on a shop's page hidden tabs often are), the third on articles and
services' pages, the fourth on product pages and the last three on every page.
Rules tried beside them and not shipped are in ``research/furniture_candidates.py``
(docs/research/quality-round3.rst).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ....page import Page
from ....page.marks import DIALOG_BIT, HIDDEN_BIT, WIDGET_BIT
from ....page.nodes import ATTRIBUTES_ID, END_BLOCK, FIRST_BLOCK, TAGS_ID
from ....page.tags import ANCESTOR_KEYWORD_BITS, ANCESTOR_TAG_BITS
from .inputs import marks_on_page, names_any, page_lengths
from .vocabulary import (
    ASIDE_KEYWORD_GROUPS,
    ASIDE_WORDS,
    BYLINE_WORDS,
    FOOTER_WORDS,
    HEADING_TAGS,
    LANDMARK_TAGS,
    PATTERN_WORDS,
    REVIEW_WORDS,
    SCREEN_READER_WORDS,
    SKIP_LINK_CLASSES,
    SKIP_LINK_WORDS,
    TAXONOMY_TOKENS,
)

#: Kept hidden text holding at least this share of the kept characters stays: it is what the page has.
MAX_HIDDEN_SHARE = 0.5


def longest_kept(kept: np.ndarray, lengths: np.ndarray) -> int:
    """The index of the longest kept block (the first of equals); ``kept`` holds at least one block."""
    return int(np.argmax(np.where(kept, lengths, -1)))


def hidden_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element that hides itself by attribute (``hidden``, ``aria-hidden="true"``, inline
    ``display:none`` / ``visibility:hidden``), unless they hold :data:`MAX_HIDDEN_SHARE` of the kept text or more."""
    if not marks_on_page(page)[0] & HIDDEN_BIT:
        return np.zeros(len(page), bool)
    kept = labels != 0
    return unless_most_of_the_kept_text(kept, kept & ((page.ancestor_tags & HIDDEN_BIT) != 0), page)


def dialog_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks inside a dialog over the page (``role="dialog"`` or ``"alertdialog"``, ``aria-modal="true"``): a
    cookie consent, a sign-up or log-in prompt, shown until the reader closes it.  With :func:`comment_sections`'
    guards: none where the longest kept block is in a dialog or less than :data:`MIN_TEXT_OUTSIDE_COMMENTS` kept
    characters lie outside (a page shown in a dialog, a lightbox's post)."""
    return _kept_under_mark(page, labels, DIALOG_BIT)


def interface_widgets(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks inside an interface widget marked by its ARIA role (``menu``, ``menubar``, ``menuitem``,
    ``toolbar``, ``tooltip``, ``combobox``, ``status``, ``marquee``), with :func:`dialog_sections`' guards: a menu
    outside the navigation landmarks, a share bar, a ticker."""
    return _kept_under_mark(page, labels, WIDGET_BIT)


def _kept_under_mark(page: Page, labels: np.ndarray, bit: int) -> np.ndarray:
    """Kept blocks under an element with the walk's ancestor mark ``bit``, with :func:`_unless_the_page_is_theirs`'
    guards."""
    if not marks_on_page(page)[0] & bit:
        return np.zeros(len(page), bool)
    kept = labels != 0
    return _unless_the_page_is_theirs(kept, kept & ((page.ancestor_tags & bit) != 0), page)


def unless_most_of_the_kept_text(
    kept: np.ndarray, marked: np.ndarray, page: Page, share: float = MAX_HIDDEN_SHARE
) -> np.ndarray:
    """``marked``, or none of it where it holds ``share`` of the kept characters or more (what the page has)."""
    if marked.any():
        lengths = page_lengths(page)
        if lengths[marked].sum() >= share * lengths[kept].sum():
            marked[:] = False
    return marked


_COMMENT_BIT = ANCESTOR_KEYWORD_BITS["comment"]
#: Comments are dropped only where at least this many kept characters lie outside them: the post they answer.
MIN_TEXT_OUTSIDE_COMMENTS = 100
#: A kept block of this many characters outside the comments is a post: its comments go even where one of them is
#: longer (shorter, a forum reply's quote counted as a post: docs/research/quality-round3.rst).
MIN_POST_CHARS = 400


def comment_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element whose class or id names comments or replies (``comment``, ``repl``,
    ``discuss``), unless the longest kept block is one of them (the page is its comments) or less than
    :data:`MIN_TEXT_OUTSIDE_COMMENTS` kept characters lie outside them; where a block of :data:`MIN_POST_CHARS`
    outside them is kept, they go in any case."""
    if not marks_on_page(page)[1] & _COMMENT_BIT:
        return np.zeros(len(page), bool)
    kept = labels != 0
    marked = kept & ((page.ancestor_keywords & _COMMENT_BIT) != 0)
    if not marked.any():
        return marked
    lengths = page_lengths(page)
    outside = lengths[kept & ~marked]
    if len(outside) and outside.max() >= MIN_POST_CHARS:
        return marked
    return _unless_the_page_is_theirs(kept, marked, page, lengths)


def review_sections(page: Page, labels: np.ndarray, words: re.Pattern = REVIEW_WORDS) -> np.ndarray:
    """Kept blocks under an element whose class or id holds one of ``words`` (reviews or ratings), with
    :func:`comment_sections`' guards: a product's reviews are to its page what readers' comments are to an
    article."""
    kept = labels != 0
    return _unless_the_page_is_theirs(kept, kept & under_attributes(page, words), page)


#: The walk's keyword groups (``Page.ancestor_keywords``) that hold the aside words (:data:`.vocabulary.ASIDE_WORDS`).
ASIDE_KEYWORD_BITS = sum(ANCESTOR_KEYWORD_BITS[group] for group in ASIDE_KEYWORD_GROUPS)


def aside_sections(
    page: Page,
    labels: np.ndarray,
    words: re.Pattern = ASIDE_WORDS,
    keyword_bits: int | None = ASIDE_KEYWORD_BITS,
    ignored: re.Pattern | None = TAXONOMY_TOKENS,
) -> np.ndarray:
    """Kept blocks under an element (not a heading) whose class or id holds one of ``words`` outside a taxonomy
    token, with :func:`comment_sections`' guards: the model drops most such text from its own features, and this
    takes what it kept (a related post's excerpt, an author's box).  ``keyword_bits``: keyword groups that hold
    every one of ``words`` (``None`` if unknown); only kept blocks under one of them are read.  ``ignored``: the
    class tokens not read (``None``: every token is)."""
    if keyword_bits is not None and not marks_on_page(page)[1] & keyword_bits:
        return np.zeros(len(page), bool)
    kept = labels != 0
    among = kept
    if keyword_bits is not None:  # most pages keep no block under such a keyword
        among = kept & ((page.ancestor_keywords & keyword_bits) != 0)
        if not among.any():
            return among
    marked = under_attributes(page, words, skipped_tags=HEADING_TAGS, ignored=ignored, among=among)
    return _unless_the_page_is_theirs(kept, among & marked, page)


_BYLINE_KEYWORD_BIT = ANCESTOR_KEYWORD_BITS["byline"]


def byline_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under an element (not a heading) whose class or id names a byline, a dateline or a post's
    metadata (:data:`~.vocabulary.BYLINE_WORDS`), with :func:`aside_sections`' guards."""
    return aside_sections(page, labels, BYLINE_WORDS, _BYLINE_KEYWORD_BIT)


#: The walk's ancestor bits of the landmarks that hold no page's main text: ``<nav>``, ``<footer>`` and ``<aside>``
#: elements and the ARIA roles ``navigation``, ``contentinfo`` and ``complementary`` (``page/marks.py``).  A
#: ``<nav>``/``<header>`` that holds over half of the page's text (markup never closed) sets no bit.
LANDMARK_BITS = sum(ANCESTOR_TAG_BITS[tag] for tag in LANDMARK_TAGS)  # distinct bits: the sum is their union
_FOOTER_KEYWORD_BIT = ANCESTOR_KEYWORD_BITS["footer"]


def landmark_sections(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks inside a navigation, footer or complementary landmark (:data:`LANDMARK_BITS`) or under a class or id
    that names a footer (:data:`~.vocabulary.FOOTER_WORDS`), with :func:`comment_sections`' guards: a shop's mega-menu,
    a site's footer columns, a forum reply's quote of another post.  The model drops most of them on its own; on product
    and service pages it keeps menus and footers that outweigh the page's own text."""
    tag_marks, keyword_marks = marks_on_page(page)
    if not tag_marks & LANDMARK_BITS and not keyword_marks & _FOOTER_KEYWORD_BIT:
        return np.zeros(len(page), bool)
    kept = labels != 0
    marked = kept & ((page.ancestor_tags & LANDMARK_BITS) != 0)
    named = kept & ~marked & ((page.ancestor_keywords & _FOOTER_KEYWORD_BIT) != 0)
    if named.any():
        marked |= named & under_attributes(page, FOOTER_WORDS, among=named)
    return _unless_the_page_is_theirs(kept, marked, page)


def is_skip_link(attributes: str) -> bool:
    """Whether a link's class and id string (:data:`~.vocabulary.SKIP_LINK_CLASSES`) marks it as hidden until
    reached."""
    tokens = attributes.split()
    return bool(tokens) and (SKIP_LINK_CLASSES.issuperset(tokens) or any(token.startswith("skip") for token in tokens))


def screen_reader_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks under a class or id of :data:`~.vocabulary.SCREEN_READER_WORDS` (a shop's "Quantity of …" label, a
    price said again in words, a heading for screen readers only) and kept link texts whose own class and id
    :func:`is_skip_link` accepts, unless they hold :data:`MAX_HIDDEN_SHARE` of the kept text or more: text no reader
    sees, as :func:`hidden_blocks`' is, but a class that is never a tab's or an accordion's."""
    kept = labels != 0
    marked = np.zeros(len(page), bool)
    if not kept.any():
        return marked
    # Most pages name no screen-reader class: under_attributes answers them with one look over the page's class and
    # id strings.
    marked = kept & under_attributes(page, SCREEN_READER_WORDS, among=kept)
    links = kept & page.in_link & ~marked
    if links.any() and names_any(page, SKIP_LINK_WORDS):
        marked |= own_attributes(page, is_skip_link, among=links)
    return unless_most_of_the_kept_text(kept, marked, page)


def own_attributes(page: Page, accepts: Callable[[str], bool], among: np.ndarray) -> np.ndarray:
    """The blocks of ``among`` (a block mask) whose own CDOM node (the elements collapsed into it, a link and its
    ``<span>``) has a class and id string that ``accepts``; each distinct string is read once."""
    found = np.zeros(len(page), bool)
    if not len(page.node_table):
        return found
    blocks = np.flatnonzero(among)
    ids = page.node_table[page.block_nodes[blocks], ATTRIBUTES_ID]
    distinct = np.unique(ids)
    named = np.fromiter((accepts(page.distinct_attributes[i]) for i in distinct.tolist()), bool, len(distinct))
    found[blocks[named[np.searchsorted(distinct, ids)]]] = True
    return found


def under_attributes(
    page: Page,
    words: re.Pattern,
    skipped_tags: frozenset[str] = frozenset(),
    ignored: re.Pattern | None = None,
    among: np.ndarray | None = None,
) -> np.ndarray:
    """The blocks under a CDOM node whose class or id (those of the elements collapsed into it too) holds one of
    ``words`` (no match across a line break) outside the tokens that ``ignored`` matches, nodes with a tag of
    ``skipped_tags`` aside: each such node's blocks are one range of block numbers.  ``among``, a block mask, limits
    the reading to the nodes above its blocks: the answer is exact on those blocks only."""
    size = len(page.texts) + 1
    literals = PATTERN_WORDS.get(words)
    if literals is not None and not names_any(page, literals):
        return np.zeros(size - 1, bool)  # the page names no such element (most pages, for most patterns)
    table = page.node_table
    if among is not None and len(table):
        before = np.concatenate(([0], np.cumsum(among)))
        table = table[before[table[:, END_BLOCK]] > before[table[:, FIRST_BLOCK]]]
    ids = None if among is None else np.unique(table[:, ATTRIBUTES_ID])
    attributes = page.distinct_attributes if ids is None else [page.distinct_attributes[i] for i in ids.tolist()]
    # One look over the attributes: most pages name no such element, and a match's offset tells whose.
    joined = "\n".join(attributes)
    if ignored is not None and ignored.search(joined) is not None:
        joined = ignored.sub(lambda token: " " * len(token.group()), joined)  # same length: offsets still hold
    found = [match.start() for match in words.finditer(joined)]
    if not len(table) or not found:
        return np.zeros(size - 1, bool)
    ends = np.cumsum(np.fromiter(map(len, attributes), np.int64, len(attributes)) + 1)  # past each and its "\n"
    starts = np.concatenate(([0], ends[:-1]))
    named = np.zeros(len(attributes), bool)
    named[np.searchsorted(starts, found, side="right") - 1] = True
    nodes = (
        table[named[table[:, ATTRIBUTES_ID]]] if ids is None else table[np.isin(table[:, ATTRIBUTES_ID], ids[named])]
    )
    if skipped_tags:
        tag_lists = page.distinct_tags
        skipped = [tags for tags in set(nodes[:, TAGS_ID].tolist()) if not skipped_tags.isdisjoint(tag_lists[tags])]
        nodes = nodes[~np.isin(nodes[:, TAGS_ID], skipped)] if skipped else nodes
    inside = np.bincount(nodes[:, FIRST_BLOCK], minlength=size) - np.bincount(nodes[:, END_BLOCK], minlength=size)
    return np.cumsum(inside[:-1]) > 0


def _unless_the_page_is_theirs(
    kept: np.ndarray, marked: np.ndarray, page: Page, lengths: np.ndarray | None = None
) -> np.ndarray:
    """``marked``, or none of it where the longest kept block is marked (the page is its comments or reviews) or
    less than :data:`MIN_TEXT_OUTSIDE_COMMENTS` kept characters lie outside it.  ``lengths``: the blocks' lengths,
    where the caller has them."""
    if marked.any():
        lengths = page_lengths(page) if lengths is None else lengths
        if marked[longest_kept(kept, lengths)] or lengths[kept & ~marked].sum() < MIN_TEXT_OUTSIDE_COMMENTS:
            marked[:] = False
    return marked
