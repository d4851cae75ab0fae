"""Rules after decoding for page furniture: hidden text, dialogs and interface widgets, readers' comments, buyers'
reviews, landmarks, text for screen readers, and repeats inside one list."""

from __future__ import annotations

import numpy as np

from scrapy_web2text.labellers.web2text import rules
from scrapy_web2text.labellers.web2text.rules import PageTypeGuess, drop_after_decoding, kept_text
from scrapy_web2text.labellers.web2text.rules.furniture import (
    ASIDE_KEYWORD_BITS,
    aside_sections,
    comment_sections,
    dialog_sections,
    hidden_blocks,
    interface_widgets,
    landmark_sections,
    review_sections,
    screen_reader_blocks,
    under_attributes,
)
from scrapy_web2text.labellers.web2text.rules.kept_text import repeated_blocks
from scrapy_web2text.labellers.web2text.rules.vocabulary import (
    ASIDE_WORD_LIST,
    ASIDE_WORDS,
    HEADING_TAGS,
    TAXONOMY_TOKENS,
)
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.elements import keyword_mask

_STORY = [
    "The council voted on Tuesday to rebuild the old bridge over the river, after years of delay.",
    "Work starts in spring and should take two years, the mayor said, at a cost of twelve million.",
]


def _kept(page, labels):
    return [text for text, keep in zip(page.texts, labels) if keep]


def _with_hidden(hiding: str) -> str:
    story = "".join(f"<p>{line}</p>" for line in _STORY)
    return f"<html><body><article>{story}</article><div {hiding}><p>A copy no reader sees.</p></div></body></html>"


def test_kept_text_under_an_element_that_hides_itself_is_dropped():
    for hiding in ("hidden", 'aria-hidden="true"', 'style="display: none"', 'style="visibility:hidden"'):
        page = parse_page(_with_hidden(hiding))
        everything = np.ones(len(page), np.int64)
        assert list(hidden_blocks(page, everything)) == [False, False, True], hiding
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == _STORY
    # Hidden by a class only (tabs, accordions: often gold), or aria-hidden="false": not this rule's.
    for shown in ('class="hidden"', 'aria-hidden="false"', 'style="display:block"'):
        page = parse_page(_with_hidden(shown))
        assert not hidden_blocks(page, np.ones(len(page), np.int64)).any(), shown


def test_hidden_text_stays_when_it_is_most_of_what_the_page_keeps():
    page = parse_page(f"<body><div hidden><p>{_STORY[0]}</p><p>{_STORY[1]}</p></div><p>Visible line.</p></body>")
    everything = np.ones(len(page), np.int64)
    assert not hidden_blocks(page, everything).any()
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == [
        *_STORY,
        "Visible line.",
    ]


_LABEL = "Free delivery on orders over 50 euros"


def test_a_label_repeated_by_the_items_of_one_list_is_kept():
    items = "".join(f"<li><h3>Offer {n}</h3><p>{_LABEL}</p></li>" for n in range(4))
    page = parse_page(f"<body><ul class=offers>{items}</ul></body>")
    everything = np.ones(len(page), np.int64)
    assert page.texts.count(_LABEL) == 4
    assert not repeated_blocks(page, everything).any()
    assert _kept(page, drop_after_decoding(page, everything)).count(_LABEL) == 4


def test_the_same_text_in_two_lists_is_still_a_repeat():
    lists = "".join(f"<ul class=layout-{n}><li><p>{_LABEL}</p></li><li><p>Other</p></li></ul>" for n in range(2))
    page = parse_page(f"<body>{lists}</body>")
    repeats = repeated_blocks(page, np.ones(len(page), np.int64))
    assert [page.texts[i] for i in np.flatnonzero(repeats)] == [_LABEL]


def test_list_repeats_are_dropped_without_the_list_rule(monkeypatch):
    monkeypatch.setattr(kept_text, "MAX_LIST_REPEAT_CHARS", 0)
    items = "".join(f"<li><p>{_LABEL}</p><p>Item {n}</p></li>" for n in range(3))
    page = parse_page(f"<body><ul>{items}</ul></body>")
    assert repeated_blocks(page, np.ones(len(page), np.int64)).sum() == 2


