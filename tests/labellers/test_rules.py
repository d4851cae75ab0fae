"""The stage after decoding as one registry: switched off by an argument or a setting, each block's rule recorded."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_web2text import extract
from scrapy_web2text.integration.chain import run_chain
from scrapy_web2text.integration.settings import Web2TextConfig
from scrapy_web2text.labellers.web2text import page_threshold, page_type_on_demand, resolve_model
from scrapy_web2text.labellers.web2text.features import page_features
from scrapy_web2text.labellers.web2text.rules import REGISTRY, ROUND3, RULE_NAMES, Rule, run_rules
from scrapy_web2text.labellers.web2text.viterbi import viterbi
from scrapy_web2text.page import parse_page

from ..scrapy_support import REPO, make_crawler

_STORY = "".join(
    f"<p>Paragraph {n} of the story about the harbour wall, with words, commas and a full stop.</p>" for n in range(8)
)
_CAPTION = "The harbour wall at dawn, photographed from the pier by a reader of ours."
#: An article whose figure's caption the model keeps and a rule drops.
CAPTIONED = (
    f"<html><body><article><h1>The harbour wall</h1>{_STORY}<figure><img src=a.jpg><figcaption>{_CAPTION}"
    "</figcaption></figure></article></body></html>"
)


def _model_alone(html: str) -> list[bool]:
    """The shipped model's decoding at its own threshold, without anything after it."""
    page, model = parse_page(html), resolve_model(None)
    block_x, edge_x = page_features(page, extended=model.extended)
    unary, pair = model.potentials(block_x, edge_x)
    threshold = page_threshold(model, page_type_on_demand(page, block_x))
    return viterbi(unary, pair, model.lam, threshold).astype(bool).tolist()


def test_rules_false_runs_the_model_alone():
    alone = extract(CAPTIONED, rules=False)
    assert [block.is_content for block in alone.blocks] == _model_alone(CAPTIONED)
    assert _CAPTION in alone.main_text and _CAPTION not in extract(CAPTIONED).main_text
    assert all(block.rule is None for block in alone.blocks)
    # the evaluation's "model alone" row: the same labels, as a method the benchmark runs beside "web2text"
    by_method = extract(CAPTIONED, method="web2text-model-alone")
    assert [block.is_content for block in by_method.blocks] == _model_alone(CAPTIONED)


def test_a_rule_can_be_skipped_by_name_and_unknown_names_are_refused():
    assert _CAPTION in extract(CAPTIONED, skip_rules={"kept_captions"}).main_text
    assert _CAPTION not in extract(CAPTIONED, skip_rules={"repeated_blocks"}).main_text
    with pytest.raises(ValueError, match="unknown rule.*kept_captions"):
        extract(CAPTIONED, skip_rules={"captions"})


def test_each_block_records_the_rule_that_changed_its_label():
    result = extract(CAPTIONED)
    changed = {block.text: block.rule for block in result.blocks if block.rule}
    assert changed == {_CAPTION: "kept_captions"}
    records = result.block_records("full")
    assert [record["rule"] for record in records] == [block.rule for block in result.blocks]
    # The compact form stays [label, probability, xpath]: a feed's size does not grow.
    assert all(len(record) == 3 for record in result.block_records("compact"))
    assert extract(CAPTIONED).to_dict()["blocks"] == records  # the full records, read without building the blocks


def test_the_rules_setting_switches_them_off_in_a_crawl():
    assert Web2TextConfig.from_crawler(make_crawler({})).rules is True
    config = Web2TextConfig.from_crawler(make_crawler({"WEB2TEXT_RULES": "False", "WEB2TEXT_BLOCKS": "full"}))
    assert config.rules is False
    result = run_chain(CAPTIONED, None, None, config)
    assert result.main_text == extract(CAPTIONED, rules=False).main_text
    assert all(record["rule"] is None for record in result.blocks)


def test_every_rule_is_registered_with_what_the_docs_need():
    names = [rule.name for rule in REGISTRY]
    assert len(set(names)) == len(names) and set(RULE_NAMES) < set(names)
    for rule in REGISTRY:
        assert rule.name == rule.find.__name__ and callable(rule.find)
        assert rule.types is None or (rule.types and all(isinstance(kind, str) for kind in rule.types))
        assert rule.removes.endswith(".") and len(rule.removes) <= 200 and rule.note and rule.section
    assert np.array_equal(
        extract(CAPTIONED, skip_rules=set(names)).main_text, extract(CAPTIONED, rules=False).main_text
    )


