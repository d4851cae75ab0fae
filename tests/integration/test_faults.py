"""Faults in a crawl: bad models stop it at start-up, bad pages lose no item, SIGINT + JOBDIR lose nothing.

Real crawls run in subprocesses against a loopback site (127.0.0.1 only),
with an untrained model saved to a temporary folder:

* a missing or corrupt model file (garbage ``.npz``, garbage ``.json``, an
  ``.npz`` holding a pickled object array) raises
  :class:`~scrapy_web2text.ModelError` naming the file when the crawler
  builds the components, before the first request: the server sees no
  request at all;
* a page whose labelling raises inside the chain (a fault injected into the
  feature step) is logged with its URL, counted in ``web2text/errors``, and
  its item still goes out, with an empty ``main_text``; the other pages are
  unaffected;
* a crawl interrupted by SIGINT and resumed from the same ``JOBDIR`` ends
  with one item for every page.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from scrapy_web2text import ModelError, Web2TextModel, Web2TextPipeline, Web2TextSpiderMiddleware
from tests.site import LoopbackServer, Resource, build_site

from ..scrapy_support import make_crawler

REPO = Path(__file__).resolve().parents[2]

CRAWL_SCRIPT = r"""
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

options = json.loads(sys.argv[1])
if options.get("explode"):
    # A fault inside the chain: the feature step raises on one page.
    import scrapy_web2text.labellers.web2text as extraction
    original = extraction.page_features

    def exploding(page, **options):
        if any("EXPLODE" in text for text in page.texts):
            raise RuntimeError("injected fault in page_features")
        return original(page, **options)

    extraction.page_features = exploding


class FaultSpider(scrapy.Spider):
    name = "faults"

    async def start(self):
        for path in options["paths"]:
            yield scrapy.Request(options["base"] + path.lstrip("/"))

    def parse(self, response):
        yield {"url": response.url}


settings = {
    "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
    "WEB2TEXT_MODEL": options["model"],
    "FEEDS": {options["feed"]: {"format": "jsonlines", "overwrite": False}},
    "CONCURRENT_REQUESTS": options.get("concurrency", 4),
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "RETRY_ENABLED": False,
    "LOG_LEVEL": "INFO",
}
if options.get("jobdir"):
    settings["JOBDIR"] = options["jobdir"]
process = CrawlerProcess(settings)
crawler = process.create_crawler(FaultSpider)
outcome = {}


def failed(failure):
    outcome["error"] = f"{failure.type.__name__}: {failure.value}"


def finished(_):
    stats = crawler.stats.get_stats() if crawler.stats else {}
    outcome["stats"] = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}


deferred = process.crawl(crawler)
deferred.addCallbacks(finished, failed)
process.start()
with open(options["outcome"], "w") as out:
    json.dump(outcome, out)
