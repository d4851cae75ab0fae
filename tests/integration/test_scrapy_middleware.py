"""Web2TextSpiderMiddleware, driven directly with responses and spider output."""

from __future__ import annotations

import dataclasses
import logging

import attrs
import pytest
import scrapy
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response

from scrapy_web2text import ModelError, Web2TextPipeline, Web2TextSpiderMiddleware, extract

from ..scrapy_support import (
    ARTICLE,
    ChainCounter,
    html_response,
    json_response,
    make_crawler,
    other_response,
    run_output,
    run_start,
    stat,
)


@pytest.fixture
def middleware(crawler):
    return Web2TextSpiderMiddleware.from_crawler(crawler)


class DeclaredItem(scrapy.Item):
    url = scrapy.Field()
    main_text = scrapy.Field()
    web2text_blocks = scrapy.Field()


class UndeclaredItem(scrapy.Item):
    url = scrapy.Field()


@dataclasses.dataclass
class DataclassItem:
    url: str
    main_text: str | None = None
    web2text_blocks: list | None = None


@attrs.define
class AttrsItem:
    url: str
    main_text: str | None = None
    web2text_blocks: list | None = None


def test_chain_runs_once_per_response_for_many_items(untrained_model, monkeypatch):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_BLOCKS": "full"})
    middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
    counter = ChainCounter(monkeypatch)
    response = html_response()
    items = [{"n": n} for n in range(5)]
    out = run_output(middleware, response, items)
    assert out == items
    assert counter.calls == [response.url]
    assert all(thread.startswith("web2text") for thread in counter.threads)
    for item in out:
        blocks = item["web2text_blocks"]
        assert [b["text"] for b in blocks][:2] == ["Home", "About"]
        assert all(set(b) == {"text", "label", "probability", "xpath", "rule"} for b in blocks)
        assert all(b["label"] in ("content", "boilerplate") and 0 <= b["probability"] <= 1 for b in blocks)
        content = [b["text"] for b in blocks if b["label"] == "content"]
        assert all(text in item["main_text"] for text in content)
        assert len(item["main_text"]) >= len(" ".join(content))
    assert out[0]["web2text_blocks"] == out[4]["web2text_blocks"]
    assert stat(crawler, "pages") == 1
    assert stat(crawler, "items") == 5
    assert stat(crawler, "responses") == 1
    assert stat(crawler, "blocks") == len(out[0]["web2text_blocks"])
    assert stat(crawler, "content_blocks") == sum(b["label"] == "content" for b in out[0]["web2text_blocks"])
    assert stat(crawler, "time_ms") > 0


def test_main_text_joins_the_content_blocks(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.001})
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{}])
    # Every block clears the threshold; the navigation and the footer are landmarks, dropped after decoding.
    assert out[0]["main_text"].startswith("Headline\nThe first paragraph")
    assert out[0]["main_text"].endswith("It ends here.")
    assert out[0]["web2text_blocks"] == "001110"  # the default form: a character per block, 1 content


def test_pages_the_models_own_threshold_empties_are_labelled_again_and_counted(tmp_path):
    from scrapy_web2text.labellers.web2text.network import PAPER_CONFIG, Web2TextModel

    strict = Web2TextModel.initialised({**PAPER_CONFIG, "threshold": 0.999}, seed=0).save(tmp_path / "strict")
    crawler = make_crawler({"WEB2TEXT_MODEL": str(strict)})
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{}])
    assert out[0]["main_text"] and stat(crawler, "decoded_again") == 1
    # A threshold the crawl sets is applied as it is: nothing clears 0.999, nothing is counted.
    crawler = make_crawler({"WEB2TEXT_MODEL": str(strict), "WEB2TEXT_THRESHOLD": 0.999})
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{}])
    assert out[0]["main_text"] == "" and stat(crawler, "decoded_again") is None


