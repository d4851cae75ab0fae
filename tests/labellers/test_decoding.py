import itertools

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text import decode_empty_page_again
from scrapy_web2text.labellers.web2text.rules import drop_after_decoding
from scrapy_web2text.labellers.web2text.rules.kept_text import (
    MIN_REPEAT_CHARS,
    caption_blocks,
    excerpt_teasers,
    kept_captions,
    repeated_blocks,
)
from scrapy_web2text.labellers.web2text.viterbi import sequence_score, threshold_bias, viterbi
from scrapy_web2text.page import parse_page


def random_potentials(rng, n):
    unary = np.log(rng.dirichlet([1, 1], n))
    pairwise = np.log(rng.dirichlet([1, 1, 1, 1], max(n - 1, 0))).reshape(-1, 2, 2)
    return unary, pairwise


@pytest.mark.parametrize("seed", range(40))
def test_viterbi_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    unary, pairwise = random_potentials(rng, n)
    lam, threshold = float(rng.uniform(0, 3)), float(rng.uniform(0.05, 0.95))
    best = max(
        itertools.product([0, 1], repeat=n), key=lambda labels: sequence_score(labels, unary, pairwise, lam, threshold)
    )
    found = viterbi(unary, pairwise, lam, threshold)
    assert sequence_score(found, unary, pairwise, lam, threshold) == pytest.approx(
        sequence_score(best, unary, pairwise, lam, threshold)
    )


def test_without_pairwise_term_threshold_is_a_probability_cut():
    p = np.array([0.1, 0.45, 0.55, 0.7, 0.95])
    unary = np.log(np.column_stack([1 - p, p]))
    pairwise = np.zeros((4, 2, 2))
    for threshold in (0.3, 0.5, 0.6, 0.9):
        assert list(viterbi(unary, pairwise, 0.0, threshold)) == list((p > threshold).astype(int))


def test_raising_threshold_never_adds_content():
    rng = np.random.default_rng(7)
    unary, pairwise = random_potentials(rng, 200)
    kept = [int(viterbi(unary, pairwise, 0.1, t).sum()) for t in (0.2, 0.4, 0.5, 0.6, 0.8)]
    assert kept == sorted(kept, reverse=True) and kept[0] > kept[-1]


def test_pairwise_term_smooths_an_outlier():
    p = np.array([0.9, 0.9, 0.45, 0.9, 0.9])
    unary = np.log(np.column_stack([1 - p, p]))
    stay = np.log(np.array([[0.97, 0.01], [0.01, 0.01]]))  # rows: from boilerplate, from content
    stay[1, 1] = np.log(0.97)
    pairwise = np.repeat(stay[None], 4, axis=0)
    assert list(viterbi(unary, pairwise, 0.0)) == [1, 1, 0, 1, 1]
    assert list(viterbi(unary, pairwise, 1.0)) == [1, 1, 1, 1, 1]


def test_edge_cases():
    assert viterbi(np.zeros((0, 2)), np.zeros((0, 2, 2))).shape == (0,)
    assert threshold_bias(0.5) == 0
    with pytest.raises(ValueError):
        threshold_bias(1.0)


# --- the caption step after decoding -------------------------------------------------------------------------------

_BODY = "A paragraph of the article, long enough to be the page's main text. " * 3
_CAPTIONED = (
    f"<html><body><article><p>{_BODY}</p><figure><img src='a.jpg'><figcaption>Photo: <b>Jane Doe</b> / AP"
    f"</figcaption></figure><p>{_BODY}</p><table><caption>Table 1</caption><tr><td>cell</td></tr></table>"
    "</article></body></html>"
)


def test_caption_blocks_are_the_figcaption_and_table_caption_texts():
    page = parse_page(_CAPTIONED)
    marked = [text for text, caption in zip(page.texts, caption_blocks(page)) if caption]
    assert marked == ["Photo:", "Jane Doe", "/ AP", "Table 1"]
    assert not caption_blocks(parse_page(f"<p>{_BODY}</p>")).any()
    assert not caption_blocks(parse_page("")).any()


def test_kept_captions_are_dropped_unless_they_are_most_of_the_kept_text():
    page = parse_page(_CAPTIONED)
    everything = np.ones(len(page), np.int64)
    assert [text for text, caption in zip(page.texts, kept_captions(page, everything)) if caption] == [
        "Photo:",
        "Jane Doe",
        "/ AP",
        "Table 1",
    ]
    # A page whose kept text is mostly its captions keeps them.
    only_captions = np.array([text in ("Photo:", "Jane Doe", "/ AP") for text in page.texts], np.int64)
    assert not kept_captions(page, only_captions).any()


def test_extract_leaves_figure_captions_out_of_the_main_text():
    from scrapy_web2text import extract

    result = extract(_CAPTIONED)
    assert "Jane Doe" not in result.main_text
    assert all(not block.is_content for block in result.blocks if block.text in ("Photo:", "Jane Doe", "/ AP"))


