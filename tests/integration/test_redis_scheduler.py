"""RedisScheduler against a real redis-server: scrapy-redis's queue and dupefilter, Scrapy 2.13+ stats calls."""

from __future__ import annotations

import warnings

import pytest
from scrapy import Request
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy_redis.scheduler import Scheduler

from scrapy_web2text.integration.redis import RedisScheduler

from ..redis_support import RedisServer
from ..scrapy_support import make_crawler


@pytest.fixture
def redis_crawler(tmp_path):
    with RedisServer(tmp_path) as redis:
        yield make_crawler(
            {
                "REDIS_URL": redis.url,
                "SCHEDULER_PERSIST": True,
                "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            }
        )


def test_redis_scheduler_queues_filters_and_counts_without_warnings(redis_crawler):
    scheduler = RedisScheduler.from_crawler(redis_crawler)
    scheduler.open(redis_crawler.spider)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scheduler.enqueue_request(Request("http://a.example/1"))
        assert scheduler.enqueue_request(Request("http://a.example/2"))
        assert not scheduler.enqueue_request(Request("http://a.example/1"))  # the shared dupefilter
        assert len(scheduler) == 2 and scheduler.has_pending_requests()
        urls = {scheduler.next_request().url, scheduler.next_request().url}
        assert scheduler.next_request() is None
    assert urls == {"http://a.example/1", "http://a.example/2"}
    assert redis_crawler.stats.get_value("scheduler/enqueued/redis") == 2
    assert redis_crawler.stats.get_value("scheduler/dequeued/redis") == 2
    scheduler.close("finished")
    # SCHEDULER_PERSIST keeps the fingerprints for the other workers.
    assert scheduler.server.scard(f"{redis_crawler.spider.name}:dupefilter") == 2


def test_upstream_scheduler_still_warns(redis_crawler):
    """The reason RedisScheduler exists; when scrapy-redis fixes its stats calls, this fails and it can go."""
    scheduler = Scheduler.from_crawler(redis_crawler)
    scheduler.open(redis_crawler.spider)
    with pytest.warns(ScrapyDeprecationWarning, match="spider"):
        scheduler.enqueue_request(Request("http://a.example/3"))


def test_a_worker_joining_a_queue_that_holds_requests_warns_nothing(redis_crawler, caplog):
    first = RedisScheduler.from_crawler(redis_crawler)
    first.open(redis_crawler.spider)
    first.enqueue_request(Request("http://a.example/held"))
    joining = make_crawler(dict(redis_crawler.settings))
    with warnings.catch_warnings(), caplog.at_level("INFO"):
        warnings.simplefilter("error")  # upstream's open() calls the deprecated spider.log here
        second = RedisScheduler.from_crawler(joining)
        second.open(joining.spider)
        assert second.next_request().url == "http://a.example/held"
    assert "Resuming crawl (1 requests scheduled)" in caplog.text


def test_requeue_recovers_the_requests_a_killed_worker_took(redis_crawler, capsys):
    from scrapy_web2text.integration.redis import main, requeue

    killed = RedisScheduler.from_crawler(redis_crawler)
    killed.open(redis_crawler.spider)
    for url in ("http://a.example/lost-1", "http://a.example/lost-2"):
        killed.enqueue_request(Request(url))
    taken = [killed.next_request().url for _ in range(2)]  # taken, then the worker dies: their fingerprints stay
    assert not killed.enqueue_request(Request(taken[0]))  # pushing them again the plain way: dropped as seen
    url = redis_crawler.settings["REDIS_URL"]
    assert requeue(url, redis_crawler.spider.name, [taken[0]]) == 1
    assert main([url, redis_crawler.spider.name, taken[1]]) == 0
    assert f"1 request(s) pushed to {redis_crawler.spider.name}:requests" in capsys.readouterr().err
    survivor = make_crawler(dict(redis_crawler.settings))
    scheduler = RedisScheduler.from_crawler(survivor)
    scheduler.open(survivor.spider)
    recovered = [scheduler.next_request(), scheduler.next_request()]
    assert sorted(request.url for request in recovered) == sorted(taken)
    assert all(request.dont_filter for request in recovered) and scheduler.next_request() is None
