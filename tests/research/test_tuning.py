"""Fine-tuning on corrected pages (``web2text train --init``): labels from the viewer or from gold, a tuned model
that loads by path, and its card."""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
import re

import numpy as np
import pytest

from scrapy_web2text import extract, load_model
from scrapy_web2text.cli import main
from scrapy_web2text.labellers.web2text import page_type_on_demand
from scrapy_web2text.labellers.web2text.features import block_features
from scrapy_web2text.labellers.web2text.network import Web2TextModel
from scrapy_web2text.labellers.web2text.rules import overruled_rules
from scrapy_web2text.labellers.web2text.site_gate import text_digest
from scrapy_web2text.research.train.tuning import SITE_GATE, fine_tune, read_labelled_pages
from scrapy_web2text.show import build_view, sha256_of

from ..scrapy_support import make_crawler
from ..site import NAVIGATION, article_page

pytest.importorskip("torch")  # the 'train' extra, as every training test


def _labels_document(html: bytes, flip: set[int]) -> dict:
    """What the viewer's "Save labels" writes after flipping the blocks ``flip``."""
    view = build_view(html, "http://example.test/story")
    data = json.loads(re.search(r'id="w2t-data">(.*?)</script>', view, re.S).group(1))
    blocks = [
        {
            "xpath": block["xpath"],
            "label": ("boilerplate" if block["label"] == "content" else "content") if i in flip else block["label"],
            "changed": i in flip,
        }
        for i, block in enumerate(data["blocks"])
    ]
    return {
        "format": data["format"],
        "url": data["url"],
        "sha256": data["sha256"],
        "model": data["model"],
        "blocks": blocks,
    }


@pytest.fixture
def corrected(tmp_path):
    """One article page and its labels with the navigation's entries flipped to content."""
    html = article_page(0, random.Random(5))[0].encode("utf-8")
    result = extract(html)
    flip = {i for i, block in enumerate(result.blocks) if block.text in NAVIGATION}
    assert len(flip) == len(NAVIGATION) and all(result.blocks[i].label == "boilerplate" for i in flip)
    pages, labels = tmp_path / "pages", tmp_path / "labels"
    pages.mkdir()
    labels.mkdir()
    (pages / "story.html").write_bytes(html)
    (labels / "story.labels.json").write_text(json.dumps(_labels_document(html, flip)))
    return {"html": html, "flip": flip, "pages": pages, "labels": labels, "result": result}


def test_viewer_labels_are_matched_to_the_blocks_by_xpath(corrected):
    (page,) = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    expected = np.array([block.is_content for block in corrected["result"].blocks])
    expected[list(corrected["flip"])] = True
    assert page.known.all() and (page.labels == expected).all()
    assert page.changed == len(NAVIGATION) and page.sha256 == sha256_of(corrected["html"])
    # a labels file whose blocks come in another order, some missing: matched by XPath, the missing ones unknown
    document = json.loads(next(corrected["labels"].glob("*.json")).read_text())
    kept = document["blocks"][::2]
    document["blocks"] = list(reversed(kept))
    (corrected["labels"] / "story.labels.json").write_text(json.dumps(document))
    (page,) = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    assert page.known.sum() == len(kept) and page.known.tolist() != [True] * len(page.known)


def test_fine_tuning_learns_the_corrections(corrected):
    model = load_model()
    pages = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    tuned = fine_tune(model, pages, iterations=40, learning_rate=3e-3, threads=1)
    flipped = sorted(corrected["flip"])
    before = np.array([corrected["result"].blocks[i].probability for i in flipped])
    after = np.array([extract(corrected["html"], model=tuned).blocks[i].probability for i in flipped])
    assert after.mean() > before.mean() + 0.3
    card = tuned.metadata["fine_tuned"]
    assert card["from_name"] == "default" and card["pages"][0]["sha256"] == sha256_of(corrected["html"])
    assert card["pages"][0]["changed"] == len(NAVIGATION) and card["settings"]["iterations"] == 40
    assert tuned.block_mean is model.block_mean  # same features
    # Same configuration, but the navigation the labels keep sits in a <nav>: the landmarks rule, which runs on every
    # page, would drop it.  The rules for a services' page's buttons and an article's lists of links beside its text
    # would too, on pages of their types, which the chain does not take this page for: the tuned model keeps them.
    skipped = ["landmark_sections"]
    gate = tuned.config.pop("site_gate")
    assert tuned.config == {**model.config, "skip_rules": skipped}
    assert card["skip_rules"] == skipped
    # Gated on the page's boilerplate, with the model it came from for every page without it.
    boilerplate = {text_digest(t) for t, label in zip(pages[0].texts, pages[0].labels) if not label and t.strip()}
    assert gate == {"min_share": SITE_GATE, "digests": sorted(boilerplate)} and tuned.fallback is model
    assert fine_tune(model, pages, iterations=1, site_gate=0, threads=1).fallback is None