def test_hidden_text_is_dropped_on_articles_only():
    page = parse_page(_with_hidden("hidden"))
    everything = np.ones(len(page), np.int64)
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == _STORY
    for other in ("product", "collection", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == [
            *_STORY,
            "A copy no reader sees.",
        ]


_COMMENTS = ["Great piece, thanks for writing it up.", "I drove over that bridge every day for twenty years."]


def _with_comments(post: list[str], container: str = '<section id="comments">') -> str:
    story = "".join(f"<p>{line}</p>" for line in post)
    replies = "".join(f'<div class="comment-body"><p>{line}</p></div>' for line in _COMMENTS)
    return f"<html><body><article>{story}</article>{container}<h3>2 comments</h3>{replies}</section></body></html>"


def test_readers_comments_are_dropped_from_articles():
    page = parse_page(_with_comments(_STORY))
    everything = np.ones(len(page), np.int64)
    assert [page.texts[i] for i in np.flatnonzero(comment_sections(page, everything))] == ["2 comments", *_COMMENTS]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("article"))) == _STORY


def test_replies_stay_on_forums_and_other_pages():
    page = parse_page(_with_comments(_STORY))
    everything = np.ones(len(page), np.int64)
    for other in ("forum", "product", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == [
            *_STORY,
            "2 comments",
            *_COMMENTS,
        ]


def test_comments_stay_where_they_are_what_the_page_has():
    # A post of a few words above its comments: less than 100 characters outside them.
    short = parse_page(_with_comments(["Bridge photos."]))
    assert not comment_sections(short, np.ones(len(short), np.int64)).any()
    # The longest kept block inside a comment container: the page is a thread.
    thread = parse_page(_with_comments(_STORY, '<section class="discussion">').replace(_COMMENTS[1], " ".join(_STORY)))
    assert not comment_sections(thread, np.ones(len(thread), np.int64)).any()
    # Only kept blocks count: a container the labelling already dropped finds nothing.
    page = parse_page(_with_comments(_STORY))
    only_story = np.array([text in _STORY for text in page.texts], np.int64)
    assert not comment_sections(page, only_story).any()


def test_comments_longer_than_the_post_go_where_the_post_has_a_paragraph_of_400_characters():
    post = [" ".join(_STORY * 3)]  # one paragraph of over 400 characters, then a reply longer still
    page = parse_page(_with_comments(post).replace(_COMMENTS[1], " ".join(_STORY * 4)))
    found = [page.texts[i] for i in np.flatnonzero(comment_sections(page, np.ones(len(page), np.int64)))]
    assert found == ["2 comments", _COMMENTS[0], " ".join(_STORY * 4)]
    # A post of shorter paragraphs under a longer reply: the page may be a thread, and keeps its replies.
    thread = parse_page(_with_comments(_STORY).replace(_COMMENTS[1], " ".join(_STORY * 4)))
    assert not comment_sections(thread, np.ones(len(thread), np.int64)).any()


def test_the_page_type_is_asked_only_when_a_rule_for_articles_finds_a_block():
    asked = []

    def page_type():
        asked.append(1)
        return "article"

    plain = parse_page("<body>" + "".join(f"<p>{line}</p>" for line in _STORY) + "</body>")
    drop_after_decoding(plain, np.ones(len(plain), np.int64), PageTypeGuess(lambda: {page_type(): 1.0}))
    assert asked == []
    both = parse_page(_with_comments(_STORY).replace("</article>", "<p hidden>A copy no reader sees.</p></article>"))
    guess = PageTypeGuess(lambda: {page_type(): 1.0})
    assert _kept(both, drop_after_decoding(both, np.ones(len(both), np.int64), guess)) == _STORY
    assert asked == [1]  # once for both rules


def test_where_the_page_type_is_known_the_rules_for_other_types_do_not_run():
    calls = []

    def services_only(page, labels):
        calls.append(1)
        return np.arange(len(page)) == len(page) - 1  # the last block: not enough for the guard against deleting

    only = (rules.Rule("services_only", services_only, frozenset({"service"}), "Everything.", rules.ROUND3, "Shipped"),)
    page = parse_page("<body>" + "".join(f"<p>{line}</p>" for line in _STORY) + "</body>")
    everything = np.ones(len(page), np.int64)
    assert (rules.run_rules(page, everything, PageTypeGuess.certain("article"), rules=only).labels == everything).all()
    assert calls == []
    # Unknown, the rule runs and its blocks go only where the type, asked then, is one of its own.
    unknown = PageTypeGuess(lambda: {"article": 0.9, "service": 0.1})
    assert (rules.run_rules(page, everything, unknown, rules=only).labels == everything).all()
    assert rules.run_rules(page, everything, PageTypeGuess.certain("service"), rules=only).labels.tolist() == [
        *[1] * (len(page) - 1),
        0,
    ]
    assert calls == [1, 1]


_PRODUCT = [
    "A shelf unit of oak veneer, 77 by 147 centimetres, that stands upright or lies on its side.",
    "Four shelves hold books, boxes or baskets; the unit is anchored to the wall with the fittings included.",
]
_REVIEWS = ["Sturdy and easy to build", "I bought five of these for the playroom and they hold everything."]


def _with_reviews(description: list[str], container: str = '<section id="customer-reviews">') -> str:
    text = "".join(f"<p>{line}</p>" for line in description)
    items = "".join(f'<li class="item"><span>{line}</span></li>' for line in _REVIEWS)
    # A rating widget inside the description, and a review container whose own class says nothing (its id does).
    stars = '<div class="product-rating"><span>4.8 out of 5</span></div>'
    return f"<html><body><main>{text}{stars}</main>{container}<h2>Reviews</h2><ul>{items}</ul></section></body></html>"


def test_buyers_reviews_and_ratings_are_dropped_from_product_pages():
    page = parse_page(_with_reviews(_PRODUCT))
    everything = np.ones(len(page), np.int64)
    found = [page.texts[i] for i in np.flatnonzero(review_sections(page, everything))]
    assert found == ["4.8 out of 5", "Reviews", *_REVIEWS]
    assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("product"))) == _PRODUCT


