"""What pages promote beside their text (carousels, teaser cards, buttons, labels), bylines, the gaps of a
documentation page and an article's code listings."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, drop_after_decoding, fill_gaps
from scrapy_web2text.labellers.web2text.rules.furniture import byline_sections
from scrapy_web2text.labellers.web2text.rules.gaps import MIN_GAP_PROBABILITY, documentation_gaps, listing_remainders
from scrapy_web2text.labellers.web2text.rules.promotions import (
    call_to_action_links,
    carousel_sections,
    short_labels,
    teaser_cards,
)
from scrapy_web2text.page import parse_page

_PITCH = [
    "Our engineers plan, build and run the data platform your analysts need, from the first workshop onwards.",
    "We have moved forty companies off their old warehouses without a day of downtime, and we can show you how.",
]
_OTHER = "Read how a regional bank cut its reporting time in half with a new data platform built in six weeks."


def _kept(page, labels):
    return [text for text, keep in zip(page.texts, labels) if keep]


def _page(extra: str) -> str:
    pitch = "".join(f"<p>{line}</p>" for line in _PITCH)
    return f"<html><body><main>{pitch}{extra}</main></body></html>"


@pytest.mark.parametrize("name", ["carousel", "swiper-wrapper", "m-insightSlider", "slick-track", "owl-stage"])
def test_a_carousel_is_dropped_from_articles_and_services_pages_and_kept_elsewhere(name):
    page = parse_page(_page(f'<div class="{name}"><p>{_OTHER}</p></div>'))
    everything = np.ones(len(page), np.int64)
    assert list(carousel_sections(page, everything)) == [False, False, True]
    for page_type in ("article", "service"):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(page_type))) == _PITCH
    for page_type in ("collection", "product", "documentation"):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(page_type))) == [*_PITCH, _OTHER]


def test_a_page_that_is_its_slideshow_keeps_it():
    slides = "".join(f'<div class="slide"><p>{line}</p></div>' for line in _PITCH)
    page = parse_page(f"<body><div class='carousel'>{slides}</div><p>Next</p></body>")
    everything = np.ones(len(page), np.int64)
    assert not carousel_sections(page, everything).any()


@pytest.mark.parametrize("name", ["insights-grid", "resource-card", "blog-teaser", "case-study", "webinar-list"])
def test_teaser_cards_of_other_content_are_dropped_from_services_pages_only(name):
    page = parse_page(_page(f'<section id="{name}"><h3>Case study</h3><p>{_OTHER}</p></section>'))
    everything = np.ones(len(page), np.int64)
    # The heading is not a card's container (its id would be a slug of its own text); the section is.
    assert list(teaser_cards(page, everything)) == [False, False, True, True]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("service"))) == _PITCH
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == [
        *_PITCH,
        "Case study",
        _OTHER,
    ]
    # A class with none of the words stays.
    page = parse_page(_page(f'<section class="pricing"><p>{_OTHER}</p></section>'))
    assert not teaser_cards(page, np.ones(len(page), np.int64)).any()


def test_buttons_are_dropped_from_services_pages_and_longer_links_stay():
    page = parse_page(_page('<a href="/demo">Book a demo</a><p><a href="/story">' + _OTHER + "</a></p>"))
    everything = np.ones(len(page), np.int64)
    assert list(call_to_action_links(page, everything)) == [False, False, True, False]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("service"))) == [*_PITCH, _OTHER]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("listing"))) == [
        *_PITCH,
        "Book a demo",
        _OTHER,
    ]
    # Only kept links count.
    assert not call_to_action_links(page, np.array([1, 1, 0, 1])).any()


def test_short_labels_are_dropped_from_services_pages_outside_headings_and_links():
    page = parse_page(_page('<span class="badge">New!</span><h2>Pricing</h2><p>100%</p><a href="/x">Docs</a>'))
    everything = np.ones(len(page), np.int64)
    assert list(short_labels(page, everything)) == [False, False, True, False, True, False]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("service"))) == [*_PITCH, "Pricing"]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("forum"))) == [
        *_PITCH,
        "New!",
        "Pricing",
        "100%",
        "Docs",
    ]


@pytest.mark.parametrize("name", ['class="byline"', 'class="entry-meta"', 'id="post-meta"', 'class="postmeta"'])
def test_bylines_and_post_metadata_leave_the_main_text_of_every_page(name):
    page = parse_page(_page(f"<p {name}>Posted by Bethonie Butler on February 14, 2013 at 12:43 pm</p>"))
    everything = np.ones(len(page), np.int64)
    assert list(byline_sections(page, everything)) == [False, False, True]
    for page_type in ("article", "forum", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(page_type))) == _PITCH
    # A heading's id is a slug of its own text; "metadata" in a class is not a post's.
    page = parse_page(_page('<h2 id="byline-conventions">Bylines</h2><p class="metadata-table">Posted by us</p>'))
    assert not byline_sections(page, np.ones(len(page), np.int64)).any()


_REFERENCE = """<html><body><nav><a href="/">Home</a><p>Version 3.14 of the library reference.</p></nav>
<div class="body"><h1>json - JSON encoder and decoder</h1>
<p>The module exposes an API familiar to users of the standard library marshal and pickle modules.</p>
<dl><dt>indent</dt><dd>If a positive integer, arrays and objects are pretty-printed with that indent level.</dd>
<dd><a href="#sort">sort_keys</a></dd></dl>
<p>Encoding basic Python object hierarchies is shown in the examples below, with the output of each one.</p>
<p>A footnote on compliance with the specification.</p></div></body></html>"""


def _reference():
    page = parse_page(_REFERENCE)
    labels = np.array([1 if "module exposes" in text or "Encoding basic" in text else 0 for text in page.texts])
    return page, labels


def test_a_documentation_page_keeps_the_doubted_blocks_between_its_kept_text():
    page, labels = _reference()
    doubted = np.full(len(page), MIN_GAP_PROBABILITY)
    texts = page.texts
    gaps = documentation_gaps(page, labels, doubted)
    # Between the first and the last kept block: the parameter's name and description, not its link.
    assert [texts[i] for i in np.flatnonzero(gaps)] == [
        "indent",
        "If a positive integer, arrays and objects are pretty-printed with that indent level.",
    ]
    filled = fill_gaps(page, labels, doubted, PageTypeGuess(lambda: {"documentation": 1.0}))
    assert _kept(page, filled) == [texts[i] for i in np.flatnonzero(gaps | (labels != 0))]
    # Below the floor, or on another page type, nothing is filled, and the type is asked only where there are gaps.
    assert not documentation_gaps(page, labels, np.full(len(page), MIN_GAP_PROBABILITY / 2)).any()
    assert (fill_gaps(page, labels, doubted, PageTypeGuess(lambda: {"article": 1.0})) == labels).all()
    # A type already known is read as it is.
    assert (fill_gaps(page, labels, doubted, PageTypeGuess.certain("documentation")) == filled).all()
    assert (fill_gaps(page, labels, doubted, PageTypeGuess.certain("article")) == labels).all()
    asked = []
    fill_gaps(page, labels, np.zeros(len(page)), PageTypeGuess(lambda: asked.append(1) or {"documentation": 1.0}))
    assert asked == []


def test_gaps_are_read_inside_the_element_that_holds_the_text_and_never_in_a_landmark():
    page, labels = _reference()
    # Keep the navigation's paragraph too: the element holding 80 % of the kept text is still the body's div, so
    # the nav's link and the blocks before the first kept one in the div are no gap.
    nav = [i for i, text in enumerate(page.texts) if text.startswith("Version")]
    labels[nav] = 1
    gaps = documentation_gaps(page, labels, np.ones(len(page)))
    assert not gaps[: nav[0] + 1].any()
    assert page.texts.index("json - JSON encoder and decoder") not in np.flatnonzero(gaps)
    assert gaps.sum() == 2


_LISTING = """<html><body><article><p>Anomaly in a data series is a significant deviation from a reasonable value.</p>
<pre><code><span class="k">SELECT</span> <span class="n">avg</span>(<span class="n">n</span>)
<span class="k">FROM</span> <span class="n">unnest</span>(<span class="k">array</span>[2, 3, 12])</code></pre>
<p>The mean is about 5.67, and the number that stands out is 12.</p>
<pre><span>pip</span> <span>install</span> <span>anomalies</span></pre>
<div><pre><pre><span>nested</span> <span>listing</span></pre> <span>tail</span></pre></div></article></body></html>"""


def _listing():
    page = parse_page(_LISTING)
    tokens = [i for i, path in enumerate(page.tag_paths) if "pre" in path]
    return page, tokens


def test_an_articles_code_listing_kept_in_part_is_kept_whole():
    page, tokens = _listing()
    texts = page.texts
    labels = np.array([0 if "pre" in path else 1 for path in page.tag_paths])
    labels[texts.index("SELECT")] = 1  # one token of the first listing, and the nested listing's first
    labels[texts.index("nested")] = 1
    rest = listing_remainders(page, labels)
    first = [i for i in tokens if i < texts.index("The mean is about 5.67, and the number that stands out is 12.")]
    second = [texts.index(word) for word in ("pip", "install", "anomalies")]
    # The first listing's other tokens and the outer listing around the nested one; the untouched listing stays out.
    assert set(np.flatnonzero(rest)) == (set(first) | {texts.index("listing"), texts.index("tail")}) - {
        texts.index("SELECT"),
        texts.index("nested"),
    }
    assert not rest[second].any()
    filled = fill_gaps(page, labels, np.zeros(len(page)), PageTypeGuess(lambda: {"article": 1.0}))
    assert (filled == (labels.astype(bool) | rest)).all()
    # Other page types keep their listings as labelled, and the type is asked only where a listing is touched.
    assert (fill_gaps(page, labels, np.zeros(len(page)), PageTypeGuess(lambda: {"service": 1.0})) == labels).all()
    assert (fill_gaps(page, labels, np.zeros(len(page)), PageTypeGuess.certain("article")) == filled).all()
    assert (fill_gaps(page, labels, np.zeros(len(page)), PageTypeGuess.certain("service")) == labels).all()
    asked = []
    untouched = np.array([0 if "pre" in path else 1 for path in page.tag_paths])
    fill_gaps(page, untouched, np.zeros(len(page)), PageTypeGuess(lambda: asked.append(1) or {"article": 1.0}))
    assert asked == []


def test_short_fragments_and_links_inside_a_sentence_are_neither_labels_nor_buttons():
    # A reference page typed as a service: inline code and links split its sentences into short blocks.
    sentence = (
        '<p>Three-letter <code>ISO</code> code, in <b>lowercase</b>. Must be a <a href="/currencies">supported '
        "currency</a>.</p>"
    )
    buttons = '<p><a href="/demo">Book a demo</a> <a href="/sales">Contact sales</a></p>'
    page = parse_page(_page(sentence + buttons + "<div>New!</div>"))
    fragments = ["Three-letter", "ISO", "code, in", "lowercase", ". Must be a", "supported currency", "."]
    assert [text for text in page.texts if text not in _PITCH][: len(fragments)] == fragments
    everything = np.ones(len(page), np.int64)
    kept = _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("service")))
    assert kept == [*_PITCH, *fragments]  # the row of buttons and the badge on its own line go
