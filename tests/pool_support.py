"""Helpers that run inside labelling processes (they must be importable there): a labeller that kills its worker.

Used by tests/integration/test_process_pool.py (and ``blas_counts`` by tests/labellers/test_blas.py).  A test
labeller is named by its dotted path (``WEB2TEXT_METHOD``), so the worker processes import it like any third-party
labeller.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading

from scrapy_web2text.labellers.base import get_labeller
from scrapy_web2text.labellers.web2text import languages

#: A page whose text contains this kills the worker process labelling it (once per flag file).
KILL_MARKER = "KILL-THE-LABELLING-WORKER"
#: The environment variable naming the flag file: created by the first kill, so that only one happens.
KILL_FLAG_VARIABLE = "WEB2TEXT_TEST_KILL_FLAG"


def dying_web2text(page, *, model=None, threshold=None):
    """The web2text labeller, except that a worker process labelling the marked page SIGKILLs itself (once)."""
    if multiprocessing.parent_process() is not None and any(KILL_MARKER in text for text in page.texts):
        flag = os.environ.get(KILL_FLAG_VARIABLE)
        if flag:
            try:
                os.close(os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
    return get_labeller("web2text")(page, model=model, threshold=threshold)


def worker_state() -> dict:
    """Where a job ran: its process id, whether Scrapy or Twisted are loaded there, and whether the worker loaded
    the language identifier without labelling a page (its warm-up thread, waited for here)."""
    for thread in threading.enumerate():
        if thread.name.startswith("web2text-warm-up"):
            thread.join(timeout=120)
    return {
        "pid": os.getpid(),
        "scrapy": "scrapy" in sys.modules,
        "twisted": "twisted" in sys.modules,
        "language_identifier": languages.identifier_loaded(),
        "openblas_variable": os.environ.get("OPENBLAS_NUM_THREADS"),
        "blas_counts": blas_counts(),
    }


def blas_counts() -> list[int]:
    """The thread counts of the BLAS libraries loaded in this process."""
    from threadpoolctl import threadpool_info

    return sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})
