"""Rules after decoding that read the whole labelling: captions (:func:`kept_captions`), the excerpts of other
posts that blogs list after a post (:func:`excerpt_teasers`), and a second copy of kept text, which pages carry for
another screen size or a carousel's loop (:func:`repeated_blocks`).

Every rule after decoding, these and those of :mod:`.furniture`, :mod:`.promotions`, :mod:`.rails` and
:mod:`.phrases`, runs from one registry, in its order: :data:`.registry.REGISTRY`.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ....page import Page
from ....page.nodes import END_BLOCK, FIRST_BLOCK, PARENT, TAGS_ID
from ..tag_groups import NODE_TAGS, blocks_under, group_mask, nearest_node_with, tag_list_bits
from .furniture import unless_most_of_the_kept_text
from .inputs import page_lengths, tag_names
from .vocabulary import CAPTION_GROUP, EXCERPT_ENDINGS, LIST_TAGS

#: Captions holding at least this share of the kept characters are kept.
MAX_CAPTION_SHARE = 0.5
_CAPTION_TAGS = frozenset(CAPTION_GROUP.split("|"))


def caption_blocks(page: Page) -> np.ndarray:
    """Blocks inside a ``<figcaption>``/``<caption>`` element (a CDOM node whose tags include one), as a mask."""
    table = page.node_table
    if not len(page) or not len(table) or _CAPTION_TAGS.isdisjoint(tag_names(page)):
        return np.zeros(len(page), bool)
    # The tag lists' group bits the features use (shared cache), read for the caption group.
    captions = group_mask(tag_list_bits(page), NODE_TAGS, CAPTION_GROUP)
    return blocks_under(page, captions[table[:, TAGS_ID]])


def kept_captions(page: Page, labels: np.ndarray) -> np.ndarray:
    """The kept caption blocks, as a mask, unless they hold half of the kept text or more (a page laid out in
    figures: the captions are its text)."""
    kept = labels != 0
    return unless_most_of_the_kept_text(kept, caption_blocks(page) & kept, page, MAX_CAPTION_SHARE)


#: Kept excerpts a page needs before they are dropped: one alone is as often a quotation cut short.
MIN_EXCERPTS = 2
#: The longest kept block before the excerpts needs this many characters (the post they follow); a page that is
#: only a list of excerpts (a blog's front page) keeps them.
MIN_POST_CHARS = 200
#: A link block of fewer characters just before an excerpt is its headline.
MAX_HEADLINE_CHARS = 120


def excerpt_teasers(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept teasers of other posts, as a mask: the kept blocks of over 40 characters that end with an excerpt mark
    (:data:`~.vocabulary.EXCERPT_ENDINGS`) after the longest kept block, and the short link block just before each (its
    headline), when there are :data:`MIN_EXCERPTS` or more and that longest block is a post's text.

    On the training pages, 110 of the 118 blocks that end with an excerpt mark on pages with two or more are
    outside the gold text."""
    teasers = np.zeros(len(page), bool)
    kept = np.flatnonzero(labels != 0).tolist()
    if len(kept) <= MIN_EXCERPTS:
        return teasers
    texts = page.texts  # trimmed: an ending is the text's end
    long_kept = np.flatnonzero((labels != 0) & (page_lengths(page) > 40)).tolist()
    excerpts = [i for i in long_kept if texts[i].endswith(EXCERPT_ENDINGS)]
    if len(excerpts) < MIN_EXCERPTS:
        return teasers
    post = max(kept, key=lambda i: len(texts[i]))  # the first of the longest
    excerpts = [i for i in excerpts if i > post]
    if len(excerpts) < MIN_EXCERPTS or len(texts[post]) < MIN_POST_CHARS:
        return teasers
    teasers[excerpts] = True
    for i in excerpts:
        headline = i - 1
        short_link = page.in_link[headline] and len(texts[headline]) < MAX_HEADLINE_CHARS
        if headline > post and labels[headline] and short_link:
            teasers[headline] = True
    return teasers


#: Kept texts of at least this many characters are compared: shorter ones ("Reply", "Read more", a price) repeat
#: on honest pages.
MIN_REPEAT_CHARS = 20


