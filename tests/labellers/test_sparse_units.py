"""A page of repeated units that the chain keeps almost nothing of is decoded again lower (``sparse_units``)."""

import dataclasses

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.labellers.web2text import resolve_model, web2text_labels
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess
from scrapy_web2text.labellers.web2text.sparse_units import LOWER_THRESHOLD, REASON, sparse_units
from scrapy_web2text.page import parse_page

MATERIALS = "Leather Canvas Suede Rubber Velvet Cotton Linen Wool Felt Cork Hemp Denim Nubuck Patent Mesh Jute".split()
KINDS = (
    "walking boot", "summer sandal", "winter slipper", "running shoe", "desert boot", "garden clog", "dress shoe",
    "trail shoe", "ankle boot", "boat shoe",
)  # fmt: skip
ITEMS = [f"{material} {kind}" for material in MATERIALS for kind in KINDS]
INTRO = (
    "Our shoes are made by hand in a small workshop in Northampton, from leather and canvas that we choose "
    "ourselves, and every pair is checked twice before it leaves us."
)


def shop_listing() -> str:
    """A shop's list of 160 items between a menu and a footer, after one sentence of introduction."""
    menu = "".join(f'<li><a href="/c/{i}">Category {name}</a></li>' for i, name in enumerate(MATERIALS[:10]))
    items = "".join(
        f'<li class="item"><a href="/p/{i}">{name}</a><span class="price">£{10 + i}.99</span></li>'
        for i, name in enumerate(ITEMS)
    )
    return (
        '<html lang="en"><head><title>Boots and shoes | Shop</title></head><body>'
        f'<header><nav class="mega-menu"><ul>{menu}</ul></nav></header>'
        f'<main><h1>Boots and shoes</h1><p>{INTRO}</p><ul class="products">{items}</ul></main>'
        '<footer><ul><li><a href="/about">About</a></li><li><a href="/returns">Returns</a></li></ul>'
        "<p>© 2026 Shop Ltd. All rights reserved.</p></footer></body></html>"
    )


@pytest.fixture(scope="module")
def strict_model():
    """The shipped model with its own threshold set where the decoding keeps the introduction alone, under 5 % of
    the page's characters, as the chain keeps the lead of a collapsed listing."""
    model = resolve_model(None)
    page = parse_page(shop_listing())
    for threshold in np.arange(0.99, 0.5, -0.01):
        if kept_texts(page, web2text_labels(page, model, threshold=threshold, rules=False).keep) == {INTRO}:
            return dataclasses.replace(model, config={**model.config, "threshold": threshold, "threshold_offsets": {}})
    raise AssertionError("no threshold keeps the introduction alone")


def kept_texts(page, keep) -> set[str]:
    return {text for text, kept in zip(page.texts, keep) if kept}


def test_a_listing_kept_in_its_introduction_only_is_decoded_again_with_its_items(strict_model):
    page = parse_page(shop_listing())
    without = web2text_labels(page, strict_model, skip_rules={REASON})
    assert kept_texts(page, without.keep) == {INTRO}
    decoded = web2text_labels(page, strict_model)
    assert decoded.guess.label == "listing"
    assert set(ITEMS) <= kept_texts(page, decoded.keep)
    reasons = {text: rule for text, rule in zip(page.texts, decoded.rules)}
    assert {reasons[item] for item in ITEMS} == {REASON}  # each block says why it is kept
    assert reasons[INTRO] is None  # the model kept it at once
    # The second decoding is the chain at the lower threshold, rules included.
    lower = web2text_labels(page, strict_model, threshold=LOWER_THRESHOLD).keep
    lowered = dataclasses.replace(strict_model, config={**strict_model.config, "threshold": LOWER_THRESHOLD})
    filled = web2text_labels(page, lowered)
    assert np.array_equal(decoded.keep, filled.keep)
    assert set(ITEMS) <= kept_texts(page, lower)


def test_only_at_the_models_own_threshold_and_with_the_rules(strict_model):
    page = parse_page(shop_listing())
    threshold = strict_model.config["threshold"]
    assert kept_texts(page, web2text_labels(page, strict_model, threshold=threshold).keep) == {INTRO}
    assert kept_texts(page, web2text_labels(page, strict_model, rules=False).keep) == {INTRO}


def test_extract_names_the_step_in_the_blocks_and_takes_it_in_skip_rules(strict_model):
    html = shop_listing()
    extraction = extract(html, model=strict_model)
    assert all(item in extraction.main_text for item in ITEMS)
    assert {block.rule for block in extraction.blocks if block.text in ITEMS} == {REASON}
    assert extract(html, model=strict_model, skip_rules={REASON}).main_text == INTRO
    with pytest.raises(ValueError, match="unknown rule.*documentation_gaps, sparse_units, second_opinion$"):
        extract(html, model=strict_model, skip_rules={"sparse_unit"})


def guess(**probabilities) -> PageTypeGuess:
    return PageTypeGuess(lambda: probabilities)


@pytest.mark.parametrize(
    ("kept", "probabilities", "expected"),
    [
        (1, {"listing": 0.6, "article": 0.1}, True),
        (1, {"collection": 0.3, "forum": 0.25, "article": 0.2}, True),  # unit types count together
        (1, {"listing": 0.6, "article": 0.35}, False),  # likely an article: its short text is usually right
        (1, {"service": 0.9}, False),
        (1, {}, False),  # no page-type classifier
        (3, {"listing": 0.9}, False),  # three blocks of 40 keep 7.5 % of the characters
    ],
)
def test_which_pages_are_decoded_again(kept, probabilities, expected):
    page = parse_page("<html><body>" + "".join(f"<p>Item number {i:03d}</p>" for i in range(40)) + "</body></html>")
    labels = np.zeros(len(page), np.int8)
    labels[:kept] = 1
    assert sparse_units(page, labels, guess(**probabilities)) is expected


def test_a_page_that_keeps_enough_is_never_classified():
    page = parse_page("<html><body><p>One paragraph of text.</p><p>Another paragraph.</p></body></html>")

    def classify():
        raise AssertionError("classified")

    assert not sparse_units(page, np.ones(len(page), np.int8), PageTypeGuess(classify))
