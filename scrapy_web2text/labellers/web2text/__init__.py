"""The Web2Text labeller (Vogels et al. 2018): features → two CNNs → Viterbi.

:mod:`.features` turns a page into block and edge features, :mod:`.network` runs the unary and pairwise CNNs in
numpy, :mod:`.viterbi` decodes the most likely labelling.  ``web2text-unary`` is the ablation without the pairwise
term: a block is kept when its own p(content) clears the threshold.

After decoding, :mod:`.after_decoding` drops what the labelling as a whole shows not to be main text: captions,
excerpts of other posts, a second copy of kept text, page furniture; then :mod:`.gaps` keeps the rest of an
article's code listings kept in part, and on documentation pages the blocks that the model doubted between kept ones.

A page that the model's own threshold leaves empty is decoded again at a threshold relative to the page's most
likely block (:func:`decode_empty_page_again`): the model's probabilities rank a page's blocks better than they
measure them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...page import Page
from ...page.declared import declared_kinds
from ..base import Labelling, PageType
from .after_decoding import drop_after_decoding
from .counts import block_lengths
from .features import page_features
from .gaps import fill_gaps
from .network import Web2TextModel, load_model
from .page_types import shipped_page_types
from .viterbi import viterbi

#: A page left empty at the model's threshold is decoded again at this share of its highest p(content).
EMPTY_PAGE_SHARE = 0.5


def decode_empty_page_again(unary: np.ndarray, pair: np.ndarray, lam: float, threshold: float) -> np.ndarray | None:
    """Labels at ``EMPTY_PAGE_SHARE`` times the page's highest p(content), when that is below ``threshold``.

    Crawled pages have a main text, and where the model empties a page its likeliest blocks are usually that text
    (the evidence: docs/research/training-experiments.rst).
    """
    if not len(unary):
        return None
    relative = EMPTY_PAGE_SHARE * float(np.exp(unary[:, 1].max()))
    # 0 where every block's p(content) underflows (a page of junk): nothing is ranked above anything, it stays empty.
    return viterbi(unary, pair, lam, relative) if 0.0 < relative < threshold else None


def resolve_model(model: Web2TextModel | str | Path | None) -> Web2TextModel:
    """A loaded model as it is; a packaged model's name or a path loaded (once per process)."""
    return model if isinstance(model, Web2TextModel) else load_model(model)


class Decoded(NamedTuple):
    """:func:`web2text_labels`' answer."""

    keep: np.ndarray
    probabilities: np.ndarray
    timings: dict[str, float]
    decoded_again: bool
    #: The page's type, classified on the first call (most callers never ask).
    page_type: Callable[[], PageType | None]


def web2text_labels(page: Page, model: Web2TextModel, threshold: float | None = None, pairwise: bool = True) -> Decoded:
    """Labels (1 = content), p(content), stage timings, whether the page was decoded again, and its type.

    With the model's own threshold (``threshold=None``), a page that comes out empty is decoded again
    (:func:`decode_empty_page_again`), an article's code listings kept in part are kept whole and a documentation page's
    gaps are filled (:mod:`.gaps`); a threshold given is applied as it is.
    """
    own_threshold = threshold is None
    clock = time.perf_counter()
    block_x, edge_x = page_features(page, extended=model.extended)
    features_done = time.perf_counter()
    unary, pair = model.potentials(block_x, edge_x)
    page_type = page_type_on_demand(page, block_x)
    if own_threshold:
        threshold = page_threshold(model, page_type)
    network_done = time.perf_counter()
    if not pairwise:
        pair, lam = np.zeros_like(pair), 0.0
    else:
        lam = model.lam
    labels = viterbi(unary, pair, lam, threshold)
    again = decode_empty_page_again(unary, pair, lam, threshold) if own_threshold and not labels.any() else None
    if again is not None:
        labels = again

    def type_label() -> str | None:  # asked only where a rule needs the page's type
        return _label(page_type())

    # Known already where the threshold offsets asked for it: the rules for other types then need not run.
    known = type_label() if page_type.cache_info().currsize else type_label
    labels = drop_after_decoding(page, labels, known, model.skipped_rules)
    if own_threshold:  # a threshold given is applied as it is: nothing below it is kept
        labels = fill_gaps(page, labels, np.exp(unary[:, 1]), known)
    decode_done = time.perf_counter()
    timings = {
        "features": 1000 * (features_done - clock),
        "network": 1000 * (network_done - features_done),
        "decode": 1000 * (decode_done - network_done),
    }
    return Decoded(labels.astype(bool), np.exp(unary[:, 1]), timings, again is not None, page_type)


def page_type_on_demand(page: Page, block_x: np.ndarray) -> Callable[[], PageType | None]:
    """A function giving the page's type by the shipped page-type classifier (:mod:`.page_types`), computed on its
    first call; ``None`` where no classifier is installed."""

    @functools.cache
    def page_type() -> PageType | None:
        classifier = shipped_page_types()
        if classifier is None:
            return None
        declared = declared_kinds(page) if classifier.reads_declared else None
        return PageType(*classifier.predict(block_x, block_lengths(page.texts), declared))

    return page_type


def threshold_offset(page_type: Callable[[], PageType | None]) -> float:
    """What the page's type adds to the model's own threshold; the page is classified only where the classifier
    sets offsets."""
    classifier = shipped_page_types()
    if classifier is None or not classifier.sets_offsets:
        return 0.0
    return classifier.threshold_offset(_label(page_type()))


#: How far a page type's offset may move the model's own threshold: no further out than these bounds (a model whose
#: own threshold lies beyond one keeps it), so that it stays strictly between 0 and 1.
OFFSET_BOUNDS = (0.05, 0.95)


def offset_threshold(own: float, offset: float) -> float:
    """The model's own threshold moved by ``offset``, held within :data:`OFFSET_BOUNDS` (or at ``own`` beyond them)."""
    low, high = OFFSET_BOUNDS
    return min(max(own + offset, min(own, low)), max(own, high))


def page_threshold(model: Web2TextModel, page_type: Callable[[], PageType | None]) -> float:
    """The threshold a page is labelled at when the caller gives none: the model's own, moved by the page type's
    offset (:func:`offset_threshold`)."""
    return offset_threshold(model.config.get("threshold", 0.5), threshold_offset(page_type))


def _label(page_type: PageType | None) -> str | None:
    return page_type.label if page_type is not None else None


def web2text(page: Page, *, model=None, threshold=None, pairwise: bool = True) -> Labelling:
    """The full method: unary and pairwise potentials, Viterbi."""
    resolved = resolve_model(model)
    decoded = web2text_labels(page, resolved, threshold, pairwise=pairwise)
    return Labelling(
        decoded.keep, decoded.probabilities, resolved.name, decoded.timings, decoded.decoded_again, decoded.page_type
    )


def web2text_unary(page: Page, *, model=None, threshold=None) -> Labelling:
    """The unary network alone (no pairwise term in the decoding)."""
    return web2text(page, model=model, threshold=threshold, pairwise=False)
