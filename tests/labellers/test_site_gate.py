"""A tuned model's site gate: the tuned networks label the pages of the site they were taught on, the model they
were tuned from labels every other page, exactly as it does alone; the gate and that model travel in the files."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from scrapy_web2text import extract, load_model
from scrapy_web2text.labellers.web2text.config import ModelError
from scrapy_web2text.labellers.web2text.network import Web2TextModel
from scrapy_web2text.labellers.web2text.site_gate import MIN_TEMPLATE, template_digests, template_share, text_digest
from scrapy_web2text.page import parse_page

from ..site import article_page

OTHER_SITE = (
    "<html><body><div class='top'><a href='/'>Start</a> <a href='/shop'>Shop online</a></div>"
    "<main><h1>Repairing a bicycle chain</h1>"
    + "".join(
        f"<p>Step {n}: lift the chain off the ring, clean each link in turn and oil it lightly.</p>" for n in range(8)
    )
    + "</main><footer>Bike Repair Guides, all rights kept</footer></body></html>"
)


def test_digests_ignore_spacing_and_case_and_the_template_is_what_pages_share():
    assert text_digest("  Most   popular\n") == text_digest("most popular") != text_digest("most popular!")
    assert template_digests([["Menu", "Footer", "One page's links"]]) == sorted(
        {text_digest(t) for t in ("Menu", "Footer", "One page's links")}
    )
    furniture = [f"Menu entry {n}" for n in range(MIN_TEMPLATE)]
    pages = [[*furniture, "Related A"], [*(f" {t.upper()}" for t in furniture), "Related B"], ["Elsewhere"]]
    assert template_digests(pages) == sorted({text_digest(t) for t in furniture})
    assert template_share(frozenset(template_digests(pages)), furniture[:5] + ["A paragraph"]) == 0.5
    # too little shared to tell the site from others: every page's boilerplate makes the template
    few = [["Search", "Own menu A"], ["Search", "Own menu B"]]
    assert template_digests(few) == sorted({text_digest(t) for t in ("Search", "Own menu A", "Own menu B")})


def _gated(base: Web2TextModel, pages: list[str], min_share: float = 0.4) -> Web2TextModel:
    """A stand-in for a tuned model: the base's networks with the content logit raised (it keeps far more), gated
    on the boilerplate of ``pages`` as ``fine_tune`` gates."""
    texts = []
    for html in pages:
        result = extract(html, model=base)
        texts.append([block.text for block in result.blocks if block.label == "boilerplate"])
    *layers, (weight, bias) = base.unary
    unary = [*layers, (weight, bias + np.array([0.0, 8.0], np.float32))]
    config = {**base.config, "site_gate": {"min_share": min_share, "digests": template_digests(texts)}}
    return dataclasses.replace(base, config=config, unary=unary, metadata={"name": "gated"}, path=None, fallback=base)


@pytest.fixture(scope="module")
def site_pages():
    return [article_page(number, random.Random(number))[0] for number in range(4)]


def test_a_gated_model_labels_its_site_and_leaves_other_pages_to_the_model_it_came_from(site_pages, tmp_path):
    base = load_model()
    gated = _gated(base, site_pages[:2])
    ungated = dataclasses.replace(gated, config={k: v for k, v in gated.config.items() if k != "site_gate"})
    # the site's third page: the gated model's own networks, which keep more than the base
    third = site_pages[2]
    assert gated.for_page(parse_page(third).texts) is gated
    assert extract(third, model=gated).main_text == extract(third, model=ungated).main_text
    assert len(extract(third, model=gated).main_text) > len(extract(third, model=base).main_text)
    # another site's page: exactly the base's labels, where the same model without its gate changes them
    assert gated.for_page(parse_page(OTHER_SITE).texts) is base
    assert [b.label for b in extract(OTHER_SITE, model=gated).blocks] == [
        b.label for b in extract(OTHER_SITE, model=base).blocks
    ]
    assert extract(OTHER_SITE, model=ungated).main_text != extract(OTHER_SITE, model=base).main_text
    # saved and loaded: the gate and the fallback come back, and decide as before
    loaded = Web2TextModel.load(gated.save(tmp_path / "gated"))
    assert loaded.config["site_gate"] == gated.config["site_gate"] and loaded.fallback is not None
    assert all(np.array_equal(a, b) for (a, _), (b, _) in zip(loaded.fallback.unary, base.unary))
    assert not np.array_equal(loaded.unary[-1][1], loaded.fallback.unary[-1][1])
    assert extract(OTHER_SITE, model=loaded).main_text == extract(OTHER_SITE, model=base).main_text
    assert extract(third, model=loaded).main_text == extract(third, model=ungated).main_text
    description = json.loads((tmp_path / "gated.json").read_text())
    assert description["fallback"]["config"] == base.config and "fallback" not in loaded.metadata


def test_a_gate_without_its_fallback_or_with_a_bad_share_is_refused(site_pages, tmp_path):
    gated = _gated(load_model(), site_pages[:2])
    with pytest.raises(ModelError, match="site_gate needs the model"):
        dataclasses.replace(gated, fallback=None).check()
    bad = dataclasses.replace(
        gated, config={**gated.config, "site_gate": {**gated.config["site_gate"], "min_share": 2}}
    )
    with pytest.raises(ModelError, match="min_share"):
        bad.check()
    path = gated.save(tmp_path / "gated")
    description = json.loads(path.with_suffix(".json").read_text())
    del description["fallback"]
    path.with_suffix(".json").write_text(json.dumps(description))
    with pytest.raises(ModelError, match="site_gate needs the model"):
        Web2TextModel.load(path)


def test_fallbacks_nested_past_any_real_use_are_refused(site_pages, tmp_path):
    gated = _gated(load_model(), site_pages[:2])
    chain = gated
    for _ in range(3):
        chain = dataclasses.replace(gated, fallback=chain)
    assert Web2TextModel.load(chain.save(tmp_path / "tuned-four-times")).fallback.fallback is not None
    for _ in range(6):
        chain = dataclasses.replace(gated, fallback=chain)
    with pytest.raises(ModelError, match="fallback models nested"):
        Web2TextModel.load(chain.save(tmp_path / "crafted"))