def test_requests_pass_through_untouched(crawler, middleware, monkeypatch):
    counter = ChainCounter(monkeypatch)
    request = Request("http://example.com/next")
    out = run_output(middleware, html_response(), [request])
    assert out == [request] and out[0] is request
    assert counter.calls == []
    assert stat(crawler, "skipped/no_items") == 1


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (other_response("http://e.com/a.png", b"\x89PNG\r\n\x1a\n", "image/png"), "non_html"),
        (other_response("http://e.com/a.pdf", b"%PDF-1.4 ...", "application/pdf"), "non_html"),
        (json_response(), "non_html"),
        (html_response(body=""), "empty"),
        (html_response(body="   \n "), "empty"),
    ],
)
def test_non_html_and_empty_responses_pass_through_and_are_counted(crawler, middleware, monkeypatch, response, reason):
    counter = ChainCounter(monkeypatch)
    item = {"url": response.url}
    out = run_output(middleware, response, [item])
    assert out == [{"url": response.url}]
    assert counter.calls == []
    assert stat(crawler, f"skipped/{reason}") == 1
    assert stat(crawler, "items") is None


def test_too_large_pages_are_skipped(untrained_model, monkeypatch):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_MAX_BYTES": 100})
    counter = ChainCounter(monkeypatch)
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{"a": 1}])
    assert out == [{"a": 1}] and counter.calls == []
    assert stat(crawler, "skipped/too_large") == 1


def test_html_served_with_html_content_type_but_plain_response_class(crawler, middleware):
    response = other_response(
        "http://e.com/x", ARTICLE.encode(), "text/html; charset=utf-8", cls=scrapy.http.TextResponse
    )
    out = run_output(middleware, response, [{}])
    assert "web2text_blocks" in out[0]


@pytest.mark.parametrize(
    "factory",
    [
        lambda: DeclaredItem(url="u"),
        lambda: DataclassItem(url="u"),
        lambda: AttrsItem(url="u"),
    ],
)
def test_every_item_kind_gets_the_fields(crawler, middleware, factory):
    item = factory()
    out = run_output(middleware, html_response(), [item])
    assert out[0] is item
    from itemadapter import ItemAdapter

    adapter = ItemAdapter(item)
    assert isinstance(adapter["main_text"], str)
    assert [b["text"] for b in adapter["web2text_blocks"]][:3] == ["Home", "About", "Headline"]


def test_undeclared_item_fields_warn_once_and_the_item_goes_through(crawler, middleware, caplog):
    items = [UndeclaredItem(url="a"), UndeclaredItem(url="b")]
    with caplog.at_level(logging.WARNING):
        out = run_output(middleware, html_response(), items)
        run_output(middleware, html_response(), [UndeclaredItem(url="c")])
    assert [dict(item) for item in out] == [{"url": "a"}, {"url": "b"}]
    warnings = [r for r in caplog.records if "does not declare" in r.getMessage()]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert "UndeclaredItem" in message and "main_text" in message and "web2text_blocks" in message
    assert "main_text = scrapy.Field()" in message
    assert stat(crawler, "skipped/undeclared_fields") == 3


@pytest.mark.parametrize("setting", [{"WEB2TEXT_BLOCKS": "none"}, {"WEB2TEXT_INCLUDE_BLOCKS": False}])
def test_no_blocks_needs_and_fills_only_the_text_field(untrained_model, setting, caplog):
    class TextOnly(scrapy.Item):
        main_text = scrapy.Field()

    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), **setting})
    with caplog.at_level(logging.WARNING):
        out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [TextOnly(), {}])
    assert set(out[0].keys()) == {"main_text"}
    assert set(out[1]) == {"main_text", "title"}  # a dict item also takes the page's headline
    # the deprecated setting still works, and says once what to set instead
    deprecated = [record for record in caplog.records if "deprecated" in record.getMessage()]
    assert len(deprecated) == ("WEB2TEXT_INCLUDE_BLOCKS" in setting)
    assert all('WEB2TEXT_BLOCKS = "none"' in record.getMessage() for record in deprecated)


def test_the_default_item_carries_a_label_per_block_and_other_forms_on_request(untrained_model):
    settings = {"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.001}
    labels = run_output(Web2TextSpiderMiddleware.from_crawler(make_crawler(settings)), html_response(), [{}])
    compact = make_crawler({**settings, "WEB2TEXT_BLOCKS": "compact"})
    records = run_output(Web2TextSpiderMiddleware.from_crawler(compact), html_response(), [{}])
    expected = "".join("1" if label == "content" else "0" for label, _, _ in records[0]["web2text_blocks"])
    assert labels[0]["web2text_blocks"] == expected and len(expected) == 6
    assert all(xpath.startswith(("/", "//")) for _, _, xpath in records[0]["web2text_blocks"])


def test_custom_field_names(untrained_model):
    crawler = make_crawler(
        {"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_TEXT_FIELD": "body", "WEB2TEXT_BLOCKS_FIELD": "labels"}
    )
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{}])
    assert set(out[0]) == {"body", "labels", "title"}


