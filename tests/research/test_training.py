"""End to end: a tiny model learns from a few real pages."""

import numpy as np
import pytest

from scrapy_web2text.labellers.web2text import web2text_labels
from scrapy_web2text.labellers.web2text.network import Web2TextModel
from scrapy_web2text.page import parse_page
from scrapy_web2text.research.corpus import load_split

from ..helpers import corpus_file

torch = pytest.importorskip("torch", reason="training needs the 'train' extra")  # CI installs it


@pytest.fixture(scope="module")
def pages():
    path = corpus_file("cleaneval")
    return load_split(path, "train", limit=24, workers=1), load_split(path, "validation", limit=8, workers=1)


@pytest.fixture(scope="module")
def paper_model(pages):
    """The paper's recipe, 30 iterations on 8 pages, seed 7: the model the option tests compare theirs with (read,
    never changed)."""
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    return train(train_pages[:8], validation_pages[:3], "paper", iterations=30, seed=7, threads=1)


def test_training_lowers_validation_loss_and_exports_a_numpy_model(pages, tmp_path):
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    model = train(train_pages, validation_pages, "paper", iterations=150, seed=1, threads=1)
    for network in ("unary", "pairwise"):
        report = model.metadata["training"][network]
        assert report["validation_loss"] < report["initial_validation_loss"], network
    unary = model.metadata["training"]["unary"]
    assert unary["validation_error"] < 0.3
    model.save(tmp_path / "tiny")
    loaded = Web2TextModel.load(tmp_path / "tiny")
    page = parse_page(
        "<body><div class=nav><a href=/>Home</a></div><p>Some text that reads like an article, with commas.</p></body>"
    )
    decoded = web2text_labels(page, loaded)
    keep, probabilities = decoded.keep, decoded.probabilities
    assert keep.shape == (2,) and np.all((probabilities >= 0) & (probabilities <= 1))


def test_default_recipe_chooses_threshold_on_validation_word_f1(pages):
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    model = train(train_pages[:8], validation_pages[:4], "default", iterations=60, seed=3, threads=1)
    report = model.metadata["training"]
    figures = {float(t): f for t, f in report["threshold_word_f1"].items()}
    # The highest threshold within 0.001 of the best validation word F1 (a tie goes to precision).
    chosen, best = model.config["threshold"], max(figures.values())
    assert figures[chosen] >= best - 0.001
    assert all(figure < best - 0.001 for t, figure in figures.items() if t > chosen)
    assert model.extended and model.block_mean.shape == (len(model.block_features),)
    assert set(report["validation_word_f1"]) == {"cleaneval"}
    assert report["unary"]["selection_score"] <= 1.0


@pytest.mark.parametrize("auto_context", [True, "out_of_fold"])
def test_auto_context_trains_a_second_pass(pages, auto_context):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    config = {**CONFIGS["default"], "auto_context": auto_context}
    model = train(train_pages[:8], validation_pages[:4], config, iterations=60, seed=2, threads=1)
    assert len(model.context) == len(model.unary)
    assert 0.0 <= model.metadata["training"]["context"]["selection_score"] <= 1.0
    model.check()


def test_block_weights_grow_with_length():
    from scrapy_web2text.research.train.trainer import block_weights

    weights = block_weights(["a", "a longer block of text", ""], "log_chars")
    assert weights[1] > weights[0] > weights[2] == 0
    assert block_weights(["a", "bb"], "none").tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        block_weights(["a"], "cubic")