def test_reviews_stay_on_other_pages_and_where_they_are_what_the_page_has():
    page = parse_page(_with_reviews(_PRODUCT))
    everything = np.ones(len(page), np.int64)
    for other in ("article", "service", "collection", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == page.texts
    # A review site: the longest kept block is a review (and more than 100 characters lie outside the reviews).
    review_page = parse_page(_with_reviews(_PRODUCT).replace(_REVIEWS[1], " ".join(_PRODUCT * 2)))
    assert not review_sections(review_page, np.ones(len(review_page), np.int64)).any()
    # No class or id naming reviews or ratings: nothing is found (testimonials are not reviews).
    plain = parse_page(_with_reviews(_PRODUCT, '<section class="testimonials">').replace("product-rating", "price"))
    assert not review_sections(plain, np.ones(len(plain), np.int64)).any()


_ASIDES = {
    '<div class="jp-relatedposts"><h3>Related</h3>': ["The bridge that fell in 1962", "Ten years of roadworks"],
    '<div id="author-box">': ["Jo Smith covers the city council for the paper."],
    '<div class="sharedaddy">': ["Share this:", "Email"],
    '<div class="newsletter-signup">': ["Get the morning briefing in your inbox."],
}


def _with_asides(post: list[str], container: str = '<article class="post tag-social-media category-promo">') -> str:
    # The post's own container names a tag and a category (WordPress's classes), and its heading's id is a slug.
    story = '<h2 id="social-media-and-the-bridge">Social media and the bridge</h2>'
    story += "".join(f"<p>{line}</p>" for line in post)
    asides = "".join(start + "".join(f"<p>{line}</p>" for line in lines) + "</div>" for start, lines in _ASIDES.items())
    return f"<html><body>{container}{story}</article>{asides}</body></html>"


def test_asides_are_dropped_from_articles_but_not_tags_categories_or_headings_that_name_their_words():
    page = parse_page(_with_asides(_STORY))
    everything = np.ones(len(page), np.int64)
    found = [page.texts[i] for i in np.flatnonzero(aside_sections(page, everything))]
    assert found == ["Related", *[line for lines in _ASIDES.values() for line in lines]]
    for kind in ("article", "service"):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(kind))) == [
            "Social media and the bridge",
            *_STORY,
        ]


