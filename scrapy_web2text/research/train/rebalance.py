"""The tuned model's threshold and page-type offsets, moved back to the balance of content and boilerplate that
the model it started from keeps on the mixed-in pages (:func:`.tuning.fine_tune`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ...labellers.web2text import page_threshold
from ...labellers.web2text.network import Web2TextModel
from ...labellers.web2text.page_types import shipped_page_types
from ...labellers.web2text.rules import PageTypeGuess
from ...labellers.web2text.viterbi import viterbi
from ..corpus import PageData
from .selection import page_potentials

#: A page type with an offset needs this many pages in the mixed-in sample for its own rebalanced offset.
MIN_TYPE_PAGES = 5


def _kept_share(model: Web2TextModel, potentials: list, lengths: list, thresholds: Sequence[float]) -> float:
    """Share of the pages' characters the model keeps, each page at its threshold."""
    kept = sum(
        float(length[viterbi(unary, pair, model.lam, threshold).astype(bool)].sum())
        for (unary, pair), length, threshold in zip(potentials, lengths, thresholds)
    )
    return kept / max(1.0, float(sum(length.sum() for length in lengths)))


def _matching_threshold(tuned: Web2TextModel, potentials: list, lengths: list, target: float) -> float:
    """The threshold at which ``tuned`` keeps ``target`` of the pages' text (a bisection)."""
    low, high = 0.02, 0.98  # the kept share falls as the threshold rises
    for _ in range(12):
        middle = (low + high) / 2
        if _kept_share(tuned, potentials, lengths, [middle] * len(lengths)) > target:
            low = middle
        else:
            high = middle
    return round((low + high) / 2, 4)


def rebalanced_threshold(
    base: Web2TextModel, tuned: Web2TextModel, pages: Sequence[PageData]
) -> tuple[float, dict[str, float]]:
    """The threshold and page-type offsets at which ``tuned`` keeps as much of ``pages``' text as ``base`` does
    at its own (each page at the threshold ``extract()`` gives it: the model's, moved by the page type's offset):
    tuning on one site moves the balance of content and boilerplate on every page, and this moves it back.

    Pages of a type with an offset are matched on their own (the offset is what that type's pages need beyond
    the others'; the base's offset added to a threshold measured without it would count it twice); a type with
    fewer than :data:`MIN_TYPE_PAGES` pages in the sample keeps the base's offset in proportion to the threshold."""
    pages = [page for page in pages if len(page.texts)]
    # each page classified only where a page type moves the base's threshold
    guesses = [PageTypeGuess(lambda page=page: _type_distribution(page)) for page in pages]
    base_thresholds = [page_threshold(base, guess) for guess in guesses]
    offsets = [threshold - base.threshold for threshold in base_thresholds]
    groups: dict[str | None, list[int]] = defaultdict(list)
    for index, (guess, offset) in enumerate(zip(guesses, offsets)):
        groups[guess.label if abs(offset) > 1e-9 else None].append(index)
    lengths = [np.fromiter(map(len, page.texts), np.float64, len(page.texts)) for page in pages]
    before, after = page_potentials(base, pages), page_potentials(tuned, pages)

    def matched(indices: list[int]) -> float:
        target = _kept_share(
            base, [before[i] for i in indices], [lengths[i] for i in indices], [base_thresholds[i] for i in indices]
        )
        return _matching_threshold(tuned, [after[i] for i in indices], [lengths[i] for i in indices], target)

    common = matched(groups.pop(None, None) or list(range(len(pages))))
    own = {}
    for label, indices in sorted(groups.items(), key=lambda item: str(item[0])):
        if len(indices) >= MIN_TYPE_PAGES:
            own[str(label)] = round(matched(indices) - common, 4)
        else:
            own[str(label)] = round(offsets[indices[0]] * common / base.threshold, 4)
    return common, own


def _type_distribution(page: PageData) -> dict[str, float] | None:
    classifier = shipped_page_types()
    if classifier is None:
        return None
    lengths = np.fromiter(map(len, page.texts), np.float64, len(page.texts))
    return classifier.distribution(page.block_x, lengths, page.declared if classifier.reads_declared else None)
