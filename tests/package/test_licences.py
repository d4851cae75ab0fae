"""Figures and statements stated in several places agree with their one source: the runtime dependencies' licences
(their installed metadata) and the compiled twins' speed-up (docs/speed.rst's run of benchmarks/speed.py)."""

from __future__ import annotations

import re

from scrapy_web2text._licences import DOCS_TABLE, licence, runtime_requirements, table

from ..scrapy_support import REPO

DOCS = REPO / "docs"


def test_the_licence_table_is_the_installed_metadata_written_out():
    assert (REPO / DOCS_TABLE).read_text(encoding="utf-8") == table(runtime_requirements()), (
        "docs/licences.inc is stale: python -m scrapy_web2text._licences > docs/licences.inc"
    )
    assert ".. include:: licences.inc" in (DOCS / "model.rst").read_text(encoding="utf-8")
    # not every runtime dependency is BSD, and nothing may say so
    assert {licence(name) for name in runtime_requirements()} - {"BSD-3-Clause", "BSD License"}
    for path in (REPO / "README.md", DOCS / "model.rst", DOCS / "installation.rst"):
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert "like every runtime dependency" not in text and "as is every runtime dependency" not in text, path


def test_every_declared_runtime_dependency_is_imported():
    # parsel came with Scrapy and was never imported: a dependency the package declares is one it uses.
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (REPO / "scrapy_web2text").rglob("*.py"))
    modules = {"scrapy": "scrapy", "stop-words": "stop_words", "charset-normalizer": "charset_normalizer"}
    for name in runtime_requirements():
        module = modules.get(name, name.replace("-", "_"))
        assert re.search(rf"^\s*(from|import) {module}\b", sources, re.M), name


def test_the_compiled_speed_up_is_one_figure_everywhere():
    measured = re.search(r"extract\(\) / extract\(\), Python only:\s+([0-9.]+)", (DOCS / "speed.rst").read_text())
    figure = f"{float(measured[1]):.2f}"
    places = {
        REPO / "README.md": "of the time of the pure-Python fallback",
        DOCS / "installation.rst": "of the time of the Python originals",
        DOCS / "settings.rst": "of the time, :doc:`speed`",
    }
    for path, words in places.items():
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert f"{figure} {words}" in text, (path, figure)
        assert "a fifth faster" not in text and "1.3 times the time" not in text, path
