"""The page-type classifier: its page summary, its fit, and the checks its model files pass on load."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text.feature_names import BLOCK_FEATURES
from scrapy_web2text.labellers.web2text.page_types import (
    BLOCK_SUMMARY_NAMES,
    DECLARED_NAMES,
    PAGE_TYPES,
    SUMMARY_NAMES,
    PageTypeError,
    PageTypeModel,
    declared_columns,
    page_summary,
)
from scrapy_web2text.page.declared import Declared
from scrapy_web2text.research.train.page_types import confusion, fit


def test_the_summary_averages_blocks_and_characters_and_ignores_extended_columns():
    block_x = np.zeros((2, len(BLOCK_FEATURES) + 13), np.float32)
    block_x[:, 0] = [1.0, 3.0]
    block_x[:, -1] = 99.0  # an extended column: not summarised
    summary = page_summary(block_x, np.array([10, 30]))
    assert summary.shape == (len(SUMMARY_NAMES),)
    assert summary[0] == pytest.approx(2.0)  # mean over blocks
    assert summary[len(BLOCK_FEATURES)] == pytest.approx((10 * 1 + 30 * 3) / 40)  # mean over characters
    sizes = summary[2 * len(BLOCK_FEATURES) : len(BLOCK_SUMMARY_NAMES)]
    assert sizes == pytest.approx([np.log1p(2), np.log1p(40)])
    assert 99.0 not in summary
    empty = page_summary(np.zeros((0, len(BLOCK_FEATURES))), np.zeros(0))
    assert not empty[: len(BLOCK_SUMMARY_NAMES)].any()
    assert np.array_equal(empty[len(BLOCK_SUMMARY_NAMES) :], declared_columns(Declared()))


def _column(name: str, declared: Declared) -> float:
    return declared_columns(declared)[DECLARED_NAMES.index(name)]


@pytest.mark.parametrize(
    "declared, set_columns",
    [
        (Declared(), {"og_none", "articles_none"}),
        (
            Declared("article", frozenset({"NewsArticle", "Person"}), 1),
            {"og_article", "schema_article", "articles_one"},
        ),
        (Declared("product.group", frozenset({"Product"}), 0), {"og_product", "schema_product", "articles_none"}),
        (Declared("ebay-objects:item", frozenset(), 2), {"og_product", "articles_many"}),
        (
            Declared("video.other", frozenset({"QAPage", "FAQPage"}), 0),
            {"og_other", "schema_discussion", "schema_faq", "articles_none"},
        ),
    ],
)
def test_what_a_page_declares_becomes_0_1_columns(declared, set_columns):
    assert {name for name in DECLARED_NAMES if _column(name, declared)} == set_columns
    summary = page_summary(np.ones((3, len(BLOCK_FEATURES))), np.array([1, 2, 3]), declared)
    assert np.array_equal(summary[len(BLOCK_SUMMARY_NAMES) :], declared_columns(declared))


def _separable(rng: np.random.Generator, per_class: int = 40) -> tuple[np.ndarray, np.ndarray]:
    labels = np.repeat(np.arange(len(PAGE_TYPES)), per_class)
    x = rng.normal(size=(len(labels), len(SUMMARY_NAMES)))
    x[np.arange(len(labels)), labels] += 4.0  # each type has its own telling column
    return x, labels


def test_the_fit_learns_separable_types_and_is_deterministic():
    x, y = _separable(np.random.default_rng(0))
    model = fit(x, y)
    matrix = confusion(model, x, y)
    assert np.trace(matrix) / matrix.sum() > 0.95
    assert np.array_equal(fit(x, y).weights, model.weights)
    label, probability = model.predict(np.zeros((0, len(BLOCK_FEATURES))), np.zeros(0))
    assert label in PAGE_TYPES and 0 < probability <= 1


def test_a_saved_model_loads_with_the_same_probabilities(tmp_path):
    x, y = _separable(np.random.default_rng(1))
    model = fit(x, y)
    written = model.save(tmp_path / "types-0.5")
    assert written == tmp_path / "types-0.5.npz" and (tmp_path / "types-0.5.json").is_file()
    loaded = PageTypeModel.load(tmp_path / "types-0.5")
    assert loaded.labels == PAGE_TYPES
    assert np.allclose(loaded.probabilities(x), model.probabilities(x))


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda meta, arrays: meta.update(format="something-else"), "not a page-type model"),
        (lambda meta, arrays: meta.update(features=["other"]), "other page features"),
        (lambda meta, arrays: meta.update(labels="article"), "labels must be a list"),
        (lambda meta, arrays: meta.update(labels=["article"] * len(PAGE_TYPES)), "distinct"),
        (lambda meta, arrays: arrays.update(bias=np.zeros(3)), "bias has shape"),
        (lambda meta, arrays: arrays["weights"].__setitem__((0, 0), np.nan), "non-finite"),
        (lambda meta, arrays: arrays.update(scale=np.zeros_like(arrays["scale"])), "scale must be positive"),
        (lambda meta, arrays: arrays.pop("mean"), "lacks"),
    ],
)
def test_a_corrupt_model_file_is_refused(tmp_path, corrupt, message):
    x, y = _separable(np.random.default_rng(2), per_class=10)
    fit(x, y).save(tmp_path / "types")
    meta = json.loads((tmp_path / "types.json").read_text())
    with np.load(tmp_path / "types.npz") as stored:
        arrays = {key: stored[key].copy() for key in stored.files}
    corrupt(meta, arrays)
    (tmp_path / "types.json").write_text(json.dumps(meta))
    np.savez(tmp_path / "types.npz", **arrays)
    with pytest.raises(PageTypeError, match=message):
        PageTypeModel.load(tmp_path / "types")


def test_a_version_1_file_reads_the_block_summary_alone(tmp_path):
    x, y = _separable(np.random.default_rng(3))
    block_only = fit(x[:, : len(BLOCK_SUMMARY_NAMES)], y)
    assert not block_only.reads_declared and block_only.feature_names == BLOCK_SUMMARY_NAMES
    block_only.save(tmp_path / "old")
    meta = json.loads((tmp_path / "old.json").read_text())
    assert meta["version"] == 1 and meta["features"] == list(BLOCK_SUMMARY_NAMES)
    loaded = PageTypeModel.load(tmp_path / "old")
    # Given whole summaries, it reads their block columns only.
    assert np.allclose(loaded.probabilities(x), block_only.probabilities(x[:, : len(BLOCK_SUMMARY_NAMES)]))
    meta["features"] = list(SUMMARY_NAMES)  # a version 1 file that claims the declared columns
    (tmp_path / "old.json").write_text(json.dumps(meta))
    with pytest.raises(PageTypeError, match="other page features"):
        PageTypeModel.load(tmp_path / "old")
    full = fit(x, y)
    assert full.reads_declared
    full.save(tmp_path / "new")
    assert json.loads((tmp_path / "new.json").read_text())["version"] == 2


def test_the_shipped_classifier_reads_what_the_page_declares(monkeypatch):
    from scrapy_web2text import extract
    from scrapy_web2text.labellers.web2text.page_types import shipped_page_types
    from scrapy_web2text.labellers.web2text.rules import inputs

    assert shipped_page_types().reads_declared
    seen = []
    monkeypatch.setattr(inputs, "declared_kinds", lambda page: seen.append(page) or Declared("product"))
    story = "".join(f"<p>Paragraph {n} of the story, with words, commas and a full stop.</p>" for n in range(8))
    result = extract(f"<html><body><article>{story}</article></body></html>")
    assert result.page_type is not None and len(seen) == 1 and seen[0].root is not None


def test_an_unreadable_description_is_refused(tmp_path):
    (tmp_path / "types.json").write_text("{not json")
    with pytest.raises(PageTypeError, match="cannot read"):
        PageTypeModel.load(tmp_path / "types")


def test_extract_tells_the_page_type_with_the_shipped_classifier():
    from scrapy_web2text import extract
    from scrapy_web2text.labellers.base import PageType

    paragraphs = "".join(f"<p>Paragraph {n} of the story, with words, commas and a full stop.</p>" for n in range(8))
    result = extract(f"<html><body><nav><a href=/>Home</a></nav><article>{paragraphs}</article></body></html>")
    assert isinstance(result.page_type, PageType)
    assert result.page_type.label in PAGE_TYPES and 0 < result.page_type.probability <= 1
    assert extract("<p>Some text here.</p>", method="boilerpipe-article").page_type is None


def test_the_page_is_classified_once_and_only_when_its_type_is_read_or_needed(monkeypatch):
    from scrapy_web2text import extract

    calls = []
    distribution = PageTypeModel.distribution
    monkeypatch.setattr(PageTypeModel, "distribution", lambda self, *args: calls.append(1) or distribution(self, *args))
    story = "".join(f"<p>Paragraph {n} of the story, with words, commas and a full stop.</p>" for n in range(8))
    result = extract(f"<html><body><article>{story}</article></body></html>")
    assert calls == [1]  # the shipped classifier moves the threshold of articles: the type is needed
    first = result.page_type
    assert calls == [1] and result.page_type is first  # read: the same answer, not classified again
    monkeypatch.setattr(PageTypeModel, "sets_offsets", property(lambda self: False))
    result = extract(f"<html><body><article>{story}</article></body></html>")
    assert result.main_text and calls == [1]  # no threshold offsets and no hidden text: the type is not needed
    assert result.page_type == first and calls == [1, 1]  # classified on the first read
    hidden = extract(f"<html><body><article>{story}<div hidden><p>{'A copy. ' * 20}</p></div></article></body>")
    assert calls == [1, 1, 1] and "A copy." not in hidden.main_text  # kept hidden text: the rule asks the type


def test_a_threshold_offset_of_the_page_type_moves_the_models_own_threshold(monkeypatch):
    import scrapy_web2text.labellers.web2text as web2text_module
    from scrapy_web2text.labellers.web2text import web2text_labels
    from scrapy_web2text.labellers.web2text.network import load_model
    from scrapy_web2text.page import parse_page

    story = "".join(f"<p>Paragraph {n} of the story, with words, commas and a full stop.</p>" for n in range(6))
    extras = "".join(f"<div><a href=/{n}>Related story number {n}</a> <span>3 min read</span></div>" for n in range(6))
    page = parse_page(f"<body><article><h1>Title</h1>{story}<p>Share this</p></article>{extras}<p>© 2026</p></body>")
    model = load_model()
    features = len(SUMMARY_NAMES)
    offset = -0.3  # a type whose listed items the model holds too low

    def classifier(offsets):
        zeros = np.zeros((features, len(PAGE_TYPES)))
        metadata = {"threshold_offsets": {label: offsets for label in PAGE_TYPES}}
        blank = (np.zeros(features), np.ones(features), zeros, np.zeros(len(PAGE_TYPES)))
        return PageTypeModel(PAGE_TYPES, *blank, metadata=metadata)  # every page an "article"

    monkeypatch.setattr(web2text_module, "shipped_page_types", lambda: classifier(0.0))
    unchanged = web2text_labels(page, model).keep
    monkeypatch.setattr(web2text_module, "shipped_page_types", lambda: classifier(offset))
    moved = web2text_labels(page, model).keep
    given = web2text_labels(page, model, threshold=model.config["threshold"] + offset).keep
    assert moved.sum() > unchanged.sum()
    assert np.array_equal(moved, given)
    # A threshold the caller gives is applied as it is.
    assert np.array_equal(web2text_labels(page, model, threshold=model.config["threshold"]).keep, unchanged)


def test_the_shipped_classifier_carries_the_offsets_its_training_sets():
    from scrapy_web2text.labellers.web2text.page_types import shipped_page_types
    from scrapy_web2text.research.train.page_types import THRESHOLD_OFFSETS

    classifier = shipped_page_types()
    assert classifier.sets_offsets and classifier.metadata["threshold_offsets"] == THRESHOLD_OFFSETS
    assert classifier.threshold_offset("article") == THRESHOLD_OFFSETS["article"] > 0
    assert classifier.threshold_offset("forum") == 0.0 and classifier.threshold_offset(None) == 0.0


def test_an_offset_keeps_the_threshold_strictly_between_0_and_1():
    from scrapy_web2text.labellers.web2text import OFFSET_BOUNDS, offset_threshold

    low, high = OFFSET_BOUNDS
    assert offset_threshold(0.4, 0.1) == pytest.approx(0.5) and offset_threshold(0.4, 0.0) == 0.4
    assert offset_threshold(0.9, 0.1) == high and offset_threshold(0.1, -0.3) == low
    assert offset_threshold(0.999, 0.1) == 0.999 and offset_threshold(0.01, -0.3) == 0.01  # beyond: kept as it is
    assert offset_threshold(0.999, -0.1) == pytest.approx(0.899)  # inwards: moved


def test_a_models_own_offsets_replace_the_classifiers():
    """A fine-tuned model's ``config.threshold_offsets`` were measured for its own threshold: the classifier's are
    not added on top."""
    import dataclasses

    from scrapy_web2text.labellers.web2text import page_threshold
    from scrapy_web2text.labellers.web2text.config import ModelError, check_config
    from scrapy_web2text.labellers.web2text.network import load_model
    from scrapy_web2text.labellers.web2text.rules import PageTypeGuess

    model = load_model()
    article, forum = PageTypeGuess.certain("article"), PageTypeGuess.certain("forum")
    assert page_threshold(model, article) == pytest.approx(model.threshold + 0.1)  # the shipped classifier's
    tuned = dataclasses.replace(
        model, config={**model.config, "threshold": 0.12, "threshold_offsets": {"article": 0.03}}
    )
    assert page_threshold(tuned, article) == pytest.approx(0.15) and page_threshold(tuned, forum) == 0.12
    from scrapy_web2text.integration.runtime import threshold_in_force

    assert threshold_in_force(None, tuned) == "0.12 (the model's own; article +0.03)"
    unset = dataclasses.replace(model, config={**model.config, "threshold": 0.12, "threshold_offsets": {}})
    assert page_threshold(unset, article) == 0.12
    for wrong in ([0.1], {"article": "0.1"}, {"article": 1.5}):
        with pytest.raises(ModelError, match="config.threshold_offsets"):
            check_config({**model.config, "threshold_offsets": wrong}, "model.json")


def test_a_tuned_models_rebalanced_threshold_gets_no_page_type_offset():
    """Its threshold already keeps as much text as the model it started from: an article's offset on top of it
    would move it a second time."""
    import dataclasses

    from scrapy_web2text.integration.runtime import threshold_in_force
    from scrapy_web2text.labellers.web2text import page_threshold
    from scrapy_web2text.labellers.web2text.network import load_model
    from scrapy_web2text.labellers.web2text.page_types import shipped_page_types
    from scrapy_web2text.labellers.web2text.rules import PageTypeGuess

    article = PageTypeGuess.certain("article")
    offset = shipped_page_types().threshold_offset("article")
    assert offset != 0
    model = load_model()
    assert page_threshold(model, article) == pytest.approx(model.threshold + offset)
    card = {**model.metadata, "fine_tuned": {"from": "default", "threshold": 0.12}}
    tuned = dataclasses.replace(model, config={**model.config, "threshold": 0.12}, metadata=card)
    assert page_threshold(tuned, article) == 0.12 and "no page-type offsets" in threshold_in_force(None, tuned)
    # tuned without rebalancing (--no-rebalance): the shipped threshold, moved by the offsets as before
    kept = dataclasses.replace(model, metadata={**model.metadata, "fine_tuned": {"from": "default"}})
    assert page_threshold(kept, article) == pytest.approx(model.threshold + offset)
