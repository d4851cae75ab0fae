"""Web2TextPipeline and its division of labour with the middleware."""

from __future__ import annotations

import dataclasses
import inspect
import logging

import pytest
import scrapy
from scrapy.exceptions import NotConfigured

from scrapy_web2text import Web2TextPipeline, Web2TextSpiderMiddleware

from ..scrapy_support import (
    ARTICLE,
    ChainCounter,
    html_response,
    make_crawler,
    run_output,
    run_pipeline,
    stat,
)


@pytest.fixture
def pipeline(crawler):
    return Web2TextPipeline.from_crawler(crawler)


def test_item_html_is_labelled(crawler, pipeline, monkeypatch):
    counter = ChainCounter(monkeypatch)
    out = run_pipeline(
        pipeline, [{"url": "http://a/1", "html": ARTICLE}, {"url": "http://a/2", "html": ARTICLE.encode()}]
    )
    assert counter.calls == ["http://a/1", "http://a/2"]
    for item in out:
        assert [b["text"] for b in item["web2text_blocks"]][:3] == ["Home", "About", "Headline"]
        assert isinstance(item["main_text"], str)
        assert "html" in item
    assert stat(crawler, "pages") == 2 and stat(crawler, "items") == 2


def test_items_without_html_or_already_labelled_pass(crawler, pipeline, monkeypatch):
    counter = ChainCounter(monkeypatch)
    out = run_pipeline(pipeline, [{"url": "x"}, {"html": ""}, {"html": ARTICLE, "main_text": "done"}, {"html": 3}])
    assert out == [{"url": "x"}, {"html": ""}, {"html": ARTICLE, "main_text": "done"}, {"html": 3}]
    assert counter.calls == []
    assert stat(crawler, "skipped/no_html") == 3
    assert stat(crawler, "skipped/already_labelled") == 1


def test_drop_html_and_custom_html_field(untrained_model):
    crawler = make_crawler(
        {"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_HTML_FIELD": "raw", "WEB2TEXT_DROP_HTML": True}
    )
    out = run_pipeline(Web2TextPipeline.from_crawler(crawler), [{"raw": ARTICLE}])
    assert set(out[0]) == {"main_text", "web2text_blocks", "title"}


def test_failure_keeps_the_item(crawler, pipeline, monkeypatch, caplog):
    ChainCounter(monkeypatch, fail=True)
    with caplog.at_level(logging.ERROR):
        out = run_pipeline(pipeline, [{"url": "http://a/bad", "html": ARTICLE}])
    assert out == [{"url": "http://a/bad", "html": ARTICLE, "main_text": "", "web2text_blocks": []}]
    assert any("http://a/bad" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    assert stat(crawler, "errors") == 1


def test_undeclared_fields_and_dataclass_items(crawler, pipeline, caplog):
    class Page(scrapy.Item):
        html = scrapy.Field()

    @dataclasses.dataclass
    class Doc:
        html: str
        main_text: str = ""
        web2text_blocks: list = dataclasses.field(default_factory=list)

    with caplog.at_level(logging.WARNING):
        out = run_pipeline(pipeline, [Page(html=ARTICLE), Doc(html=ARTICLE)])
    assert dict(out[0]) == {"html": ARTICLE}
    assert "Headline" in [b["text"] for b in out[1].web2text_blocks]
    assert any("does not declare" in r.getMessage() for r in caplog.records)


def test_too_large(untrained_model, monkeypatch):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_MAX_BYTES": 10})
    counter = ChainCounter(monkeypatch)
    assert run_pipeline(Web2TextPipeline.from_crawler(crawler), [{"html": ARTICLE}]) == [{"html": ARTICLE}]
    assert counter.calls == [] and stat(crawler, "skipped/too_large") == 1


def test_middleware_and_pipeline_together_label_each_page_once(crawler, pipeline, monkeypatch):
    middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
    counter = ChainCounter(monkeypatch)
    response = html_response("http://site/page")
    fragment = "<p>A fragment the spider extracted itself, with a sentence.</p>"
    items = [{"url": "i1"}, {"url": "i2", "html": fragment}, {"url": "i3", "html": response.text}]
    out = run_pipeline(pipeline, run_output(middleware, response, items))
    # The middleware labels the response once (for i1); the pipeline labels the two items with HTML.
    assert sorted(counter.calls) == sorted(["http://site/page", "i2", "i3"])
    assert all("main_text" in item and "web2text_blocks" in item for item in out)
    assert stat(crawler, "pages") == 3


def test_pipeline_alone_through_a_real_item_flow_is_useful_and_disabled_means_not_configured(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_ENABLED": "False"})
    with pytest.raises(NotConfigured):
        Web2TextPipeline.from_crawler(crawler)


def test_process_item_is_async_and_takes_no_spider():
    assert inspect.iscoroutinefunction(Web2TextPipeline.process_item)
    assert list(inspect.signature(Web2TextPipeline.process_item).parameters) == ["self", "item"]


def test_the_page_type_field_is_filled_only_when_named():
    out = run_pipeline(Web2TextPipeline.from_crawler(make_crawler({})), [{"html": ARTICLE}])
    assert "page_type" not in out[0]
    crawler = make_crawler({"WEB2TEXT_PAGE_TYPE_FIELD": "page_type"})
    out = run_pipeline(Web2TextPipeline.from_crawler(crawler), [{"html": ARTICLE}, {"html": ARTICLE, "page_type": "x"}])
    kind = out[0]["page_type"]
    assert set(kind) == {"label", "probability"} and 0 < kind["probability"] <= 1
    assert isinstance(kind["label"], str) and kind["label"]
    assert out[1]["page_type"] == "x"  # the spider's value is never overwritten
