"""``web2text train --init``'s check: the tuned model is kept only where it helps on pages (or, with one page,
blocks) it was not tuned on; otherwise the initial model is written, unchanged, and the user is told."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from scrapy_web2text.cli import main
from scrapy_web2text.labellers.web2text.network import Web2TextModel, load_model
from scrapy_web2text.research.train import holdout
from scrapy_web2text.research.train.holdout import Check, HeldOutScore, folds
from scrapy_web2text.research.train.tuning import SITE_GATE, read_labelled_pages

from .test_tuning import corrected  # noqa: F401 - the fixture: one article page with its navigation relabelled

pytest.importorskip("torch")


def test_the_tuned_model_is_kept_only_where_it_is_better_on_average_and_worse_on_no_left_out_page():
    def check(*pairs):
        return Check("pages left out in turn", [HeldOutScore(str(n), *pair) for n, pair in enumerate(pairs)])

    assert check((0.8, 0.9), (0.7, 0.7)).helps
    assert not check((0.8, 0.95), (0.7, 0.69)).helps  # one page worse, however much the other gains
    assert not check((0.8, 0.8), (0.7, 0.7)).helps  # no gain: nothing to justify a new model
    found = check((0.8, 0.9), (0.6, 0.5))
    assert found.card()["kept"] == "initial" and found.card()["word_f1"] == {"initial": 0.7, "tuned": 0.7}
    assert "the initial model is kept" in found.describe()


def test_pages_are_left_out_in_turn_and_one_page_is_split_in_halves(corrected):  # noqa: F811
    (page,) = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    second = dataclasses.replace(page, source="other.html")
    how, pairs = folds([page, second])
    assert how == "pages left out in turn"
    assert [([p.source for p in on], [p.source for p in off]) for on, off in pairs] == [
        (["other.html"], [page.source]),
        ([page.source], ["other.html"]),
    ]
    how, pairs = folds([page])
    assert how == "halves of the one page"
    (first, second_half), (again_second, again_first) = [(on[0], off[0]) for on, off in pairs]
    assert not (first.known & second_half.known).any()  # tuned on one half, scored on the other
    assert ((first.known | second_half.known) == page.known).all()
    assert first.known.sum() > 0 and second_half.known.sum() > 0
    assert again_first is first and again_second is second_half


def test_the_check_scores_a_page_as_extract_labels_it_on_its_labelled_blocks(corrected):  # noqa: F811
    (page,) = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    model = load_model()
    assert holdout.score(model, page) < 0.99  # the labels keep the navigation that extract() drops
    agreeing = dataclasses.replace(page, labels=np.array([b.is_content for b in corrected["result"].blocks]))
    assert holdout.score(model, agreeing) == pytest.approx(1.0)
    # only the labelled blocks count: with the navigation's blocks unlabelled, the labels agree again
    known = np.ones(len(page.known), bool)
    known[list(corrected["flip"])] = False
    assert holdout.score(model, dataclasses.replace(page, known=known)) == pytest.approx(1.0)


def test_train_init_prints_the_check_and_writes_the_initial_model_where_tuning_does_not_help(
    corrected,  # noqa: F811
    tmp_path,
    capsys,
    monkeypatch,
):
    arguments = ["train", "--init", "default", "--pages", str(corrected["pages"]), "--labels", str(corrected["labels"])]
    settings = ["--iterations", "20", "--mix", "0", "--threads", "1"]
    real_score = holdout.score
    # Tuning that helps on the held-out half: the tuned model is written, its card holds the check.
    monkeypatch.setattr(holdout, "score", lambda model, page: real_score(model, page) + ("tuned" in model.name))
    assert main([*arguments, "-o", str(tmp_path / "tuned"), *settings]) == 0
    out = capsys.readouterr().out
    assert "check (halves of the one page)" in out and "the tuned model is kept" in out
    decision = json.loads((tmp_path / "tuned.json").read_text())["fine_tuned"]["check"]
    assert decision["how"] == "halves of the one page" and decision["kept"] == "tuned"
    assert len(decision["held_out"]) == 2
    # the recipe's defaults are the command's: the site gate on, the initial model inside as the fallback
    tuned = Web2TextModel.load(tmp_path / "tuned.npz")
    assert tuned.metadata["fine_tuned"]["settings"]["site_gate"] == SITE_GATE == tuned.config["site_gate"]["min_share"]
    assert tuned.fallback is not None and tuned.fallback.config == load_model().config
    # Tuning that makes the held-out blocks worse: the initial model is written, and the user is told.
    monkeypatch.setattr(holdout, "score", lambda model, page: real_score(model, page) - ("tuned" in model.name))
    assert main([*arguments, "-o", str(tmp_path / "declined"), *settings]) == 0
    out = capsys.readouterr().out
    assert "tuning did not help there: the initial model is kept" in out and "default kept (tuning declined)" in out
    written, base = Web2TextModel.load(tmp_path / "declined.npz"), load_model()
    assert written.name == "default" and written.config == base.config
    assert all(np.array_equal(a, b) for a, b in zip(written.unary[0], base.unary[0]))
    assert written.metadata["fine_tuning_declined"]["check"]["kept"] == "initial"
