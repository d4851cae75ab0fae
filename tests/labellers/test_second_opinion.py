"""A page the chain keeps almost nothing of, where Resiliparse finds several times more text, is decoded again lower
(``second_opinion``)."""

import dataclasses

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.labellers.web2text import resolve_model, second_opinion, web2text_labels
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess
from scrapy_web2text.labellers.web2text.second_opinion import REASON, THRESHOLDS, wanted_chars
from scrapy_web2text.page import parse_page

NAMES = ["ada", "brook", "cyril", "dora", "emil", "fay", "gus", "hana", "ivo", "jun", "kit", "lea"]
SENTENCES = [
    "I tried the new gasket on the boiler last weekend and the leak stopped within an hour of filling it again.",
    "The pressure gauge now holds steady at one and a half bar, even after the heating has run all night long.",
    "If yours still drips, check the washer under the valve: mine had split along one edge and looked fine at first.",
    "A plumber told me the fitting was older than the house, so I ordered a spare one from the merchant in town.",
]


def forum_thread() -> str:
    """Twelve posts of a thread, each with its author and date, between a menu and a footer."""
    posts = "".join(
        f'<div class="post" id="p{i}"><div class="author"><a href="/u/{name}">{name}</a></div>'
        f'<div class="date">3 May 2026</div><div class="body"><p>{SENTENCES[i % 4]} {SENTENCES[(i + 1) % 4]}</p>'
        f"<p>{SENTENCES[(i + 2) % 4]}</p></div></div>"
        for i, name in enumerate(NAMES)
    )
    menu = "".join(f'<li><a href="/f/{i}">Board {i}</a></li>' for i in range(8))
    return (
        '<html lang="en"><head><title>Boiler still leaking after new gasket - Home repair forum</title></head><body>'
        f"<header><nav><ul>{menu}</ul></nav></header><main><h1>Boiler still leaking after new gasket</h1>{posts}"
        "</main><footer><p>Forum rules</p><p>© 2026 Home repair forum</p></footer></body></html>"
    )


STEPS = {REASON, "sparse_units"}


def kept_chars(page, keep) -> int:
    return sum(len(text) for text, kept in zip(page.texts, keep) if kept)


@pytest.fixture(scope="module")
def strict_model():
    """The shipped model with its own threshold set where the chain keeps some text, but under a tenth of the
    thread's characters, as it keeps a few lines of a collapsed thread."""
    model = resolve_model(None)
    page = parse_page(forum_thread())
    total = kept_chars(page, np.ones(len(page), bool))
    for threshold in np.arange(0.95, 0.5, -0.001):
        strict = dataclasses.replace(model, config={**model.config, "threshold": threshold, "threshold_offsets": {}})
        kept = kept_chars(page, web2text_labels(page, strict, skip_rules=STEPS).keep)
        if 0 < kept < second_opinion.MAX_KEPT_SHARE * total:
            return strict
    raise AssertionError("no threshold keeps under a tenth of the thread")


def test_a_thread_kept_in_a_few_lines_is_decoded_again_with_its_posts(strict_model):
    page = parse_page(forum_thread())
    without = web2text_labels(page, strict_model, skip_rules=STEPS)
    decoded = web2text_labels(page, strict_model, skip_rules={"sparse_units"})
    assert decoded.guess.probabilities["article"] < second_opinion.MAX_ARTICLE_PROBABILITY
    kept = {text for text, keep in zip(page.texts, decoded.keep) if keep}
    assert all(f"{SENTENCES[i]} {SENTENCES[(i + 1) % 4]}" in kept for i in range(4))
    assert kept_chars(page, decoded.keep) > 3 * kept_chars(page, without.keep)
    newly = decoded.keep & ~without.keep
    assert {rule for rule, new in zip(decoded.rules, newly) if new} == {REASON}  # each block says why it is kept
    # The labels are the chain's own at one of the step's thresholds, rules included.
    chains = [web2text_labels(page, strict_model, threshold=t, skip_rules=STEPS).keep for t in THRESHOLDS]
    assert any(np.array_equal(decoded.keep, chain) for chain in chains)


