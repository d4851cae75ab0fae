"""What Scrapy users bring (issue 34): per-request meta, ``extract(response)``, failed items marked, stats that
mean what they say, settings errors that name the setting, and docs that match the code."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import textwrap

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request

from scrapy_web2text import Web2TextCharsetMiddleware, Web2TextPipeline, Web2TextSpiderMiddleware, extract, load_model
from scrapy_web2text.cli import build_parser
from scrapy_web2text.extraction.responses import response_input
from scrapy_web2text.labellers.web2text.page_types import shipped_page_types
from tests.site import LoopbackServer, build_site

from ..helpers import FIXTURES
from ..scrapy_support import REPO, html_response, make_crawler, require_default_model, run_output, run_pipeline, stat

DOCS = REPO / "docs"


def exploding_labeller(page, *, model=None, threshold=None):
    raise RuntimeError("the labeller exploded")


# --- per-request meta, in a real crawl --------------------------------------------------------------------------

META_CRAWL = textwrap.dedent("""
    import json, sys
    import scrapy
    from scrapy.crawler import CrawlerProcess

    METAS = {"plain": {}, "off": {"web2text": False}, "low": {"web2text_threshold": 0.02},
             "high": {"web2text_threshold": 0.98}}

    class Meta(scrapy.Spider):
        name = "meta"

        async def start(self):
            for name, meta in METAS.items():
                yield scrapy.Request(sys.argv[1] + "article/1.html", meta={**meta, "case": name}, dont_filter=True)

        def parse(self, response):
            yield {"case": response.meta["case"]}

    process = CrawlerProcess({"LOG_LEVEL": "INFO", "ADDONS": {"scrapy_web2text.Addon": 0}})
    items = []
    crawler = process.create_crawler(Meta)
    crawler.signals.connect(lambda item: items.append(dict(item)), signal=scrapy.signals.item_scraped, weak=False)
    process.crawl(crawler)
    process.start()
    stats = {key: value for key, value in crawler.stats.get_stats().items() if key.startswith("web2text/")}
    print(json.dumps({"items": items, "stats": stats}, default=str))
