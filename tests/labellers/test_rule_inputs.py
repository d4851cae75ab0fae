"""The per-page values the steps after the networks share (rules/inputs.py): computed once a page, never stale."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.counts import block_lengths
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, inputs, run_rules, vocabulary
from scrapy_web2text.labellers.web2text.rules.furniture import under_attributes
from scrapy_web2text.page import parse_page

HTML = (
    "<html><body><article><p>A first paragraph of text.</p>"
    "<p>A second one, longer than the first.</p></article></body></html>"
)


def test_a_value_is_computed_once_a_page():
    page, other = parse_page(HTML), parse_page(HTML)
    made = []
    for each in (page, page, other):
        inputs.page_memo(each, "test", lambda page: made.append(page) or len(made))
    assert made == [page, other]
    assert inputs.page_memo(page, "test", lambda page: -1) == 1


def test_lengths_follow_the_blocks_and_cannot_be_written():
    page = parse_page(HTML)
    lengths = inputs.page_lengths(page)
    assert lengths.tolist() == block_lengths(page.texts).tolist()
    assert inputs.page_lengths(page) is lengths
    with pytest.raises(ValueError):
        lengths[0] = 0
    page.texts = [*page.texts, "one more block"]  # blocks replaced: the old values no longer hold
    assert inputs.page_lengths(page).tolist() == block_lengths(page.texts).tolist()
    page.texts.append("and another")  # in place, one more: the length tells
    assert inputs.page_lengths(page).tolist() == block_lengths(page.texts).tolist()


def test_the_rules_read_what_the_page_declares_once(monkeypatch):
    # A forum thread declared so, whose posts an article's rules would drop: the classifier and the thread test both
    # read the declaration, which is computed once.
    posts = "".join(
        f'<div class="comment"><p>Post number {n} of the thread, with a reply of some length to read.</p></div>'
        for n in range(4)
    )
    html = (
        '<html><head><script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script></head>'
        f"<body><div><p>{'The opening post of the thread, a question of some length. ' * 3}</p>{posts}</div>"
        "</body></html>"
    )
    page = parse_page(html)
    calls = []
    real = inputs.declared_kinds
    monkeypatch.setattr(inputs, "declared_kinds", lambda page: calls.append(page) or real(page))
    labels = np.ones(len(page), np.int8)
    guess = PageTypeGuess(lambda: inputs.declared(page) and {"article": 1.0})
    ruled = run_rules(page, labels, guess)
    assert (ruled.labels == labels).all()  # a thread keeps its posts
    assert calls == [page]


def _words(parsed) -> set[str]:
    """Every string a pattern made of literals, alternatives and optional characters matches (what first_letter_
    alternation and the hand-written class/id patterns use); anything else fails the test."""
    from re import _constants as c
    from re import _parser as parser

    if isinstance(parsed, str):
        parsed = parser.parse(parsed)
    words = {""}
    for op, argument in parsed:
        if op is c.LITERAL:
            options = {chr(argument)}
        elif op is c.BRANCH:
            options = set().union(*(_words(branch) for branch in argument[1]))
        elif op is c.SUBPATTERN:
            options = _words(argument[-1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and argument[:2] == (0, 1):
            options = {""} | _words(argument[2])
        else:
            raise AssertionError(f"not a pattern of words: {op}")
        words = {word + option for word in words for option in options}
    return words


@pytest.mark.parametrize("pattern", list(vocabulary.PATTERN_WORDS), ids=lambda pattern: pattern.pattern[:20])
def test_each_class_pattern_s_words_are_the_words_it_matches(pattern):
    # The substring search stands in for the pattern where it finds none of the words: they must be its words.
    assert _words(pattern.pattern) == set(vocabulary.PATTERN_WORDS[pattern])


def test_a_page_naming_none_of_a_pattern_s_words_finds_nothing_and_one_naming_one_does():
    html = '<div class="{}"><p>{}</p></div><p>Some other text of the page, long enough.</p>'
    plain = parse_page(html.format("entry", "A slide of the show."))
    named = parse_page(html.format("my-carousel", "A slide of the show."))
    assert not inputs.names_any(plain, vocabulary.CAROUSEL_WORD_LIST)
    assert inputs.names_any(named, vocabulary.CAROUSEL_WORD_LIST)
    assert not under_attributes(plain, vocabulary.CAROUSEL_WORDS).any()
    assert under_attributes(named, vocabulary.CAROUSEL_WORDS).tolist() == [True, False]


def test_the_marks_on_a_page_are_those_of_its_blocks_together():
    from scrapy_web2text.page.marks import HIDDEN_BIT

    shown = parse_page(HTML)
    hidden = parse_page('<div hidden><p>Hidden text of the page.</p></div><nav><a href="/">Home</a></nav>' + HTML)
    for page in (shown, hidden, parse_page("")):
        tags = keywords = 0
        for tag_marks, keyword_marks in zip(page.ancestor_tags.tolist(), page.ancestor_keywords.tolist()):
            tags, keywords = tags | tag_marks, keywords | keyword_marks
        assert inputs.marks_on_page(page) == (tags, keywords)
    assert not inputs.marks_on_page(shown)[0] & HIDDEN_BIT and inputs.marks_on_page(hidden)[0] & HIDDEN_BIT
