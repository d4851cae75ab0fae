"""Fixtures shared by the test modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_web2text import Web2TextModel

from .scrapy_support import make_crawler


@pytest.fixture(scope="session")
def untrained_model(tmp_path_factory) -> Path:
    """An untrained model saved to a temp folder (labels are random but deterministic)."""
    return Web2TextModel.initialised(seed=0).save(tmp_path_factory.mktemp("model") / "untrained")


@pytest.fixture
def crawler(untrained_model):
    """A crawler whose Web2Text components load the untrained test model (blocks in the full form, with text)."""
    return make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_BLOCKS": "full"})


#: Test modules by what they need beyond the package, so that tests can be chosen by cost: ``pytest -m "not slow"``
#: is the inner loop (the README), the full suite is the README's second command.  ``twins`` marks the
#: tests that compare the compiled twins with their Python originals.  ``slow`` alone: modules whose tests run whole
#: crawls or scripts in subprocesses (single heavy tests elsewhere carry ``@pytest.mark.slow`` themselves).
MODULE_MARKS = {
    "show/test_view_browser.py": ("browser", "slow"),
    "integration/test_playwright_crawl.py": ("browser", "slow"),
    "integration/test_redis_crawl.py": ("redis", "slow"),
    "integration/test_redis_seeding.py": ("redis", "slow"),
    "integration/test_redis_scheduler.py": ("redis", "slow"),
    "batch/test_warc_extract.py": ("dask", "slow"),
    "research/test_training.py": ("torch", "slow"),
    "research/test_distillation.py": ("torch", "slow"),
    "research/test_tuning.py": ("torch", "slow"),
    "package/test_wheel.py": ("wheel", "slow"),
    # every command and snippet of the README and the docs: five example crawls, a dozen CLI runs
    "package/test_snippets.py": ("slow",),
    "integration/test_scrapy_crawl.py": ("slow",),
    "integration/test_poet_crawl.py": ("slow",),
    "integration/test_process_pool.py": ("slow",),
    "integration/test_show_crawl.py": ("slow",),
    "research/test_benchmark_scripts.py": ("slow",),
    "extraction/test_output_growth.py": ("slow",),
    "page/test_speedups.py": ("twins", "slow"),
    "labellers/test_compiled_layers.py": ("twins",),
    "extraction/test_block_paths.py": ("twins",),
}
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        try:
            module = Path(str(item.fspath)).resolve().relative_to(TESTS).as_posix()
        except ValueError:
            continue
        for mark in MODULE_MARKS.get(module, ()):
            item.add_marker(mark)
