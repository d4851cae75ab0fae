"""Distillation: a student trained on its teachers' mean probabilities mixed with the gold labels."""

import numpy as np
import pytest

from scrapy_web2text.research.corpus import load_split

from ..helpers import corpus_file

torch = pytest.importorskip("torch", reason="training needs the 'train' extra")  # CI installs it


@pytest.fixture(scope="module")
def pages():
    path = corpus_file("cleaneval")
    return load_split(path, "train", limit=8, workers=1), load_split(path, "validation", limit=3, workers=1)


@pytest.fixture(scope="module")
def teachers(pages):
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    return [train(train_pages, validation_pages, "paper", iterations=20, seed=seed, threads=1) for seed in (0, 1)]


def test_targets_mix_the_teachers_mean_with_the_gold_labels(pages, teachers):
    from scrapy_web2text.research.train.distillation import soft_targets
    from scrapy_web2text.research.train.selection import page_potentials

    train_pages, _ = pages
    labels = [page.labels for page in train_pages]
    unary, pairwise = soft_targets(teachers, train_pages, labels, 0.25)
    page, label = train_pages[0], labels[0].astype(int)
    mean_unary = np.mean([np.exp(page_potentials(t, [page])[0][0]) for t in teachers], axis=0)
    mean_pair = np.mean([np.exp(page_potentials(t, [page])[0][1]).reshape(-1, 4) for t in teachers], axis=0)
    np.testing.assert_allclose(unary[0], 0.25 * mean_unary + 0.75 * np.eye(2)[label], atol=1e-6)
    # Transitions in the order of the pairwise labels: 2 * previous + next.
    np.testing.assert_allclose(pairwise[0], 0.25 * mean_pair + 0.75 * np.eye(4)[2 * label[:-1] + label[1:]], atol=1e-6)
    for targets in unary + pairwise:
        assert targets.dtype == np.float32
        np.testing.assert_allclose(targets.sum(axis=1), 1.0, atol=1e-6)


def test_targets_refuse_no_teachers_and_weights_outside_zero_to_one(pages, teachers):
    from scrapy_web2text.research.train.distillation import soft_targets

    train_pages, _ = pages
    labels = [page.labels for page in train_pages]
    with pytest.raises(ValueError, match="at least one teacher"):
        soft_targets([], train_pages, labels, 0.5)
    with pytest.raises(ValueError, match="teacher_weight"):
        soft_targets(teachers, train_pages, labels, 1.5)


def test_a_student_on_gold_alone_trains_as_a_plain_model_of_its_seed_and_the_teachers_move_it(pages, teachers):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    plain = train(train_pages, validation_pages, "paper", iterations=20, seed=2, threads=1)
    # Two teachers: the student's seed is the command's seed + 2.
    on_gold = {**CONFIGS["paper"], "teachers": 2, "teacher_weight": 0.0}
    gold_student = train(train_pages, validation_pages, on_gold, iterations=20, seed=0, threads=1, teachers=teachers)
    for (mine, _), (theirs, _) in zip(gold_student.unary, plain.unary):
        np.testing.assert_allclose(mine, theirs, atol=1e-5)
    taught = {**on_gold, "teacher_weight": 1.0}
    student = train(train_pages, validation_pages, taught, iterations=20, seed=0, threads=1, teachers=teachers)
    assert not np.allclose(student.unary[-1][0], plain.unary[-1][0], atol=1e-5)
    assert student.metadata["seed"] == 0 and student.metadata["teachers"] == [0, 1]


def test_a_distilled_recipe_trains_its_own_teachers_with_the_seeds_before_the_students(pages, teachers):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    recipe = {**CONFIGS["paper"], "teachers": 2, "teacher_weight": 0.5}
    own = train(train_pages, validation_pages, recipe, iterations=20, seed=0, threads=1)
    given = train(train_pages, validation_pages, recipe, iterations=20, seed=0, threads=1, teachers=teachers)
    assert own.metadata["teachers"] == [0, 1]
    for (mine, _), (theirs, _) in zip(own.unary, given.unary):
        np.testing.assert_array_equal(mine, theirs)
