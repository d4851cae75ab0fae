import numpy as np
import pytest

from scrapy_web2text.research.metrics import BlockCounts, TextScores, shingle_counts, word_f1


def test_block_counts_pool_over_pages():
    counts = BlockCounts()
    counts.add(np.array([1, 1, 0, 0], bool), np.array([1, 0, 1, 0], bool))
    counts.add(np.array([1], bool), np.array([1], bool))
    assert (counts.tp, counts.fp, counts.fn, counts.tn) == (2, 1, 1, 1)
    assert counts.accuracy == pytest.approx(3 / 5)
    assert counts.precision == pytest.approx(2 / 3) and counts.recall == pytest.approx(2 / 3)


def test_shingles_are_normalised_per_page():
    assert shingle_counts("a b c d e", "a b c d e") == (1.0, 0.0, 0.0)
    tp, fp, fn = shingle_counts("a b c d e f", "a b c d")
    assert (tp, fp, fn) == pytest.approx((1 / 3, 2 / 3, 0.0))
    assert sum(shingle_counts("x " * 1000, "y " * 10)) == pytest.approx(1.0)


def test_text_scores_follow_the_benchmark_conventions():
    scores = TextScores()
    scores.add("", "")  # nothing expected, nothing given: perfect
    scores.add("", "some gold text here")  # nothing given: precision 0, recall 0
    result = scores.as_dict()
    assert result["shingle_precision"] == pytest.approx(0.5)
    assert result["shingle_recall"] == pytest.approx(0.5)
    assert result["shingle_f1"] == pytest.approx(0.5)


def test_word_f1():
    assert word_f1("the cat sat", "the cat sat") == 1.0
    assert word_f1("the cat", "the cat sat down") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert word_f1("", "x") == 0.0
