"""The Web2Text labeller (Vogels et al. 2018): features → two CNNs → Viterbi.

:mod:`.features` turns a page into block and edge features, :mod:`.network` runs the unary and pairwise CNNs in
numpy, :mod:`.viterbi` decodes the most likely labelling.  ``web2text-unary`` is the ablation without the pairwise
term: a block is kept when its own p(content) clears the threshold.

After decoding, the rules of :mod:`.rules` (one registry) drop what the labelling as a whole shows not to be main
text: captions, excerpts of other posts, a second copy of kept text, page furniture; then they keep the rest of an
article's code listings kept in part, and on documentation pages the blocks that the model doubted between kept ones.
``rules=False`` runs the model alone.

A page that the model's own threshold leaves empty is decoded again at a threshold relative to the page's most
likely block (:func:`decode_empty_page_again`): the model's probabilities rank a page's blocks better than they
measure them.  A page whose kept blocks are then only furniture around its legal line (a page a script fills,
crawled without rendering) keeps nothing (:mod:`.nothing_kept`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...page import Page
from ..base import Labelling, PageType
from . import second_opinion, sparse_units
from .features import page_features
from .network import Web2TextModel, load_model
from .nothing_kept import REASON, furniture_only
from .page_types import shipped_page_types
from .rules import FILLS, PageTypeGuess, check_rule_names, run_rules
from .rules.inputs import declared, page_lengths
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
    #: Each block's rule that changed its label, ``None`` where the model's label stands; ``None`` where no rule
    #: changed any.
    rules: list[str | None] | None = None
    #: The page's type as the rules read it (every type's probability, classified on first read).
    guess: PageTypeGuess | None = None


def web2text_labels(
    page: Page,
    model: Web2TextModel,
    threshold: float | None = None,
    pairwise: bool = True,
    rules: bool = True,
    skip_rules: Collection[str] = frozenset(),
) -> Decoded:
    """Labels (1 = content), p(content), stage timings, whether the page was decoded again, and its type.

    With the model's own threshold (``threshold=None``), a page that comes out empty is decoded again
    (:func:`decode_empty_page_again`), and the rules that fill gaps run (:data:`.rules.FILLS`); a threshold given is
    applied as it is.  ``rules=False`` runs no rule after decoding (the model alone); ``skip_rules`` names rules not
    to run, beside the model's own ``config.skip_rules``.  A tuned model with a site gate labels only its site's pages
    (:meth:`.Web2TextModel.for_page`).
    """
    check_rule_names(skip_rules, steps=(sparse_units.REASON, second_opinion.REASON))
    model = model.for_page(page.texts)  # a tuned model's own site's pages; the model it was tuned from elsewhere
    own_threshold = threshold is None
    clock = time.thread_time()
    block_x, edge_x = page_features(page, extended=model.extended)
    features_done = time.thread_time()
    unary, pair = model.potentials(block_x, edge_x)
    guess = page_type_on_demand(page, block_x)
    if own_threshold:
        threshold = page_threshold(model, guess)
    network_done = time.thread_time()
    if not pairwise:
        pair, lam = np.zeros_like(pair), 0.0
    else:
        lam = model.lam
    probabilities = np.exp(unary[:, 1])
    skipped = model.skipped_rules.union(skip_rules, () if own_threshold else (rule.name for rule in FILLS))
    chain = (page, unary, pair, lam, guess, probabilities)
    labels, changed, again = decode_at(*chain, threshold, rules=rules, skipped=skipped, own_threshold=own_threshold)
    if own_threshold and rules and sparse_units.decodes_again(page, labels, guess, threshold, skipped):
        first = labels
        labels, changed, again = decode_at(*chain, sparse_units.LOWER_THRESHOLD, rules=rules, skipped=skipped)
        changed = _newly_kept_by(sparse_units.REASON, first, labels, changed)
    if own_threshold and rules and (wanted := second_opinion.wanted_chars(page, labels, guess, skipped)):
        first = labels
        lowered = second_opinion.decode_lower(
            page, threshold, wanted, lambda lower: decode_at(*chain, lower, rules=rules, skipped=skipped)
        )
        if lowered is not None:
            labels, changed, again = lowered
            changed = _newly_kept_by(second_opinion.REASON, first, labels, changed)
    decode_done = time.thread_time()
    timings = {
        "features": 1000 * (features_done - clock),
        "network": 1000 * (network_done - features_done),
        "decode": 1000 * (decode_done - network_done),
    }
    page_type = guess_page_type(guess)
    return Decoded(labels.astype(bool), probabilities, timings, again, page_type, changed, guess)


def _newly_kept_by(reason: str, first: np.ndarray, labels: np.ndarray, changed: list | None) -> list | None:
    """Each block's rule after a page-level step: ``reason`` for the blocks ``labels`` keep and ``first`` did not
    (where no rule changed them), else the rule that did."""
    newly_kept = (labels != 0) & (first == 0)
    changed = [
        reason if new and rule is None else rule for new, rule in zip(newly_kept, changed or [None] * len(labels))
    ]
    return changed if any(changed) else None


def decode_at(
    page: Page,
    unary: np.ndarray,
    pair: np.ndarray,
    lam: float,
    guess: PageTypeGuess,
    probabilities: np.ndarray,
    threshold: float,
    *,
    rules: bool = True,
    skipped: Collection[str] = frozenset(),
    own_threshold: bool = True,
) -> tuple[np.ndarray, list[str | None] | None, bool]:
    """A page's labels at ``threshold``, as the chain makes them: decoded; decoded again where empty (at the model's
    own threshold only); the rules not ``skipped`` (``rules=False``: none); a page whose kept blocks are only
    furniture emptied (at the model's own threshold only).  Returns the labels, the rule that changed each block
    (``None`` where none did) and whether the page was decoded again."""
    labels = viterbi(unary, pair, lam, threshold)
    again = decode_empty_page_again(unary, pair, lam, threshold) if own_threshold and not labels.any() else None
    if again is not None:
        labels = again
    changed = None
    if rules:
        ruled = run_rules(page, labels, guess, probabilities, skipped=skipped)
        labels = ruled.labels
        changed = ruled.rule_names()
        # A page with nothing to keep: empty, not its footer line.  Like the second decoding, at the model's own
        # threshold only: a threshold given is applied as it is (and a higher one never keeps more).
        if own_threshold and furniture_only(page, labels):
            changed = [REASON if kept else rule for kept, rule in zip(labels.tolist(), changed or [None] * len(page))]
            labels = np.zeros_like(labels)
    return labels, changed, again is not None


def page_type_on_demand(page: Page, block_x: np.ndarray) -> PageTypeGuess:
    """The page's type by the shipped page-type classifier (:mod:`.page_types`), classified on the first read;
    no type where no classifier is installed."""

    def classify() -> dict[str, float] | None:
        classifier = shipped_page_types()
        if classifier is None:
            return None
        kinds = declared(page) if classifier.reads_declared else None
        return classifier.distribution(block_x, page_lengths(page), kinds)

    return PageTypeGuess(classify)


def guess_page_type(guess: PageTypeGuess) -> Callable[[], PageType | None]:
    """A function giving the likeliest type and its probability (``None`` without a classifier)."""

    def page_type() -> PageType | None:
        label = guess.label
        return None if label is None else PageType(label, guess.probabilities[label])

    return page_type


def threshold_offset(page_type: PageTypeGuess) -> float:
    """What the page's type adds to the model's own threshold; the page is classified only where the classifier
    sets offsets."""
    classifier = shipped_page_types()
    if classifier is None or not classifier.sets_offsets:
        return 0.0
    return classifier.threshold_offset(page_type.label)


#: How far a page type's offset may move the model's own threshold: no further out than these bounds (a model whose
#: own threshold lies beyond one keeps it), so that it stays strictly between 0 and 1.
OFFSET_BOUNDS = (0.05, 0.95)


def offset_threshold(own: float, offset: float) -> float:
    """The model's own threshold moved by ``offset``, held within :data:`OFFSET_BOUNDS` (or at ``own`` beyond them)."""
    low, high = OFFSET_BOUNDS
    return min(max(own + offset, min(own, low)), max(own, high))


def takes_offsets(model: Web2TextModel) -> bool:
    """Whether the page types' offsets move ``model``'s threshold: not for a tuned model whose threshold was
    rebalanced (``web2text train --init``), which already keeps as much text as the model it started from; the
    offsets were fitted to that model's scale of p(content), and added on top they would move it twice."""
    return ((getattr(model, "metadata", None) or {}).get("fine_tuned") or {}).get("threshold") is None


def page_threshold(model: Web2TextModel, page_type: PageTypeGuess) -> float:
    """The threshold a page is labelled at when the caller gives none: the model's own, moved by the page type's
    offset (:func:`offset_threshold`): the model's own ``config.threshold_offsets`` where it has them (a fine-tuned
    model's, rebalanced with its threshold), else the page-type classifier's unless the model's threshold was
    rebalanced without offsets of its own (:func:`takes_offsets`)."""
    threshold, offsets = model.config.get("threshold", 0.5), model.config.get("threshold_offsets")
    if offsets is not None:
        return offset_threshold(threshold, float(offsets.get(page_type.label, 0.0)) if any(offsets.values()) else 0.0)
    return offset_threshold(threshold, threshold_offset(page_type)) if takes_offsets(model) else threshold


def web2text(
    page: Page, *, model=None, threshold=None, pairwise: bool = True, rules: bool = True, skip_rules=frozenset()
) -> Labelling:
    """The full method: unary and pairwise potentials, Viterbi, the rules after decoding (``rules=False``: none;
    ``skip_rules``: the names of some not to run)."""
    resolved = resolve_model(model)
    decoded = web2text_labels(page, resolved, threshold, pairwise=pairwise, rules=rules, skip_rules=skip_rules)
    return Labelling(
        decoded.keep,
        decoded.probabilities,
        resolved.name,
        decoded.timings,
        decoded.decoded_again,
        decoded.page_type,
        decoded.rules,
    )


def web2text_unary(page: Page, *, model=None, threshold=None, rules: bool = True, skip_rules=frozenset()) -> Labelling:
    """The unary network alone (no pairwise term in the decoding)."""
    return web2text(page, model=model, threshold=threshold, pairwise=False, rules=rules, skip_rules=skip_rules)


def web2text_model_alone(page: Page, *, model=None, threshold=None) -> Labelling:
    """The networks and Viterbi without the rules after decoding: the evaluation's "model alone" row beside the
    full method's, so that what the rules add stays visible."""
    return web2text(page, model=model, threshold=threshold, rules=False)