def test_the_step_runs_only_at_the_models_own_threshold_with_the_rules_and_unless_skipped(strict_model):
    html = forum_thread()
    page = parse_page(html)
    own = strict_model.config["threshold"]
    before = kept_chars(page, web2text_labels(page, strict_model, skip_rules=STEPS).keep)
    assert (
        kept_chars(page, web2text_labels(page, strict_model, threshold=own, skip_rules={"sparse_units"}).keep) == before
    )
    assert kept_chars(page, web2text_labels(page, strict_model, rules=False).keep) < 3 * before
    extraction = extract(html, model=strict_model, skip_rules={"sparse_units"})
    assert all(sentence in extraction.main_text for sentence in SENTENCES)
    assert REASON in {block.rule for block in extraction.blocks}
    assert 3 * len(extract(html, model=strict_model, skip_rules=STEPS).main_text) < len(extraction.main_text)


def guess(**probabilities) -> PageTypeGuess:
    return PageTypeGuess(lambda: probabilities)


LONG = " ".join(SENTENCES * 3)


@pytest.mark.parametrize(
    ("kept", "probabilities", "skipped", "expected"),
    [
        (1, {"forum": 0.6, "article": 0.3}, (), True),
        (1, {"forum": 0.1, "article": 0.85}, (), True),  # an article kept in one link, its text found elsewhere
        (1, {}, (), False),  # no page-type classifier
        (1, {"forum": 0.9}, (REASON,), False),
        (20, {"forum": 0.9}, (), False),  # the chain keeps a tenth of the page or more
    ],
)
def test_which_pages_get_a_second_opinion(kept, probabilities, skipped, expected):
    html = f"<html><body><main><h1>A thread</h1><p>{LONG}</p></main>"
    html += "".join(f"<p><a href='/{i}'>Link number {i:03d}</a></p>" for i in range(40)) + "</body></html>"
    page = parse_page(html)
    labels = np.zeros(len(page), np.int8)
    labels[-kept:] = 1  # links at the end of the page, not the long paragraph the other extractor finds
    wanted = wanted_chars(page, labels, guess(**probabilities), skipped)
    assert (wanted > 0) is expected
    if expected:
        assert wanted > second_opinion.MIN_RATIO * kept_chars(page, labels)


@pytest.mark.parametrize(
    ("kept", "total", "article", "expected"),
    [
        (500, 10_000, 0.3, second_opinion.MIN_RATIO),  # a twentieth kept, not an article
        (999, 10_000, 0.3, second_opinion.MIN_RATIO),
        (1000, 10_000, 0.3, None),  # a tenth kept
        (2999, 40_000, 0.3, second_opinion.MIN_RATIO),
        (3000, 40_000, 0.3, None),  # MAX_KEPT_CHARS kept
        (499, 10_000, 0.8, second_opinion.ARTICLE_MIN_RATIO),  # a likely article: under a twentieth only
        (500, 10_000, 0.8, None),
        (900, 10_000, 0.95, None),
        (999, 100_000, 0.95, second_opinion.ARTICLE_MIN_RATIO),
        (1000, 100_000, 0.95, None),  # ARTICLE_MAX_KEPT_CHARS kept
        (0, 0, 0.3, None),  # an empty page
    ],
)
def test_required_ratio(kept, total, article, expected):
    assert second_opinion.required_ratio(kept, total, article) == expected


def test_a_page_where_the_other_extractor_finds_little_more_stands():
    menu = "".join(f"<li><a href='/s/{i}'>Section number {i:03d}</a></li>" for i in range(200))
    page = parse_page(f"<html><body><nav><ul>{menu}</ul></nav><main><p>{SENTENCES[0]}</p></main></body></html>")
    labels = np.array([text == SENTENCES[0] for text in page.texts], np.int8)
    assert kept_chars(page, labels) < second_opinion.MAX_KEPT_SHARE * kept_chars(page, np.ones(len(page), bool))
    assert wanted_chars(page, labels, guess(forum=0.9), ()) == 0