def test_failure_keeps_items_with_empty_fields_and_logs_the_url(crawler, middleware, monkeypatch, caplog):
    ChainCounter(monkeypatch, fail=True)
    with caplog.at_level(logging.ERROR):
        out = run_output(middleware, html_response("http://example.com/boom"), [{"a": 1}, {"a": 2}])
    assert out == [{"a": 1, "main_text": "", "web2text_blocks": []}, {"a": 2, "main_text": "", "web2text_blocks": []}]
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "http://example.com/boom" in errors[0] and "labelling exploded" in errors[0]
    assert stat(crawler, "errors") == 1
    assert stat(crawler, "pages") is None
    assert stat(crawler, "items") == 2


def test_items_the_spider_labelled_itself_are_left_alone(crawler, middleware, monkeypatch):
    counter = ChainCounter(monkeypatch)
    out = run_output(middleware, html_response(), [{"main_text": "mine"}])
    assert out == [{"main_text": "mine"}] and counter.calls == []
    assert stat(crawler, "skipped/already_labelled") == 1


def test_item_html_is_labelled_and_reuses_the_response_labelling(crawler, middleware, monkeypatch):
    counter = ChainCounter(monkeypatch)
    response = html_response()
    fragment = "<div><p>Only this fragment, which the spider picked, is labelled here.</p></div>"
    out = run_output(middleware, response, [{"html": response.text}, {}, {"html": fragment, "url": "http://x/f"}])
    assert counter.calls == [response.url, "http://x/f"]
    assert out[0]["web2text_blocks"] == out[1]["web2text_blocks"]
    assert [b["text"] for b in out[2]["web2text_blocks"]] == [
        "Only this fragment, which the spider picked, is labelled here."
    ]


def test_with_the_pipeline_enabled_items_with_html_are_left_to_it(crawler, middleware, monkeypatch):
    Web2TextPipeline.from_crawler(crawler)
    counter = ChainCounter(monkeypatch)
    response = html_response()
    out = run_output(middleware, response, [{"html": "<p>own html</p>"}, {}])
    assert out[0] == {"html": "<p>own html</p>"}
    assert "main_text" in out[1]
    assert counter.calls == [response.url]


def test_start_items_with_html_are_labelled_and_requests_pass(crawler, middleware, monkeypatch):
    counter = ChainCounter(monkeypatch)
    request = Request("http://example.com/")
    out = run_start(middleware, [request, {"html": ARTICLE, "url": "http://s/1"}, {"plain": 1}])
    assert out[0] is request
    assert "Headline" in [b["text"] for b in out[1]["web2text_blocks"]]
    assert out[2] == {"plain": 1}
    assert counter.calls == ["http://s/1"]
    assert stat(crawler, "skipped/no_html") == 1  # the start item without HTML


def test_an_item_without_html_is_counted_once_with_both_components(crawler, monkeypatch):
    import asyncio

    middleware, pipeline = Web2TextSpiderMiddleware.from_crawler(crawler), Web2TextPipeline.from_crawler(crawler)
    pdf = other_response("http://e.com/a.pdf", b"%PDF-1.4 ...", "application/pdf")
    out = run_output(middleware, pdf, [{"url": "http://e.com/a.pdf"}])
    asyncio.run(pipeline.process_item(out[0]))
    assert stat(crawler, "skipped/non_html") == 1
    assert stat(crawler, "skipped/no_html") is None


def test_disabled_raises_not_configured(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_ENABLED": False})
    with pytest.raises(NotConfigured):
        Web2TextSpiderMiddleware.from_crawler(crawler)


def test_missing_model_fails_at_start_up(tmp_path):
    with pytest.raises(ModelError, match="model file not found"):
        Web2TextSpiderMiddleware.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(tmp_path / "nope")}))


