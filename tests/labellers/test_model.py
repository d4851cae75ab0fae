import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.cli import main
from scrapy_web2text.labellers.base import load_labeller_weights
from scrapy_web2text.labellers.web2text.features import block_features, edge_features
from scrapy_web2text.labellers.web2text.layers import product_matrix, without_subnormals
from scrapy_web2text.labellers.web2text.network import (
    PACKAGED_MODELS,
    PAPER_CONFIG,
    ModelError,
    Web2TextModel,
    conv_stack,
    load_model,
    resolve_model_path,
)
from scrapy_web2text.page import parse_page

from ..helpers import DATA, FIXTURES, corpus_pages, fixture_text


@pytest.fixture(scope="module")
def model():
    return Web2TextModel.initialised(seed=3)


def test_save_load_round_trip(tmp_path, model):
    written = model.save(tmp_path / "m")
    assert written.name == "m.npz" and (tmp_path / "m.json").is_file()
    loaded = Web2TextModel.load(tmp_path / "m.json")
    for (w1, b1), (w2, b2) in zip(model.unary + model.pairwise, loaded.unary + loaded.pairwise):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    page = parse_page(fixture_text("article.html"))
    x, e = block_features(page), edge_features(page)
    for a, b in zip(model.potentials(x, e), loaded.potentials(x, e)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["model-0.5", "runs.v2", "m.npz", "m.json"])
def test_a_dot_in_the_name_is_kept_and_only_npz_or_json_is_taken_off(tmp_path, model, name):
    stem = name.removesuffix(".npz").removesuffix(".json")
    written = model.save(tmp_path / name)
    assert written == tmp_path / f"{stem}.npz" and (tmp_path / f"{stem}.json").is_file()
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"{stem}.json", f"{stem}.npz"]
    assert resolve_model_path(tmp_path / name) == written
    loaded = Web2TextModel.load(tmp_path / name)
    np.testing.assert_array_equal(loaded.unary[0][0], model.unary[0][0])


def test_model_files_hold_no_pickles(tmp_path, model):
    model.save(tmp_path / "m")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as archive:
        assert all(archive[key].dtype == np.float32 for key in archive.files)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda stem: stem.with_suffix(".npz").unlink(), "not found"),
        (lambda stem: stem.with_suffix(".npz").write_bytes(b"not a zip"), "not a readable"),
        (lambda stem: stem.with_suffix(".json").write_text("{"), "not a readable JSON"),
        (lambda stem: stem.with_suffix(".json").write_text('{"format": "other"}'), "not a scrapy-web2text"),
    ],
)
def test_broken_model_files_raise_model_error(tmp_path, model, damage, message):
    stem = tmp_path / "m"
    model.save(stem)
    damage(stem)
    with pytest.raises(ModelError, match=message):
        Web2TextModel.load(stem)


def test_feature_set_mismatch_is_refused(tmp_path, model):
    model.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m.json").read_text())
    meta["block_features"] = meta["block_features"][:-1] + ["something_else"]
    (tmp_path / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="feature set"):
        Web2TextModel.load(tmp_path / "m")


def test_nan_weights_are_refused(tmp_path, model):
    broken = Web2TextModel.initialised(seed=1)
    broken.unary[0][0][0, 0, 0] = np.nan
    broken.save(tmp_path / "m")
    with pytest.raises(ModelError, match="NaN"):
        Web2TextModel.load(tmp_path / "m")


def test_load_model_is_cached_per_path(tmp_path, model):
    model.save(tmp_path / "m")
    assert load_model(tmp_path / "m.npz") is load_model(str(tmp_path / "m"))


def test_packaged_name_resolves_inside_the_package():
    assert resolve_model_path("default") == PACKAGED_MODELS / "default.npz"
    assert resolve_model_path(None) == PACKAGED_MODELS / "default.npz"


