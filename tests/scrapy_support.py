"""Helpers for the Scrapy integration tests: crawlers, responses, a counting chain (fixtures: conftest.py)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from scrapy.utils.test import get_crawler

from scrapy_web2text.integration import chain as chain_module
from scrapy_web2text.labellers.web2text.network import PACKAGED_MODELS

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_PROJECT = REPO / "example_project"
DEFAULT_MODEL = PACKAGED_MODELS / "default.npz"

ARTICLE = (
    "<html><head><title>T</title></head><body><nav><ul><li><a href='/'>Home</a></li><li><a href='/a'>About</a></li>"
    "</ul></nav><article><h1>Headline</h1><p>The first paragraph of the story says something long enough to read.</p>"
    "<p>The second paragraph continues, with more sentences. It ends here.</p></article>"
    "<footer>Copyright 2024</footer></body></html>"
)


def require_default_model() -> Path:
    """The trained default model; the test fails (not skips) until it is shipped."""
    if not DEFAULT_MODEL.is_file():
        pytest.fail(f"the trained default model {DEFAULT_MODEL} is missing; train it (see docs/training.rst)")
    return DEFAULT_MODEL


def make_crawler(settings: dict[str, Any] | None = None, spider_cls: type[Spider] = Spider, **spider_kwargs):
    crawler = get_crawler(spider_cls, settings or {})
    crawler.spider = crawler._create_spider(spider_kwargs.pop("name", "test"), **spider_kwargs)
    return crawler


def stat(crawler, key):
    return crawler.stats.get_value(f"web2text/{key}")


def html_response(url: str = "http://example.com/a", body: str = ARTICLE) -> HtmlResponse:
    return HtmlResponse(url, body=body.encode("utf-8"), encoding="utf-8", request=Request(url))


def other_response(url: str, body: bytes, content_type: str, cls=Response) -> Response:
    return cls(url, body=body, headers={"Content-Type": content_type}, request=Request(url))


def json_response(url: str = "http://example.com/api") -> TextResponse:
    return TextResponse(
        url,
        body=b'{"html": "<p>x</p>"}',
        headers={"Content-Type": "application/json"},
        encoding="utf-8",
        request=Request(url),
    )


async def _agen(objects):
    for obj in objects:
        yield obj


async def _collect(agen) -> list:
    return [obj async for obj in agen]


def run_output(middleware, response, objects) -> list:
    """Run ``process_spider_output`` to completion in a fresh event loop."""
    return asyncio.run(_collect(middleware.process_spider_output(response, _agen(objects))))


def run_start(middleware, objects) -> list:
    return asyncio.run(_collect(middleware.process_start(_agen(objects))))


def run_pipeline(pipeline, items) -> list:
    async def go():
        return [await pipeline.process_item(item) for item in items]

    return asyncio.run(go())


class ChainCounter:
    """Counts calls of the worker-thread job (and the threads it ran on)."""

    def __init__(self, monkeypatch, fail: bool = False):
        self.calls: list[str | None] = []
        self.threads: list[str] = []
        self.fail = fail
        original = chain_module.run_chain

        def counting(html, url, model, config, content_type=None, tree=None):
            self.calls.append(url)
            self.threads.append(threading.current_thread().name)
            if self.fail:
                raise RuntimeError("labelling exploded")
            return original(html, url, model, config, content_type, tree)

        monkeypatch.setattr(chain_module, "run_chain", counting)