# --- the excerpt-teaser step after decoding ------------------------------------------------------------------------

_POST = "The post itself, a paragraph long enough to be the text a reader came for on this page. " * 4
_EXCERPT = "The opening lines of another post on the same blog, cut short by the blog's theme [&hellip;]"


def _blog(excerpts: int, post: str = _POST) -> str:
    teasers = "".join(f"<li><a href='/post-{n}'>Another post {n}</a><p>{_EXCERPT}</p></li>" for n in range(excerpts))
    return f"<html><body><article><p>{post}</p></article><ul class='recent'>{teasers}</ul></body></html>"


def _kept(page, labels):
    return [text for text, keep in zip(page.texts, labels) if keep]


def test_excerpts_of_other_posts_after_the_post_are_dropped_with_their_headlines():
    page = parse_page(_blog(3))
    everything = np.ones(len(page), np.int64)
    assert len(page) == 7
    assert _kept(page, drop_after_decoding(page, everything)) == [_POST.strip()]
    assert everything.all()  # the input is not changed
    assert list(excerpt_teasers(page, everything)) == [False] + [True] * 6


def test_excerpts_stay_when_one_alone_or_no_post_before_them():
    # One excerpt: as often a quotation cut short.
    page = parse_page(_blog(1))
    assert not excerpt_teasers(page, np.ones(len(page), np.int64)).any()
    # A blog's front page: the excerpts are its text (no post of MIN_POST_CHARS before them).
    page = parse_page(_blog(3, post="Welcome to my blog."))
    assert not excerpt_teasers(page, np.ones(len(page), np.int64)).any()
    # Excerpts the model dropped are not counted; the headline of a dropped excerpt is left as labelled.
    page = parse_page(_blog(3))
    labels = np.array([1, 1, 1, 0, 0, 0, 0], np.int64)
    assert not excerpt_teasers(page, labels).any()
    # Only excerpts after the post (the page's longest kept block) are teasers of other posts.
    html = _blog(3)
    before = html.replace("<article><p>" + _POST + "</p></article>", "").replace("</ul>", f"</ul><p>{_POST}</p>")
    page = parse_page(before)
    assert page.texts[-1] == _POST.strip()
    assert not excerpt_teasers(page, np.ones(len(page), np.int64)).any()
    # An excerpt mark inside a paragraph, not at its end, is not one.
    page = parse_page(_blog(3).replace("[&hellip;]", "[&hellip;] and the paragraph goes on"))
    assert not excerpt_teasers(page, np.ones(len(page), np.int64)).any()


def test_extract_leaves_excerpt_teasers_out_of_the_main_text():
    from scrapy_web2text import extract

    result = extract(_blog(3))
    assert "cut short" not in result.main_text and "Another post" not in result.main_text


# --- a second copy of kept text --------------------------------------------------------------------------------

_DESCRIPTION = ["A handmade stoneware mug, glazed white with dark speckles.", "Safe in the dishwasher and microwave."]


def _shop(copies: int = 2) -> str:
    description = "".join(f"<p>{line}</p>" for line in _DESCRIPTION)
    layouts = "".join(f"<div class='description layout-{n}'>{description}</div>" for n in range(copies))
    return f"<html><body><main><h1>White speckle mug</h1><p>Price: $60.00</p>{layouts}</main></body></html>"


def test_a_second_copy_of_kept_text_under_another_parent_is_a_repeat():
    page = parse_page(_shop())
    everything = np.ones(len(page), np.int64)
    repeats = repeated_blocks(page, everything)
    assert page.texts[-4:] == _DESCRIPTION * 2
    assert list(repeats) == [False] * (len(page) - 2) + [True, True]
    assert _kept(page, drop_after_decoding(page, everything)).count(_DESCRIPTION[0]) == 1
    assert everything.all()  # the input is not changed
    one_copy = parse_page(_shop(copies=1))
    assert not repeated_blocks(one_copy, np.ones(len(one_copy), np.int64)).any()


def test_repeats_under_one_parent_short_texts_and_dropped_first_copies_stay():
    refrain = "And the river keeps on running to the sea."
    page = parse_page(f"<div><p>{refrain}</p><p>A verse between the refrains.</p><p>{refrain}</p></div>")
    assert page.texts.count(refrain) == 2
    assert not repeated_blocks(page, np.ones(len(page), np.int64)).any()
    short = "Add to cart"
    assert len(short) < MIN_REPEAT_CHARS
    page = parse_page(f"<div><p>{short}</p></div><section><p>{short}</p></section>")
    assert not repeated_blocks(page, np.ones(len(page), np.int64)).any()
    # The first copy labelled boilerplate: the second is the only kept one, not a repeat.
    page = parse_page(_shop())
    labels = np.ones(len(page), np.int64)
    labels[-4:-2] = 0
    assert not repeated_blocks(page, labels).any()
    assert not repeated_blocks(parse_page(""), np.zeros(0, np.int64)).any()