def test_a_model_planted_in_the_working_directory_never_replaces_the_shipped_one(tmp_path, monkeypatch, model, capsys):
    monkeypatch.chdir(tmp_path)
    model.save(tmp_path / "default")  # an untrained default.npz + default.json where a crawl or a data folder runs
    shipped = load_model(PACKAGED_MODELS / "default.npz")
    for named in (None, "", "default"):
        assert resolve_model_path(named) == PACKAGED_MODELS / "default.npz"
        assert load_model(named) is shipped
        assert load_labeller_weights("web2text", named) is shipped  # a crawl's default WEB2TEXT_MODEL
    assert extract(fixture_text("article.html")).model == "default"
    assert main(["extract", "--json", "--model", "default", str(FIXTURES / "article.html")]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "default"
    # Naming a path still reaches the working directory's file.
    for path in ("./default", "default.npz", Path("default")):
        assert load_model(path).name == model.name != shipped.name


def test_shipped_default_model_loads_and_labels_the_fixture():
    result = extract(fixture_text("article.html"))
    assert result.model == "default"
    assert "Three weeks after the river burst its banks" in result.main_text
    assert "Most read" not in result.main_text and "Privacy policy" not in result.main_text


def test_conv_stack_padding_keeps_length(model):
    x = np.random.default_rng(0).normal(size=(7, len(model.block_features))).astype(np.float32)
    assert conv_stack(x, model.unary).shape == (7, 2)
    assert conv_stack(x[:1], model.unary).shape == (1, 2)


def _real_pages():
    if (DATA / "wcxb.jsonl.gz").is_file():
        return [r["html"] for r in corpus_pages("wcxb", "validation", 3)] + [
            r["html"] for r in corpus_pages("cleaneval", "test", 3)
        ]
    return [fixture_text("article.html")]


@pytest.mark.slow
def test_numpy_inference_matches_torch():
    torch = pytest.importorskip("torch", reason="parity needs the 'train' extra")  # CI installs it
    from scrapy_web2text.research.train.networks import ConvStack

    default = load_model("default").config
    dilated = {**default, "unary_dilations": [1, 1, 1, 2, 4], "pairwise_dilations": [1, 1, 2, 2, 1]}
    pooled = {**default, "unary_pooling": {"after": 1, "windows": [4, 32], "page": True}}
    for model in (
        load_model("default"),
        Web2TextModel.initialised({**default}, seed=5),
        Web2TextModel.initialised(dilated, seed=6),
        Web2TextModel.initialised(pooled, seed=7),
    ):
        config = model.config
        unary_dilations, pairwise_dilations = config.get("unary_dilations"), config.get("pairwise_dilations")
        pooling = config.get("unary_pooling")
        width = len(model.block_features)
        unary = ConvStack(width, config["unary_filters"], config["unary_kernels"], 0.2, unary_dilations, pooling).eval()
        unary.load(model.unary)
        n_pair = model.pairwise[0][0].shape[1]
        pairwise = ConvStack(
            n_pair, config["pairwise_filters"], config["pairwise_kernels"], 0.2, pairwise_dilations
        ).eval()
        pairwise.load(model.pairwise)
        for html in _real_pages():
            page = parse_page(html)
            x, e = model.standardise(block_features(page, extended=model.extended), edge_features(page))
            with torch.no_grad():
                expected_unary = unary(torch.from_numpy(x)[None])[0].numpy()
                expected_pair = pairwise(torch.from_numpy(model.pairwise_inputs(x, e))[None])[0].numpy()
            assert np.abs(conv_stack(x, model.unary, unary_dilations, pooling) - expected_unary).max() < 1e-5
            pair = conv_stack(model.pairwise_inputs(x, e), model.pairwise, pairwise_dilations)
            assert np.abs(pair - expected_pair).max() < 1e-5


def test_page_pooling_in_a_padded_training_batch_matches_numpy_on_each_page():
    torch = pytest.importorskip("torch", reason="parity needs the 'train' extra")  # CI installs it
    from scrapy_web2text.research.train.networks import ConvStack

    pooling = {"after": 1, "windows": [3, 20], "page": True}
    network = ConvStack(7, [6, 6, 5, 2], [1, 1, 5, 3], 0.0, [1, 1, 1, 2], pooling).eval()
    rng = np.random.default_rng(3)
    pages = [rng.normal(size=(n, 7)).astype(np.float32) for n in (40, 55, 1)]
    batch = torch.zeros(len(pages), 55, 7)
    mask = torch.zeros(len(pages), 55, dtype=torch.bool)
    for row, page in enumerate(pages):
        batch[row, : len(page)] = torch.from_numpy(page)
        mask[row, : len(page)] = True
    batch[0, 40:] = 5.0  # whatever lies beyond a page's end must not reach it
    with torch.no_grad():
        out = network(batch, mask).numpy()
    for row, page in enumerate(pages):
        expected = conv_stack(page, network.export(), [1, 1, 1, 2], pooling)
        assert expected.shape == (len(page), 2)
        assert np.abs(out[row, : len(page)] - expected).max() < 1e-5
    # The pooled layer reads the units, their two window means and their page mean.
    assert network.export()[2][0].shape[1] == 6 * 4


@pytest.mark.parametrize(
    ("pooling", "message"),
    [
        ("wide", "must be a JSON object"),
        ({"after": 4, "page": True}, "unary_pooling.after"),
        ({"after": 1, "windows": [0]}, "unary_pooling.windows"),
        ({"after": 1, "windows": [4], "page": "yes"}, "unary_pooling.page"),
        ({"after": 1}, "pools nothing"),
    ],
)
def test_a_bad_pooling_configuration_is_a_model_error_naming_the_field(pooling, message):
    from scrapy_web2text.labellers.web2text.config import ModelError, check_config

    config = {**load_model("default").config, "unary_pooling": pooling}
    with pytest.raises(ModelError, match=message):
        check_config(config, "model.json")


@pytest.mark.parametrize("skipped", ["landmark_sections", ["no_such_rule"], [3], ["repeated_blocks", None]])
def test_skipped_rules_must_be_a_list_of_the_rules_after_decoding(skipped):
    from scrapy_web2text.labellers.web2text.config import ModelError, check_config

    config = {**load_model("default").config, "skip_rules": skipped}
    with pytest.raises(ModelError, match="config.skip_rules must list rules after decoding"):
        check_config(config, "model.json")
    check_config({**config, "skip_rules": ["repeated_blocks", "landmark_sections"]}, "model.json")


def test_folded_first_layers_match_the_reference_networks():
    default = load_model("default").config
    models = [
        load_model("default"),
        Web2TextModel.initialised({**default}, seed=5),
        Web2TextModel.initialised(seed=8),  # the paper's: the pairwise network reads the edge features only
        Web2TextModel.initialised({**default, "unary_pooling": {"after": 0, "windows": [4], "page": True}}, seed=9),
    ]
    pages = [parse_page(html) for html in _real_pages()] + [parse_page("<p>one block</p>")]
    for model in models:
        assert model._first_layers() is not None
        for page in pages:
            x, e = block_features(page, extended=model.extended), edge_features(page)
            for folded, reference in zip(model.potentials(x, e), model.reference_potentials(x, e)):
                assert folded.shape == reference.shape
                assert np.abs(np.exp(folded) - np.exp(reference)).max(initial=0) < 1e-5


def test_folded_first_layers_follow_replaced_weights_and_stay_off_where_they_do_not_apply():
    model = Web2TextModel.initialised({**load_model("default").config}, seed=10)
    page = parse_page(fixture_text("article.html"))
    x, e = block_features(page, extended=True), edge_features(page)
    before = model.potentials(x, e)
    weight, bias = model.pairwise[0]
    model.pairwise[0] = (weight * 2, bias)  # retrained: new arrays, the folded copy must not be reused
    model.block_std = model.block_std * 3
    after, reference = model.potentials(x, e), model.reference_potentials(x, e)
    assert np.abs(after[1] - before[1]).max() > 1e-3
    for folded, expected in zip(after, reference):
        assert np.abs(np.exp(folded) - np.exp(expected)).max() < 1e-5
    wide = Web2TextModel.initialised({**PAPER_CONFIG, "unary_kernels": [3, 1, 3, 3, 3]}, seed=11)
    assert wide._first_layers() is None
    page_x = block_features(page), edge_features(page)
    for a, b in zip(wide.potentials(*page_x), wide.reference_potentials(*page_x)):
        np.testing.assert_array_equal(a, b)


def test_subnormal_weights_are_multiplied_as_zeros_and_change_no_potential():
    # Products with subnormal floats take a slow path on many x86 CPUs (five times a model's time on an Intel
    # Xeon); the matrices the networks multiply with hold none, and the potentials are those of the weights.
    tiny = np.finfo(np.float32).tiny
    weights = np.array([[tiny / 4, -tiny / 8, 0.0], [tiny, 0.5, -1e-30]], np.float32)
    flushed = without_subnormals(weights)
    np.testing.assert_array_equal(flushed, np.array([[0, 0, 0], [tiny, 0.5, -1e-30]], np.float32))
    assert weights[0, 0] == tiny / 4  # the caller's array is left alone
    normal = np.array([[1.0, 0.0]], np.float32)
    assert without_subnormals(normal) is normal

    # The shipped model's networks with every seventh weight made subnormal, as training can leave them.
    def with_subnormals(layers):
        out = []
        for weight, bias in layers:
            weight = weight.copy()
            weight.reshape(-1)[::7] = np.float32(tiny / 3) * np.sign(weight.reshape(-1)[::7] + 0.5)
            out.append((weight, bias))
        return out

    shipped = load_model("default")
    model = dataclasses.replace(
        shipped, unary=with_subnormals(shipped.unary), pairwise=with_subnormals(shipped.pairwise)
    )
    stored = [weight for weight, _ in model.unary + model.pairwise]
    assert all(np.any((weight != 0) & (np.abs(weight) < tiny)) for weight in stored)
    first = model._first_layers()
    matrices = [first.block_weight, first.edge_weight, *(product_matrix(weight) for weight in stored)]
    for matrix in matrices:
        assert not np.any((matrix != 0) & (np.abs(matrix) < tiny))
    # The same networks in float64, where these weights are normal numbers and nothing is flushed.
    wide = dataclasses.replace(
        model,
        unary=[(w.astype(np.float64), b.astype(np.float64)) for w, b in model.unary],
        pairwise=[(w.astype(np.float64), b.astype(np.float64)) for w, b in model.pairwise],
    )
    page = parse_page(fixture_text("article.html"))
    x, e = block_features(page, extended=True), edge_features(page)
    for ours, exact in zip(model.potentials(x, e), wide.reference_potentials(x.astype(np.float64), e)):
        assert np.abs(np.exp(ours) - np.exp(exact)).max() < 1e-5


def test_a_model_description_nested_past_the_stack_is_a_model_error_naming_the_file(tmp_path, model):
    model.save(tmp_path / "deep")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ModelError, match="deep.json"):
        Web2TextModel.load(tmp_path / "deep")
