import itertools

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text import caption_blocks, drop_captions
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
    after = drop_captions(page, everything)
    assert [text for text, kept in zip(page.texts, after) if kept] == [_BODY.strip(), _BODY.strip(), "cell"]
    assert everything.all()  # the input is not changed
    # A page whose kept text is mostly its captions keeps them.
    only_captions = np.array([text in ("Photo:", "Jane Doe", "/ AP") for text in page.texts], np.int64)
    assert list(drop_captions(page, only_captions)) == list(only_captions)


def test_extract_leaves_figure_captions_out_of_the_main_text():
    from scrapy_web2text import extract

    result = extract(_CAPTIONED)
    assert "Jane Doe" not in result.main_text
    assert all(not block.is_content for block in result.blocks if block.text in ("Photo:", "Jane Doe", "/ AP"))
