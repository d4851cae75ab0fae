"""Two crawler processes sharing one scrapy-redis crawl, against a real redis-server and a loopback site."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..redis_support import RedisServer
from ..scrapy_support import REPO
from ..site import LoopbackServer, build_site

ITEMS_KEY, QUEUE_KEY = "site:items", "site:requests"
# Paths the site links to that answer 404: fetched once, dropped by HttpErrorMiddleware, no item.
MISSING = {"/missing.html"}


@pytest.fixture(scope="module")
def site():
    return build_site(articles=200, seed=3)


@pytest.fixture
def redis_server(tmp_path):
    with RedisServer(tmp_path) as server:
        yield server


class Worker:
    def __init__(self, name: str, workers: int, redis: RedisServer, start_url: str, model: Path, directory: Path):
        self.report_path, self.log_path = directory / f"{name}.json", directory / f"{name}.log"
        command = [sys.executable, "-m", "tests.redis_worker", name, str(workers), redis.url, start_url, str(model)]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "PYTHONWARNINGS": "always::DeprecationWarning",
        }
        command += [str(self.report_path), str(self.log_path)]
        self.process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    def finish(self, timeout: float = 120) -> dict:
        output, _ = self.process.communicate(timeout=timeout)
        log = self.log_path.read_text() if self.log_path.exists() else ""
        assert self.process.returncode == 0, output[-3000:] + log[-3000:]
        return {**json.loads(self.report_path.read_text()), "log": log + output}


def crawl_items(redis: RedisServer) -> list[dict]:
    return [json.loads(raw) for raw in redis.client().lrange(ITEMS_KEY, 0, -1)]


def paths(items: list[dict], server: LoopbackServer) -> list[str]:
    return [item["url"][len(server.url) - 1 :] for item in items]


def check_crawled_exactly_once(site, server: LoopbackServer, items: list[dict]) -> None:
    assert set(server.hits) == set(site.resources) | MISSING
    assert all(count == 1 for count in server.hits.values()), {p: n for p, n in server.hits.items() if n != 1}
    item_paths = paths(items, server)
    assert len(item_paths) == len(set(item_paths)) == len(site.resources)
    assert set(item_paths) == set(site.resources)


def check_clean_log(report: dict, model: Path) -> None:
    log = report["log"]
    for bad in ("DeprecationWarning", "Traceback", "ERROR"):
        assert bad not in log, log[log.find(bad) - 500 : log.find(bad) + 1000]
    assert report["loads"] == [str(model)]
    assert sum("Web2Text: model" in line for line in log.splitlines()) == 1
    assert report["torch"] is False


@pytest.fixture(scope="module")
def shared_crawl(site, untrained_model, tmp_path_factory):
    directory = tmp_path_factory.mktemp("shared")
    with RedisServer(directory) as redis, LoopbackServer(site, delay=0.01) as server:
        workers = [Worker(name, 2, redis, server.url + "index.html", untrained_model, directory) for name in "ab"]
        reports = [worker.finish() for worker in workers]
        return {
            "server": server,
            "reports": reports,
            "items": crawl_items(redis),
            "queued": redis.client().zcard(QUEUE_KEY),
        }


def test_redis_two_workers_crawl_every_page_exactly_once(site, shared_crawl, untrained_model):
    server, reports, items = shared_crawl["server"], shared_crawl["reports"], shared_crawl["items"]
    check_crawled_exactly_once(site, server, items)
    for report in reports:
        assert report["reason"] == "finished"
        assert report["stats"]["scheduler/dequeued/redis"] > 0, "both workers took requests from the shared queue"
        check_clean_log(report, untrained_model)
    assert {item["worker"] for item in items} == {"a", "b"}
    assert sum(report["stats"]["web2text/pages"] for report in reports) == len(site.html_paths)
    assert shared_crawl["queued"] == 0


def test_redis_items_carry_main_text_and_block_labels(site, shared_crawl):
    server = shared_crawl["server"]
    html = set(site.html_paths)
    for path, item in zip(paths(shared_crawl["items"], server), shared_crawl["items"], strict=True):
        if path in html:
            assert isinstance(item["main_text"], str), path
            assert item["web2text_blocks"], path
            assert set(item["web2text_blocks"]) <= {"0", "1"}, path  # the default form: a label a block
            if "1" in item["web2text_blocks"]:
                assert item["main_text"], path
        else:
            assert "main_text" not in item and "web2text_blocks" not in item, path


def test_redis_worker_stopped_gracefully_loses_nothing(site, redis_server, untrained_model, tmp_path):
    client = redis_server.client()
    with LoopbackServer(site, delay=0.02) as server:
        first, second = (
            Worker(name, 2, redis_server, server.url + "index.html", untrained_model, tmp_path) for name in "ab"
        )
        deadline = time.monotonic() + 60
        while sum(json.loads(raw)["worker"] == "a" for raw in client.lrange(ITEMS_KEY, 0, -1)) < 20:
            assert time.monotonic() < deadline and first.process.poll() is None, "worker a never got going"
            time.sleep(0.05)
        # Measured as the signal goes: while worker a shuts down gracefully, worker b goes on crawling.
        scraped_at_stop = client.llen(ITEMS_KEY)
        first.process.send_signal(signal.SIGTERM)  # one signal: Scrapy's graceful shutdown
        stopped = first.finish()
        finished = second.finish()
    items = crawl_items(redis_server)
    assert stopped["reason"] == "shutdown"
    assert finished["reason"] == "finished"
    assert scraped_at_stop < len(site.resources), "the stop came after the crawl was done: nothing was at stake"
    check_crawled_exactly_once(site, server, items)
    by_worker = {name: sum(item["worker"] == name for item in items) for name in "ab"}
    assert by_worker["a"] == stopped["stats"]["item_scraped_count"] >= 20
    assert by_worker["b"] == finished["stats"]["item_scraped_count"]
    assert by_worker["a"] + by_worker["b"] == len(site.resources)
    assert client.zcard(QUEUE_KEY) == 0
    for report in (stopped, finished):
        check_clean_log(report, untrained_model)
