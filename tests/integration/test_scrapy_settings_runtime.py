"""Settings, the spider threshold override, and the process-wide runtime."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import textwrap

import pytest
from scrapy import Spider

from scrapy_web2text import Web2TextPipeline, Web2TextSpiderMiddleware
from scrapy_web2text.integration.runtime import get_runtime
from scrapy_web2text.integration.settings import DEFAULTS, Web2TextConfig
from scrapy_web2text.labellers.base import warm_up_labeller
from scrapy_web2text.labellers.web2text import languages
from scrapy_web2text.labellers.web2text.languages import identify

from ..scrapy_support import REPO, make_crawler


def test_defaults(untrained_model):
    config = Web2TextConfig.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(untrained_model)}))
    assert (config.method, config.threshold, config.text_field, config.blocks_field) == (
        "web2text",
        None,
        "main_text",
        "web2text_blocks",
    )
    assert (config.include_blocks, config.html_field, config.max_bytes, config.concurrency) == (
        True,
        "html",
        5_000_000,
        2,
    )
    assert set(DEFAULTS) >= {
        "WEB2TEXT_ENABLED",
        "WEB2TEXT_MODEL",
        "WEB2TEXT_THRESHOLD",
        "WEB2TEXT_TEXT_FIELD",
        "WEB2TEXT_BLOCKS_FIELD",
        "WEB2TEXT_INCLUDE_BLOCKS",
        "WEB2TEXT_HTML_FIELD",
        "WEB2TEXT_MAX_BYTES",
        "WEB2TEXT_CONCURRENCY",
        "WEB2TEXT_METHOD",
    }


def test_command_line_strings_are_parsed(untrained_model):
    config = Web2TextConfig.from_crawler(
        make_crawler(
            {
                "WEB2TEXT_MODEL": str(untrained_model),
                "WEB2TEXT_THRESHOLD": "0.7",
                "WEB2TEXT_INCLUDE_BLOCKS": "0",
                "WEB2TEXT_MAX_BYTES": "123",
                "WEB2TEXT_CONCURRENCY": "3",
                "WEB2TEXT_METHOD": "web2text-unary",
            }
        )
    )
    assert (config.threshold, config.include_blocks, config.max_bytes, config.concurrency) == (0.7, False, 123, 3)
    assert config.method == "web2text-unary" and config.output_fields == ("main_text",)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("WEB2TEXT_THRESHOLD", "high", "WEB2TEXT_THRESHOLD"),
        ("WEB2TEXT_THRESHOLD", 1.5, "strictly between"),
        ("WEB2TEXT_METHOD", "magic", "unknown method"),
        ("WEB2TEXT_CONCURRENCY", 0, "at least 1"),
        ("WEB2TEXT_TEXT_FIELD", "", "must name item fields"),
    ],
)
def test_bad_settings_fail_at_start_up(untrained_model, name, value, message):
    with pytest.raises(ValueError, match=message):
        Web2TextSpiderMiddleware.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(untrained_model), name: value}))


class ThresholdSpider(Spider):
    name = "thresholds"
    web2text_threshold = 0.25
    custom_settings = {"WEB2TEXT_THRESHOLD": 0.9, "WEB2TEXT_TEXT_FIELD": "text"}


def test_spider_attribute_and_custom_settings_override(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)}, ThresholdSpider)
    config = Web2TextConfig.from_crawler(crawler)
    assert config.threshold == 0.25 and config.text_field == "text"
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)}, Spider, web2text_threshold="0.6")
    assert Web2TextConfig.from_crawler(crawler).threshold == 0.6


def test_threshold_changes_labels(untrained_model):
    from ..scrapy_support import html_response, run_output

    low = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.01})
    high = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.99})
    [kept] = run_output(Web2TextSpiderMiddleware.from_crawler(low), html_response(), [{}])
    [dropped] = run_output(Web2TextSpiderMiddleware.from_crawler(high), html_response(), [{}])
    # The compact block form: [label, probability, xpath].  Every block clears 0.01; the navigation's two links and
    # the footer are landmarks, which the rules after decoding drop whatever the threshold.
    labels = [label for label, _, _ in kept["web2text_blocks"]]
    assert labels == ["boilerplate", "boilerplate", "content", "content", "content", "boilerplate"]
    assert all(label == "boilerplate" for label, _, _ in dropped["web2text_blocks"]) and dropped["main_text"] == ""


def test_model_is_shared_by_crawlers_and_components_and_announced_once(untrained_model, caplog):
    settings = {"WEB2TEXT_MODEL": str(untrained_model)}
    first, second = make_crawler(settings), make_crawler(settings)
    with caplog.at_level(logging.INFO):
        components = [
            Web2TextSpiderMiddleware.from_crawler(first),
            Web2TextPipeline.from_crawler(first),
            Web2TextSpiderMiddleware.from_crawler(second),
        ]
    assert len({id(component.model) for component in components}) == 1
    assert len({id(component.runtime) for component in components}) == 1
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Web2Text: model")]
    assert len(lines) == 2  # one per crawler
    assert "untrained-paper" in lines[0] and str(untrained_model) in lines[0]
    assert first.stats.get_value("web2text/model") == "untrained-paper"


def test_pool_grows_to_the_largest_concurrency_and_runs_off_the_calling_thread(untrained_model):
    runtime = get_runtime()
    Web2TextSpiderMiddleware.from_crawler(
        make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_CONCURRENCY": 5})
    )
    assert runtime.workers >= 5
    import threading

    async def names():
        return await asyncio.gather(*(runtime.call(lambda: threading.current_thread().name) for _ in range(8)))

    assert all(name.startswith("web2text") for name in asyncio.run(names()))


def test_worker_threads_are_recycled_after_many_pages(monkeypatch):
    """libxml2's per-thread name dictionary grows forever: threads must be replaced."""
    import asyncio
    import threading

    from scrapy_web2text.integration import pools
    from scrapy_web2text.integration import runtime as runtime_module

    monkeypatch.setattr(pools, "RECYCLE_WORKERS_AFTER", 3)
    runtime = runtime_module.Web2TextRuntime()
    runtime.ensure_workers(1)
    threads = []  # thread objects are kept, so their ids cannot be reused

    def job():
        threads.append(threading.current_thread())
        return len(threads)

    async def label_seven():
        return [await runtime.call(job) for _ in range(7)]

    assert asyncio.run(label_seven()) == [1, 2, 3, 4, 5, 6, 7]
    # One worker per pool, a new pool every third job: three pools served them.
    assert len({id(thread) for thread in threads}) == 3


