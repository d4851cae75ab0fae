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
