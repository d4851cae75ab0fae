"""Baselines on our blocks: Boilerpipe port, BTE, CRF, BoilerNet."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.labellers import boilerpipe as bp
from scrapy_web2text.labellers import get_labeller, labeller_names
from scrapy_web2text.labellers.bte import bte_labels, bte_naive, max_subarray, token_runs
from scrapy_web2text.labellers.crf import MODELS, CRFModel
from scrapy_web2text.page import parse_page

from ..helpers import fixture_text

BASELINES = ("boilerpipe-article", "boilerpipe-default", "boilerpipe-largest", "bte", "crf", "boilernet")

PARAGRAPH = " ".join(["The committee met on Tuesday to discuss the annual budget and its many consequences."] * 4)
NAV = "".join(f'<li><a href="/{i}">Section {i}</a></li>' for i in range(12))
PAGE = f"""<html><head><title>Budget talks - Daily News</title></head><body>
<ul class="nav">{NAV}</ul>
<h1>Budget talks</h1><p>Published on Tuesday by Jane Doe, staff writer</p>
<p>{PARAGRAPH}</p><p>{PARAGRAPH} <b>Bold words</b> and <a href="/x">a link</a> too.</p>
<div class="footer"><a href="/a">About</a> | <a href="/c">Contact</a> | <a href="/p">Privacy</a></div>
</body></html>"""


def test_all_baselines_registered():
    for name in BASELINES:
        assert name in labeller_names()
    for name in BASELINES[:4]:
        assert callable(get_labeller(name))


@pytest.mark.parametrize("name", BASELINES[:4])
def test_heuristic_baselines_keep_the_article_not_the_menu(name):
    result = extract(PAGE, method=name)
    labels = {block.text: block.label for block in result.blocks}
    assert labels[PARAGRAPH] == "content"
    assert labels["Section 3"] == "boilerplate"
    assert PARAGRAPH in result.main_text
    assert result.method == name
    assert len(result.blocks) == len(parse_page(PAGE))


# --- Boilerpipe ---------------------------------------------------------------


def test_textblocks_split_at_block_tags_not_inline_tags():
    doc = bp.build_document(parse_page(PAGE))
    texts = [block.text for block in doc.blocks]
    assert doc.title == "Budget talks - Daily News"
    # <b> and <a> inside the paragraph do not start a new TextBlock.
    second = next(block for block in doc.blocks if "Bold words" in block.text)
    assert "a link too." in second.text
    assert second.num_words_in_anchor == 2
    assert len(second.blocks) == 5  # our blocks: text, <b>, tail, <a>, tail -> one TextBlock
    # Every <li> is its own TextBlock with link density 1.
    assert texts.count("Section 0") == 1
    assert next(b for b in doc.blocks if b.text == "Section 0").link_density == 1.0


def test_text_density_counts_words_in_wrapped_lines_only():
    tokens = [("word", False)] * 40  # 5 columns a token: 16 per 80-column line
    block = bp._make_block(tokens, 0, [0])
    assert block.num_words == 40
    assert block.num_wrapped_lines == 2  # two full lines, the last partial one excluded
    assert block.text_density == 16
    short = bp._make_block([("a", False), ("b", False)], 0, [0])
    assert short.text_density == 2  # a single line counts as is


def _blocks(*specs):
    out = []
    for number, (words, anchor, density) in enumerate(specs):
        block = bp.TextBlock("x", words, anchor, 0, 0, number, number)
        block.text_density = density
        out.append(block)
    return out


@pytest.mark.parametrize(
    "prev, curr, nxt, expected",
    [
        ((5, 0), (10, 0), (10, 0), True),  # short block, short next, prev > 4 words
        ((4, 0), (10, 0), (10, 0), False),  # ... prev <= 4 words
        ((0, 0), (10, 0), (16, 0), True),  # next > 15
        ((0, 0), (17, 0), (0, 0), True),  # curr > 16
        ((10, 6), (40, 0), (17, 0), False),  # prev link density > 0.555556, curr <= 40, next <= 17
        ((10, 6), (40, 0), (18, 0), True),
        ((10, 6), (41, 0), (0, 0), True),
        ((10, 0), (30, 11), (30, 0), False),  # curr link density > 1/3
    ],
)
def test_num_words_rules_tree(prev, curr, nxt, expected):
    blocks = _blocks(*((w, a, 0) for w, a in (prev, curr, nxt)))
    doc = bp.TextDocument("", blocks)
    bp.num_words_rules_classifier(doc)
    assert blocks[1].is_content is expected


@pytest.mark.parametrize(
    "prev, curr, nxt, expected",
    [
        ((0, 5), (0, 9), (0, 10), True),
        ((0, 4), (0, 9), (0, 10), False),
        ((0, 0), (0, 9), (0, 11), True),
        ((0, 0), (0, 10), (0, 0), False),  # dense block, next density 0
        ((0, 0), (0, 10), (0, 1), True),
        ((6, 2), (0, 3), (0, 11), False),  # prev linky, next density <= 11
        ((6, 2), (0, 3), (0, 12), True),
    ],
)
def test_density_rules_tree(prev, curr, nxt, expected):
    specs = [(10, anchors, density) for anchors, density in (prev, curr, nxt)]
    blocks = _blocks(*specs)
    blocks[0].link_density = prev[0] / 10
    blocks[1].link_density = curr[0] / 10
    doc = bp.TextDocument("", blocks)
    bp.density_rules_classifier(doc)
    assert blocks[1].is_content is expected


def test_terminating_blocks_and_ignore_after_content():
    body = bp._make_block([("word", False)] * 100, 0, [0])
    body.is_content = True
    comments = bp._make_block([(t, False) for t in "12 comments so far".split()], 1, [1])
    tail = bp._make_block([("word", False)] * 100, 2, [2])
    tail.is_content = True
    doc = bp.TextDocument("", [body, comments, tail])
    bp.terminating_blocks_finder(doc)
    assert bp.INDICATES_END_OF_TEXT in comments.labels
    bp.ignore_blocks_after_content_filter(doc)
    assert body.is_content and not tail.is_content


def test_proximity_fusion_merges_content_into_neighbour():
    a, b, c = (bp._make_block([("w", False)], i, [i]) for i in range(3))
    b.is_content = True
    doc = bp.TextDocument("", [a, b, c])
    bp.block_proximity_fusion(doc, 1)
    assert len(doc.blocks) == 2 and doc.blocks[0].blocks == [0, 1] and doc.blocks[0].is_content


def test_potential_titles_include_the_longest_part():
    assert "budget talks in the capital" in bp.potential_titles("Budget talks in the capital | Daily News")


# --- BTE -------------------------------------------------------------------------


def test_max_subarray_matches_the_quadratic_definition():
    rng = np.random.default_rng(1)
    for _ in range(200):
        values = rng.integers(-6, 6, rng.integers(1, 25)).astype(float)
        assert max_subarray(values)[2] == pytest.approx(bte_naive(values)[2])


def test_bte_span_is_the_text_heavy_region():
    page = parse_page(PAGE)
    values, owners = token_runs(page)
    assert (values[owners >= 0] > 0).all() and (values[owners < 0] < 0).all()
    keep = bte_labels(page)
    kept = [text for text, k in zip(page.texts, keep) if k]
    assert PARAGRAPH in kept and "Section 0" not in kept and "Privacy" not in kept


def test_bte_is_linear_on_a_large_page():
    import time

    body = "<div><a href='#'>link</a></div>" * 5000 + f"<p>{PARAGRAPH}</p>" * 2000
    page = parse_page(f"<html><body>{body}</body></html>")
    clock = time.thread_time()
    keep = bte_labels(page)
    elapsed = time.thread_time() - clock
    assert keep[-1] and not keep[0]
    assert elapsed < 5  # O(n²) over ~60,000 tokens would take minutes


# --- CRF ---------------------------------------------------------------------------


def _random_crf(rng, features=4):
    return CRFModel(
        np.zeros(features),
        np.ones(features),
        rng.normal(size=(2, features)),
        rng.normal(size=2),
        rng.normal(size=(2, 2)),
        rng.normal(size=2),
        rng.normal(size=2),
    )


def _path_score(model, emissions, labels):
    score = model.start[labels[0]] + model.end[labels[-1]] + emissions[np.arange(len(labels)), labels].sum()
    return score + sum(model.transitions[a, b] for a, b in zip(labels, labels[1:]))


def test_crf_viterbi_and_marginals_match_brute_force():
    rng = np.random.default_rng(0)
    model = _random_crf(rng)
    x = rng.normal(size=(6, 4))
    emissions = model.emissions(x)
    paths = [np.array(p) for p in itertools.product((0, 1), repeat=6)]
    scores = np.array([_path_score(model, emissions, p) for p in paths])
    assert model.viterbi(emissions).astype(int).tolist() == paths[int(scores.argmax())].tolist()
    weights = np.exp(scores - scores.max())
    expected = sum(w * p for w, p in zip(weights, paths)) / weights.sum()
    assert model.marginals(emissions) == pytest.approx(expected)


def test_crf_torch_likelihood_matches_brute_force():
    torch = pytest.importorskip("torch")
    from scrapy_web2text.research.train.crf import _nll

    rng = np.random.default_rng(2)
    model = _random_crf(rng)
    x = rng.normal(size=(5, 4))
    y = np.array([1, 0, 0, 1, 1])
    emissions = model.emissions(x)
    scores = [_path_score(model, emissions, np.array(p)) for p in itertools.product((0, 1), repeat=5)]
    expected = np.logaddexp.reduce(scores) - _path_score(model, emissions, y)
    params = [torch.tensor(a) for a in (model.weight, model.bias, model.transitions, model.start, model.end)]
    # A second, shorter page in the batch checks the padding mask.
    xs = torch.tensor(np.stack([x, np.vstack([x[:2], np.zeros((3, 4))])]))
    ys = torch.tensor(np.stack([y, [1, 0, 0, 0, 0]]))
    mask = torch.tensor([[True] * 5, [True, True, False, False, False]])
    short = [_path_score(model, emissions[:2], np.array(p)) for p in itertools.product((0, 1), repeat=2)]
    expected_short = np.logaddexp.reduce(short) - _path_score(model, emissions[:2], np.array([1, 0]))
    loss = float(_nll(torch, params, xs, ys, mask))
    assert loss == pytest.approx((expected + expected_short) / 7, rel=1e-6)


def test_crf_save_load_roundtrip(tmp_path):
    from scrapy_web2text.labellers.web2text.features import BLOCK_FEATURES

    rng = np.random.default_rng(3)
    model = _random_crf(rng, len(BLOCK_FEATURES))
    model.metadata = {"name": "crf"}
    model.save(tmp_path / "crf-1.0")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["crf-1.0.json", "crf-1.0.npz"]
    loaded = CRFModel.load(tmp_path / "crf-1.0")
    page = parse_page(PAGE)
    from scrapy_web2text.labellers.web2text.features import block_features

    x = block_features(page)
    assert (loaded.label(x)[0] == model.label(x)[0]).all()
    result = get_labeller("crf")(page, model=loaded)
    assert len(result.keep) == len(page) and 0 <= result.probabilities.min() <= result.probabilities.max() <= 1


def test_shipped_crf_weights_load_without_pickles():
    if not (MODELS / "crf.npz").exists():
        pytest.fail("scrapy_web2text/models/baselines/crf.npz is not shipped")
    with np.load(MODELS / "crf.npz", allow_pickle=False) as arrays:
        assert arrays["weight"].shape == (2, 128)
    result = extract(PAGE, method="crf")
    assert len(result.blocks) == len(parse_page(PAGE))


# --- BoilerNet -----------------------------------------------------------------------


def test_boilernet_numpy_lstm_matches_torch():
    torch = pytest.importorskip("torch")
    from scrapy_web2text.labellers.boilernet import BoilerNetModel

    torch.manual_seed(0)
    lstm = torch.nn.LSTM(5, 3, batch_first=True, bidirectional=True)
    arrays = {k: v.detach().double().numpy() for k, v in lstm.state_dict().items()}
    model = BoilerNetModel([], [], {f"lstm.{k}": v for k, v in arrays.items()})
    x = np.random.default_rng(0).normal(size=(7, 5))
    expected, _ = lstm(torch.tensor(x, dtype=torch.float32)[None])
    forward = model._lstm(x, "")
    backward = model._lstm(x[::-1], "_reverse")[::-1]
    assert np.hstack([forward, backward]) == pytest.approx(expected[0].detach().numpy(), abs=1e-5)


def test_boilernet_leaf_inputs():
    from scrapy_web2text.labellers.boilernet import BoilerNetModel, leaf_tags

    assert leaf_tags("…>body>div.nav>ul>li>a>#text") == ["body", "div", "ul", "li", "a"]
    model = BoilerNetModel(["a", "p"], ["budget"], {})
    assert model.leaf_ids(["body>p>#text", "body>a>#text"], ["The budget", "Home"]) == [[1, 2], [0]]


def test_boilernet_without_weights_says_how_to_train(tmp_path):
    from scrapy_web2text.labellers.boilernet import load_boilernet

    with pytest.raises(FileNotFoundError, match="python -m scrapy_web2text.research.train.boilernet"):
        load_boilernet(tmp_path / "missing")


def test_fixture_article_through_every_heuristic():
    html = fixture_text("article.html")
    for name in BASELINES[:4]:
        result = extract(html, method=name)
        assert result.content_blocks, name