def test_boilerplate_weight_scales_only_the_boilerplate_blocks_unary_loss():
    from scrapy_web2text.labellers.web2text.features import EDGE_FEATURES
    from scrapy_web2text.research.corpus import PageData
    from scrapy_web2text.research.train.trainer import CONFIGS, _network_inputs

    model = Web2TextModel.initialised(CONFIGS["default"], 0)
    width, edges = len(model.block_features), len(EDGE_FEATURES)
    model.block_mean, model.block_std = np.zeros(width, np.float32), np.ones(width, np.float32)
    model.edge_mean, model.edge_std = np.zeros(edges, np.float32), np.ones(edges, np.float32)
    texts = ["a paragraph", "menu", "more text"]
    page = PageData(
        "p",
        "c",
        None,
        "",
        texts,
        np.zeros(3, bool),
        np.zeros((3, width)),
        np.zeros((2, edges)),
        np.array([1, 0, 1]),
        None,
    )
    plain = _network_inputs([page], model, "log_chars")
    leaning = _network_inputs([page], model, "log_chars", boilerplate_weight=2.0)
    assert leaning["uw"][0].tolist() == pytest.approx([plain["uw"][0][0], 2 * plain["uw"][0][1], plain["uw"][0][2]])
    assert leaning["pw"][0].tolist() == pytest.approx(plain["pw"][0].tolist())


def test_training_is_reproducible(pages, paper_model):
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    again = train(train_pages[:8], validation_pages[:3], "paper", iterations=30, seed=7, threads=1)
    for (w1, _), (w2, _) in zip(paper_model.unary, again.unary):
        np.testing.assert_array_equal(w1, w2)


def test_cosine_schedule_changes_the_weights_and_unknown_schedules_are_refused(pages, paper_model):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    constant = paper_model
    cosine_config = {**CONFIGS["paper"], "lr_schedule": "cosine"}
    cosine = train(train_pages[:8], validation_pages[:3], cosine_config, iterations=30, seed=7, threads=1)
    # Same seed and batches: only the falling learning rate can make the last layer's weights differ.
    assert not np.array_equal(constant.unary[-1][0], cosine.unary[-1][0])
    with pytest.raises(ValueError, match="lr_schedule"):
        train(train_pages[:8], validation_pages[:3], {**CONFIGS["paper"], "lr_schedule": "step"}, iterations=5)


def test_feature_statistics_come_from_training_pages(pages):
    from scrapy_web2text.research.train.trainer import train

    train_pages, validation_pages = pages
    model = train(train_pages[:8], validation_pages[:3], "paper", iterations=5, seed=0, threads=1)
    # Pages carry every block feature; the paper's model reads the first 128.
    stacked = np.concatenate([p.block_x[:, : len(model.block_features)] for p in train_pages[:8]])
    non_binary = model.block_std != 1
    np.testing.assert_allclose(model.block_mean[non_binary], stacked.mean(axis=0)[non_binary], rtol=1e-4, atol=1e-5)


def test_subnormals_are_flushed_while_a_recipe_that_asks_for_it_trains_and_only_then(pages, monkeypatch):
    from scrapy_web2text.research.train import trainer

    seen = []
    real_fit = trainer.fit

    def fit_noting_subnormal_arithmetic(torch, *args, **kwargs):
        seen.append((torch.tensor([1e-39], dtype=torch.float32) * 1.0).item())
        return real_fit(torch, *args, **kwargs)

    monkeypatch.setattr(trainer, "fit", fit_noting_subnormal_arithmetic)
    train_pages, validation_pages = pages
    flushing = {**trainer.CONFIGS["paper"], "flush_denormals": True}
    trainer.train(train_pages[:8], validation_pages[:3], flushing, iterations=5, seed=7, threads=1)
    assert seen == [0.0, 0.0]  # both networks trained with subnormal results read as zero
    assert (torch.tensor([1e-39], dtype=torch.float32) * 1.0).item() > 0  # and the process is left as it was
    seen.clear()
    trainer.train(train_pages[:8], validation_pages[:3], "paper", iterations=5, seed=7, threads=1)
    assert len(seen) == 2 and all(value > 0 for value in seen)
    assert trainer.CONFIGS["default"]["flush_denormals"] is True and "flush_denormals" not in trainer.CONFIGS["paper"]


