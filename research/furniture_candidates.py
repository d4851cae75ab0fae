"""Candidate rules for page furniture that issue 33 tried and did not ship (docs/research/quality-round3.rst).

Each takes a page and its decoded labels and returns the kept blocks it finds, as a mask, like
:func:`scrapy_web2text.labellers.web2text.rules.furniture.hidden_blocks`.  ``round3_study.py`` scores them.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from scrapy_web2text.labellers.web2text.counts import block_lengths
from scrapy_web2text.labellers.web2text.rules.furniture import longest_kept
from scrapy_web2text.labellers.web2text.rules.rails import MAX_RAIL_SHARE, heading_ranks, heading_runs, section_ends
from scrapy_web2text.page import Page
from scrapy_web2text.page.tags import ANCESTOR_KEYWORD_BITS

#: Caption and credit blocks are short: a longer block under such a class is a figure's whole story.
MAX_CREDIT_CHARS = 200


def credit_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Short kept blocks under a ``caption``/``credit``/``figure`` class or id, unless they hold half of the kept
    text or more."""
    kept = labels != 0
    marked = kept & ((page.ancestor_keywords & ANCESTOR_KEYWORD_BITS["caption"]) != 0)
    if marked.any():
        lengths = block_lengths(page.texts)
        marked &= lengths < MAX_CREDIT_CHARS
        if lengths[marked].sum() >= 0.5 * lengths[kept].sum():
            marked[:] = False
    return marked


#: A rail's items: at least this many blocks, this share of their characters in links.
MIN_RAIL_ITEMS = 3
MIN_RAIL_LINK_SHARE = 0.7