def repeated_blocks(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks that repeat the text of an earlier kept block under another CDOM parent, as a mask.

    Repeats under the first copy's own parent are kept: a list of equal paragraphs (a quoted refrain, a test page's
    *lorem ipsum*) is one text, written so; so are the paragraphs of one passage (:class:`Passages`).
    Documentation pages, whose tabs repeat a sentence in each language's panel, lose a little to this rule
    (docs/research/training-experiments.rst, "Repeated text").
    """
    repeats = np.zeros(len(page), bool)
    if not len(page.node_table):
        return repeats
    compared = np.flatnonzero((labels != 0) & (page_lengths(page) >= MIN_REPEAT_CHARS)).tolist()
    texts = list(map(page.texts.__getitem__, compared))  # blank runs already collapsed
    if len(set(texts)) == len(texts):
        return repeats  # most pages repeat no kept text: one set says so
    parents = page.node_table[page.block_nodes, PARENT]
    first: dict[str, int] = {}
    pairs = []
    for i, text in zip(compared, texts):
        earlier = first.setdefault(text, i)
        if earlier == i or parents[earlier] == parents[i]:
            continue
        if len(text) <= MAX_LIST_REPEAT_CHARS and same_list(page, earlier, i):
            continue
        pairs.append((earlier, i))
    # Most repeats are not a passage's own paragraphs; those that may be are read further, in one pass.
    alike = {pair for pair in pairs if alike_paragraphs(page, parents, *pair)}
    passage = Passages(page, labels, parents) if alike else None
    for pair in pairs:
        repeats[pair[1]] = pair not in alike or not passage.holds(*pair)
    return repeats


def alike_paragraphs(page: Page, parents: np.ndarray, earlier: int, repeat: int) -> bool:
    """Whether a repeat, not a link, has its first copy's tag path, under a sibling of that copy's parent."""
    parent, earlier_parent = parents[repeat], parents[earlier]
    if page.in_link[repeat] or page.tag_paths[repeat] != page.tag_paths[earlier] or min(parent, earlier_parent) < 0:
        return False
    return page.node_table[parent, PARENT] == page.node_table[earlier_parent, PARENT]


#: A repeat's parent holding at least this many kept characters of text found once on the page is a passage of its
#: own (:class:`Passages`).
MIN_OWN_CHARS = 50


class Passages:
    """Whether two alike paragraphs (:func:`alike_paragraphs`) are paragraphs of one passage, written so
    (:meth:`holds`): what it needs of the whole labelling, counted once."""

    def __init__(self, page: Page, labels: np.ndarray, parents: np.ndarray):
        self.table, self.parents = page.node_table, parents  # each block's CDOM parent
        kept = labels != 0
        self.kept_before = np.concatenate(([0], np.cumsum(kept)))
        indices = np.flatnonzero(kept).tolist()
        counts = Counter(map(page.texts.__getitem__, indices))
        once = np.zeros(len(page), np.int64)
        once[[i for i in indices if counts[page.texts[i]] == 1]] = 1
        self.once_before = np.concatenate(([0], np.cumsum(once * page_lengths(page))))

    def holds(self, earlier: int, repeat: int) -> bool:
        """Every block between the copies kept, and beside the repeat, under its parent, :data:`MIN_OWN_CHARS` or
        more kept characters of text that no other kept block holds.  A copy for another screen size or a carousel's
        loop sits in a container of its own, or repeats all of it; a test page's second section of *lorem ipsum*
        does not (docs/research/quality-round3.rst, "Paragraphs of one passage written twice")."""
        if self.kept_before[repeat + 1] - self.kept_before[earlier] != repeat + 1 - earlier:
            return False
        parent = self.parents[repeat]
        start, end = self.table[parent, FIRST_BLOCK], self.table[parent, END_BLOCK]
        return self.once_before[end] - self.once_before[start] >= MIN_OWN_CHARS


#: Repeats inside one list or table of at most this many characters are kept (a list whose items share a label);
#: 0 keeps none.
MAX_LIST_REPEAT_CHARS = 100
#: Ancestors looked at for that list: items sit a few levels under it.
LIST_DEPTH = 6


def nearest_list(page: Page, block: int) -> int:
    """The CDOM node of the nearest ``ul``/``ol``/``dl``/``table`` above ``block`` (within :data:`LIST_DEPTH`
    levels), or -1."""
    parent = int(page.node_table[page.block_nodes[block], PARENT])
    return nearest_node_with(page, parent, LIST_TAGS, LIST_DEPTH)


def same_list(page: Page, first: int, second: int) -> bool:
    """Whether two blocks are items of one list or table."""
    container = nearest_list(page, first)
    return container >= 0 and container == nearest_list(page, second)
