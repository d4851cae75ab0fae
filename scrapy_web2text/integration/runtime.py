"""What every crawler in the process shares: models, the labelling pools, one-time notices.

One :class:`Web2TextRuntime` exists per process (:func:`get_runtime`).  A
``CrawlerProcess`` running several spiders, each with the middleware and the
pipeline enabled, loads each model once (:func:`scrapy_web2text.load_model`
caches it) and labels pages in one bounded pool of workers per
``WEB2TEXT_POOL`` kind (:mod:`~scrapy_web2text.integration.pools`), sized by
the largest ``WEB2TEXT_CONCURRENCY`` among its crawlers.

Back-pressure comes from Scrapy itself: a response stays in the scraper until
its items are labelled, and ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` stops downloads
when too many bytes wait there.  A process pool is shut down when the last
crawler using it stops (``engine_stopped``); threads live as long as the process.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from ..extraction.site_models import load_site_models
from ..labellers.base import load_labeller_weights
from ..labellers.blas import set_labelling_threads
from .chain import PageResult, run_chain
from .pools import POOLS, RECYCLE_WORKERS_AFTER, LabellingPool

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from scrapy.crawler import Crawler

    from .settings import Web2TextConfig

__all__ = ["RECYCLE_WORKERS_AFTER", "PageResult", "Web2TextRuntime", "get_runtime", "run_chain"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


def _in_asyncio_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _awaitable(future: Future[_T]) -> Awaitable[_T]:
    """``future``'s result, awaitable on the running asyncio loop or, without one, on Twisted's reactor."""
    if _in_asyncio_loop():
        return asyncio.wrap_future(future)
    from twisted.internet import reactor
    from twisted.internet.defer import Deferred

    deferred: Deferred[_T] = Deferred()

    def settle(done: Future[_T]) -> None:
        error = done.exception()
        if error is None:
            reactor.callFromThread(deferred.callback, done.result())  # type: ignore[attr-defined]
        else:
            reactor.callFromThread(deferred.errback, error)  # type: ignore[attr-defined]

    future.add_done_callback(settle)
    return deferred


class Web2TextRuntime:
    """Process-wide state; use :func:`get_runtime`, do not build your own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools: dict[str, LabellingPool] = {}
        self._components: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._announced: weakref.WeakSet[Any] = weakref.WeakSet()
        self._process_users: weakref.WeakSet[Any] = weakref.WeakSet()
        self._notices: set[Any] = set()

    @property
    def workers(self) -> int:
        """The size of the thread pool (0 before one is started)."""
        pool = self._pools.get("thread")
        return pool.workers if pool is not None else 0

    # --- start-up ---------------------------------------------------------

    def start(self, crawler: Crawler, config: Web2TextConfig, component: str) -> Any:
        """Register ``component`` for ``crawler``; load the chosen labeller's weights and size the pool now.

        Called from the components' ``from_crawler``, so missing or corrupt
        weights stop the crawl before the first request, with an error naming
        the file.  Returns the weights (``None`` for labellers without any).
        """
        if self.notice_once(("blas", config.blas_threads)):
            set_labelling_threads(config.blas_threads)
        clock = time.perf_counter()
        model = load_labeller_weights(config.method, config.model)
        model_name = getattr(model, "name", None) or (config.method if model is not None else "none")
        sites = load_site_models(config.site_models, config.method, "WEB2TEXT_SITE_MODELS")
        load_ms = 1000 * (time.perf_counter() - clock)
        pool = self.ensure_workers(config.concurrency, config)
        if self.notice_once(("pool check", pool.kind, config.method, config.model)):
            pool.check(config)
        if self.notice_once(("warm up", pool.kind, config.method)):
            pool.warm_up(config.method)
        with self._lock:
            self._components.setdefault(crawler, set()).add(component)
            first = crawler not in self._announced
            self._announced.add(crawler)
        if first:
            logger.info(
                "Web2Text: model %r (%s), method %s, threshold %s, %d worker %s(s)",
                model_name,
                getattr(model, "path", None) or config.model,
                config.method,
                threshold_in_force(config.threshold, model),
                pool.workers,
                pool.kind,
                extra={"spider": getattr(crawler, "spider", None)},
            )
            for domain, prefix, path in config.site_models:
                logger.info(
                    "Web2Text: model %r (%s) on %s",
                    getattr(sites[path], "name", path),
                    getattr(sites[path], "path", None) or path,
                    domain + prefix,
                    extra={"spider": getattr(crawler, "spider", None)},
                )
            if pool.kind == "process":
                from scrapy import signals

                self._process_users.add(crawler)

                def engine_stopped() -> None:  # a closure: pydispatch does not accept functools.partial receivers
                    self._engine_stopped(crawler)

                crawler.signals.connect(engine_stopped, signal=signals.engine_stopped, weak=False)
        if crawler.stats is not None:
            crawler.stats.set_value("web2text/model", model_name)
            crawler.stats.max_value("web2text/model_load_ms", round(load_ms, 1))
        return model

    def has_component(self, crawler: Crawler, component: str) -> bool:
        return component in self._components.get(crawler, ())

    def ensure_workers(self, workers: int, config: Web2TextConfig | None = None) -> LabellingPool:
        """Start the pool ``config.pool`` names (default: threads) or grow it to ``workers`` (it never shrinks)."""
        kind = config.pool if config is not None else "thread"
        with self._lock:
            pool = self._pools.get(kind)
            if pool is None:
                pool = self._pools[kind] = POOLS[kind](workers, config)
                return pool
        pool.grow(workers)
        return pool

    def _engine_stopped(self, crawler: Crawler) -> None:
        """A crawler using the process pool stopped: the last one to stop shuts the workers down.

        Not waiting for them: no page is left to label, and the workers exit on their own (Python joins them at
        exit).  A worker stuck in a page would otherwise hold the reactor.
        """
        with self._lock:
            self._process_users.discard(crawler)
            last = not self._process_users
        pool = self._pools.get("process")
        if pool is not None and last:
            pool.shutdown(wait=False)

    def shutdown(self, wait: bool = True) -> None:
        """Stop every pool's workers (a later page starts new ones); ``wait`` for them to exit."""
        for pool in list(self._pools.values()):
            pool.shutdown(wait=wait)

    # --- work -------------------------------------------------------------

    def call(self, function: Callable[..., _T], *args: Any) -> Awaitable[_T]:
        """Run ``function(*args)`` on a worker thread; await the result on the reactor."""
        pool = self._pools.get("thread")
        assert pool is not None, "Web2TextRuntime.start() was not called"
        return _awaitable(pool.submit(function, *args))

    def extract(
        self,
        html: str | bytes,
        url: str | None,
        model: Any,
        config: Web2TextConfig,
        content_type: str | bytes | None = None,
        tree: Any = None,
    ) -> Awaitable[PageResult]:
        """Label one page on the pool ``config.pool`` names; a pool that cannot take ``tree`` ignores it."""
        pool = self._pools.get(config.pool) or self.ensure_workers(config.concurrency, config)
        return _awaitable(pool.label(html, url, model, config, content_type, tree))

    def notice_once(self, key: Any) -> bool:
        """True the first time ``key`` is seen in this process."""
        with self._lock:
            if key in self._notices:
                return False
            self._notices.add(key)
            return True


def threshold_in_force(threshold: float | None, model: Any) -> str:
    """The start-up line's threshold: the one set, or the model's own and what the page types add to it
    (``0.4 (the model's own; article +0.1)``)."""
    if threshold is not None:
        return f"{threshold:g}"
    own = getattr(model, "threshold", None)
    if not isinstance(own, float):
        return "the method's own"
    from ..labellers.web2text import takes_offsets

    offsets = (getattr(model, "config", None) or {}).get("threshold_offsets")  # a tuned model's own
    if offsets is None and not takes_offsets(model):
        return f"{own:g} (the model's own, rebalanced: no page-type offsets)"
    if offsets is None:
        from ..labellers.web2text.page_types import shipped_page_types

        classifier = shipped_page_types()
        offsets = classifier.threshold_offsets if classifier is not None else {}
    added = "".join(f"; {label} {value:+g}" for label, value in sorted(offsets.items()) if value)
    return f"{own:g} (the model's own{added})"


_runtime: Web2TextRuntime | None = None
_runtime_lock = threading.Lock()


def get_runtime() -> Web2TextRuntime:
    """The process's runtime, created on first use."""
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                _runtime = Web2TextRuntime()
    return _runtime
