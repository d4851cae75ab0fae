"""WEB2TEXT_METADATA: metadata fields into items, the item-type rules, the stats."""

from __future__ import annotations

import json

import pytest
import scrapy

from scrapy_web2text import Web2TextSpiderMiddleware
from scrapy_web2text.integration.settings import Web2TextConfig

from ..scrapy_support import html_response, make_crawler, run_output, stat

PAGE = (
    "<html lang='en'><head><title>Market plan - Town Paper</title>"
    '<meta property="og:site_name" content="Town Paper">'
    '<script type="application/ld+json">'
    + json.dumps(
        {"@type": "NewsArticle", "author": [{"name": "Ann Lee"}, {"name": "Bo Chen"}], "datePublished": "2024-06-11"}
    )
    + "</script></head><body><article><h1>Market plan</h1>"
    + "<p>The council announced a plan to restore the old market, and the residents were asked about it.</p>" * 4
    + "</article></body></html>"
)


def middleware_for(untrained_model, metadata):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_METADATA": metadata})
    return crawler, Web2TextSpiderMiddleware.from_crawler(crawler)


def test_listed_fields_go_into_prefixed_item_fields_and_are_counted(untrained_model):
    crawler, middleware = middleware_for(untrained_model, ["authors", "date_published", "language", "image"])
    (item,) = run_output(middleware, html_response(body=PAGE), [{"url": "http://example.com/a"}])
    assert item["web2text_authors"] == ["Ann Lee", "Bo Chen"]
    assert item["web2text_date_published"] == "2024-06-11"
    assert item["web2text_language"] == "en"
    assert item["web2text_image"] is None  # asked for, not on the page: present and empty
    assert stat(crawler, "metadata/authors") == stat(crawler, "metadata/language") == 1
    assert stat(crawler, "metadata/image") is None


def test_a_dict_names_the_item_fields(untrained_model):
    _, middleware = middleware_for(untrained_model, {"site_name": "site", "authors": "byline"})
    (item,) = run_output(middleware, html_response(body=PAGE), [{}])
    assert (item["site"], item["byline"]) == ("Town Paper", ["Ann Lee", "Bo Chen"])
    assert not any(key.startswith("web2text_") and key != "web2text_blocks" for key in item)


def test_off_by_default(untrained_model):
    crawler, middleware = middleware_for(untrained_model, [])
    (item,) = run_output(middleware, html_response(body=PAGE), [{}])
    assert not [key for key in item if key.startswith("web2text_") and key != "web2text_blocks"]
    assert stat(crawler, "metadata/authors") is None


class DeclaredItem(scrapy.Item):
    main_text = scrapy.Field()
    web2text_blocks = scrapy.Field()
    web2text_authors = scrapy.Field()


def test_a_declared_item_gets_the_field_and_an_undeclared_one_is_reported(untrained_model, caplog):
    crawler, middleware = middleware_for(untrained_model, ["authors"])
    (item,) = run_output(middleware, html_response(body=PAGE), [DeclaredItem()])
    assert item["web2text_authors"] == ["Ann Lee", "Bo Chen"]
    crawler, middleware = middleware_for(untrained_model, ["authors", "language"])
    (item,) = run_output(middleware, html_response(body=PAGE), [DeclaredItem()])
    assert "main_text" not in item  # like a missing text or format field: the item goes on unchanged, logged
    assert "web2text_language = scrapy.Field()" in caplog.text
    assert stat(crawler, "skipped/undeclared_fields") == 1


@pytest.mark.parametrize(
    "value, expected",
    [
        ("authors,language", (("authors", "web2text_authors"), ("language", "web2text_language"))),
        ('{"tags": "keywords"}', (("tags", "keywords"),)),
        ([], ()),
    ],
)
def test_the_setting_read_from_a_string(value, expected, untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_METADATA": value})
    assert Web2TextConfig.from_crawler(crawler).metadata == expected


@pytest.mark.parametrize(
    "value, message",
    [
        (["author"], "unknown field.*'author'.*authors"),
        ('{"authors": ', "not a JSON object"),
        ({"tags": ""}, "item field"),
    ],
)
def test_a_wrong_setting_fails_at_start_up(untrained_model, value, message):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_METADATA": value})
    with pytest.raises(ValueError, match=message):
        Web2TextConfig.from_crawler(crawler)


@pytest.mark.slow
def test_the_example_crawl_writes_metadata_into_its_feed(tmp_path):
    from tests.integration.test_scrapy_crawl import crawl

    from ..scrapy_support import require_default_model

    result = crawl(tmp_path, None, require_default_model())
    by_file = {item["url"].split("/site/", 1)[1]: item for item in result["items"]}
    night_train = by_file["articles/night-train.html"]  # JSON-LD and OpenGraph, as a news site writes them
    assert night_train["web2text_authors"] == ["Aisha Rahman"]
    assert night_train["web2text_date_published"] == "2024-06-11T06:00:00+02:00"
    assert night_train["web2text_language"] == "en"
    assert night_train["web2text_image"] == "https://allotment-notes.example/images/logo.png"
    assert night_train["web2text_tags"] == ["night trains", "slow travel"]
    rain_garden = by_file["articles/rain-garden.html"]  # no JSON-LD: its <meta> date and its visible byline
    assert rain_garden["web2text_authors"] == ["Oluwaseun Adeyemi"]
    assert rain_garden["web2text_date_published"] == "2024-04-09"
    assert by_file["articles/hochbeet-anlegen.html"]["web2text_language"] == "de"
    stats = result["probe"]["stats"]
    assert stats["web2text/metadata/authors"] >= 8 and stats["web2text/metadata/site_name"] >= 20
    assert "web2text_authors" not in by_file["files/planting-calendar.pdf"] and "Traceback" not in result["log"]
