"""The walk keeps the text a browser shows and no other (issue 53, items 7, 9 and 10; issue 51, item 5).

A declarative shadow root's ``<template>`` and the HTML inside an SVG ``<foreignObject>`` are shown, so they are
blocks; a form's long ``<select>`` list, a ``<datalist>`` and ruby annotations are not.  Inline neighbours join in the
main text as a browser shows them: with a space only where the source has white space between them.
"""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.extraction.blocks import join_main_text
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.tags import MAX_SELECT_ELEMENTS

ARTICLE = (
    "<article><h1>The harbour of Quillon</h1><p>The old harbour wall was built of granite blocks in the year of the "
    "great storm, and it still stands today.</p><p>Fishermen land their catch there every morning before dawn, "
    "and the market opens at six.</p></article>"
)


def joined(html: str) -> str:
    """Every block of the page, joined as the main text joins the kept ones."""
    page = parse_page(html)
    return join_main_text(page, np.ones(len(page), bool))


def test_a_long_select_list_leaves_the_block_budget_to_the_article() -> None:
    options = "".join(f"<option value={i}>Choice number {i}</option>" for i in range(50_000))
    html = f"<html><body><form><select name=s>{options}</select></form>{ARTICLE}</body></html>"
    page = parse_page(html)
    assert not page.truncated
    assert "Fishermen land their catch there every morning before dawn, and the market opens at six." in page.texts
    assert not any(text.startswith("Choice number") for text in page.texts)


def test_short_select_lists_stay_blocks_until_the_page_has_had_its_share() -> None:
    # The model was trained on pages whose short lists are blocks: only a list past the page's share goes.
    first = "<select>" + "<option>first</option>" * (MAX_SELECT_ELEMENTS - 10) + "</select>"
    second = "<select>" + "<option>second</option>" * 20 + "</select>"
    third = "<select><optgroup label=g><option>third</option></optgroup></select>"
    texts = parse_page(f"<body><form>{first}{second}{third}</form><p>After the form.</p></body>").texts
    assert texts.count("first") == MAX_SELECT_ELEMENTS - 10
    assert "second" not in texts and texts[-2:] == ["third", "After the form."]


def test_a_datalist_is_no_text() -> None:
    page = parse_page("<body><input list=d><datalist id=d><option>Suggested value</option></datalist><p>Kept.</p>")
    assert page.texts == ["Kept."]


@pytest.mark.parametrize("attribute", ['shadowrootmode="open"', 'shadowrootmode="closed"', 'shadowroot="open"'])
def test_a_declarative_shadow_root_is_shown_and_a_plain_template_is_not(attribute: str) -> None:
    plain = "<template><p>Row template text</p></template>"
    html = f"<html><body>{plain}<div id=host><template {attribute}>{ARTICLE}</template></div></body></html>"
    result = extract(html)
    assert "The old harbour wall was built of granite blocks" in result.main_text
    assert "Fishermen land their catch" in result.main_text
    assert "Row template text" not in parse_page(html).texts


def test_html_inside_svg_foreign_object_is_shown_and_the_drawing_is_not() -> None:
    html = (
        "<body><svg viewBox='0 0 10 10'><title>Chart</title><text x=1>axis label</text>"
        "<foreignObject width=10 height=10><div><p>A paragraph written inside the drawing.</p>"
        "<svg><text>inner label</text><foreignObject><p>Nested HTML text.</p></foreignObject></svg>"
        "</div></foreignObject>drawing text</svg>"
        "<svg><text>an icon's label</text></svg><p>After the drawing.</p></body>"
    )
    page = parse_page(html)
    assert page.texts == ["A paragraph written inside the drawing.", "Nested HTML text.", "After the drawing."]


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>It is named <b>Q</b>uil<wbr>lon.</p>", "It is named Quillon."),
        ("<p>There were seven<i>teen</i> ships.</p>", "There were seventeen ships."),
        ("<p>Along the har<a href=/h>bour</a> wall.</p>", "Along the harbour wall."),
        ("<p>An <em>e</em><small>x</small><sup>a</sup><span>m</span>ple</p>", "An example"),
        ("<h1>" + "".join(f"<span>{letter}</span>" for letter in "Seventeen") + "</h1>", "Seventeen"),
        ("<p>吾輩は<ruby>猫<rp>(</rp><rt>ねこ</rt><rp>)</rp></ruby>である</p>", "吾輩は猫である"),
        ("<p><ruby>漢<rt>kan</rt>字<rt>ji</rt></ruby>の本</p>", "漢字の本"),
        # White space in the source, or a blank text node between the elements, still makes a space.
        ("<p><b>one</b> <i>two</i>&nbsp;<a href=/>three</a>\n<span>four</span>teen</p>", "one two three fourteen"),
        ("<p>one <b>two</b><i> three</i>s</p>", "one two threes"),
        ("<p>see <a href=/>th</a>is.</p>", "see this."),
    ],
)
def test_inline_elements_join_as_a_browser_shows_them(html: str, expected: str) -> None:
    assert joined(f"<html><body>{html}</body></html>") == expected


def test_block_level_elements_still_break_lines() -> None:
    assert joined("<body><div>one</div><div>two</div><p>th<b>r</b>ee<br>four</p></body>") == "one\ntwo\nthree\nfour"


def test_inline_words_in_an_extracted_article() -> None:
    html = (
        "<html><head><title>The harbour</title></head><body><main><article><h1>"
        + "".join(f"<span>{letter}</span>" for letter in "Seventeen")
        + " ships</h1><p>The old town is named <b>Q</b>uil<wbr>lon, and its granite wall was built in the year of "
        "the great storm.</p><p>There were seven<i>teen</i> ships along the har<a href=/h>bour</a> wall that "
        "morning, and every one of them came home.</p></article></main></body></html>"
    )
    text = extract(html).main_text
    for word in ("Seventeen ships", "Quillon,", "seventeen", "harbour wall"):
        assert word in text
    assert "Q uil" not in text and "seven teen" not in text and "har bour" not in text
