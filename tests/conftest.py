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