def test_process_spider_output_is_an_async_generator_without_spider_argument():
    import inspect

    for name in ("process_spider_output", "process_start"):
        method = getattr(Web2TextSpiderMiddleware, name)
        assert inspect.isasyncgenfunction(method)
        assert "spider" not in inspect.signature(method).parameters
    assert isinstance(Response, type)


def test_xhtml_served_as_xml_is_labelled(crawler, middleware):
    body = '<?xml version="1.0"?>\n' + ARTICLE.replace("<html>", '<html xmlns="http://www.w3.org/1999/xhtml">', 1)
    response = other_response("http://e.com/x", body.encode(), "application/xml", cls=scrapy.http.XmlResponse)
    assert "<html xmlns=" in body
    out = run_output(middleware, response, [{}])
    assert out[0]["main_text"] and stat(crawler, "skipped/non_html") is None


def test_server_chosen_content_types_never_become_stats_keys(crawler, middleware):
    for index in range(30):
        content_type = f"application/x-{index}-" + "\x00junk" * 600  # 3 KB, each page its own
        response = scrapy.http.HtmlResponse(
            f"http://e.com/{index}", body=ARTICLE.encode(), headers={"Content-Type": content_type}
        )
        run_output(middleware, response, [{}])
    keys = [key for key in crawler.stats.get_stats() if key.startswith("web2text/skipped/")]
    assert keys == ["web2text/skipped/not_html:other"] and stat(crawler, "skipped/not_html:other") == 30


def test_the_responses_own_encoding_wins_over_its_headers(untrained_model):
    """scrapy-playwright's response: the browser's UTF-8 bytes, ``encoding="utf-8"``, the server's windows-1252
    header.  The crawl and ``extract(response)`` read the bytes as UTF-8; a response given no encoding, by its
    header (valid UTF-8 under it is UTF-8 all the same, issue 54)."""
    words = "Łódź ☃ 中文: the words a script put into the page"
    body = f'<html><head><meta charset="windows-1252"></head><body><p>{words}, read as they are.</p></body></html>'
    headers = {"Content-Type": "text/html; charset=windows-1252"}
    url = "http://example.com/rendered"
    rendered = HtmlResponse(url, body=body.encode("utf-8"), headers=headers, encoding="utf-8", request=Request(url))
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.001})
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), rendered, [{}])
    assert words in out[0]["main_text"]
    assert words in extract(rendered, model=str(untrained_model), threshold=0.001).main_text
    latin = "Café crème, naïve façade: the words a server wrote"
    served_body = body.replace(words, latin).encode("cp1252")
    served = HtmlResponse(url, body=served_body, headers=headers, request=Request(url))  # no own encoding
    assert latin in run_output(Web2TextSpiderMiddleware.from_crawler(crawler), served, [{}])[0]["main_text"]
    mislabelled = HtmlResponse(url, body=body.encode("utf-8"), headers=headers, request=Request(url))
    assert words in run_output(Web2TextSpiderMiddleware.from_crawler(crawler), mislabelled, [{}])[0]["main_text"]


def test_time_ms_is_the_labelling_threads_cpu_time_not_elapsed_time(untrained_model, monkeypatch):
    # A job whose thread waits (for the GIL, for a core) is charged only what it ran: time_ms reads the thread's
    # CPU clock, here one that advances 0.25 s over the job while elapsed time is not read at all.
    import time as real_time
    import types

    from scrapy_web2text.integration import chain

    ticks = iter([10.0, 10.25])
    fake = types.SimpleNamespace(thread_time=lambda: next(ticks), perf_counter=real_time.perf_counter)
    monkeypatch.setattr(chain, "time", fake)
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)})
    run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(), [{}])
    assert stat(crawler, "time_ms") == 250.0


def test_a_page_with_nothing_to_keep_is_counted_with_its_reason():
    from ..labellers.test_rules import SCRIPT_FILLED

    crawler = make_crawler({})  # the shipped model: what it keeps of the page is its footer line
    out = run_output(Web2TextSpiderMiddleware.from_crawler(crawler), html_response(body=SCRIPT_FILLED), [{}])
    assert out[0]["main_text"] == "" and "1" not in out[0]["web2text_blocks"]
    assert stat(crawler, "empty/furniture_only") == 1 and stat(crawler, "pages") == 1