@pytest.mark.slow
def test_a_thread_pool_loads_the_language_identifier_when_the_crawl_starts(untrained_model):
    """Not at the first page that needs it (0.8 s): on a background thread started with the middleware.  In a fresh
    process, since this one may have loaded the identifier already."""
    script = textwrap.dedent(
        f"""
        import threading
        from scrapy_web2text import Web2TextSpiderMiddleware
        from scrapy_web2text.labellers.web2text import languages
        from tests.scrapy_support import make_crawler

        before = languages.identifier_loaded()
        Web2TextSpiderMiddleware.from_crawler(make_crawler({{"WEB2TEXT_MODEL": {str(untrained_model)!r}}}))
        warming = [thread for thread in threading.enumerate() if thread.name.startswith("web2text-warm-up")]
        for thread in warming:
            thread.join(timeout=120)
        print(before, len(warming), languages.identifier_loaded())
        """
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=environment)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["False", "1", "True"]


def test_warm_up_starts_a_loading_thread_and_identify_answers_meanwhile():
    # In this process the identifier may already be loaded; the fresh-process test above checks the loading itself.
    thread = warm_up_labeller("web2text")
    assert identify("Der schnelle braune Fuchs springt über den faulen Hund, und die Katze schläft im Garten.") == "de"
    thread.join(timeout=120)
    assert languages.identifier_loaded()
    assert warm_up_labeller("bte") is None  # a labeller that loads nothing lazily


def test_every_pool_kind_the_settings_accept_has_a_pool_class() -> None:
    # settings.py names the kinds without importing pools.py (no import circle); the two lists must agree.
    from scrapy_web2text.integration.pools import POOLS
    from scrapy_web2text.integration.settings import POOL_KINDS

    assert set(POOLS) == set(POOL_KINDS)


def test_misspelt_settings_are_named_once_with_the_nearest_valid_name(untrained_model, caplog):

    settings = {
        "WEB2TEXT_MODEL": str(untrained_model),
        "WEB2TEXT_TRESHOLD": 0.9,
        "WEB2TEXT_FORMAT": "markdown",
        "WEB2TEXT_SOMETHING_ELSE": 1,
        "WEB2TEXT_REDIS_IDLE_POLL": 1,  # read by the scrapy-redis scheduler: known
    }
    crawler = make_crawler(settings)
    with caplog.at_level("WARNING", logger="scrapy_web2text.integration.settings"):
        Web2TextPipeline.from_crawler(crawler)
        Web2TextSpiderMiddleware.from_crawler(crawler)
    warnings = [record.getMessage() for record in caplog.records if "Unknown setting" in record.getMessage()]
    assert warnings == [
        "Unknown setting WEB2TEXT_FORMAT is ignored; did you mean WEB2TEXT_FORMATS?",
        "Unknown setting WEB2TEXT_SOMETHING_ELSE is ignored; see the settings documentation for the WEB2TEXT_* names",
        "Unknown setting WEB2TEXT_TRESHOLD is ignored; did you mean WEB2TEXT_THRESHOLD?",
    ]
    caplog.clear()
    with caplog.at_level("WARNING", logger="scrapy_web2text.integration.settings"):
        Web2TextPipeline.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_THRESHOLD": 0.5}))
    assert not [record for record in caplog.records if "Unknown setting" in record.getMessage()]


def test_the_settings_page_documents_every_setting_once_with_its_anchor_and_default():
    import ast
    import re

    from scrapy_web2text.integration.redis import DEFAULT_IDLE_POLL
    from scrapy_web2text.integration.settings import OTHER_SETTINGS, SETTINGS

    page = (REPO / "docs" / "settings.rst").read_text(encoding="utf-8")
    entries = re.findall(r"^:setting-def:`(WEB2TEXT_[A-Z_]+)` \(default ``(.+?)``\)$", page, re.M)
    documented = dict(entries)
    assert len(documented) == len(entries), "a setting documented twice"
    assert set(SETTINGS) <= set(documented), sorted(set(SETTINGS) - set(documented))
    assert set(documented) <= set(SETTINGS) | OTHER_SETTINGS, sorted(set(documented) - set(SETTINGS))
    defaults = {**DEFAULTS, "WEB2TEXT_REDIS_IDLE_POLL": DEFAULT_IDLE_POLL}
    for name, default in documented.items():
        assert ast.literal_eval(default) == defaults[name], (name, default, defaults[name])
    assert DEFAULTS == {name: default for name, (default, _) in SETTINGS.items()}
    assert all(line.endswith(".") and len(line) <= 100 for _, line in SETTINGS.values())
