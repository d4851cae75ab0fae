"""Labelling in worker processes (``WEB2TEXT_POOL = "process"``): same items as threads, no item lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from scrapy.http import HtmlResponse

from scrapy_web2text import extract, load_model
from scrapy_web2text.integration import Web2TextSpiderMiddleware
from scrapy_web2text.integration.chain import run_chain
from scrapy_web2text.integration.pools import ProcessPool
from scrapy_web2text.integration.runtime import get_runtime
from scrapy_web2text.integration.settings import Web2TextConfig
from tests.integration.test_scrapy_crawl import by_path, crawl
from tests.site import BROKEN_HTML, PNG_BYTES, LoopbackServer, Resource, Site, build_site

from ..pool_support import KILL_FLAG_VARIABLE, KILL_MARKER, worker_state
from ..scrapy_support import ARTICLE, REPO, make_crawler, run_output


def config_for(model, **settings) -> Web2TextConfig:
    crawler = make_crawler({"WEB2TEXT_MODEL": str(model), **settings})
    return Web2TextConfig.from_crawler(crawler)


@pytest.mark.parametrize("value", ["fork", "threads", "", 2])
def test_pool_setting_names_the_allowed_values(untrained_model, value):
    with pytest.raises(ValueError, match=r"WEB2TEXT_POOL must be one of 'thread', 'process'"):
        config_for(untrained_model, WEB2TEXT_POOL=value)


def test_pool_setting_defaults_to_threads_and_ignores_case(untrained_model):
    assert config_for(untrained_model).pool == "thread"
    assert config_for(untrained_model, WEB2TEXT_POOL=" Process ").pool == "process"


@pytest.fixture(scope="module")
def pages():
    site = build_site(articles=3, seed=4)
    bodies = [site.resources[f"/article/{n}.html"].body for n in range(3)]
    return [ARTICLE, *bodies, bodies[0].decode("utf-8"), BROKEN_HTML, PNG_BYTES]


def test_spawned_workers_give_what_extract_gives_here(untrained_model, pages):
    config = config_for(untrained_model, WEB2TEXT_BLOCKS="full", WEB2TEXT_FORMATS=["text", "markdown", "html"])
    pool = ProcessPool(2, config)
    try:
        # Spawned, not forked: the worker did not inherit this process's modules (Scrapy is loaded here).
        state = pool.submit(worker_state).result(timeout=120)
        assert state["pid"] != os.getpid() and "scrapy" in sys.modules
        assert not state["scrapy"] and not state["twisted"]
        # Its initializer started loading the language identifier before any page needed it.
        assert state["language_identifier"]
        results = [pool.label(page, "http://example.com/", None, config).result(timeout=120) for page in pages]
    finally:
        pool.shutdown()
    model = load_model(untrained_model)
    for page, result in zip(pages, results):
        here = extract(page, "http://example.com/", model=model)
        assert result.main_text == here.main_text
        assert list(result.blocks) == here.block_records("full")
        assert (result.title, result.markdown, result.html) == (here.title, here.markdown, here.html)
        assert (result.skipped, result.n_blocks, result.truncated) == (here.skipped, len(here.blocks), here.truncated)
        assert result == run_chain(page, "http://example.com/", model, config)
    assert results[-1].skipped == "binary:png" and results[0].n_content_blocks > 0


@pytest.mark.skipif(os.cpu_count() < 2, reason="OpenBLAS starts no thread per core on one core")
@pytest.mark.parametrize(("setting", "expected"), [(None, "1"), ("2", "2")])
def test_workers_start_blas_with_the_labelling_count_and_this_process_keeps_its_environment(
    untrained_model, monkeypatch, setting, expected
):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("WEB2TEXT_BLAS_THREADS", raising=False)
    settings = {} if setting is None else {"WEB2TEXT_BLAS_THREADS": setting}
    pool = ProcessPool(1, config_for(untrained_model, **settings))
    try:
        assert "OPENBLAS_NUM_THREADS" not in os.environ  # set for the spawn only
        state = pool.submit(worker_state).result(timeout=120)
    finally:
        pool.shutdown()
    assert (state["openblas_variable"], state["blas_counts"]) == (expected, [int(expected)])


def test_middleware_hands_no_tree_to_a_process_pool(untrained_model):
    # The spider built response.selector; the thread pool walks that tree, the process pool must not be given it.
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_POOL": "process"})
    middleware = Web2TextSpiderMiddleware.from_crawler(crawler)
    seen = []
    original = middleware.runtime.extract

    def recording(html, url, model, config, content_type=None, tree=None):
        seen.append(tree)
        return original(html, url, model, config, content_type, tree)

    middleware.runtime.extract = recording
    try:
        response = HtmlResponse("http://example.com/a", body=ARTICLE.encode("utf-8"), encoding="utf-8")
        response.css("p")
        (item,) = run_output(middleware, response, [{"url": response.url}])
    finally:
        get_runtime().shutdown()
    assert seen == [None]
    assert item["main_text"] == extract(ARTICLE, model=load_model(untrained_model)).main_text


@pytest.fixture(scope="module")
def site():
    return build_site(articles=30, seed=5)


@pytest.fixture(scope="module")
def crawls(site, untrained_model, tmp_path_factory):
    """The same site crawled with each pool kind."""
    with LoopbackServer(site) as server:
        return server.url, {
            kind: crawl(
                tmp_path_factory.mktemp(kind), server.url + "index.html", untrained_model, "-s", f"WEB2TEXT_POOL={kind}"
            )
            for kind in ("thread", "process")
        }


def test_process_pool_items_are_the_thread_pool_items(site, crawls):
    url, results = crawls
    threads, processes = (by_path(results[kind]["items"], url) for kind in ("thread", "process"))
    assert set(threads) == set(processes) == set(site.resources)
    labelled = [path for path in site.html_paths if threads[path]["web2text_blocks"]]
    assert len(labelled) == len(site.html_paths)
    for path in site.resources:
        fields = ("main_text", "web2text_blocks", "title")
        assert {k: threads[path].get(k) for k in fields} == {k: processes[path].get(k) for k in fields}, path
    stats = results["process"]["probe"]["stats"]
    assert stats["web2text/pages"] == len(site.html_paths) and stats.get("web2text/errors") is None
    log = results["process"]["log"]
    assert "worker process(s)" in log and "Traceback" not in log and "DeprecationWarning" not in log


PHASES = textwrap.dedent("""
    import json, multiprocessing, sys, time
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import DontCloseSpider

    MODEL, BASE, PATHS = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])


    class Phases(scrapy.Spider):
        # Phase 1 crawls every page (one kills its worker); once it is over, phase 2 crawls them all again.
        name = "phases"
        second_phase = False

        @classmethod
        def from_crawler(cls, crawler, *args, **kwargs):
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.idle, signal=signals.spider_idle)
            return spider

        async def start(self):
            for path in PATHS:
                yield scrapy.Request(BASE + path.lstrip("/"), cb_kwargs={"phase": 1})

        def idle(self):
            if not self.second_phase:
                self.second_phase = True
                for path in PATHS:
                    self.crawler.engine.crawl(scrapy.Request(BASE + path.lstrip("/") + "?2", cb_kwargs={"phase": 2}))
                raise DontCloseSpider

        def parse(self, response, phase):
            yield {"url": response.url, "phase": phase}


    if __name__ == "__main__":  # spawned workers import this file too: only the parent crawls
        process = CrawlerProcess({
            "WEB2TEXT_MODEL": MODEL, "WEB2TEXT_POOL": "process", "LOG_LEVEL": "INFO",
            "WEB2TEXT_METHOD": "tests.pool_support:dying_web2text",
            "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
        })
        crawler = process.create_crawler(Phases)
        items = []
        crawler.signals.connect(lambda item: items.append(dict(item)), signal=signals.item_scraped, weak=False)
        process.crawl(crawler)
        process.start()
        deadline = time.monotonic() + 30  # the workers were told to exit when the engine stopped
        while multiprocessing.active_children() and time.monotonic() < deadline:
            time.sleep(0.05)
        print(json.dumps({"items": items, "stats": {k: v for k, v in crawler.stats.get_stats().items()
                                                      if k.startswith("web2text/")},
                          "workers_left": len(multiprocessing.active_children())}))
