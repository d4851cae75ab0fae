"""BLAS runs one thread while a page is labelled, whoever calls and from whichever thread, and the caller's own
setting is given back afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from scrapy_web2text import extract
from scrapy_web2text.labellers.blas import blas_for_labelling, labelling_threads, parse_threads, set_labelling_threads
from scrapy_web2text.labellers.web2text import web2text

from ..pool_support import blas_counts

REPO = Path(__file__).resolve().parents[2]
PAGE = "<html><body>" + "".join(f"<div><p>Paragraph {i} of a long page, with words.</p></div>" for i in range(60))
seen_during_labelling: list[list[int]] = []


def probing_labeller(page, *, model=None, threshold=None):
    """The web2text labeller, noting BLAS's thread count while it runs."""
    seen_during_labelling.append(blas_counts())
    return web2text(page, model=model, threshold=threshold)


def in_thread(function):
    done = []
    worker = threading.Thread(target=lambda: done.append(function()))
    worker.start()
    worker.join()
    return done[0]


def test_labelling_holds_blas_to_one_thread_from_any_thread_and_gives_the_callers_setting_back():
    seen_during_labelling.clear()
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_counts()
        in_thread(lambda: extract(PAGE, method=f"{__name__}:probing_labeller"))
        extract(PAGE, method=f"{__name__}:probing_labeller")
        assert seen_during_labelling == [[1], [1]]
        assert blas_counts() == before  # the caller's own count, back after each call


def test_overlapping_labelling_calls_restore_the_callers_count_once_the_last_ends():
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_counts()
        outer = blas_for_labelling()
        outer.__enter__()
        assert blas_counts() == [1]
        in_thread(lambda: extract(PAGE).main_text)  # starts and ends inside the outer call
        assert blas_counts() == [1]
        outer.__exit__(None, None, None)
        assert blas_counts() == before


def test_keep_leaves_blas_alone_and_bad_counts_name_the_setting():
    seen_during_labelling.clear()
    try:
        set_labelling_threads("keep")
        assert labelling_threads() is None
        with threadpool_limits(limits=2, user_api="blas"):
            before = blas_counts()
            extract(PAGE, method=f"{__name__}:probing_labeller")
            assert seen_during_labelling == [before]
    finally:
        set_labelling_threads(1)
    assert parse_threads(" 3 ") == 3
    for bad in ("many", "0", "-2", True, 1.5):
        with pytest.raises(ValueError, match="WEB2TEXT_BLAS_THREADS must be a positive integer or 'keep'"):
            parse_threads(bad)


# The effect itself, in a fresh process with no setting: OpenBLAS's own threads do no work while a worker thread
# labels pages.  With "keep" (BLAS's own count, one thread per core) they share every product.
_PROBE = """
import json, sys, threading
import psutil
from threadpoolctl import threadpool_limits
from scrapy_web2text import extract
item = "<div><p>Paragraph {}, some words.</p><a href=/x>link {}</a></div>"
page = "<html><body>" + "".join(item.format(i, i) for i in range(1500))
threadpool_limits(limits=2, user_api="blas")
extract(page)
def others():
    own = {threading.main_thread().native_id, threading.get_native_id()}
    return sum(t.user_time + t.system_time for t in psutil.Process().threads() if t.id not in own)
def work():
    start = others()
    for _ in range(15):
        extract(page)
    print(json.dumps({"others": others() - start}))
worker = threading.Thread(target=work)
worker.start()
worker.join()
"""


def _other_threads_cpu(variable: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "WEB2TEXT_BLAS_THREADS"}
    if variable is not None:
        env["WEB2TEXT_BLAS_THREADS"] = variable
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["others"]


@pytest.mark.slow
@pytest.mark.skipif(os.cpu_count() < 2, reason="BLAS starts no helper threads on one core")
def test_blas_helper_threads_stay_idle_while_pages_are_labelled_with_no_setting():
    assert _other_threads_cpu(None) < 0.05
    assert _other_threads_cpu("keep") > 0.05  # the same probe sees them work when BLAS is left alone


# The command line owns its process: OpenBLAS starts with the labelling count, so that its threads (one per core,
# each spinning a tenth of a second of CPU as the library loads) are never started.  Probed in a fresh process.
_COMMAND_PROBE = """
import json, os, sys, tempfile
import scrapy_web2text
assert "numpy" not in sys.modules, "importing the package imported numpy"
from scrapy_web2text.cli import main
with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as page:
    page.write("<html><body><p>A paragraph of the page, with a few words in it.</p></body></html>")
status = main(["extract", page.name])
from tests.pool_support import blas_counts
print(json.dumps({"status": status, "variable": os.environ.get("OPENBLAS_NUM_THREADS"), "counts": blas_counts()}))
"""


def _command_probe(**variables: str) -> dict:
    names = ("WEB2TEXT_BLAS_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS")
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(variables)
    done = subprocess.run([sys.executable, "-c", _COMMAND_PROBE], capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.skipif(os.cpu_count() < 2, reason="BLAS starts no helper threads on one core")
def test_the_command_starts_blas_with_the_labelling_count_and_respects_the_users_variables():
    assert _command_probe() == {"status": 0, "variable": "1", "counts": [1]}
    assert _command_probe(WEB2TEXT_BLAS_THREADS="2") == {"status": 0, "variable": "2", "counts": [2]}
    assert _command_probe(OPENBLAS_NUM_THREADS="2") == {"status": 0, "variable": "2", "counts": [2]}
    kept = _command_probe(WEB2TEXT_BLAS_THREADS="keep")
    assert kept["variable"] is None and kept["counts"][0] > 1  # OpenBLAS's own count: one per core


def test_the_command_names_a_bad_blas_setting():
    env = {**os.environ, "WEB2TEXT_BLAS_THREADS": "many"}
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_web2text.cli", "extract", "-"], capture_output=True, text=True, env=env, cwd=REPO
    )
    assert done.returncode == 2
    assert "WEB2TEXT_BLAS_THREADS must be a positive integer or 'keep', not 'many'" in done.stderr


def test_training_leaves_blas_to_torch():
    probe = (
        "import contextlib, io, os\n"
        "from scrapy_web2text.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['train', '--help'])\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "WEB2TEXT_BLAS_THREADS")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
