"""``web2text train --init``: tune, check whether tuning helps the site it was taught on pages it was not tuned on,
write the model it chose.

Each given page is left out in turn: the model is tuned on the others, with the same settings, and the left-out
page is labelled as ``extract()`` labels it (the model's threshold and page-type offsets, the rules after decoding)
by the tuned model and by the model it started from; each is scored by word F1 against the page's labels (its
labelled blocks only).  The tuned model is kept where it is better on the left-out pages on average and worse on
none; otherwise the starting model is, unchanged.  With more than :data:`MAX_FOLDS` pages they are left out in
:data:`MAX_FOLDS` groups.  With one page there is nothing else of the site to check on: its labelled blocks are
split in two halves (the first and the second half of the page), the model tuned on one half and scored on the
other, both ways; the halves share one layout, so this check is weaker, and says so.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...labellers.web2text import resolve_model, web2text_labels
from ...labellers.web2text.network import Web2TextModel
from ..metrics import word_f1
from .tuning import (
    ANCHOR,
    ITERATIONS,
    LEARNING_RATE,
    MIX_PAGES,
    SITE_GATE,
    TuningPage,
    fine_tune,
    read_labelled_pages,
    sample_training_pages,
)

logger = logging.getLogger(__name__)

#: At most this many tunings for the check: more pages are left out in groups.
MAX_FOLDS = 5


@dataclass
class HeldOutScore:
    """One left-out page (or half page): word F1 of the starting and of the tuned model's labels."""

    source: str
    base: float
    tuned: float


@dataclass
class Check:
    """The left-out scores and the decision."""

    how: str  # "pages left out in turn" or "halves of the one page"
    scores: list[HeldOutScore]

    @property
    def base(self) -> float:
        return float(np.mean([score.base for score in self.scores]))

    @property
    def tuned(self) -> float:
        return float(np.mean([score.tuned for score in self.scores]))

    @property
    def helps(self) -> bool:
        """Better on average, worse on no left-out page."""
        return self.tuned > self.base and all(score.tuned >= score.base - 1e-9 for score in self.scores)

    def card(self) -> dict:
        return {
            "how": self.how,
            "kept": "tuned" if self.helps else "initial",
            "word_f1": {"initial": round(self.base, 4), "tuned": round(self.tuned, 4)},
            "held_out": [dataclasses.asdict(score) for score in self.scores],
        }

    def describe(self) -> str:
        pages = ", ".join(f"{score.base:.3f} -> {score.tuned:.3f}" for score in self.scores)
        decision = (
            "the tuned model is kept"
            if self.helps
            else "tuning did not help there: the initial model is kept, unchanged (--no-check keeps the tuned one)"
        )
        return (
            f"check ({self.how}): word F1 on what tuning did not see, initial -> tuned: {pages} "
            f"(mean {self.base:.3f} -> {self.tuned:.3f}); {decision}"
        )


def score(model: Web2TextModel, page: TuningPage) -> float:
    """Word F1 of ``model``'s labels of the page, as ``extract()`` labels it, against its labelled blocks."""
    if page.page is None:
        raise ValueError(f"{page.source}: the check needs the parsed page")
    keep = web2text_labels(page.page, model).keep
    known = np.asarray(page.known, bool)
    predicted = " ".join(text for text, kept, k in zip(page.texts, keep, known) if kept and k)
    gold = " ".join(text for text, label, k in zip(page.texts, page.labels, known) if label and k)
    return word_f1(predicted, gold)