def test_weight_average_follows_the_weights_and_is_swapped_in_only_inside_its_block():
    torch = pytest.importorskip("torch")
    from scrapy_web2text.research.train.fitting import _WeightAverage

    network = torch.nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        network.weight.copy_(torch.tensor([[0.0, 0.0]]))
    average = _WeightAverage(torch, network, 0.75)
    with torch.no_grad():
        network.weight.copy_(torch.tensor([[4.0, 8.0]]))
    average.update()  # 0.75 * old + 0.25 * new
    with average.swapped_in():
        assert network.weight.tolist() == [[1.0, 2.0]]
    assert network.weight.tolist() == [[4.0, 8.0]]
    for decay in (1.0, -0.1):
        with pytest.raises(ValueError, match="ema_decay"):
            _WeightAverage(torch, network, decay)


def test_checkpoints_from_the_weight_average_give_other_weights(pages, paper_model):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    plain = paper_model
    averaged_config = {**CONFIGS["paper"], "ema_decay": 0.9}
    averaged = train(train_pages[:8], validation_pages[:3], averaged_config, iterations=30, seed=7, threads=1)
    assert not np.array_equal(plain.unary[-1][0], averaged.unary[-1][0])


def test_balanced_page_weights_give_every_page_the_same_total_and_unknown_values_are_refused(pages):
    from scrapy_web2text.research.train.trainer import CONFIGS, PAGE_WEIGHT, _network_inputs, train

    train_pages, validation_pages = pages
    model = Web2TextModel.initialised(CONFIGS["default"], 0)
    width, edges = len(model.block_features), train_pages[0].edge_x.shape[1]
    model.block_mean, model.block_std = np.zeros(width, np.float32), np.ones(width, np.float32)
    model.edge_mean, model.edge_std = np.zeros(edges, np.float32), np.ones(edges, np.float32)
    plain = _network_inputs(train_pages[:4], model, "log_chars")
    balanced = _network_inputs(train_pages[:4], model, "log_chars", balanced_pages=True)
    assert len({round(float(w.sum())) for w in plain["uw"]}) > 1  # long pages weigh more by default
    for before, after in zip(plain["uw"], balanced["uw"]):
        assert after.sum() == pytest.approx(PAGE_WEIGHT, rel=1e-5)
        assert after == pytest.approx(before * (PAGE_WEIGHT / before.sum()), rel=1e-5)  # same shares within a page
    with pytest.raises(ValueError, match="page_weights"):
        train(train_pages[:8], validation_pages[:3], {**CONFIGS["paper"], "page_weights": "pages"}, iterations=5)


def test_focal_loss_weighs_sure_blocks_less_and_plain_cross_entropy_at_gamma_zero():
    from scrapy_web2text.research.train.fitting import focal

    losses = torch.tensor([0.01, 0.7, 3.0])  # true class at p 0.99, 0.50, 0.05
    np.testing.assert_allclose(focal(torch, losses, 0.0).numpy(), losses.numpy())
    scaled = focal(torch, losses, 2.0).numpy()
    np.testing.assert_allclose(scaled, losses.numpy() * (1 - np.exp(-losses.numpy())) ** 2, rtol=1e-3)
    ratios = scaled / losses.numpy()
    assert ratios[0] < 1e-3 and 0.2 < ratios[1] < 0.3 and ratios[2] > 0.9


def test_focal_gamma_changes_the_unary_network_only_and_bad_values_are_refused(pages, paper_model):
    from scrapy_web2text.research.train.trainer import CONFIGS, train

    train_pages, validation_pages = pages
    plain = paper_model
    focal_config = {**CONFIGS["paper"], "focal_gamma": 2.0}
    focal = train(train_pages[:8], validation_pages[:3], focal_config, iterations=30, seed=7, threads=1)
    assert not np.array_equal(plain.unary[-1][0], focal.unary[-1][0])
    for (plain_weight, _), (focal_weight, _) in zip(plain.pairwise, focal.pairwise):
        np.testing.assert_array_equal(plain_weight, focal_weight)
    for bad in (-1.0, "2", True, float("nan")):
        with pytest.raises(ValueError, match="focal_gamma"):
            train(train_pages[:8], validation_pages[:3], {**CONFIGS["paper"], "focal_gamma": bad}, iterations=5)
