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


def _setting_entry(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``:setting-def:`WEB2TEXT_X```: the setting's name as code, with an anchor that ``:setting:`WEB2TEXT_X```
    links to from any page (docs/settings.rst defines each setting once, in its definition list)."""
    from docutils import nodes

    env = inliner.document.settings.env
    anchor = f"setting-{text}"
    env.get_domain("std").note_object("setting", text, anchor, location=(env.docname, lineno))
    return [nodes.target("", "", ids=[anchor]), nodes.literal(text, text)], []


def setup(app):
    app.add_crossref_type("setting", "setting", indextemplate="pair: %s; setting")
    app.add_role("setting-def", _setting_entry)