def test_asides_stay_on_other_pages_and_where_they_are_what_the_page_has():
    page = parse_page(_with_asides(_STORY))
    everything = np.ones(len(page), np.int64)
    for other in ("product", "collection", "forum", "listing", "documentation", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(other))) == page.texts
    # A sponsored post: the longest kept block is inside the "sponsored" container.
    sponsored = parse_page(_with_asides(_STORY, '<article class="sponsored-post">'))
    assert not aside_sections(sponsored, np.ones(len(sponsored), np.int64)).any()
    # Less than 100 characters outside the asides.
    short = parse_page(_with_asides(["Bridge photos."]))
    assert not aside_sections(short, np.ones(len(short), np.int64)).any()


def test_every_aside_word_is_a_keyword_of_the_groups_that_let_a_page_skip_the_search():
    for word in ASIDE_WORD_LIST:
        assert ASIDE_WORDS.fullmatch(word), word
        for token in (word, f"x-{word}-y", f"site{word}s"):
            assert keyword_mask(token) & ASIDE_KEYWORD_BITS, token


def test_reading_only_the_nodes_above_some_blocks_answers_the_same_for_those_blocks():
    page = parse_page(_with_asides(_STORY))
    everywhere = under_attributes(page, ASIDE_WORDS, HEADING_TAGS, TAXONOMY_TOKENS)
    for first in range(len(page)):
        among = np.zeros(len(page), bool)
        among[first::3] = True
        limited = under_attributes(page, ASIDE_WORDS, HEADING_TAGS, TAXONOMY_TOKENS, among=among)
        assert (limited[among] == everywhere[among]).all()
    assert everywhere.sum() == sum(map(len, _ASIDES.values())) + 1  # the asides and the "Related" heading


_MENU = ["New arrivals", "Best sellers", "Shoes", "Clothing", "Accessories", "Sale"]
_FOOTER = ["About us", "Careers", "Contact", "Privacy policy", "Terms of use"]


def _with_landmarks(story: list[str], menu: str = "<nav>", footer: str = "<footer>", close: str = "footer") -> str:
    links = "".join(f'<li><a href="/{i}">{line}</a></li>' for i, line in enumerate(_MENU))
    columns = "".join(f'<li><a href="/f{i}">{line}</a></li>' for i, line in enumerate(_FOOTER))
    # The menu's and the footer's closing tags follow their opening ones (a div, a nav, a footer, a role).
    menu_end = "</" + menu[1:].split()[0].rstrip(">") + ">"
    text = "".join(f"<p>{line}</p>" for line in story)
    return (
        f"<html><body>{menu}<ul>{links}</ul>{menu_end}<main>{text}"
        '<aside class="pullquote"><p>Twelve million.</p></aside></main>'
        f"{footer}<ul>{columns}</ul></{close}></body></html>"
    )


def test_navigation_footers_and_asides_are_dropped_on_every_page_type():
    page = parse_page(_with_landmarks(_STORY))
    everything = np.ones(len(page), np.int64)
    assert _kept(page, landmark_sections(page, everything)) == [*_MENU, "Twelve million.", *_FOOTER]
    for kind in ("article", "product", "service", "forum", "listing", "collection", "documentation", None):
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(kind))) == _STORY, kind


def test_landmarks_by_aria_role_and_footers_by_class_or_id_are_dropped_but_not_footnotes():
    marked = [
        ('<div role="navigation">', '<div role="contentinfo">', "div"),
        ('<div class="mega-menu" role="navigation">', '<div id="site-footer">', "div"),
        ("<nav>", '<section class="page-footer__links">', "section"),
    ]
    for menu, footer, close in marked:
        page = parse_page(_with_landmarks(_STORY, menu, footer, close))
        assert (
            _kept(page, drop_after_decoding(page, np.ones(len(page), np.int64), PageTypeGuess.certain("product")))
            == _STORY
        ), footer
    # A footnote is an article's own text: its class holds "foot", not "footer".
    notes = parse_page(_with_landmarks(_STORY, "<nav>", '<section class="footnotes">', "section"))
    assert _kept(notes, landmark_sections(notes, np.ones(len(notes), np.int64))) == [*_MENU, "Twelve million."]