""")


def test_a_killed_worker_loses_no_item_and_the_pool_is_rebuilt(site, untrained_model, tmp_path):
    poisoned = "/article/7.html"
    body = site.resources[poisoned].body.replace(b"<article>", f"<article><p>{KILL_MARKER}</p>".encode(), 1)
    resources = {**site.resources, poisoned: Resource(body)}
    paths = [path for path in resources if resources[path].content_type.startswith("text/html")]
    script = tmp_path / "phases.py"
    script.write_text(PHASES)
    flag = tmp_path / "killed"
    env = {
        **os.environ,
        KILL_FLAG_VARIABLE: str(flag),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        "PYTHONWARNINGS": "always::DeprecationWarning",
    }
    with LoopbackServer(Site(resources, site.expected)) as server:
        done = subprocess.run(
            [sys.executable, str(script), str(untrained_model), server.url, json.dumps(paths)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env=env,
        )
        url = server.url
    assert done.returncode == 0, done.stderr[-3000:]
    assert flag.exists(), "the worker was not killed"
    report = json.loads(done.stdout.strip().splitlines()[-1])
    items = {(item["phase"], item["url"][len(url) - 1 :].removesuffix("?2")): item for item in report["items"]}
    assert set(items) == {(phase, path) for phase in (1, 2) for path in paths}  # every item went out
    assert items[1, poisoned]["main_text"] == "" and items[1, poisoned]["web2text_blocks"] == ""
    # The pool was rebuilt: every page of the second phase is labelled, the poisoned one included.
    assert all(items[2, path]["web2text_blocks"] for path in paths)
    stats = report["stats"]
    died = stats["web2text/errors/worker_died"]
    assert died >= 1 and stats["web2text/errors"] == died
    assert stats["web2text/pages"] + died == 2 * len(paths)
    assert sum(1 for item in items.values() if item["web2text_blocks"]) == stats["web2text/pages"]
    failures = [line for line in done.stderr.splitlines() if "a labelling process died" in line]
    assert len(failures) == died and any(poisoned in line for line in failures)
    assert "DeprecationWarning" not in done.stderr
    assert report["workers_left"] == 0  # shut down when the engine stopped


def test_a_labeller_the_workers_cannot_import_stops_the_crawl_at_start_up(untrained_model, monkeypatch):
    from scrapy_web2text.labellers import base

    # Registered in this process only (as register_labeller does): a spawned worker does not know the name.
    monkeypatch.setitem(base._REGISTRY, "only-in-this-process", "scrapy_web2text.labellers.web2text:web2text")
    monkeypatch.setattr(base, "_resolved", dict(base._resolved))
    crawler = make_crawler(
        {"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_POOL": "process", "WEB2TEXT_METHOD": "only-in-this-process"}
    )
    try:
        with pytest.raises(RuntimeError, match=r"only-in-this-process.*unknown method"):
            Web2TextSpiderMiddleware.from_crawler(crawler)
    finally:
        get_runtime().shutdown()