""")


@pytest.fixture(scope="module")
def meta_crawl(tmp_path_factory):
    require_default_model()
    script = tmp_path_factory.mktemp("meta") / "meta.py"
    script.write_text(META_CRAWL)
    with LoopbackServer(build_site(articles=3, seed=2)) as server:
        done = subprocess.run(
            [sys.executable, str(script), server.url],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=script.parent,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {"items": {item["case"]: item for item in report["items"]}, "stats": report["stats"], "log": done.stderr}


def test_meta_web2text_false_leaves_the_items_of_that_request_alone(meta_crawl):
    items = meta_crawl["items"]
    assert set(items) == {"plain", "off", "low", "high"}
    assert set(items["off"]) == {"case"}
    assert meta_crawl["stats"]["web2text/skipped/disabled_by_meta"] == 1
    assert meta_crawl["stats"]["web2text/items"] == 3 and meta_crawl["stats"]["web2text/pages"] == 3


def test_meta_threshold_sets_the_threshold_for_that_request(meta_crawl):
    items = meta_crawl["items"]

    def kept(case: str) -> int:
        return sum(label == "content" for label, _, _ in items[case]["web2text_blocks"])

    assert len(items["low"]["web2text_blocks"]) == len(items["plain"]["web2text_blocks"])
    assert kept("low") >= kept("plain") >= kept("high") and kept("low") > kept("high")
    assert len(items["low"]["main_text"]) > len(items["high"]["main_text"])


def test_the_addon_crawl_counts_no_skip_for_items_the_middleware_labelled(meta_crawl):
    stats = meta_crawl["stats"]
    assert "web2text/skipped/already_labelled" not in stats, stats
    assert "Traceback" not in meta_crawl["log"]
    offsets = shipped_page_types().metadata["threshold_offsets"]
    added = "".join(f"; {label} {value:+g}" for label, value in sorted(offsets.items()))
    assert offsets and f"threshold {load_model().config['threshold']:g} (the model's own{added})" in meta_crawl["log"]


def test_a_bad_meta_threshold_is_an_item_error_and_the_item_goes_on(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)})
    middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
    url = "http://example.com/a"
    response = html_response(url)
    response = response.replace(request=Request(url, meta={"web2text_threshold": 1.5}))
    [item] = run_output(middleware, response, [{"n": 1}])
    assert item == {"n": 1} and stat(crawler, "skipped/item_error") == 1


# --- the pipeline with the middleware; the charset middleware; settings errors ---------------------------------


def test_the_pipeline_does_not_count_the_middlewares_items_as_skipped(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)})
    middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
    pipeline = Web2TextPipeline.from_crawler(crawler)
    items = run_pipeline(pipeline, run_output(middleware, html_response(), [{}, {}]))
    assert all(item["main_text"] for item in items)
    assert stat(crawler, "skipped/already_labelled") is None and stat(crawler, "items") == 2
    alone = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)})
    run_pipeline(Web2TextPipeline.from_crawler(alone), [{"main_text": "the spider's own"}])
    assert stat(alone, "skipped/already_labelled") == 1


def test_the_charset_middleware_obeys_web2text_enabled():
    with pytest.raises(NotConfigured):
        Web2TextCharsetMiddleware.from_crawler(make_crawler({"WEB2TEXT_ENABLED": False}))
    crawler = make_crawler({})
    assert Web2TextCharsetMiddleware.from_crawler(crawler).stats is crawler.stats  # it counts in the crawl's stats


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WEB2TEXT_MAX_BYTES", -1),
        ("WEB2TEXT_MAX_BYTES", "lots"),
        ("WEB2TEXT_CONCURRENCY", "two"),
        ("WEB2TEXT_DROP_HTML", "maybe"),
        ("WEB2TEXT_INCLUDE_BLOCKS", "sometimes"),
        ("WEB2TEXT_ENABLED", "perhaps"),
    ],
)
def test_a_bad_setting_value_names_the_setting(untrained_model, name, value):
    with pytest.raises(ValueError, match=f"^{name} must be .*{re.escape(repr(value))}"):
        Web2TextSpiderMiddleware.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(untrained_model), name: value}))


# --- failed labelling marked --------------------------------------------------------------------------------------


def test_an_item_whose_labelling_raised_is_counted_and_marked_when_asked(untrained_model, caplog):
    method = f"{__name__}:exploding_labeller"
    marked = make_crawler({"WEB2TEXT_METHOD": method, "WEB2TEXT_ERROR_FIELD": "web2text_error"})
    with caplog.at_level(logging.ERROR):
        [item] = run_output(Web2TextSpiderMiddleware.from_crawler(marked), html_response(), [{}])
    assert item["main_text"] == "" and item["web2text_error"] == "RuntimeError: the labeller exploded"
    assert stat(marked, "failed_items") == 1 and stat(marked, "errors") == 1
    plain = make_crawler({"WEB2TEXT_METHOD": method})
    [item] = run_output(Web2TextSpiderMiddleware.from_crawler(plain), html_response(), [{}])
    assert "web2text_error" not in item and stat(plain, "failed_items") == 1


# --- extract(response) -------------------------------------------------------------------------------------------


def test_extract_takes_a_scrapy_response_with_its_url_and_charset():
    text = (FIXTURES / "article.html").read_text(encoding="utf-8")
    expected = extract(text, url="https://example.org/a").main_text
    response = HtmlResponse(
        "https://example.org/a", body=text.encode("utf-8"), headers={"Content-Type": "text/html; charset=utf-8"}
    )
    result = extract(response)
    assert result.main_text == expected and result.url == "https://example.org/a"
    russian = "<html><body><article><p>" + "Привет, это длинный абзац статьи о погоде. " * 12 + "</p></article></body>"
    legacy = HtmlResponse(
        "https://example.org/ru", body=russian.encode("cp1251"), headers={"Content-Type": "text/html; charset=cp1251"}
    )
    assert "Привет, это длинный абзац" in extract(legacy).main_text


def test_extract_walks_the_tree_parsel_already_built():
    body = (FIXTURES / "article.html").read_bytes()
    response = HtmlResponse("https://example.org/a", body=body, headers={"Content-Type": "text/html; charset=utf-8"})
    assert response_input(response).tree is None
    root = response.selector.root
    assert response_input(response).tree is root
    assert extract(response).main_text == extract(body).main_text


def test_extract_still_refuses_what_is_not_a_page():
    with pytest.raises(TypeError, match="Scrapy response"):
        extract(42)


# --- docs against the code ------------------------------------------------------------------------------------------


def test_the_documented_default_threshold_is_the_models():
    threshold = f"{load_model().threshold:g}"
    help_text = build_parser()._subparsers._group_actions[0].choices["extract"].format_help()
    assert f"the model's own, {threshold}" in " ".join(help_text.split())
    readme = (REPO / "README.md").read_text()
    assert "threshold=0.5" not in readme and f"threshold={threshold}" in readme
    assert re.search(rf"model's own.{{0,40}}{threshold}", (DOCS / "settings.rst").read_text(), re.S)


def _stats_written_by_the_code() -> set[str]:
    """Every ``web2text/...`` key the integration writes, ``skipped/<reason>`` with its literal reasons."""
    keys: set[str] = set()
    for path in (REPO / "scrapy_web2text" / "integration").glob("*.py"):
        source = path.read_text()
        keys |= set(re.findall(r"self\.inc\(\s*\"([a-z_/]+)\"", source))
        keys |= {f"skipped/{reason}" for reason in re.findall(r"self\.skip(?:_item)?\(\s*\"([a-z_]+)\"", source)}
        keys |= set(re.findall(r"\"web2text/([a-z_/]+)\"", source))
        keys |= set(re.findall(r"\{PREFIX\}/([a-z_/]+)", source))
        if path.name == "middleware.py":  # skip_reason()'s answers, counted with self.skip(page.skip_reason)
            keys |= {f"skipped/{reason}" for reason in re.findall(r"return \"([a-z_]+)\"", source)}
    return {key.rstrip("/") for key in keys}  # "time_ms/" of f"{PREFIX}/time_ms/{stage}"


def test_every_stat_the_code_writes_is_documented():
    stats = (DOCS / "settings.rst").read_text().split("\nStats\n-----\n", 1)[1]
    documented = set(re.findall(r"``web2text/([a-z_/<>]+)``", stats))
    reasons = set(re.findall(r"``([a-z_]+)``", stats.split("``web2text/skipped/<reason>``", 1)[1]))
    written = _stats_written_by_the_code()
    assert {"charset_replaced", "skipped/read_only_item", "skipped/item_error", "failed_items"} <= written
    missing = [
        key
        for key in sorted(written)
        if key not in documented and not (key.startswith("skipped/") and key.split("/", 1)[1] in reasons)
    ]
    assert not missing, f"stats written but not documented in docs/settings.rst: {missing}"


def test_the_addon_section_names_every_component_it_installs():
    from scrapy.settings import Settings

    from scrapy_web2text import Addon

    settings = Settings()
    Addon().update_settings(settings)
    section = (DOCS / "settings.rst").read_text().split("The add-on\n----------", 1)[1].split("\nSettings\n", 1)[0]
    for setting in ("SPIDER_MIDDLEWARES", "ITEM_PIPELINES", "DOWNLOADER_MIDDLEWARES"):
        for component, order in settings.getdict(setting).items():
            name = getattr(component, "__name__", str(component).rsplit(".", 1)[-1])
            assert re.search(rf"{name}`? to ``{setting}``\s+at {order}", section), (name, setting, order)