def test_a_tuned_model_skips_the_rules_its_labels_overrule_and_keeps_what_they_keep(corrected, tmp_path):
    model = load_model()
    pages = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    assert overruled_rules(pages[0].page, pages[0].labels, pages[0].known) == {
        "call_to_action_links",
        "landmark_sections",
        "outlying_link_lists",
    }  # on any page type
    features = block_features(pages[0].page, extended=True)
    guess = page_type_on_demand(pages[0].page, features)
    as_the_chain_runs = overruled_rules(pages[0].page, pages[0].labels, pages[0].known, guess)
    assert as_the_chain_runs == {"landmark_sections"}, guess.probabilities
    # Labels that agree with the rules overrule none: the tuned model's configuration stays the model's.
    pages[0].labels[list(corrected["flip"])] = False
    assert overruled_rules(pages[0].page, pages[0].labels, pages[0].known) == set()
    # The skip is the model's: saved, loaded, and the navigation blocks the networks keep stay in the main text.
    skips = ["landmark_sections", "outlying_link_lists"]
    skipping = dataclasses.replace(model, config={**model.config, "skip_rules": skips})
    loaded = Web2TextModel.load(skipping.save(tmp_path / "skipping"))
    assert loaded.skipped_rules == set(skips)
    kept = extract(corrected["html"], model=loaded, threshold=1e-6).main_text  # every block clears it
    dropped = extract(corrected["html"], model=model, threshold=1e-6).main_text
    assert all(entry in kept for entry in NAVIGATION) and not any(entry in dropped for entry in NAVIGATION)


def _squared_distance(tuned: Web2TextModel, start: Web2TextModel) -> float:
    layers = zip(tuned.unary + tuned.pairwise, start.unary + start.pairwise)
    return sum(
        float(((a - b) ** 2).sum()) for tuned_layer, start_layer in layers for a, b in zip(tuned_layer, start_layer)
    )


def test_the_anchor_keeps_the_tuned_weights_near_the_initial_ones(corrected):
    model = load_model()
    pages = read_labelled_pages(corrected["pages"], [corrected["labels"]])
    free = fine_tune(model, pages, iterations=40, learning_rate=3e-3, anchor=0.0, threads=1)
    anchored = fine_tune(model, pages, iterations=40, learning_rate=3e-3, anchor=1.0, threads=1)
    assert _squared_distance(anchored, model) < 0.5 * _squared_distance(free, model)
    moved = anchored.metadata["fine_tuned"]["distance_moved"]
    assert sum(moved.values()) == pytest.approx(_squared_distance(anchored, model), rel=1e-3)
    assert anchored.metadata["fine_tuned"]["settings"]["anchor"] == 1.0
    with pytest.raises(ValueError, match="anchor must be 0 or more"):
        fine_tune(model, pages, iterations=1, anchor=-1.0)


def _kept_share(model: Web2TextModel, pages: list[str]) -> float:
    """The share of the pages' text ``model`` keeps as ``extract()`` labels them (its own threshold moved by the
    page type's offset), before the rules after decoding (they drop the navigation and the footer whatever the
    model says)."""
    kept = total = 0
    labelled = [extract(html, model=model, rules=False).blocks for html in pages]
    for keep in labelled:
        kept += sum(len(block.text) for block in keep if block.is_content)
        total += sum(len(block.text) for block in keep)
    return kept / total


