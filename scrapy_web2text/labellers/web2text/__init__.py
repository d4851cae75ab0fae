"""The Web2Text labeller (Vogels et al. 2018): features → two CNNs → Viterbi.

:mod:`.features` turns a page into block and edge features, :mod:`.network` runs the unary and pairwise CNNs in
numpy, :mod:`.viterbi` decodes the most likely labelling.  ``web2text-unary`` is the ablation without the pairwise
term: a block is kept when its own p(content) clears the threshold.

After decoding, blocks inside a ``<figcaption>`` or a table ``<caption>`` are dropped (:func:`caption_blocks`):
image captions and credits are not main text under the label convention (docs/training.rst).  So are the excerpts
of other posts that blogs list after a post, each ending with the mark ``[…]`` (:func:`excerpt_teasers`).

A page that the model's own threshold leaves empty is decoded again at a threshold relative to the page's most
likely block (:func:`decode_empty_page_again`): the model's probabilities rank a page's blocks better than they
measure them.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ...page import Page
from ..base import Labelling
from .features import page_features
from .network import Web2TextModel, load_model
from .tag_groups import NODE_TAGS, blocks_under, group_mask, tag_list_bits
from .viterbi import viterbi

#: The tag group of captions (of a figure or a table), one of the node tag groups the features test.
CAPTION_GROUP = "figcaption|caption"
#: Captions holding at least this share of the kept characters are kept.
MAX_CAPTION_SHARE = 0.5


def caption_blocks(page: Page) -> np.ndarray:
    """Blocks inside a ``<figcaption>``/``<caption>`` element (a CDOM node whose tags include one), as a mask."""
    table = page.node_table
    if not len(page) or not len(table):
        return np.zeros(len(page), bool)
    # The tag lists' group bits the features use (shared cache), read for the caption group.
    captions = group_mask(tag_list_bits(page), NODE_TAGS, CAPTION_GROUP)
    return blocks_under(page, captions[table[:, 5]])


def drop_captions(page: Page, labels: np.ndarray) -> np.ndarray:
    """``labels`` with the caption blocks made boilerplate, unless they hold half of the kept text or more (a page
    laid out in figures: the captions are its text)."""
    captions = caption_blocks(page) & (labels != 0)
    if not captions.any():
        return labels
    lengths = np.fromiter(map(len, page.texts), np.int64, len(page))
    if lengths[captions].sum() >= MAX_CAPTION_SHARE * lengths[labels != 0].sum():
        return labels
    return np.where(captions, 0, labels).astype(labels.dtype)


#: How a blog's excerpt of another post ends: WordPress's default "more" mark is `` [&hellip;]``.
EXCERPT_ENDINGS = ("[…]", "[...]", "[ … ]", "[ ... ]")
#: Kept excerpts a page needs before they are dropped: one alone is as often a quotation cut short.
MIN_EXCERPTS = 2
#: The longest kept block before the excerpts needs this many characters (the post they follow); a page that is
#: only a list of excerpts (a blog's front page) keeps them.
MIN_POST_CHARS = 200
#: A link block of fewer characters just before an excerpt is its headline.
MAX_HEADLINE_CHARS = 120


def excerpt_teasers(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept teasers of other posts, as a mask: the kept blocks of over 40 characters that end with an excerpt mark
    (:data:`EXCERPT_ENDINGS`) after the longest kept block, and the short link block just before each (its
    headline), when there are :data:`MIN_EXCERPTS` or more and that longest block is a post's text."""
    teasers = np.zeros(len(page), bool)
    kept = np.flatnonzero(labels != 0).tolist()
    if len(kept) <= MIN_EXCERPTS:
        return teasers
    texts = page.texts  # trimmed: an ending is the text's end
    excerpts = [i for i in kept if texts[i].endswith(EXCERPT_ENDINGS) and len(texts[i]) > 40]
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


def drop_excerpt_teasers(page: Page, labels: np.ndarray) -> np.ndarray:
    """``labels`` with :func:`excerpt_teasers` made boilerplate.  On the training pages, 110 of the 118 blocks that
    end with an excerpt mark on pages with two or more are outside the gold text."""
    teasers = excerpt_teasers(page, labels)
    if not teasers.any():
        return labels
    return np.where(teasers, 0, labels).astype(labels.dtype)


#: A page left empty at the model's threshold is decoded again at this share of its highest p(content).
EMPTY_PAGE_SHARE = 0.5


def decode_empty_page_again(unary: np.ndarray, pair: np.ndarray, lam: float, threshold: float) -> np.ndarray | None:
    """Labels at ``EMPTY_PAGE_SHARE`` times the page's highest p(content), when that is below ``threshold``.

    Crawled pages have a main text, and where the model empties a page its likeliest blocks are usually that text:
    out of fold on the training pages (docs/training.rst, "Out of fold") 64 of 3,253 pages came out empty at the
    model's threshold, with word F1 0; decoded again they scored 0.32 on average, and trafilatura 0.41.
    """
    if not len(unary):
        return None
    relative = EMPTY_PAGE_SHARE * float(np.exp(unary[:, 1].max()))
    return viterbi(unary, pair, lam, relative) if relative < threshold else None


def resolve_model(model: Web2TextModel | str | Path | None) -> Web2TextModel:
    """A loaded model as it is; a packaged model's name or a path loaded (once per process)."""
    return model if isinstance(model, Web2TextModel) else load_model(model)


def web2text_labels(
    page: Page, model: Web2TextModel, threshold: float | None = None, pairwise: bool = True
) -> tuple[np.ndarray, np.ndarray, dict[str, float], bool]:
    """Labels (1 = content), p(content), stage timings and whether the page was decoded again.

    With the model's own threshold (``threshold=None``), a page that comes out empty is decoded again
    (:func:`decode_empty_page_again`); a threshold given is applied as it is.
    """
    own_threshold = threshold is None
    threshold = model.config.get("threshold", 0.5) if threshold is None else threshold
    clock = time.perf_counter()
    block_x, edge_x = page_features(page, extended=model.extended)
    features_done = time.perf_counter()
    unary, pair = model.potentials(block_x, edge_x)
    network_done = time.perf_counter()
    if not pairwise:
        pair, lam = np.zeros_like(pair), 0.0
    else:
        lam = model.lam
    labels = viterbi(unary, pair, lam, threshold)
    again = decode_empty_page_again(unary, pair, lam, threshold) if own_threshold and not labels.any() else None
    if again is not None:
        labels = again
    labels = drop_excerpt_teasers(page, drop_captions(page, labels))
    decode_done = time.perf_counter()
    timings = {
        "features": 1000 * (features_done - clock),
        "network": 1000 * (network_done - features_done),
        "decode": 1000 * (decode_done - network_done),
    }
    return labels.astype(bool), np.exp(unary[:, 1]), timings, again is not None


def web2text(page: Page, *, model=None, threshold=None, pairwise: bool = True) -> Labelling:
    """The full method: unary and pairwise potentials, Viterbi."""
    resolved = resolve_model(model)
    keep, probabilities, timings, decoded_again = web2text_labels(page, resolved, threshold, pairwise=pairwise)
    return Labelling(keep, probabilities, resolved.name, timings, decoded_again)


def web2text_unary(page: Page, *, model=None, threshold=None) -> Labelling:
    """The unary network alone (no pairwise term in the decoding)."""
    return web2text(page, model=model, threshold=threshold, pairwise=False)
