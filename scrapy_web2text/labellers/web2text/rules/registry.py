"""The stage after decoding: one registry of rules (:data:`REGISTRY`), run in its order on the decoded labels.

The CNNs label blocks one by one; some of what they keep is not main text under the label convention
(docs/training.rst), and is plain to see once the whole labelling is known.  Each :class:`Rule` names what it
finds, the page types it runs on, what it removes (or, for the two that fill gaps, keeps) and why, and the
research note that measured it; docs/model.rst's table of rules is generated from this registry.  The rules that
drop blocks run first, each on the previous one's result; the gap fills last, at the model's own threshold only.

The page's type reaches the rules as a :class:`PageTypeGuess`: the classifier's probabilities, computed on first
read, so that a page none of whose typed rules finds anything is never classified.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ....page import Page
from ..threads import thread_page
from .furniture import (
    aside_sections,
    byline_sections,
    comment_sections,
    dialog_sections,
    hidden_blocks,
    interface_widgets,
    landmark_sections,
    review_sections,
    screen_reader_blocks,
)
from .gaps import documentation_gaps, listing_remainders
from .inputs import page_lengths
from .kept_text import excerpt_teasers, kept_captions, repeated_blocks
from .phrases import furniture_phrases
from .promotions import call_to_action_links, carousel_sections, short_labels, teaser_cards
from .rails import announced_rails, outlying_link_lists

#: Elsewhere hidden text is as often a tab or an accordion of the main text, a forum's replies are its content,
#: and a shop's page is largely its promotions.
ARTICLE_ONLY_TYPES = frozenset({"article"})
#: Asides and carousels go from services' pages too (docs/research/quality-round3.rst, "Asides on articles").
ASIDE_TYPES = frozenset({"article", "service"})
#: A service's landing page promotes other content in cards and asks for action in buttons; elsewhere such cards
#: are a collection's items and such links a listing's.
SERVICE_TYPES = frozenset({"service"})
#: A typed rule runs where the page-type classifier gives its types together this probability or more (``None``: where
#: the likeliest type is one of them).
MIN_TYPE_PROBABILITY: float | None = 0.8
#: A rule that would leave less than ``1 -`` this share of the characters the model kept does not run: a rule after
#: decoding may not delete a page (``None``: no guard).
MAX_DROPPED_SHARE: float | None = 0.7
#: Whether a thread's posts are spared the typed rules (:mod:`..threads`).
THREADS = True
#: The research notes the rules were measured in.
ROUND3 = "research/quality-round3"
ROUND4 = "research/quality-round4"
TRAINING = "research/training-experiments"


@dataclass(frozen=True)
class Rule:
    """One step after decoding: ``find(page, labels)`` (and the page's p(content) where ``reads_probabilities``)
    gives a mask of blocks; a rule that ``keeps`` makes them content, any other makes them boilerplate."""

    name: str
    find: Callable[..., np.ndarray]
    #: The page types it runs on (together :data:`MIN_TYPE_PROBABILITY` likely), or ``None``: every page.
    types: frozenset[str] | None
    #: What it removes (or keeps) and why, in one sentence.
    removes: str
    #: The research note (a docs path) and its section that measured the rule's effect.
    note: str
    section: str
    keeps: bool = False
    reads_probabilities: bool = False

    def runs_on(self, page_type: PageTypeGuess) -> bool:
        """Whether the rule runs on a page of this type: untyped, or the classifier gives its types together
        :data:`MIN_TYPE_PROBABILITY` or more (the page is classified here where it was not)."""
        if self.types is None:
            return True
        if MIN_TYPE_PROBABILITY is None:
            return page_type.label in self.types
        return page_type.share(self.types) >= MIN_TYPE_PROBABILITY


def _rule(find: Callable[..., np.ndarray], types: frozenset[str] | None, removes: str, note: str, section: str):
    return Rule(find.__name__, find, types, removes, note, section)


#: The rules in the order they run.
REGISTRY: tuple[Rule, ...] = (
    _rule(
        kept_captions, None, "Captions and credits of figures and tables: not main text under the label convention, "
        "unless they hold half of the kept text.", TRAINING, "Details",
    ),
    _rule(
        hidden_blocks, ARTICLE_ONLY_TYPES, "Text under an element hidden by attribute, which no reader sees; "
        "elsewhere it is as often a tab of the main text.", ROUND3, "Shipped",
    ),
    _rule(
        dialog_sections, None, "Text inside a dialog over the page (a cookie consent, a sign-up or log-in prompt), "
        "marked so by its role or aria-modal.", ROUND4, "Dialogs and interface widgets (rules after decoding)",
    ),
    _rule(
        comment_sections, ARTICLE_ONLY_TYPES, "Readers' comments under a comment, reply or discussion class or id: "
        "an article's comments are not its text.", ROUND3, "Readers' comments on articles",
    ),
    _rule(
        aside_sections, ASIDE_TYPES, "Related posts, promotions, sign-up prompts, share bars and author boxes "
        "named so in a class or id.", ROUND3, "Asides on articles (eighth session)",
    ),
    _rule(
        byline_sections, None, "Bylines and post meta lines: they belong in the metadata fields, not the text.",
        ROUND3, "Date lines before an article's text (sixteenth session)",
    ),
    _rule(
        announced_rails, ARTICLE_ONLY_TYPES, "Link rails under a heading that announces other pages (\"Related\", "
        "\"Lesen Sie auch\").", ROUND3, "Announced link rails on articles",
    ),
    _rule(
        review_sections, frozenset({"product"}), "Buyers' reviews on product pages, as comments on articles; a "
        "review site's reviews are its text.", ROUND3, "Buyers' reviews on product pages (seventh session)",
    ),
    _rule(
        carousel_sections, ASIDE_TYPES, "Carousels and sliders of other content named so in a class or id.",
        ROUND3, "Services' promotions and documentation's gaps (fourteenth session)",
    ),
    _rule(
        teaser_cards, SERVICE_TYPES, "Teaser cards of other content (insights, resources, webinars) on a service's "
        "landing page.", ROUND3, "Services' promotions and documentation's gaps (fourteenth session)",
    ),
    _rule(
        call_to_action_links, SERVICE_TYPES, "Buttons of three words or fewer (\"Get started\", \"Book a demo\") on "
        "a service's page.", ROUND3, "Services' promotions and documentation's gaps (fourteenth session)",
    ),
    _rule(
        short_labels, SERVICE_TYPES, "Labels of one or two words outside headings and links (a badge's \"New!\") on "
        "a service's page.", ROUND3, "Services' promotions and documentation's gaps (fourteenth session)",
    ),
    _rule(
        excerpt_teasers, None, "Excerpts of other posts ending with \"[…]\" after a post, with their headline "
        "links.", TRAINING, "Model page: the figures behind the rules",
    ),
    _rule(
        repeated_blocks, None, "A second copy of kept text, written for another screen size or a carousel's loop, "
        "unless both copies are items of one list or paragraphs of one passage.", TRAINING, "Repeated text",
    ),
    _rule(
        landmark_sections, None, "What is left inside the navigation, footer and complementary landmarks.", ROUND3,
        "Landmarks and text for screen readers (eleventh session)",
    ),
    _rule(
        interface_widgets, None, "Text inside an interface widget by its ARIA role (a menu, a toolbar, a tooltip, a "
        "combo box, a status line, a ticker).", ROUND4, "Dialogs and interface widgets (rules after decoding)",
    ),
    _rule(
        screen_reader_blocks, None, "Text for screen readers only and skip links.", ROUND3,
        "Landmarks and text for screen readers (eleventh session)",
    ),
    _rule(
        furniture_phrases, None, "Blocks that are an ad's label or a prompt of the interface and nothing else "
        "(\"Advertisement\", \"Back to top\").", ROUND3, "Ads' labels and the interface's prompts (sixteenth "
        "session)",
    ),
    _rule(
        outlying_link_lists, ARTICLE_ONLY_TYPES, "Lists of links outside the element that holds the text, once every "
        "other rule has shown where the text is.", ROUND3, "Code listings and lists of links beside the text "
        "(fifteenth session)",
    ),
    Rule(
        "listing_remainders", listing_remainders, ARTICLE_ONLY_TYPES, "Keeps the rest of a code listing some of "
        "whose tokens are kept: syntax highlighting splits it into blocks the model scores one by one.", ROUND3,
        "Code listings and lists of links beside the text (fifteenth session)", keeps=True,
    ),
    Rule(
        "documentation_gaps", documentation_gaps, frozenset({"documentation"}), "Keeps the blocks the model doubted "
        "between kept ones of a reference page's text, not links nor landmarks.", ROUND3, "Services' promotions and "
        "documentation's gaps (fourteenth session)", keeps=True, reads_probabilities=True,
    ),
)  # fmt: skip
#: The rules that drop blocks, by name: a model's ``config.skip_rules`` lists some of them (:func:`overruled_rules`).
RULE_NAMES = tuple(rule.name for rule in REGISTRY if not rule.keeps)
DROPPING = tuple(rule for rule in REGISTRY if not rule.keeps)
FILLS = tuple(rule for rule in REGISTRY if rule.keeps)


def check_rule_names(names: Collection[str], steps: Collection[str] = ()) -> None:
    """``ValueError`` naming the choices where ``names`` holds a name that neither a rule of :data:`REGISTRY` nor
    one of the labeller's page-level ``steps`` has."""
    unknown = set(names).difference(rule.name for rule in REGISTRY).difference(steps)
    if unknown:
        choices = ", ".join([*(rule.name for rule in REGISTRY), *steps])
        raise ValueError(f"unknown rule(s) {', '.join(sorted(unknown))}; the rules after decoding are: {choices}")


class PageTypeGuess:
    """The page's type as the rules read it: the classifier's probability for each type (``{}`` where none is
    installed), from ``classify``, called on the first read."""

    def __init__(self, classify: Callable[[], Mapping[str, float] | None]):
        self._classify = classify

    @classmethod
    def certain(cls, label: str | None) -> PageTypeGuess:
        """A page known to be of type ``label`` (``None``: of no known type)."""
        guess = cls(lambda: {label: 1.0} if label else {})
        guess.probabilities  # noqa: B018 - read now: the rules for other types then need not run
        return guess

    @functools.cached_property
    def probabilities(self) -> Mapping[str, float]:
        return dict(self._classify() or {})

    @property
    def known(self) -> bool:
        """Whether the page is classified already."""
        return "probabilities" in self.__dict__

    def share(self, types: Collection[str]) -> float:
        """The probability that the page is of one of ``types``."""
        return sum(self.probabilities.get(kind, 0.0) for kind in types)

    @property
    def label(self) -> str | None:
        """The likeliest type (the first of equals), ``None`` where there is no classifier."""
        probabilities = self.probabilities
        return max(probabilities, key=probabilities.__getitem__) if probabilities else None


#: The type the rules see where the caller gives none: no typed rule runs.
UNTYPED = PageTypeGuess.certain(None)


class Ruled(NamedTuple):
    """:func:`run_rules`' answer: the labels, and for each block the name of the last rule that changed its label,
    ``None`` where the model's label stands (an object array)."""

    labels: np.ndarray
    changed_by: np.ndarray

    def rule_names(self) -> list[str | None] | None:
        """:attr:`changed_by` as a list, ``None`` where no rule changed any block."""
        return self.changed_by.tolist() if any(self.changed_by) else None


def run_rules(
    page: Page,
    labels: np.ndarray,
    page_type: PageTypeGuess = UNTYPED,
    probabilities: np.ndarray | None = None,
    *,
    rules: Iterable[Rule] = REGISTRY,
    skipped: Collection[str] = frozenset(),
) -> Ruled:
    """``labels`` after each of ``rules`` that is not ``skipped``, in order, each on the previous one's result; a
    typed rule on pages of its types only, the page classified only where such a rule finds a block."""
    changed_by = np.full(len(labels), None, object)
    model = _ModelLabels(page, labels)
    kept = labels != 0  # of the labels as they stand: read by every rule, made again only where a rule changes them
    verdicts: dict[frozenset[str] | None, bool] = {}

    def runs_on(rule: Rule) -> bool:  # the rules share a few sets of page types: each set decided once a page
        if rule.types not in verdicts:
            verdicts[rule.types] = rule.runs_on(page_type)
        return verdicts[rule.types]

    for rule in rules:
        if rule.name in skipped or (page_type.known and not runs_on(rule)):
            continue
        found = rule.find(page, labels, probabilities) if rule.reads_probabilities else rule.find(page, labels)
        changes = found & (~kept if rule.keeps else kept)
        # count_nonzero: a C call, where ndarray.any() goes through a Python-level reduction.  An unknown page is
        # classified here, where a typed rule first finds a block.
        if not np.count_nonzero(changes) or not runs_on(rule):
            continue
        if not rule.keeps and rule.types is not None and THREADS and model.thread:
            continue  # a thread's posts are its content, whatever the page's likeliest type
        ruled = np.where(found, int(rule.keeps), labels).astype(labels.dtype)
        if not rule.keeps and not model.keeps_enough(ruled):
            continue
        labels = ruled
        kept = labels != 0
        changed_by[changes] = rule.name
    return Ruled(labels, changed_by)


class _ModelLabels:
    """What :func:`run_rules` asks of the model's own labels, each read once and only where a rule needs it."""

    def __init__(self, page: Page, labels: np.ndarray):
        self.page, self.labels = page, labels

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        return page_lengths(self.page)

    @functools.cached_property
    def kept_chars(self) -> int:
        return int(self.lengths[self.labels != 0].sum())

    @functools.cached_property
    def thread(self) -> bool:
        return thread_page(self.page, self.labels)

    def keeps_enough(self, labels: np.ndarray) -> bool:
        """Whether ``labels`` keep more than ``1 -`` :data:`MAX_DROPPED_SHARE` of the model's kept characters."""
        if MAX_DROPPED_SHARE is None:
            return True
        return int(self.lengths[labels != 0].sum()) >= (1 - MAX_DROPPED_SHARE) * self.kept_chars


def drop_after_decoding(
    page: Page, labels: np.ndarray, page_type: PageTypeGuess = UNTYPED, skipped: Collection[str] = frozenset()
) -> np.ndarray:
    """``labels`` after the rules that drop blocks (:data:`DROPPING`)."""
    return run_rules(page, labels, page_type, rules=DROPPING, skipped=skipped).labels


def fill_gaps(page: Page, labels: np.ndarray, probabilities: np.ndarray, page_type: PageTypeGuess) -> np.ndarray:
    """``labels`` after the gap fills (:data:`FILLS`)."""
    return run_rules(page, labels, page_type, probabilities, rules=FILLS).labels


def overruled_rules(
    page: Page, labels: np.ndarray, known: np.ndarray, page_type: PageTypeGuess | None = None
) -> set[str]:
    """Names of the rules that would make boilerplate of a block that ``labels`` (a person's, where ``known``) call
    content: a model tuned on such labels skips them, or the labels it learnt would not show.  With the page's
    ``page_type``, the rules as the chain runs them on this page (its type's rules only, with the guards); without
    it, every rule on any page type."""
    content = (labels != 0) & known
    if not content.any():
        return set()
    as_kept = content.astype(np.int8)
    if page_type is None:
        return {rule.name for rule in DROPPING if (rule.find(page, as_kept) & content).any()}
    ruled = run_rules(page, (labels != 0).astype(np.int8), page_type, rules=DROPPING)
    return {name for name, is_content in zip(ruled.changed_by, content) if name is not None and is_content}


#: The file docs/model.rst includes: :func:`docs_table` written out (``tests/labellers/test_rules.py`` compares).
DOCS_TABLE = "docs/rules.inc"


def docs_table() -> str:
    """The rules as docs/model.rst shows them: a reStructuredText table, one row per rule, in the order they run."""
    lines = [
        ".. list-table:: The rules after decoding, in the order they run",
        "   :header-rows: 1",
        "   :widths: 22 16 42 20",
        "",
        "   * - Rule",
        "     - Page types",
        "     - What it removes (or keeps), and why",
        "     - Measured in",
    ]
    for rule in REGISTRY:
        types = "all" if rule.types is None else ", ".join(sorted(rule.types))
        removes = f"keeps: {rule.removes}" if rule.keeps else rule.removes
        lines += [f"   * - ``{rule.name}``", f"     - {types}", f"     - {removes}"]
        lines.append(f'     - :doc:`{rule.note}`, "{rule.section}"')
    return "\n".join(lines) + "\n"
