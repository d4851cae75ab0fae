"""Blocks that are an ad's label or a prompt of the interface, and nothing else, leave the main text."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.rules import RULE_NAMES, PageTypeGuess, drop_after_decoding
from scrapy_web2text.labellers.web2text.rules.phrases import furniture_phrases
from scrapy_web2text.labellers.web2text.rules.vocabulary import AD_LABELS, INTERFACE_PROMPTS
from scrapy_web2text.page import parse_page

STORY = "<p>{}</p>".format("The council voted on Tuesday to extend the tram line to the harbour district. " * 3)


def dropped(html: str, kept: list[int] | None = None) -> list[str]:
    page = parse_page(html)
    labels = np.ones(len(page), np.int8)
    if kept is not None:
        labels[:] = 0
        labels[kept] = 1
    return [page.texts[i] for i in np.flatnonzero(furniture_phrases(page, labels))]


@pytest.mark.parametrize(
    "label",
    ["Advertisement", "ADVERTISEMENT", "Advertisement:", "- Anzeige -", "Reklama", "Publicité", "广告", "広告",
     "Story continues below advertisement", "Story continues  below\u00a0\u2014 advertisement", "Back to top ↑",
     "Click to expand...", "Nach oben", "Powrót do góry"],
)  # fmt: skip
def test_a_label_or_a_prompt_alone_is_dropped_in_any_case_and_punctuation(label):
    assert dropped(f"{STORY}<div><span>{label}</span></div>{STORY}") == [" ".join(label.split())]


@pytest.mark.parametrize(
    "text",
    ["Advertising", "Advertisement rates for 2024", "Our advertisement ran in May.", "Top", "Read more",
     "Anzeigenmarkt", "Reklamacja"],
)  # fmt: skip
def test_a_block_that_is_more_or_less_than_a_phrase_stays(text):
    assert dropped(f"{STORY}<ul><li>{text}</li><li>Print design</li></ul>{STORY}") == []


def test_only_kept_blocks_are_read_and_several_labels_on_a_page_all_go():
    html = f"{STORY}<p>Advertisement</p>{STORY}<p>Advertisement</p><p>Back to top</p>"
    page = parse_page(html)
    assert page.texts.count("Advertisement") == 2
    assert dropped(html) == ["Advertisement", "Advertisement", "Back to top"]
    assert dropped(html, kept=[0, 2]) == []  # the labels were not kept: nothing to drop
    assert dropped(html, kept=[3]) == ["Advertisement"]


def test_the_rule_runs_after_decoding_on_every_page_type():
    page = parse_page(f"{STORY}<p>Anzeige</p>{STORY}")
    labels = np.ones(len(page), np.int8)
    assert "furniture_phrases" in RULE_NAMES
    for page_type in ("article", "forum", "listing", "product", None):
        out = drop_after_decoding(page, labels, PageTypeGuess.certain(page_type))
        assert out.tolist() == [1, 0, 1], page_type


def test_every_phrase_is_lower_case_and_found():
    phrases = AD_LABELS + INTERFACE_PROMPTS
    assert len(set(phrases)) == len(phrases) and all(phrase == phrase.lower() for phrase in phrases)
    html = "".join(f"<p>{phrase}</p>" for phrase in phrases)
    assert dropped(html) == list(phrases)