def test_landmarks_stay_where_they_are_what_the_page_has():
    # The longest kept block inside a landmark: the page is its footer (a site whose text sits in one).
    inside = parse_page(_with_landmarks(["Short."], "<nav>", "<footer><p>" + " ".join(_STORY) + "</p>"))
    assert not landmark_sections(inside, np.ones(len(inside), np.int64)).any()
    # Less than 100 characters outside the landmarks.
    short = parse_page(_with_landmarks(["Our shop.", "Open daily."]))
    assert not landmark_sections(short, np.ones(len(short), np.int64)).any()
    # Blocks already dropped stay dropped, and none is added.
    page = parse_page(_with_landmarks(_STORY))
    only_story = np.array([text in _STORY for text in page.texts], np.int64)
    assert not landmark_sections(page, only_story).any()


_CONSENT = "We and our partners use cookies to recognise visitors and to measure advertising."


def _with_dialog(opening: str, story: str = "") -> str:
    story = story or "".join(f"<p>{line}</p>" for line in _STORY)
    return (
        f"<html><body><main>{story}</main><div {opening}><p>{_CONSENT}</p>"
        "<ul><li>Targeted advertising</li><li>Social media cookies</li></ul></div></body></html>"
    )


def test_kept_text_inside_a_dialog_over_the_page_is_dropped_on_every_page_type():
    for opening in ('role="dialog"', 'role="alertdialog" aria-modal="true"', 'aria-modal="true"', 'role=" Dialog "'):
        page = parse_page(_with_dialog(opening))
        everything = np.ones(len(page), np.int64)
        dialog = [_CONSENT, "Targeted advertising", "Social media cookies"]
        assert _kept(page, dialog_sections(page, everything)) == dialog
        for kind in ("article", "listing", "forum", None):
            assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(kind))) == _STORY, kind
        assert not dialog_sections(page, np.zeros(len(page), np.int64)).any()
    # Not a dialog: another role, aria-modal="false", a class that names a modal.
    for other in ('role="region"', 'aria-modal="false"', 'class="modal dialog"'):
        page = parse_page(_with_dialog(other))
        assert not dialog_sections(page, np.ones(len(page), np.int64)).any(), other


def test_a_page_whose_text_is_in_a_dialog_keeps_it():
    # The longest kept block inside the dialog (a post shown in a lightbox): the page is the dialog's.
    post = "<p>" + " ".join(_STORY * 3) + "</p>"
    page = parse_page(
        f'<html><body><p>Menu</p><div role="dialog" aria-modal="true">{post}<p>Close</p></div></body></html>'
    )
    everything = np.ones(len(page), np.int64)
    assert not dialog_sections(page, everything).any()
    # Under 100 characters kept outside it: nothing goes either.
    page = parse_page(_with_dialog('role="dialog"', story="<p>Short note.</p>"))
    assert not dialog_sections(page, np.ones(len(page), np.int64)).any()


def test_kept_text_inside_an_interface_widget_is_dropped_and_a_page_that_is_one_keeps_it():
    story = "".join(f"<p>{line}</p>" for line in _STORY)
    for role in ("menu", "menubar", "toolbar", "tooltip", "combobox", "status", "marquee"):
        widget = f'<ul role="{role}"><li>Share on Mastodon</li><li>Print this page</li></ul>'
        page = parse_page(f"<html><body><div>{story}</div>{widget}</body></html>")
        everything = np.ones(len(page), np.int64)
        assert _kept(page, interface_widgets(page, everything)) == ["Share on Mastodon", "Print this page"], role
        assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain("listing"))) == _STORY, role
    # Another role (a tab list is often the text's own headings), or the widget holding the page's longest block.
    page = parse_page(f'<html><body>{story}<ul role="tablist"><li>Specifications</li></ul></body></html>')
    assert not interface_widgets(page, np.ones(len(page), np.int64)).any()
    page = parse_page(f'<html><body><div role="menu"><p>{" ".join(_STORY * 2)}</p></div>{story}</body></html>')
    assert not interface_widgets(page, np.ones(len(page), np.int64)).any()