def test_a_page_whose_chain_keeps_an_article_stands_under_a_long_comment_section():
    article = " ".join(SENTENCES * 8)  # over MAX_KEPT_CHARS, under a tenth of the page
    comments = "".join(f"<div class='comment'><p>{SENTENCES[i % 4]} {i}</p></div>" for i in range(400))
    page = parse_page(f"<html><body><article><p>{article}</p></article><section>{comments}</section></body></html>")
    labels = np.array([text == article for text in page.texts], np.int8)
    kept, total = kept_chars(page, labels), kept_chars(page, np.ones(len(page), bool))
    assert second_opinion.MAX_KEPT_CHARS <= kept < second_opinion.MAX_KEPT_SHARE * total
    assert second_opinion.other_extractor_chars(page.root) > second_opinion.MIN_RATIO * kept
    assert wanted_chars(page, labels, guess(forum=0.9), ()) == 0
    assert kept >= second_opinion.ARTICLE_MAX_KEPT_SHARE * total  # typed as an article, the chain stands as well
    assert wanted_chars(page, labels, guess(article=0.9), ()) == 0


def test_an_article_kept_in_one_line_where_the_other_extractor_finds_ten_times_more_is_read_again():
    menu = "".join(f"<li><a href='/s/{i}'>Section number {i:03d}</a></li>" for i in range(400))
    body = "".join(f"<p>{SENTENCES[i % 4]}</p>" for i in range(12))
    html = f"<html><body><nav><ul>{menu}</ul></nav><article><h1>A headline</h1>{body}</article></body></html>"
    page = parse_page(html)
    labels = np.array([text == "A headline" for text in page.texts], np.int8)
    kept, total = kept_chars(page, labels), kept_chars(page, np.ones(len(page), bool))
    assert kept < second_opinion.ARTICLE_MAX_KEPT_SHARE * total
    wanted = wanted_chars(page, labels, guess(article=0.95), ())
    assert wanted > second_opinion.ARTICLE_MIN_RATIO * kept
    # The same page keeping three paragraphs besides its headline: under ten times as much is found elsewhere.
    labels[[text == SENTENCES[0] for text in page.texts]] = 1
    assert wanted / 10 < kept_chars(page, labels) < second_opinion.ARTICLE_MAX_KEPT_SHARE * total
    assert wanted_chars(page, labels, guess(article=0.95), ()) == 0


def test_a_page_that_keeps_enough_is_never_classified_nor_read_again():
    page = parse_page("<html><body><p>One paragraph of text.</p><p>Another paragraph.</p></body></html>")

    def classify():
        raise AssertionError("classified")

    assert wanted_chars(page, np.ones(len(page), np.int8), PageTypeGuess(classify), ()) == 0


def test_without_resiliparse_or_when_it_fails_the_chain_stands(monkeypatch, caplog):
    monkeypatch.setattr(second_opinion, "_load_extractor", lambda: None)
    assert second_opinion.other_extractor_chars(parse_page(forum_thread()).root) == 0

    def broken(html, main_content):
        raise RuntimeError("odd page")

    monkeypatch.setattr(second_opinion, "_load_extractor", lambda: broken)
    assert second_opinion.other_extractor_chars(parse_page(forum_thread()).root) == 0
    monkeypatch.undo()
    assert second_opinion.other_extractor_chars(parse_page(forum_thread()).root) > 1000


@pytest.mark.parametrize(
    "html",
    [
        "<html><body>" + "<div>" * 5000 + "deep text " * 40 + "</div>" * 5000 + "</body></html>",  # flattened
        "<html><body>" + "<p>short line</p>" * (second_opinion.MAX_ELEMENTS + 10) + "</body></html>",
        "<html><body>" + "<div>" * 300 + "<p>line</p>" * 7000 + "</div>" * 300 + "</body></html>",
    ],
)
def test_a_page_too_large_for_the_other_extractor_is_not_given_to_it(html, monkeypatch):
    def never(html, main_content):
        raise AssertionError("given to resiliparse")

    root = parse_page(html).root
    assert not second_opinion.small_enough(root)
    monkeypatch.setattr(second_opinion, "_load_extractor", lambda: never)
    assert second_opinion.other_extractor_chars(root) == 0


def test_a_deep_page_under_the_bounds_is_read():
    html = "<html><body>" + "<div>" * 200 + "<p>A line of text.</p>" * 50 + "</div>" * 200 + "</body></html>"
    root = parse_page(html).root
    assert second_opinion.small_enough(root)
    assert second_opinion.other_extractor_chars(root) >= len("A line of text.") * 50
