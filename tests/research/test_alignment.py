import numpy as np

from scrapy_web2text.page import parse_page
from scrapy_web2text.research.alignment import align_labels, align_text

from ..helpers import fixture_text


def test_fixture_article_labels_match_the_gold():
    page = parse_page(fixture_text("article.html"))
    labels, report = align_labels(page, fixture_text("article.txt"))
    content = {text for text, label in zip(page.texts, labels) if label}
    assert "River towns rebuild after the flood" in content
    assert "Bridge Street" in content
    assert not content & {"News", "Sport", "Most read", "Comments", "Accept", "Contact"}
    assert report.coverage > 0.97 and report.purity > 0.97


def test_repeated_text_is_placed_by_its_unique_neighbours():
    # "Read more" occurs three times; only the one inside the gold paragraph
    # may be labelled content.
    html = (
        "<body><p>Read more</p><p>The committee approved the budget on Monday after a long debate.</p>"
        "<p>Read more</p><p>Members will vote again on the final figures in April next year.</p><p>Read more</p></body>"
    )
    gold = (
        "The committee approved the budget on Monday after a long debate.\n"
        "Read more\nMembers will vote again on the final figures in April next year."
    )
    labels, _ = align_labels(parse_page(html), gold)
    assert list(labels) == [False, True, True, True, False]


def test_two_thirds_rule():
    html = "<body><p>alpha beta gamma delta epsilon zeta</p><p>one two three four five six seven</p></body>"
    page = parse_page(html)
    mostly = "alpha beta gamma delta epsilon"  # 25 of 31 letters: kept
    partly = "one two three"  # 11 of 29 letters: dropped
    labels, _ = align_labels(page, f"{mostly}\n{partly}")
    assert list(labels) == [True, False]


def test_small_differences_are_aligned_by_dynamic_programming():
    page_text = "the quick brown fox jumps over the lazy dog"
    gold = "the quick brown fox jumped over the lazy dog"
    matched = align_text(page_text, gold)
    assert matched.mean() > 0.9


def test_no_gold_means_no_content():
    labels, report = align_labels(parse_page("<p>some text here</p><p>more text</p>"), "")
    assert not labels.any() and report.coverage == 1.0


def test_report_counts():
    page = parse_page("<body><p>keep this sentence here</p><p>drop that</p></body>")
    labels, report = align_labels(page, "keep this sentence here\nsomething missing from the page")
    assert list(labels) == [True, False]
    assert report.purity == 1.0
    assert np.isclose(
        report.coverage, len("keepthissentencehere") / len("keepthissentenceheresomethingmissingfromthepage")
    )