def folds(pages: Sequence[TuningPage]) -> tuple[str, list[tuple[list[TuningPage], list[TuningPage]]]]:
    """How the check splits the pages, and its (tuned on, scored on) pairs."""
    if len(pages) >= 2:
        groups = min(len(pages), MAX_FOLDS)
        return "pages left out in turn", [
            ([p for n, p in enumerate(pages) if n % groups != g], [p for n, p in enumerate(pages) if n % groups == g])
            for g in range(groups)
        ]
    (page,) = pages
    labelled = np.flatnonzero(page.known)
    halves = []
    for part in (labelled[: len(labelled) // 2], labelled[len(labelled) // 2 :]):
        known = np.zeros(len(page.known), bool)
        known[part] = True
        halves.append(
            dataclasses.replace(page, known=known, source=f"{page.source} ({'first' if not halves else 'second'} half)")
        )
    return "halves of the one page", [([halves[0]], [halves[1]]), ([halves[1]], [halves[0]])]


def check(model: Web2TextModel, pages: Sequence[TuningPage], mix=(), *, scorer=None, **settings) -> Check:
    """Tune on each fold's pages (``settings`` as :func:`.fine_tune`'s) and score what it left out (``scorer``:
    ``(model, page) -> word F1``, :func:`score` by default)."""
    scorer = scorer or score
    how, pairs = folds(pages)
    scores = []
    for tuned_on, scored_on in pairs:
        if not any(page.known.any() for page in tuned_on):
            continue
        tuned = fine_tune(model, tuned_on, mix, **settings)
        scores += [HeldOutScore(page.source, scorer(model, page), scorer(tuned, page)) for page in scored_on]
    if not scores:
        raise ValueError("too few labelled blocks to check the tuning on blocks it did not see")
    return Check(how, scores)


def checked_fine_tune(
    model: Web2TextModel, pages: Sequence[TuningPage], mix=(), *, scorer=None, **settings
) -> tuple[Web2TextModel, Web2TextModel, Check]:
    """The model to use (the tuned one where :func:`check` says it helps, else ``model``), the tuned one, and
    the check; the tuned model's card holds the check either way."""
    tuned = fine_tune(model, pages, mix, **settings)
    found = check(model, pages, mix, scorer=scorer, **settings)
    tuned.metadata["fine_tuned"]["check"] = found.card()
    return (tuned if found.helps else model), tuned, found


def run_command(args, data_files: Sequence[str]) -> int:
    """``web2text train --init MODEL --pages DIR --labels DIR -o OUT``: tune, save, say what was done."""
    if not args.labels:
        raise ValueError("--init fine-tunes on corrected pages: give --labels (and --pages for viewer labels)")
    model = resolve_model(args.init)
    pages = read_labelled_pages(args.pages, args.labels)
    mix_pages = args.mix if args.mix is not None else MIX_PAGES
    if mix_pages and not data_files:
        logger.warning("no corpus files to mix in (--data or $WEB2TEXT_DATA): tuning on the labelled pages only")
    mix = sample_training_pages(data_files, mix_pages, args.seed) if mix_pages and data_files else []
    settings = {
        "iterations": args.iterations or ITERATIONS,
        "learning_rate": args.learning_rate or LEARNING_RATE,
        "anchor": ANCHOR if args.anchor is None else args.anchor,
        "rebalance": args.rebalance,
        "site_gate": SITE_GATE if getattr(args, "site_gate", None) is None else args.site_gate,
        "seed": args.seed,
        "threads": args.threads,
    }
    if getattr(args, "check", True):
        chosen, tuned, found = checked_fine_tune(model, pages, mix, **settings)
        print(found.describe())
    else:
        chosen = tuned = fine_tune(model, pages, mix, **settings)
    output = args.output if args.output != "web2text-model" else f"{model.name}-tuned"
    card = tuned.metadata["fine_tuned"]
    if chosen is not tuned:  # the initial model, unchanged, with the check that declined the tuning on its card
        chosen = dataclasses.replace(model, metadata={**model.metadata, "fine_tuning_declined": card}, path=None)
    written = chosen.save(output)
    labelled = sum(page["labelled_blocks"] if "labelled_blocks" in page else page["blocks"] for page in card["pages"])
    skipped = f"; rules after decoding that your labels overrule, skipped: {', '.join(card['skip_rules'])}"
    kept = f"{model.name} tuned" if chosen is tuned else f"{model.name} kept (tuning declined), tuned"
    print(
        f"model written to {written} (+ .json): {kept} on {len(pages)} page(s), {labelled} labelled "
        f"blocks, {len(mix)} training pages mixed in, threshold {model.threshold} -> {tuned.threshold}, "
        f"{card['seconds']} s{skipped if card.get('skip_rules') else ''}"
    )
    return 0