def test_the_docs_table_of_rules_is_the_registry_written_out():
    from scrapy_web2text.labellers.web2text.rules import DOCS_TABLE, docs_table

    assert (REPO / DOCS_TABLE).read_text(encoding="utf-8") == docs_table(), (
        "docs/rules.inc is stale: write rules.docs_table() to it"
    )
    assert ".. include:: rules.inc" in (REPO / "docs" / "model.rst").read_text(encoding="utf-8")
    for rule in REGISTRY:  # each rule's research note holds the section it names
        note = (REPO / "docs" / f"{rule.note}.rst").read_text(encoding="utf-8").splitlines()
        headings = [line for line, under in zip(note, note[1:]) if under and set(under) <= set("=-~^*")]
        assert any(heading.startswith(rule.section) for heading in headings), (rule.name, rule.section)
        assert f"``{rule.name}``" in docs_table()


def test_a_rule_that_would_delete_the_page_leaves_the_models_text():
    page = parse_page(CAPTIONED)
    everything = np.ones(len(page), np.int8)

    def all_but_the_headline(page, labels):
        return (labels != 0) & (np.arange(len(page)) > 0)

    def the_caption(page, labels):
        return np.array([text == _CAPTION for text in page.texts])

    wide = Rule("all_but_the_headline", all_but_the_headline, None, "Everything.", ROUND3, "Shipped")
    narrow = Rule("the_caption", the_caption, None, "The caption.", ROUND3, "Shipped")
    ruled = run_rules(page, everything, rules=(wide, narrow))
    assert ruled.labels.sum() == len(page) - 1  # the wide rule did not run; the narrow one did
    assert ruled.rule_names() == [None] * (len(page) - 1) + ["the_caption"]


#: A page whose text a script inserts, fetched without rendering: a menu, an empty mount point, a footer.
SCRIPT_FILLED = (
    "<!doctype html><html><head><title>Acme News</title><script src='/app.js'></script></head><body><header><nav><ul>"
    + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(12))
    + "</ul></nav></header><main><div id='root'></div></main><footer><ul><li><a href='/privacy'>Privacy</a></li>"
    "<li><a href='/terms'>Terms</a></li></ul><p>© 2024 Acme Media Ltd. All rights reserved.</p></footer></body></html>"
)


def test_a_page_with_nothing_to_keep_comes_out_empty_with_its_reason():
    result = extract(SCRIPT_FILLED)
    assert result.main_text == "" and result.empty == "furniture_only"
    footer = [block for block in result.blocks if block.text.startswith("©")]
    assert footer and footer[0].rule == "furniture_only" and footer[0].probability > 0.3
    # The model alone keeps the footer line: the empty text is this rule's doing.
    assert "© 2024" in extract(SCRIPT_FILLED, rules=False).main_text


#: A shop's category index whose whole text sits in a widget with a footer-named class: links and their counts.
CATEGORIES = (
    "<html><body><div class='footer-widgets'><ul class='product-categories'>"
    + "".join(
        f"<li><a href='/c/{n}'>{name}</a> <span class='count'>({n})</span></li>"
        for n, name in ((158, "Power Banks"), (44, "Bluetooth Speakers"), (10, "Camera Accessories"), (4, "Radios"))
    )
    + "</ul>{legal}</div></body></html>"
)


def test_only_a_page_kept_around_a_legal_line_is_emptied():
    from scrapy_web2text.labellers.web2text.nothing_kept import furniture_only

    index = parse_page(CATEGORIES.format(legal=""))
    assert index.ancestor_keywords.all() and index.in_link.any()  # every block under the footer-named widget
    assert not furniture_only(index, np.ones(len(index), np.int8))  # its links and counts are the page's text
    footer = parse_page(CATEGORIES.format(legal="<p>© 2024 The Shop Ltd.</p>"))
    assert furniture_only(footer, np.ones(len(footer), np.int8))
    assert not furniture_only(footer, np.zeros(len(footer), np.int8))


def test_a_short_page_and_a_headline_alone_keep_their_text():
    short = (
        "<html><head><title>Closed</title></head><body><h1>We are closed today</h1><p>The shop is closed on Monday "
        "for stocktaking. We open again on Tuesday at nine.</p><footer>© 2024 The Shop</footer></body></html>"
    )
    assert extract(short).main_text.startswith("We are closed today") and extract(short).empty is None
    linked = "<html><body><h2><a href='/zombies'>Logos Re-imagined for the Zombie Apocalypse</a></h2></body></html>"
    assert extract(linked).empty != "furniture_only"
