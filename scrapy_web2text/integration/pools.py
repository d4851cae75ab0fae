"""Where a crawl labels its pages: a pool of worker threads or of worker processes (``WEB2TEXT_POOL``).

Both kinds run :func:`~scrapy_web2text.integration.chain.run_chain` and return a
:class:`~scrapy_web2text.integration.chain.PageResult`; the runtime picks the pool by the setting, one pool of
each kind per process, sized by the largest ``WEB2TEXT_CONCURRENCY`` among the crawlers that use it.

``"thread"``: no start-up, no copies, and the chain walks the tree parsel already built for ``response.selector``.
But the chain is mostly Python and shares one GIL with the reactor: labelling never uses more than one core.

``"process"``: ``concurrent.futures.ProcessPoolExecutor`` with the ``spawn`` start method (forking a process that
runs the Twisted reactor and threads is unsafe).  Each worker sets its BLAS threads and loads the model once,
in its initializer; the page text, URL, content type and the crawler's settings go in, a ``PageResult`` comes
out.  A worker that dies (segfault, out-of-memory kill) breaks the pool: every page queued in it fails with
``BrokenProcessPool`` (its items go out with empty fields, counted in ``web2text/errors/worker_died``) and the
next page gets a fresh pool.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from .._blas_threads import spawned_with_blas_threads
from ..labellers.base import load_labeller_weights, warm_up_labeller
from ..labellers.blas import set_labelling_threads
from . import chain

if TYPE_CHECKING:
    from .settings import Web2TextConfig

#: Pages a pool labels before fresh workers replace its workers.  Threads: libxml2 keeps every element and
#: attribute name a thread has parsed for the thread's life (pages of generated names grow it without end); a fresh
#: thread starts with an empty dictionary.  Processes: the same dictionary, and whatever else a long-lived
#: process keeps.  Processes are recycled by replacing the executor, not with ``max_tasks_per_child``: on Python
#: 3.11 to 3.13 that option deadlocks once a worker reaches its limit while pages queue (CPython gh-115634).
RECYCLE_WORKERS_AFTER = 5_000

#: Seconds a new process pool may take to label its first page at start-up (spawn, imports, model).
STARTUP_TIMEOUT = 120

#: A process pool rebuilt this many times in a row without labelling a page is given up: its workers die on
#: start-up (the model file vanished, no memory left), and every page would spawn new ones in vain.
MAX_REBUILDS_WITHOUT_RESULT = 3


class LabellingPool:
    """The pool strategy's interface; a subclass per ``WEB2TEXT_POOL`` value."""

    kind = ""
    #: Whether the chain may walk parsel's tree of the page (only in this process).
    takes_tree = False

    def __init__(self, workers: int, config: Web2TextConfig | None = None):
        self.workers = workers
        self.config = config
        self._lock = threading.Lock()
        self._jobs = 0
        self._executor: Executor | None = self._new_executor()

    def _new_executor(self) -> Executor:
        raise NotImplementedError

    def _reset(self) -> None:
        """Forget the failures of a pool that was shut down."""

    def grow(self, workers: int) -> None:
        """Grow to ``workers`` workers (a pool never shrinks); jobs queued in the old executor still run."""
        with self._lock:
            if workers <= self.workers and self._executor is not None:
                return
            self.workers = max(workers, self.workers)
            old, self._executor = self._executor, self._new_executor()
        if old is not None:
            old.shutdown(wait=False)

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``function(*args)`` on a worker; a fresh executor every :data:`RECYCLE_WORKERS_AFTER` jobs."""
        retired = None
        with self._lock:
            if self._executor is None:  # shut down when the crawl ended; a later crawl gets new workers
                self._executor = self._new_executor()
            self._jobs += 1
            if self._jobs >= RECYCLE_WORKERS_AFTER:
                retired, self._executor = self._executor, self._new_executor()
                self._jobs = 0
            executor = self._executor
        if retired is not None:
            retired.shutdown(wait=False)  # its queued pages still finish
        return executor.submit(function, *args)

    def check(self, config: Web2TextConfig) -> None:
        """Make sure a worker can label with ``config`` (raises at start-up, not page by page); no-op for threads."""

    def warm_up(self, method: str) -> None:
        """Have the workers load what ``method``'s labeller loads lazily (:func:`warm_up_labeller`), in the
        background; processes do it in their initializer."""

    def label(
        self,
        html: str | bytes,
        url: str | None,
        model: Any,
        config: Web2TextConfig,
        content_type: str | bytes | None = None,
        tree: Any = None,
    ) -> Future[chain.PageResult]:
        raise NotImplementedError

    def shutdown(self, wait: bool = True) -> None:
        """Stop the workers; queued jobs are cancelled.  The next job starts new ones."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._reset()
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)


