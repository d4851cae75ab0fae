"""Link rails dropped from articles (labellers/web2text/rules/rails.py): under a heading that announces other pages, and
lists of links outside the element that holds the text."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, drop_after_decoding
from scrapy_web2text.labellers.web2text.rules.rails import (
    announced_rails,
    heading_ranks,
    heading_runs,
    outlying_link_lists,
    section_ends,
)
from scrapy_web2text.page import parse_page

_STORY = [
    "The council voted on Tuesday to rebuild the old bridge over the river, after years of delay.",
    "Work starts in spring and should take two years, the mayor said, at a cost of twelve million.",
]
_TEASERS = ["The bridge that fell in 1962", "Ten years of roadworks", "A ferry for the summer"]


def _kept(page, labels):
    return [text for text, keep in zip(page.texts, labels) if keep]


def _article(
    heading: str, story: list[str] = _STORY, then: str = "<h2>Comments are closed</h2>", teasers: list[str] = _TEASERS
) -> str:
    body = "<h1>A new bridge</h1>" + "".join(f"<p>{line}</p>" for line in story)
    rail = f"<h3>{heading}</h3><ul>" + "".join(f'<li><a href="/{i}">{t}</a></li>' for i, t in enumerate(teasers))
    return f"<html><body><article>{body}<section>{rail}</ul></section>{then}</article></body></html>"


@pytest.mark.parametrize(
    "heading",
    [
        "Related stories",
        "Lesen Sie auch",
        "À lire aussi",
        "Czytaj też",
        "Leia também",
        "熱門文章",
        "関連記事",
        "관련 기사",
        "Читайте также",
    ],
)
def test_a_rail_under_a_heading_that_announces_other_pages_is_dropped_from_articles(heading):
    page = parse_page(_article(heading))
    everything = np.ones(len(page), np.int64)
    assert [page.texts[i] for i in np.flatnonzero(announced_rails(page, everything))] == [heading, *_TEASERS]
    # The section ends at the next heading of the same or a higher rank.
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == [
        "A new bridge",
        *_STORY,
        "Comments are closed",
    ]


def test_rails_stay_on_other_pages_under_other_headings_and_where_they_are_the_page():
    page = parse_page(_article("Related stories"))
    everything = np.ones(len(page), np.int64)
    for other in ("listing", "collection", "forum", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == page.texts
    plain = parse_page(_article("Timeline of the works"))
    assert not announced_rails(plain, np.ones(len(plain), np.int64)).any()
    # A long heading (here of three blocks) is a title that holds the word, not an announcement.
    title = "Related parties: <b>how the contractor's family firms</b> won every tender for the bridge since 1990"
    long_title = parse_page(_article(title))
    assert not announced_rails(long_title, np.ones(len(long_title), np.int64)).any()
    # The section holds the longest kept block (a link of 200 characters, under half of the kept text): it is the
    # article's own.
    longest = f'<a href="/full">{"The whole story of the bridge, told by the engineers who built it. " * 3}</a>'
    inside = parse_page(_article("See also", story=_STORY * 3, then=longest))
    assert not announced_rails(inside, np.ones(len(inside), np.int64)).any()
    without = parse_page(_article("See also", story=_STORY * 3, then=""))
    assert announced_rails(without, np.ones(len(without), np.int64)).any()
    # The section holds half of the kept text or more: the page is its rail.
    short = parse_page(_article("Related stories", story=_STORY[:1], then="", teasers=_TEASERS * 3))
    assert not announced_rails(short, np.ones(len(short), np.int64)).any()
    # Teasers without links: the blocks after the heading are text, not a rail.
    unlinked = parse_page(_article("Related stories").replace("<a ", "<span ").replace("</a>", "</span>"))
    assert not announced_rails(unlinked, np.ones(len(unlinked), np.int64)).any()


def test_each_heading_s_section_ends_at_the_next_heading_of_the_same_or_a_higher_rank():
    runs = [(0, 1, 2), (3, 4, 3), (6, 7, 4), (8, 9, 3), (10, 11, 2), (12, 13, 1)]
    assert section_ends(runs, 20) == [10, 8, 8, 10, 12, 20]
    assert section_ends([], 5) == []
    # Linear in the number of headings: 200,000 headings of falling then rising rank.
    many = [(i, i + 1, 1 + i % 6) for i in range(200_000)]
    ends = section_ends(many, 200_000)
    assert ends[0] == 6 and ends[5] == 6 and ends[-1] == 200_000


def test_a_heading_s_rank_is_that_of_its_nearest_heading_element_and_a_heading_of_several_blocks_is_one_run():
    page = parse_page("<body><h2><a href='/'>More <b>from</b> us</a></h2><p>Text</p><h4>Two</h4></body>")
    ranks = heading_ranks(page)
    assert ranks.tolist() == [2, 2, 2, 0, 4]
    assert heading_runs(ranks) == [(0, 3, 2), (4, 5, 4)]


_LONG_STORY = [line * 3 for line in _STORY]  # the text's element holds far more than 80 % of the kept characters


def _column(items: str, body: str = "") -> str:
    story = "".join(f"<p>{line}</p>" for line in _LONG_STORY)
    return (
        f'<html><body><div class="main"><div class="story">{story}{body}</div>'
        f'<ul class="column">{items}</ul></div></body></html>'
    )


def _links(teasers=_TEASERS) -> str:
    return "".join(f'<li><a href="/{i}"><span>{t}</span></a></li>' for i, t in enumerate(teasers))


def test_a_list_of_links_outside_the_articles_text_is_dropped_and_its_items_found_under_their_spans():
    page = parse_page(_column(_links()))
    everything = np.ones(len(page), np.int64)
    assert [page.texts[i] for i in np.flatnonzero(outlying_link_lists(page, everything))] == _TEASERS
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == _LONG_STORY
    # Other page types keep it: a listing's or a collection's items look the same.
    for other in ("listing", "collection", "service", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == [
            *_LONG_STORY,
            *_TEASERS,
        ]


@pytest.mark.parametrize(
    "items",
    [
        _links(_TEASERS[:2]),  # two links: a pair of buttons, not a rail
        "".join(f"<li>{t}, a story <a href='/'>told</a> again</li>" for t in _TEASERS),  # items that are text
        _links() + "".join(f"<li>{t} and more of it</li>" for t in _TEASERS[:2]),  # under 80 % of the items links
    ],
)
def test_lists_that_are_not_mostly_links_stay(items):
    page = parse_page(_column(items))
    assert not outlying_link_lists(page, np.ones(len(page), np.int64)).any()


def test_a_list_of_links_inside_the_text_stays():
    page = parse_page(_column("", body=f"<ul>{_links()}</ul>"))
    everything = np.ones(len(page), np.int64)
    assert not outlying_link_lists(page, everything).any()
    # Dropped items only: what the labels left out is not counted, and a page that keeps nothing has no text.
    labels = everything.copy()
    labels[[page.texts.index(t) for t in _TEASERS]] = 0
    assert not outlying_link_lists(page, labels).any()
    assert not outlying_link_lists(page, np.zeros(len(page), np.int64)).any()


def test_the_nearest_list_items_of_many_nodes_at_once_are_those_found_one_by_one():
    from scrapy_web2text.labellers.web2text.rules.rails import nearest_nodes_with
    from scrapy_web2text.labellers.web2text.tag_groups import nearest_node_with

    page = parse_page(
        "<div><ul><li><a href='/a'><span>One</span></a></li><li>Two <b>bold</b></li></ul>"
        "<p>Outside <i>any</i> list.</p><table><tr><td><ol><li><em><b><i><u>deep</u></i></b></em></li></ol></td></tr>"
        "</table></div>"
    )
    nodes = np.concatenate((page.block_nodes, np.arange(len(page.node_table)), [-1]))
    for tags, levels in ((frozenset({"li"}), 6), (frozenset({"li"}), 2), (frozenset({"ul", "table"}), 4)):
        one_by_one = [nearest_node_with(page, int(node), tags, levels) for node in nodes]
        assert nearest_nodes_with(page, nodes, tags, levels).tolist() == one_by_one
        assert set(one_by_one) != {-1}