def link_rails(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept sections that are lists of links under their own heading: a heading, then (up to the next heading of
    the same or a higher rank) at least :data:`MIN_RAIL_ITEMS` blocks with :data:`MIN_RAIL_LINK_SHARE` of their
    characters in links, not holding the page's longest kept block nor :data:`MAX_RAIL_SHARE` of its kept text."""
    rails = np.zeros(len(page), bool)
    kept = labels != 0
    if kept.sum() <= MIN_RAIL_ITEMS:
        return rails
    ranks = heading_ranks(page)
    runs = heading_runs(ranks)
    if not runs:
        return rails
    lengths = block_lengths(page.texts)
    kept_total = lengths[kept].sum()
    longest = longest_kept(kept, lengths)
    in_link = page.in_link
    for (start, items_from, _), end in zip(runs, section_ends(runs, len(page))):
        if end - items_from < MIN_RAIL_ITEMS or start <= longest < end:
            continue
        items = slice(items_from, end)
        item_chars = lengths[items].sum()
        link_chars = lengths[items][in_link[items]].sum()
        if item_chars and link_chars >= MIN_RAIL_LINK_SHARE * item_chars:
            if lengths[start:end][kept[start:end]].sum() < MAX_RAIL_SHARE * kept_total:
                rails[start:end] = kept[start:end]
    return rails


#: Words that open a prompt to subscribe, sign up, accept cookies or pay, in the corpora's languages (English,
#: German, French, Spanish, Polish, Italian, Dutch, Portuguese).  No maintained list of such prompts exists; these
#: are the words the prompts of the training pages use.
PROMPT_CUES = re.compile(
    r"newsletter|subscribe|sign up for|cookie|paywall|abonnieren|anmelden|jetzt abonnieren|abonnez|inscrivez|"
    r"suscr[ií]b|bolet[ií]n|subskryb|zapisz si|prenumer|iscriviti|abbonati|aanmelden|abonneer|inscreva|assine",
    re.IGNORECASE,
)
#: Prompts are short: a longer block with such a word is an article about newsletters or cookies.
MAX_PROMPT_CHARS = 200


def prompt_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Short kept blocks with a prompt cue (:data:`PROMPT_CUES`) other than the longest kept block, unless they
    hold half of the kept text or more."""
    kept = labels != 0
    found = np.zeros(len(page), bool)
    texts = page.texts
    for i in np.flatnonzero(kept).tolist():
        text = texts[i]
        if len(text) < MAX_PROMPT_CHARS and PROMPT_CUES.search(text):
            found[i] = True
    if found.any():
        lengths = block_lengths(page.texts)
        if lengths[found].sum() >= 0.5 * lengths[kept].sum():
            found[:] = False
    return found


#: The main text's body starts at its first kept block of at least this many characters; bylines come before it.
BODY_START_CHARS = 150
MAX_BYLINE_CHARS = 100
_BYLINE_BIT = ANCESTOR_KEYWORD_BITS["byline"]
#: "By Jane Doe", "Von", "Par", "Por", "Door", "Di", "Przez", "Av", "Af", "Autor:", and a dateline's year.
BYLINE_TEXT_CUES = re.compile(
    r"^\s*(?:by|von|par|por|door|di|przez|av|af|autor(?:in)?|author|posted by|written by|publi[ée] par)\b[\s:]+\w"
    r"|\b(?:19|20)\d\d\b",
    re.IGNORECASE,
)


def _before_body(page: Page, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    kept = labels != 0
    lengths = block_lengths(page.texts)
    body = np.flatnonzero(kept & (lengths >= BODY_START_CHARS))
    if not len(body):
        return np.zeros(len(page), bool), lengths
    return kept & (np.arange(len(page)) < body[0]) & (lengths < MAX_BYLINE_CHARS), lengths


def marked_bylines(page: Page, labels: np.ndarray) -> np.ndarray:
    """Short kept blocks before the body's first long block, under a ``byline``/``author``/``date``/``time``/
    ``meta`` class or id."""
    before, _ = _before_body(page, labels)
    return before & ((page.ancestor_keywords & _BYLINE_BIT) != 0)


def text_bylines(page: Page, labels: np.ndarray) -> np.ndarray:
    """Short kept blocks before the body's first long block that read as a byline ("By …", "Von …") or hold a
    year (a dateline), of at most ten words."""
    before, _ = _before_body(page, labels)
    found = np.zeros(len(page), bool)
    for i in np.flatnonzero(before).tolist():
        text = page.texts[i]
        found[i] = len(text.split()) <= 10 and BYLINE_TEXT_CUES.search(text) is not None
    return found


def bylines(page: Page, labels: np.ndarray) -> np.ndarray:
    """:func:`marked_bylines` or :func:`text_bylines`."""
    return marked_bylines(page, labels) | text_bylines(page, labels)


def repeats_apart(page: Page, labels: np.ndarray) -> np.ndarray:
    """:func:`~scrapy_web2text.labellers.web2text.rules.kept_text.repeated_blocks`, keeping also the repeats whose
    first copy's parent shares its parent (the two copies are siblings' children: one text written twice in one
    place, as a test page's *lorem ipsum*), for comparison with the rule as shipped."""
    from scrapy_web2text.labellers.web2text.rules import kept_text

    repeats = kept_text.repeated_blocks(page, labels)
    if not repeats.any():
        return repeats
    parents = page.node_table[page.block_nodes, 0]
    grandparents = page.node_table[np.maximum(parents, 0), 0]
    first: dict[str, int] = {}
    for i in np.flatnonzero(labels != 0).tolist():
        earlier = first.setdefault(page.texts[i], i)
        if repeats[i] and grandparents[earlier] == grandparents[i] and grandparents[i] >= 0:
            repeats[i] = False
    return repeats


def comments_after_body(page: Page, labels: np.ndarray) -> np.ndarray:
    """:func:`~scrapy_web2text.labellers.web2text.rules.furniture.comment_sections`, only after the longest kept block
    (comments follow the post)."""
    from scrapy_web2text.labellers.web2text.rules.furniture import comment_sections

    marked = comment_sections(page, labels)
    if marked.any():
        longest = longest_kept(labels != 0, block_lengths(page.texts))
        marked[: longest + 1] = False
    return marked


def comments_unless_most(page: Page, labels: np.ndarray) -> np.ndarray:
    """:func:`~scrapy_web2text.labellers.web2text.rules.furniture.comment_sections` with a second guard for pages whose
    longest kept block is a comment: the comments stay only if they also hold half of the kept text (Chinese and
    Japanese posts come in short lines, so one long comment can be the longest block)."""
    from scrapy_web2text.labellers.web2text.rules.furniture import MIN_TEXT_OUTSIDE_COMMENTS

    kept = labels != 0
    marked = kept & ((page.ancestor_keywords & ANCESTOR_KEYWORD_BITS["comment"]) != 0)
    if marked.any():
        lengths = block_lengths(page.texts)
        inside, outside = lengths[marked].sum(), lengths[kept & ~marked].sum()
        the_page_is_its_comments = marked[longest_kept(kept, lengths)] and inside >= outside
        if the_page_is_its_comments or outside < MIN_TEXT_OUTSIDE_COMMENTS:
            marked[:] = False
    return marked


def reviews_named(*names: str):
    """:func:`~scrapy_web2text.labellers.web2text.rules.furniture.review_sections` with other class/id words."""
    from scrapy_web2text.labellers.web2text.rules.furniture import review_sections

    return functools.partial(review_sections, words=re.compile("|".join(map(re.escape, names))))


#: Post metadata and author boxes after the post: kept blocks under this share of the kept text.
MAX_TRAILING_META_SHARE = 0.5


def trailing_meta(page: Page, labels: np.ndarray, max_chars: int = 10**9) -> np.ndarray:
    """Kept blocks after the longest kept block under a ``meta``/``byline``/``author``/``date``/``time`` class or id
    (post metadata such as "This entry was posted in …", an author's bio), of fewer than ``max_chars`` characters,
    unless together they hold :data:`MAX_TRAILING_META_SHARE` of the kept text or more."""
    kept = labels != 0
    if not kept.any():
        return np.zeros(len(page), bool)
    lengths = block_lengths(page.texts)
    longest = longest_kept(kept, lengths)
    marked = kept & ((page.ancestor_keywords & _BYLINE_BIT) != 0) & (lengths < max_chars)
    marked[: longest + 1] = False
    if lengths[marked].sum() >= MAX_TRAILING_META_SHARE * lengths[kept].sum():
        marked[:] = False
    return marked


def short_trailing_meta(page: Page, labels: np.ndarray) -> np.ndarray:
    """:func:`trailing_meta` for blocks of under 200 characters (metadata lines, not bios)."""
    return trailing_meta(page, labels, 200)


def asides_named(*words: str):
    """:func:`~scrapy_web2text.labellers.web2text.rules.furniture.aside_sections` with other class/id words."""
    from scrapy_web2text.labellers.web2text.rules.furniture import aside_sections

    return functools.partial(aside_sections, words=re.compile("|".join(map(re.escape, words))), keyword_bits=None)


def code_between_kept(page: Page, labels: np.ndarray, group: str = "pre|code") -> np.ndarray:
    """Blocks to *keep* (a recall rule): each run of consecutive blocks under a ``<pre>``/``<code>`` element whose
    nearest blocks outside the run, before and after it, are both kept (a listing or an inline fragment inside the
    kept text, whose highlighted tokens the model scores one by one)."""
    from scrapy_web2text.labellers.web2text.tag_groups import NODE_TAGS, blocks_under, group_mask, tag_list_bits

    out = np.zeros(len(page), bool)
    table = page.node_table
    if not len(page) or not len(table):
        return out
    code = blocks_under(page, group_mask(tag_list_bits(page), NODE_TAGS, group)[table[:, 5]])
    if not code.any():
        return out
    kept = labels != 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], code.astype(np.int8), [0]))))
    for start, end in zip(edges[::2], edges[1::2]):
        if start > 0 and end < len(page) and kept[start - 1] and kept[end] and not kept[start:end].all():
            out[start:end] = True
    return out