def test_rebalancing_keeps_the_share_of_text_the_base_keeps_on_the_mixed_in_pages(corrected):
    from scrapy_web2text.research.corpus import process_record

    model = load_model()
    html = corrected["html"]
    every_boilerplate_block = {i for i, block in enumerate(corrected["result"].blocks) if not block.is_content}
    (corrected["labels"] / "story.labels.json").write_text(json.dumps(_labels_document(html, every_boilerplate_block)))
    pages = read_labelled_pages(corrected["pages"], [corrected["labels"]])  # a user who wants every block kept
    records = []
    for number in range(2, 7):
        html, paragraphs = article_page(number, random.Random(number))
        records.append({"id": f"a{number}", "dataset": "site", "html": html, "text": "\n".join(paragraphs)})
    mix = [process_record(record) for record in records]
    settings = {"iterations": 40, "learning_rate": 3e-3, "threads": 1}
    plain = fine_tune(model, pages, mix, rebalance=False, **settings)
    rebalanced = fine_tune(model, pages, mix, rebalance=True, **settings)
    htmls = [record["html"] for record in records]
    base_share = _kept_share(model, htmls)
    assert _kept_share(plain, htmls) > base_share + 0.05  # tuned to keep the navigation, it keeps more everywhere
    assert abs(_kept_share(rebalanced, htmls) - base_share) < 0.02
    assert rebalanced.threshold > model.threshold == plain.threshold
    assert rebalanced.metadata["fine_tuned"]["threshold"] == rebalanced.threshold
    # The article offset the base adds (+0.1) is measured again for the tuned threshold, not added on top of it.
    offsets = rebalanced.config["threshold_offsets"]
    assert set(offsets) == {"article"} and offsets == rebalanced.metadata["fine_tuned"]["threshold_offsets"]
    assert offsets["article"] != pytest.approx(0.1)
    assert all((a == b).all() for a, b in zip(plain.unary[0], rebalanced.unary[0]))  # the same weights


def test_train_init_writes_a_model_that_loads_by_path(corrected, tmp_path, capsys):
    output = tmp_path / "mymodel"
    arguments = ["train", "--init", "default", "--pages", str(corrected["pages"]), "--labels", str(corrected["labels"])]
    settings = ["--iterations", "20", "--mix", "0", "--threads", "1", "--no-check"]  # the check: test_tuning_check
    assert main([*arguments, "-o", str(output), *settings]) == 0
    assert "your labels overrule, skipped: landmark_sections" in capsys.readouterr().out
    tuned = Web2TextModel.load(f"{output}.npz")
    card = json.loads((tmp_path / "mymodel.json").read_text())
    assert card["fine_tuned"]["pages"][0]["source"].endswith("story.html") and card["name"] == "default-tuned"
    assert extract(corrected["html"], model=str(output) + ".npz").model == "default-tuned"
    # WEB2TEXT_MODEL = "mymodel.npz": the crawl's components load it
    from scrapy_web2text import Web2TextSpiderMiddleware

    middleware = Web2TextSpiderMiddleware.from_crawler(make_crawler({"WEB2TEXT_MODEL": f"{output}.npz"}))
    assert middleware.model.name == "default-tuned" and middleware.model.unary[0][0].shape == tuned.unary[0][0].shape


def test_gold_text_in_the_corpus_format_labels_pages_too(tmp_path):
    html, paragraphs = article_page(1, random.Random(6))
    corpus = tmp_path / "mine.jsonl.gz"
    record = {"id": "mine-1", "dataset": "mine", "split": "train", "url": "http://x/1", "html": html}
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        out.write(json.dumps({**record, "text": "\n".join(paragraphs)}) + "\n")
    (page,) = read_labelled_pages(None, [corpus])
    kept = {text for text, label in zip(page.texts, page.labels) if label}
    assert set(paragraphs) <= kept and not kept & set(NAVIGATION) and page.labels_from == "gold"


def test_labels_without_their_page_are_refused(corrected, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "story.html").write_bytes(corrected["html"] + b" ")
    with pytest.raises(ValueError, match="no page in .* has the hash it names"):
        read_labelled_pages(other, [corrected["labels"]])
    arguments = ["train", "--init", "default", "--labels", str(corrected["labels"]), "-o", str(tmp_path / "m")]
    assert main(arguments) == 2
    assert "viewer labels need --pages" in capsys.readouterr().err


def test_the_training_sample_follows_the_corpora_sizes(tmp_path):
    from scrapy_web2text.research.train.tuning import sample_training_pages

    files = []
    for name, size in (("small", 10), ("large", 30)):
        path = tmp_path / f"{name}.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for n in range(size):
                html = f"<html><body><p>Page {n} of {name}: a paragraph long enough to be a block.</p></body></html>"
                record = {"id": f"{name}-{n}", "dataset": name, "split": "train", "html": html, "text": "x"}
                out.write(json.dumps(record) + "\n")
            out.write(json.dumps({**record, "id": f"{name}-v", "split": "validation"}) + "\n")
        files.append(path)
    sample = sample_training_pages(files, 8, seed=1)
    assert [page.dataset for page in sample].count("small") == 2 and len(sample) == 8
    assert len({page.id for page in sample}) == 8 and not any(page.id.endswith("-v") for page in sample)
    assert [page.id for page in sample] == [page.id for page in sample_training_pages(files, 8, seed=1)]
