"""What a page declares itself to be: og:type, schema.org types of JSON-LD and microdata, <article> elements."""

from __future__ import annotations

import time

import pytest

from scrapy_web2text.page import declared as declared_module
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.declared import (
    MAX_ARTICLES,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPTS,
    MAX_TYPES,
    Declared,
    declared_kinds,
)


def declared(html: str) -> Declared:
    return declared_kinds(parse_page(html))


def test_og_type_json_ld_microdata_and_articles_are_read():
    page = """<html><head><meta property="og:type" content=" Article "><script type="application/ld+json">
        {"@context": "https://schema.org", "@type": ["NewsArticle", "schema:Thing"], "author": {"@type": "Person"}}
        </script></head><body><div itemscope itemtype="http://schema.org/Product https://schema.org/Offer/">
        <article><p>One story.</p></article></div></body></html>"""
    assert declared(page) == Declared(
        "article", frozenset({"NewsArticle", "Thing", "Person", "Product", "Offer"}), articles=1
    )


def test_a_page_that_declares_nothing_and_no_page_at_all():
    assert declared("<p>Only a paragraph.</p>") == Declared()
    assert declared("") == Declared() and declared("   ") == Declared()


def test_json_ld_that_is_not_valid_json_is_still_read_and_og_type_may_be_a_name():
    page = """<head><meta name="og:type" content="product.group"><script type="application/ld+json; charset=utf-8">
        // a comment, then a trailing comma
        {"@type": "FAQPage", "mainEntity": [{"@type" : "Question",},]}</script></head><p>x</p>"""
    assert declared(page) == Declared("product.group", frozenset({"FAQPage", "Question"}))


def test_articles_are_counted_up_to_the_cap():
    assert declared("<article>a</article>" * 50).articles == MAX_ARTICLES


def test_reading_is_bounded_by_scripts_and_characters():
    filler = '{"@type": "Thing"}'
    late = "<script type='application/ld+json'>" + " " * MAX_SCRIPT_CHARS + '{"@type": "Recipe"}</script>'
    many = "".join(f"<script type='application/ld+json'>{filler}</script>" for _ in range(MAX_SCRIPTS))
    types = declared(f'<head>{late}{many}<script type=\'application/ld+json\'>{{"@type": "Event"}}</script></head>')
    assert types.schema_types == {"Thing"}  # past the characters read, and past the scripts read


@pytest.mark.parametrize(
    "script",
    ['"@type": [' * 100_000, '"@type": "' * 100_000, '"@type"' + " " * 300_000 + ': "x"', '{"@type": "' + "a" * 10**6],
)
def test_hostile_scripts_are_read_in_linear_time(script):
    def cost(repeat: int) -> float:
        page = parse_page(f"<script type='application/ld+json'>{script * repeat}</script><p>x</p>")
        clock = time.thread_time()
        declared_kinds(page)
        return time.thread_time() - clock

    small = max(min(cost(1) for _ in range(3)), 0.002)
    assert min(cost(4) for _ in range(3)) < 12 * small  # 4x the script (cut at MAX_SCRIPT_CHARS): not 16x


def test_the_json_form_round_trips():
    value = Declared("website", frozenset({"Organization", "WebSite"}), 1)
    assert Declared.from_json(value.as_json()) == value


def test_itemtype_in_any_quoting_and_json_ld_with_markup_inside():
    page = """<div itemtype='https://schema.org/Recipe'><span itemtype=http://schema.org/Person>x</span></div>
        <script type="application/ld+json">{"articleBody": "<p>Text</p>", "@type": "BlogPosting"}</script>"""
    assert declared(page).schema_types == {"Recipe", "Person", "BlogPosting"}


def test_many_itemtype_attributes_are_read_up_to_the_cap():
    page = "".join(f"<i itemtype='https://schema.org/T{n}'>x</i>" for n in range(3 * MAX_TYPES))
    assert len(declared(page).schema_types) == MAX_TYPES


@pytest.mark.parametrize("text", ["plain ASCII", "caf\u00e9", "\u201cquoted\u201d \u4e2d\u6587", "emoji \U0001f600"])
def test_the_compiled_search_reads_what_str_find_reads(monkeypatch, text):
    # Sources of one-, two- and four-byte code points: the compiled search works in the source's width.
    page = parse_page(
        f"""<html><head><script type="application/ld+json">{{"@type": "NewsArticle", "name": "{text}"}}</script>
        <script type='application/ld+json'>{{"@type": ["Person", "schema:Thing"]}}</script></head><body>
        <div itemtype="https://schema.org/Product"><p>{text}</p><span itemtype='http://schema.org/Offer'>x</span>
        </div><script type="application/ld+json">{{"@type": "Event"</body></html>"""
    )
    compiled = declared_kinds(page)
    monkeypatch.setattr(declared_module, "compiled_find", None)
    assert declared_kinds(page) == compiled
    assert compiled.schema_types == {"NewsArticle", "Person", "Thing", "Product", "Offer", "Event"}
