"""docs/distributed.rst as written: ``RedisSpider`` workers seeded through ``<spider>:start_urls``, on a fast site.

Upstream seeding crawls the start page twice (scrapy-redis makes the start request with ``dont_filter=True``); the
documented override crawls it once; with the documented settings both workers take part, with no private Scrapy
attribute changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..redis_support import RedisServer
from ..scrapy_support import REPO
from ..site import LoopbackServer, build_site

START_URLS_KEY, ITEMS_KEY = "seeded:start_urls", "seeded:items"


def start_worker(name: str, redis: RedisServer, model: Path, directory: Path, seeding: str, poll: float) -> tuple:
    report, log = directory / f"{name}.json", directory / f"{name}.log"
    command = [sys.executable, "-m", "tests.redis_spider_worker", name, redis.url, str(model), str(report), str(log)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [*command, seeding, str(poll)], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    return process, report, log


def finish(worker: tuple) -> dict:
    process, report, log = worker
    output, _ = process.communicate(timeout=240)
    text = log.read_text() if log.exists() else ""
    assert process.returncode == 0, output[-3000:] + text[-3000:]
    return {**json.loads(report.read_text()), "log": text + output}


def seeded_crawl(site, model: Path, directory: Path, seeding: str, workers: str, poll: float = 0.5) -> dict:
    with RedisServer(directory) as redis, LoopbackServer(site) as server:
        running = [start_worker(name, redis, model, directory, seeding, poll) for name in workers]
        time.sleep(1.0)  # the seed may come before or after the workers are up: they poll the list
        redis.client().lpush(START_URLS_KEY, json.dumps({"url": server.url + "index.html"}))
        reports = [finish(worker) for worker in running]
        items = [json.loads(raw) for raw in redis.client().lrange(ITEMS_KEY, 0, -1)]
        return {"hits": dict(server.hits), "reports": reports, "items": items, "resources": set(site.resources)}


@pytest.fixture(scope="module")
def site():
    return build_site(articles=60, seed=5)


@pytest.fixture(scope="module")
def crawled_once(site, untrained_model, tmp_path_factory):
    return seeded_crawl(site, untrained_model, tmp_path_factory.mktemp("once"), "once", "ab")


def test_upstream_seeding_crawls_the_start_page_twice(site, untrained_model, tmp_path):
    crawl = seeded_crawl(site, untrained_model, tmp_path, "upstream", "a")
    assert crawl["hits"]["/index.html"] == 2
    assert sum(item["url"].endswith("/index.html") for item in crawl["items"]) == 2


def test_the_documented_seeding_crawls_every_page_once(crawled_once):
    hits = crawled_once["hits"]
    assert hits["/index.html"] == 1
    assert set(hits) >= crawled_once["resources"]
    assert all(count == 1 for count in hits.values()), {path: n for path, n in hits.items() if n != 1}
    urls = [item["url"] for item in crawled_once["items"]]
    assert len(urls) == len(set(urls)) == len(crawled_once["resources"])


def test_both_workers_take_part_on_a_fast_site(crawled_once):
    for report in crawled_once["reports"]:
        assert report["stats"].get("scheduler/dequeued/redis", 0) > 0, "a worker took nothing from the queue"
        for bad in ("Traceback", "ERROR", "DeprecationWarning"):
            assert bad not in report["log"], report["log"][report["log"].find(bad) - 300 :][:2000]
    by_worker = {name: sum(item["worker"] == name for item in crawled_once["items"]) for name in "ab"}
    assert min(by_worker.values()) >= 5, by_worker
