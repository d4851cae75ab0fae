import itertools

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.viterbi import sequence_score, threshold_bias, viterbi


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
