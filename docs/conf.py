"""Sphinx configuration for scrapy-web2text (build with ``sphinx-build -W docs docs/_build/html``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

project = "scrapy-web2text"
author = "scrapy-web2text maintainers"
copyright = "2024, scrapy-web2text maintainers"  # noqa: A001 - Sphinx's name
from scrapy_web2text import __version__  # noqa: E402 - after the path insert

release = version = __version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.intersphinx", "sphinx.ext.viewcode"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports = ["torch"]
intersphinx_mapping = {}
nitpicky = False
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = ["ref.python"]
