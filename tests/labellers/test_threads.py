"""A forum thread that the page-type classifier calls an article keeps its posts."""

from __future__ import annotations

import numpy as np
import pytest

import scrapy_web2text.labellers.web2text as web2text
from scrapy_web2text import extract
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, drop_after_decoding
from scrapy_web2text.labellers.web2text.threads import repeated_posts, thread_page
from scrapy_web2text.page import parse_page

_OPENING = (
    "My bicycle chain keeps slipping on the largest rear cog whenever I climb a steep hill, even after I cleaned "
    "and oiled it last weekend. The bike is two years old and has done about four thousand kilometres. Any ideas?"
)
_REPLIES = [
    (
        "ben",
        "Check the chain for stretch first: a worn chain slips on the cogs you use most, and the cassette may "
        "be worn as well, so measure both before you buy anything.",
    ),
    (
        "carla",
        "I had the same problem last spring and the derailleur hanger was bent. A shop straightened it in "
        "five minutes, for free, and the chain has stayed put ever since.",
    ),
    (
        "anna",
        "Thanks both! The hanger was bent indeed, probably from when the bike fell over at the station. After "
        "straightening it the chain stays put on every cog.",
    ),
]
_POST = (
    '<div class="{cls}"><span class="username">{user}</span><time datetime="2024-03-01">1 March</time>'
    "<p>{text}</p></div>"
)
THREAD = (
    "<html><head><title>Chain slips on largest cog</title></head><body><main><h1>Chain slips on largest cog</h1>"
    + _POST.format(cls="post-first", user="anna", text=_OPENING)
    + '<section class="comments">'
    + "".join(_POST.format(cls="comment", user=user, text=text) for user, text in _REPLIES)
    + "</section></main></body></html>"
)


class _Classifier:
    """A page-type classifier that calls every page an article, with the probability given."""

    reads_declared, sets_offsets = False, False

    def __init__(self, probability: float):
        self.probability = probability

    def predict(self, *args):
        return "article", self.probability

    def distribution(self, *args):
        return {"article": self.probability, "forum": 1 - self.probability}


@pytest.mark.parametrize("probability", [0.6, 0.99])
def test_a_thread_typed_article_keeps_its_posts(monkeypatch, probability):
    monkeypatch.setattr(web2text, "shipped_page_types", lambda: _Classifier(probability))
    text = extract(THREAD).main_text
    assert _OPENING in text and all(reply in text for _, reply in _REPLIES)


_STORY = "".join(
    f"<p>Paragraph {n} of the council's report on the harbour wall: the stones, the tides, the cost of the repairs "
    "and who pays for them, with the engineers' figures and the mayor's answer to the questions of the residents.</p>"
    for n in range(4)
)
ARTICLE = (
    f"<html><body><article><h1>The harbour wall</h1>{_STORY}</article><section class='comments'>"
    + "".join(_POST.format(cls="comment", user=user, text=text) for user, text in _REPLIES)
    + "</section></body></html>"
)


def test_an_articles_comments_still_go():
    page = parse_page(ARTICLE)
    everything = np.ones(len(page), np.int8)
    assert not thread_page(page, everything)  # the comments hold less than the story
    kept = drop_after_decoding(page, everything, PageTypeGuess.certain("article"))
    assert not any(reply in page.texts[i] for i in np.flatnonzero(kept) for _, reply in _REPLIES)


def test_a_thread_is_found_by_its_posts_or_by_what_it_declares():
    page = parse_page(THREAD)
    everything = np.ones(len(page), np.int8)
    assert thread_page(page, everything)
    posts = repeated_posts(page, everything)
    assert [post.get("class") for post in posts] == ["comment"] * 3
    declared = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    plain = parse_page(f"<html><head>{declared}</head><body><p>{_OPENING}</p></body></html>")
    assert thread_page(plain, np.ones(len(plain), np.int8))
    assert not thread_page(parse_page(f"<html><body><p>{_OPENING}</p></body></html>"), np.ones(1, np.int8))


@pytest.mark.parametrize(
    "html", [THREAD, "<p>one</p>", "<div><p>a<b>b</b>c</p><ul><li>d</li><li><i>e</i></li></ul></div>"]
)
def test_kept_characters_under_each_element_as_each_ancestor_walk_counts_them(html):
    from scrapy_web2text.labellers.web2text.threads import kept_under_elements

    page = parse_page(html)
    chars = np.array([len(text) for text in page.texts], np.int64)
    for kept in (list(range(len(page))), list(range(0, len(page), 2)), list(range(1, len(page), 3))):
        walked: dict = {}
        for i in kept:  # each kept block's element and its ancestors, one by one
            element = page.block_elements[i][0]
            for holder in (element, *element.iterancestors()):
                walked[holder] = walked.get(holder, 0) + int(chars[i])
        held = kept_under_elements(page, kept, chars)
        assert list(held.items()) == list(walked.items())  # the same sums, in the same order