sys.exit(2 if "error" in outcome else 0)
"""


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    return Web2TextModel.initialised(seed=0).save(tmp_path_factory.mktemp("model") / "untrained")


def start_crawl(tmp_path: Path, base: str, paths: list[str], model: str, **options) -> tuple[subprocess.Popen, dict]:
    script = tmp_path / "crawl.py"
    script.write_text(CRAWL_SCRIPT)
    options = {
        "base": base,
        "paths": paths,
        "model": model,
        "feed": str(tmp_path / "items.jsonl"),
        "outcome": str(tmp_path / "outcome.json"),
        **options,
    }
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(
        [sys.executable, str(script), json.dumps(options)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return process, options


def finish(process: subprocess.Popen, timeout: float = 300) -> str:
    output, _ = process.communicate(timeout=timeout)
    return output


def read_items(feed: str) -> list[dict]:
    path = Path(feed)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- a missing or corrupt model: a clear error at start-up --------------------


def corrupt_models(directory: Path, good: Path) -> dict[str, Path]:
    """Broken models, each as NAME.npz + NAME.json."""
    good_json = good.with_suffix(".json").read_text()
    broken: dict[str, Path] = {}
    broken["missing"] = directory / "does-not-exist.npz"
    garbage = directory / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04 this is not a zip archive" * 10)
    garbage.with_suffix(".json").write_text(good_json)
    broken["garbage npz"] = garbage
    truncated = directory / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    truncated.with_suffix(".json").write_text(good_json)
    broken["truncated npz"] = truncated
    bad_json = directory / "badjson.npz"
    bad_json.write_bytes(good.read_bytes())
    bad_json.with_suffix(".json").write_text("{not json")
    broken["garbage json"] = bad_json
    return broken


def test_missing_or_corrupt_model_fails_when_the_components_are_built(tmp_path, model_path) -> None:
    for name, path in corrupt_models(tmp_path, model_path).items():
        for component in (Web2TextSpiderMiddleware, Web2TextPipeline):
            crawler = make_crawler({"WEB2TEXT_MODEL": str(path)})
            with pytest.raises(ModelError) as raised:
                component.from_crawler(crawler)
            assert path.stem in str(raised.value), (name, str(raised.value))


def test_pickled_object_array_in_a_model_is_rejected_without_unpickling(tmp_path, model_path) -> None:
    marker = tmp_path / "unpickled.txt"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    arrays = dict(np.load(model_path, allow_pickle=False))
    arrays["block_mean"] = np.array([Payload()], dtype=object)
    evil = tmp_path / "evil.npz"
    np.savez(evil, **arrays)  # writes a pickle; nothing here ever loads one
    evil.with_suffix(".json").write_text(model_path.with_suffix(".json").read_text())
    with pytest.raises(ModelError):
        Web2TextSpiderMiddleware.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(evil)}))
    assert not marker.exists()


@pytest.mark.slow
def test_bad_model_stops_the_crawl_before_the_first_request(tmp_path, model_path) -> None:
    site = build_site(articles=5, extras=False)
    broken = corrupt_models(tmp_path, model_path)
    with LoopbackServer(site) as server:
        for name in ("missing", "garbage npz"):
            run_dir = tmp_path / name.replace(" ", "_")
            run_dir.mkdir()
            process, options = start_crawl(run_dir, server.url, sorted(site.expected), str(broken[name]))
            output = finish(process)
            outcome = json.loads(Path(options["outcome"]).read_text())
            assert process.returncode == 2, output[-3000:]
            assert outcome["error"].startswith("ModelError"), outcome
            assert broken[name].stem in outcome["error"]
            assert server.hits == {}, server.hits  # not one request went out
            assert read_items(options["feed"]) == []


# --- a page that raises inside the chain --------------------------------------


def test_page_that_raises_is_logged_counted_and_its_item_still_goes_out(tmp_path, model_path) -> None:
    site = build_site(articles=8, extras=False)
    site.resources["/boom.html"] = Resource(
        b"<html><body><p>This page will EXPLODE inside the chain.</p><p>Second paragraph.</p></body></html>"
    )
    paths = sorted(site.expected) + ["/boom.html"]
    with LoopbackServer(site) as server:
        process, options = start_crawl(tmp_path, server.url, paths, str(model_path), explode=True)
        output = finish(process)
    assert process.returncode == 0, output[-3000:]
    stats = json.loads(Path(options["outcome"]).read_text())["stats"]
    items = {item["url"].rsplit("/", 1)[1]: item for item in read_items(options["feed"])}
    assert len(items) == len(paths) == stats["item_scraped_count"]
    assert items["boom.html"]["main_text"] == "" and items["boom.html"]["web2text_blocks"] == []
    assert stats["web2text/errors"] == 1
    assert stats["web2text/items"] == len(paths)
    assert "boom.html failed: RuntimeError: injected fault in page_features" in output
    for name, item in items.items():
        if name != "boom.html":
            assert item["web2text_blocks"], name  # the other pages were labelled


# --- SIGINT, then resume from JOBDIR ------------------------------------------


@pytest.mark.slow
def test_interrupted_crawl_resumed_from_jobdir_loses_no_item(tmp_path, model_path) -> None:
    site = build_site(articles=60, extras=False)
    paths = sorted(site.expected)
    jobdir = str(tmp_path / "job")
    with LoopbackServer(site, delay=0.1) as server:
        process, options = start_crawl(tmp_path, server.url, paths, str(model_path), jobdir=jobdir, concurrency=2)
        deadline = time.monotonic() + 120
        while len(read_items(options["feed"])) < 8 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert process.poll() is None, "the crawl finished before it could be interrupted"
        process.send_signal(signal.SIGINT)
        first_output = finish(process)
        first = read_items(options["feed"])
        first_stats = json.loads(Path(options["outcome"]).read_text()).get("stats", {})
        assert first_stats.get("finish_reason") == "shutdown", first_output[-3000:]
        assert len(first) < len(paths)

        process, options = start_crawl(tmp_path, server.url, paths, str(model_path), jobdir=jobdir, concurrency=2)
        second_output = finish(process)
        assert process.returncode == 0, second_output[-3000:]
    items = read_items(options["feed"])  # the same feed file, appended to
    seen = [item["url"].split(server.url, 1)[1] for item in items]
    assert sorted(set(seen)) == sorted(path.lstrip("/") for path in paths)
    assert all(isinstance(item.get("main_text"), str) and item.get("web2text_blocks") for item in items)


# --- hostile pages: no item lost (issue 10) ------------------------------------


@pytest.mark.slow
def test_crawl_mixing_hostile_pages_and_every_item_kind_loses_no_item(tmp_path, model_path) -> None:
    """A small run of research/hostile_crawl.py: every hostile page of issue 10, six item kinds, both components."""
    figures = tmp_path / "figures.json"
    completed = subprocess.run(
        [sys.executable, str(REPO / "research" / "hostile_crawl.py"), "--articles", "6", "--scale", "0.05"]
        + ["--model", str(model_path), "--json", str(figures)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert figures.exists(), completed.stdout + completed.stderr
    result = json.loads(figures.read_text())
    assert result["lost"] == 0, completed.stdout
    hostile = result["results"]["ordinary+hostile"]
    ordinary = result["results"]["ordinary"]
    assert hostile["pages"] == ordinary["pages"] + 16 and hostile["errors_logged"] == 0, completed.stdout
    for kind in ("dict", "item", "dataclass", "attrs"):  # the mutable kinds all get their text
        assert hostile["with_text"][kind] == hostile["in"][kind] == hostile["pages"], completed.stdout
    assert hostile["web2text"]["skipped/read_only_item"] == 2 * hostile["pages"]