def test_the_dialog_and_widget_marks_leave_the_networks_inputs_as_they_were():
    from scrapy_web2text.labellers.web2text.features import page_features

    for opening in ('role="dialog"', 'aria-modal="true"', 'role="alertdialog" aria-modal="true"', 'role="menu"'):
        # The same page with attributes of the same length that mark nothing (the offsets are features too).
        # The story outside any landmark: its last paragraph and the dialog's first differ by the dialog's mark only.
        page = "".join(f"<p>{line}</p>" for line in _STORY) + f"<div {{}}><p>{_CONSENT}</p></div><p>Footer line</p>"
        plain = parse_page(page.format(opening.replace("role=", "data=").replace("aria-", "data-")))
        marked = parse_page(page.format(opening))
        everything = np.ones(len(marked), np.int64)
        assert dialog_sections(marked, everything).any() or interface_widgets(marked, everything).any()
        assert marked.texts == plain.texts
        for ours, theirs in zip(page_features(marked, extended=True), page_features(plain, extended=True)):
            assert np.array_equal(ours, theirs), opening


def _with_screen_reader_text(hiding: str) -> str:
    story = "".join(f"<p>{line}</p>" for line in _STORY)
    label = f'<form><label class="{hiding}">Quantity of the oak shelf unit</label><input></form>'
    return f'<html><body><main>{story}{label}<span id="x-{hiding}-y">Twelve million euros</span></main></body></html>'


def test_text_for_screen_readers_only_is_dropped_on_every_page_type():
    for hiding in ("sr-only", "screen-reader-text", "screenreader-only", "visually-hidden", "visuallyhidden"):
        page = parse_page(_with_screen_reader_text(hiding))
        everything = np.ones(len(page), np.int64)
        found = _kept(page, screen_reader_blocks(page, everything))
        assert found == ["Quantity of the oak shelf unit", "Twelve million euros"], hiding
        for kind in ("article", "product", "collection", None):
            assert _kept(page, drop_after_decoding(page, everything, PageTypeGuess.certain(kind))) == _STORY, (
                hiding,
                kind,
            )
    # A class that hides a tab or an accordion ("hidden", "is-hidden") is not one of them.
    for tab in ("hidden", "is-hidden", "collapse"):
        page = parse_page(_with_screen_reader_text(tab))
        assert not screen_reader_blocks(page, np.ones(len(page), np.int64)).any(), tab


def test_skip_links_are_dropped_and_links_with_other_classes_beside_hidden_stay():
    story = "".join(f"<p>{line}</p>" for line in _STORY)
    box = (
        '<div class="story-feature"><h2>The class calculator</h2>'
        '<a class="hidden" href="#go">Continue reading</a></div>'
    )
    skip = '<a class="skip-link screen" href="#main">Skip to content</a>'
    swatches = (
        '<ul><li><a class="swatch hidden" href="/red">Ruby Wine</a></li>'
        '<li><a class="hidden-xs" href="/b">Blue</a></li></ul>'
    )
    page = parse_page(f"<html><body>{skip}<article>{story}{box}{swatches}</article></body></html>")
    everything = np.ones(len(page), np.int64)
    assert _kept(page, screen_reader_blocks(page, everything)) == ["Skip to content", "Continue reading"]
    # Not a link: a paragraph styled "hidden" (a tab, an accordion) is not this rule's.
    page = parse_page(f'<html><body><article>{story}<p class="hidden">More of the story.</p></article></body></html>')
    assert not screen_reader_blocks(page, np.ones(len(page), np.int64)).any()


def test_text_for_screen_readers_stays_where_it_is_most_of_the_page():
    page = parse_page(f'<body><p class="sr-only">{" ".join(_STORY)}</p><p>A caption.</p></body>')
    assert not screen_reader_blocks(page, np.ones(len(page), np.int64)).any()
    assert not screen_reader_blocks(page, np.zeros(len(page), np.int64)).any()
