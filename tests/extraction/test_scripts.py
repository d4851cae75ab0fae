"""Lengths count by script: a Chinese or Japanese paragraph is many words, not one (issue 51, item 4).

The rules after decoding that count words (a service page's short labels and buttons) read
:func:`~scrapy_web2text.labellers.web2text.lengths.word_count`; the pages are given as bytes in their legacy
encodings too, each declared by a ``<meta charset>``.
"""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.labellers.web2text.lengths import word_count
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, drop_after_decoding
from scrapy_web2text.labellers.web2text.rules.promotions import call_to_action_links, short_labels
from scrapy_web2text.page import parse_page

JAPANESE = (
    "ja",
    "吾輩は猫である",
    [
        "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。",
        "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。",
    ],
)
SIMPLIFIED = (
    "zh-CN",
    "公园桃花开了",
    ["今年春天来得特别早，公园里的桃花已经开了。", "很多市民周末带着孩子去公园赏花，拍照留念。"],
)
TRADITIONAL = (
    "zh-TW",
    "公園桃花開了",
    ["今年春天來得特別早，公園裡的桃花已經開了。", "很多市民週末帶著孩子去公園賞花，拍照留念。"],
)
KOREAN = ("ko", "봄꽃 소식", ["올해 봄은 유난히 일찍 찾아왔다.", "벚꽃이 만개했습니다."])
THAI = ("th", "ดอกไม้บาน", ["ปีนี้ฤดูใบไม้ผลิมาเร็วกว่าปกติ", "สวนสาธารณะเต็มไปด้วยดอกไม้"])


def page_bytes(language: str, title: str, paragraphs: list[str], encoding: str) -> bytes:
    body = f"<h1>{title}</h1>" + "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    html = (
        f'<html lang={language}><head><meta charset="{encoding}"><title>{title}</title></head>'
        f"<body><main><article>{body}</article></main></body></html>"
    )
    return html.encode(encoding)


@pytest.mark.parametrize("encoding", ["utf-8", "shift_jis", "iso-2022-jp", "euc-jp"])
def test_the_japanese_article_keeps_every_paragraph(encoding: str) -> None:
    # The reproduction: the page is typed ``service`` and short_labels took each paragraph for a label.
    language, title, paragraphs = JAPANESE
    result = extract(page_bytes(language, title, paragraphs, encoding))
    assert result.main_text.splitlines() == [title, *paragraphs]


@pytest.mark.parametrize(
    ("sample", "encoding"),
    [
        (JAPANESE, "utf-8"),
        (JAPANESE, "shift_jis"),
        (JAPANESE, "iso-2022-jp"),
        (SIMPLIFIED, "utf-8"),
        (SIMPLIFIED, "gb18030"),
        (SIMPLIFIED, "gbk"),
        (TRADITIONAL, "utf-8"),
        (TRADITIONAL, "big5"),
        (KOREAN, "euc-kr"),
        (THAI, "tis-620"),
    ],
)
def test_a_service_pages_rules_keep_paragraphs_in_unspaced_scripts(sample, encoding: str) -> None:
    # Whatever the page-type classifier says of these pages, a service page's rules must not take a paragraph
    # for a label or a button.
    language, title, paragraphs = sample
    page = parse_page(page_bytes(language, title, paragraphs, encoding))
    assert page.texts == [title, *paragraphs]
    kept = np.ones(len(page), np.int64)
    assert not short_labels(page, kept.copy()).any()
    labels = drop_after_decoding(page, kept, PageTypeGuess.certain("service"))
    assert labels.tolist() == [1, 1, 1]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Get started now 新品!", 5),
        ("吾輩は猫である。", 7),
        ("今年春天来得特别早", 9),
        ("iPhone 15 发布会", 5),
        ("봄꽃 소식", 4),
        ("ดอกไม้บาน", 9),
        ("「広告」", 2),
    ],
)
def test_words_count_a_character_of_an_unspaced_script_as_a_word(text: str, words: int) -> None:
    assert word_count(text) == words


def test_short_labels_and_buttons_are_still_found_in_every_script() -> None:
    # "広告" (an advertisement's label) is two words; a Japanese sentence in a link is not a button.
    html = (
        "<body><main><h1>Plans</h1><p>Our service helps teams plan their work.</p><p>New!</p><p>広告</p>"
        "<a href=/s>Get started</a><a href=/a>お問い合わせはこちらからどうぞ</a></main></body>"
    )
    page = parse_page(html)
    kept = np.ones(len(page), np.int64)
    assert [page.texts[i] for i in np.flatnonzero(short_labels(page, kept.copy()))] == ["New!", "広告"]
    assert [page.texts[i] for i in np.flatnonzero(call_to_action_links(page, kept.copy()))] == ["Get started"]