_LOREM = "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur."
_TEMPOR = "Tempor incididunt ut labore et dolore magna aliqua, quis nostrud exercitation ullamco laboris."


def _passage(second_section: str) -> str:
    return (
        "<article><h1>Lorem</h1><div><p>Lorem ipsum dolor sit amet, consectetur adipisicing elit.</p>"
        f"<p>{_LOREM}</p></div><h2>Foo</h2><div>{second_section}</div></article>"
    )


def test_a_paragraph_written_again_in_one_passage_stays():
    page = parse_page(_passage(f"<p>{_TEMPOR}</p><p>{_LOREM}</p>"))
    everything = np.ones(len(page), np.int64)
    assert page.texts.count(_LOREM) == 2
    assert not repeated_blocks(page, everything).any()
    # Each condition of one passage, broken in turn, makes the second copy a repeat again.
    alone = parse_page(_passage(f"<p>{_LOREM}</p>"))  # nothing of its own beside it
    assert repeated_blocks(alone, np.ones(len(alone), np.int64)).sum() == 1
    short = parse_page(_passage(f"<p>Tempor.</p><p>{_LOREM}</p>"))  # under MIN_OWN_CHARS of its own
    assert repeated_blocks(short, np.ones(len(short), np.int64)).sum() == 1
    other_tag = parse_page(_passage(f"<p>{_TEMPOR}</p><blockquote>{_LOREM}</blockquote>"))
    assert repeated_blocks(other_tag, np.ones(len(other_tag), np.int64)).sum() == 1
    gap = everything.copy()
    gap[page.texts.index("Foo")] = 0  # a dropped block between the copies: two runs of text
    assert repeated_blocks(page, gap).sum() == 1
    sections = (f"<p>{_LOREM}</p><p>Another paragraph.</p>", f"<p>{_TEMPOR}</p><p>{_LOREM}</p>")
    apart = parse_page("".join(f"<div><h3>Part {n}</h3><div>{body}</div></div>" for n, body in enumerate(sections)))
    copies = [i for i, text in enumerate(apart.texts) if text == _LOREM]
    assert apart.tag_paths[copies[0]] == apart.tag_paths[copies[1]]
    assert repeated_blocks(apart, np.ones(len(apart), np.int64)).sum() == 1  # their parents are not siblings


def test_extract_gives_a_text_shown_twice_once():
    from scrapy_web2text import extract

    result = extract(_shop())
    assert result.main_text.count(_DESCRIPTION[0]) == 1
    assert [block.is_content for block in result.blocks if block.text == _DESCRIPTION[1]] == [True, False]


# --- a page the model's threshold empties ----------------------------------------------------------------------


def _log_potentials(p_content):
    p = np.asarray(p_content, np.float64)
    return np.log(np.stack([1 - p, p], axis=1)), np.zeros((len(p) - 1, 2, 2))


def test_an_emptied_page_is_decoded_again_at_half_its_highest_probability():
    unary, pair = _log_potentials([0.05, 0.30, 0.32, 0.02, 0.15])
    assert not viterbi(unary, pair, 0.0, 0.45).any()
    # Half of 0.32 is 0.16: the two likeliest blocks clear it, 0.15 does not.
    assert list(decode_empty_page_again(unary, pair, 0.0, 0.45)) == [0, 1, 1, 0, 0]
    # Nothing to decode again: no blocks, or half the highest probability is not below the threshold.
    assert decode_empty_page_again(np.zeros((0, 2)), np.zeros((0, 2, 2)), 0.1, 0.45) is None
    unary, pair = _log_potentials([0.95, 0.05])
    assert decode_empty_page_again(unary, pair, 0.0, 0.45) is None
    # Every p(content) underflowing to 0 (a page of junk the model is sure of): it stays empty, no error.
    unary = np.array([[0.0, -1000.0]] * 3)
    assert float(np.exp(unary[:, 1].max())) == 0.0
    assert decode_empty_page_again(unary, np.log(np.full((2, 2, 2), 0.25)), 0.1, 0.35) is None


def test_extract_decodes_an_emptied_page_again_only_at_the_models_own_threshold():
    import copy

    from scrapy_web2text import extract
    from scrapy_web2text.labellers.web2text.network import load_model

    strict = copy.copy(load_model(None))
    strict.config = {**strict.config, "threshold": 0.999}
    html = _blog(0)
    given = extract(html, model=strict, threshold=0.999)
    assert given.main_text == "" and not given.decoded_again
    again = extract(html, model=strict)
    assert "The post itself" in again.main_text and again.decoded_again
    assert not extract(html).decoded_again  # the shipped threshold keeps the post at once
    relative = 0.5 * max(block.probability for block in again.blocks)
    assert again.main_text == extract(html, model=strict, threshold=relative).main_text