class ThreadPool(LabellingPool):
    """Worker threads of this process: ``WEB2TEXT_POOL = "thread"``."""

    kind = "thread"
    takes_tree = True

    def _new_executor(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="web2text")

    def warm_up(self, method: str) -> None:
        warm_up_labeller(method)  # threads share this process's identifier: loaded once, here

    def label(self, html, url, model, config, content_type=None, tree=None):
        # chain.run_chain is looked up per call (tests count the calls by replacing it).
        return self.submit(chain.run_chain, html, url, model, config, content_type, tree)


class ProcessPool(LabellingPool):
    """Spawned worker processes: ``WEB2TEXT_POOL = "process"``."""

    kind = "process"
    takes_tree = False

    config: Web2TextConfig

    def __init__(self, workers: int, config: Web2TextConfig | None = None):
        if config is None:
            raise ValueError("a process pool needs the crawler's settings (its workers load the model they name)")
        self._rebuilds_without_result = 0
        super().__init__(workers, config)

    def _new_executor(self) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
            initargs=(self.config.method, self.config.model, self.config.blas_threads, self.config.site_models),
        )
        # Start every worker now, not when the first pages arrive (a spawned worker takes about a second: the
        # interpreter, numpy, lxml and the model); ProcessPoolExecutor starts one per job submitted to no idle one.
        # The workers only label pages: OpenBLAS starts in them with the labelling count, not a spinning thread per
        # core in each.
        with spawned_with_blas_threads(self.config.blas_threads):
            for _ in range(self.workers):
                executor.submit(os.getpid)
        return executor

    def check(self, config: Web2TextConfig) -> None:
        """Label an empty page in a worker with ``config``'s method and model, waiting for it.

        The crawl then stops at start-up, with the worker's own error, when the worker cannot import the labeller
        (one registered with ``register_labeller`` in this process only exists here) or load the model, instead
        of failing every page.
        """
        try:
            self.submit(label_in_worker, "<html></html>", None, config, None).result(timeout=STARTUP_TIMEOUT)
        except Exception as error:
            raise RuntimeError(
                f"WEB2TEXT_POOL='process': a worker process could not label with method {config.method!r} and model "
                f"{config.model!r} ({type(error).__name__}: {error}); a labeller must be importable there (a built-in "
                "name or a dotted path 'package.module:name'), and a script that starts the crawl must do so under "
                '`if __name__ == "__main__":`'
            ) from error

    def label(self, html, url, model, config, content_type=None, tree=None):
        # Neither the loaded model nor parsel's tree crosses: the worker has its own model (cached per process).
        try:
            future = self.submit(label_in_worker, html, url, config, content_type)
        except BrokenProcessPool:
            # A worker died since the last page: the executor refuses new jobs.  Rebuild it once and go on.
            self._rebuild()
            future = self.submit(label_in_worker, html, url, config, content_type)
        future.add_done_callback(self._count_result)
        return future

    def _rebuild(self) -> None:
        with self._lock:
            self._rebuilds_without_result += 1
            if self._rebuilds_without_result > MAX_REBUILDS_WITHOUT_RESULT:
                # The broken executor stays: every later page fails at once, until the crawl's end resets the pool.
                raise BrokenProcessPool(
                    f"the labelling processes died {MAX_REBUILDS_WITHOUT_RESULT} times in a row before labelling "
                    "a page; no more are started (the first failure is logged above)"
                )
            broken, self._executor = self._executor, self._new_executor()
            self._jobs = 0
        if broken is not None:
            broken.shutdown(wait=False)

    def _reset(self) -> None:
        self._rebuilds_without_result = 0

    def _count_result(self, future: Future[Any]) -> None:
        if not future.cancelled() and future.exception() is None:
            self._rebuilds_without_result = 0


# --- in the worker process ------------------------------------------------------------------------------------


def start_worker(method: str, model: str, blas_threads: str | None, site_models: tuple = ()) -> None:
    """A worker process's initializer: its BLAS threads, then the model and the sites' models, loaded once for all
    its pages, and what the labeller loads lazily (the language identifier), on a background thread while the
    worker takes pages."""
    set_labelling_threads(blas_threads)
    try:
        load_labeller_weights(method, model)
        for _, _, site in site_models:
            load_labeller_weights(method, site)
    except Exception:
        # Not raised here: a failing initializer breaks the pool with no message.  The first job loads again and
        # raises the error itself, where the crawl reports it (ProcessPool.check, at start-up).
        return
    warm_up_labeller(method)


def label_in_worker(
    html: str | bytes, url: str | None, config: Web2TextConfig, content_type: str | bytes | None
) -> chain.PageResult:
    """One page in a worker process, with the model the settings name (loaded once per process and model)."""
    return chain.run_chain(html, url, load_labeller_weights(config.method, config.model), config, content_type)


POOLS: dict[str, type[LabellingPool]] = {"thread": ThreadPool, "process": ProcessPool}  # settings.POOL_KINDS
