"""How tests/package/test_snippets.py reads the documents' blocks: kinds, commands, shown outputs and claimed values."""

from __future__ import annotations

import subprocess
import sys

from ..snippets import PYTHON_RUNNER, collect, output_mismatch, top_level_parts, with_claims

RST = """\
Title
=====

Run it::

    cd example_project
    scrapy crawl sample -O items.jsonl

    ms per page   4.27

.. code-block:: console

    $ web2text extract --with-metadata page.html
    title: A page
    ...
    $ web2text show https://example.com/ \\
          -o view.html

.. not-run: a fragment

.. code-block:: python

    yield request

.. code-block:: python

    ADDONS = {"scrapy_web2text.Addon": 0}

.. code-block:: text

    $ scrapy shell ./page.html
    >>> response.url[-9:]
    'page.html'

A record::

    {"format": "web2text-labels/1", "changed": false}
"""

MARKDOWN = """\
<!-- not-run: the reader's own project -->
```sh
scrapy crawl myspider
```

```text
 'item_scraped_count': 23,
 'web2text/pages': 21,
```

```python
from pathlib import Path
print(Path("page.html").exists())
```
"""


def test_blocks_are_read_with_their_kind_commands_and_markers(tmp_path):
    (tmp_path / "guide.rst").write_text(RST, encoding="utf-8")
    (tmp_path / "README.md").write_text(MARKDOWN, encoding="utf-8")
    snippets = collect([tmp_path / "README.md", tmp_path / "guide.rst"])
    assert [(s.where, s.kind, s.not_run) for s in snippets] == [
        ("README.md:2", "shell", "the reader's own project"),
        ("README.md:6", "stats", None),
        ("README.md:11", "python", None),
        ("guide.rst:4", "shell", None),
        ("guide.rst:11", "shell", None),
        ("guide.rst:21", "python", "a fragment"),
        ("guide.rst:25", "settings", None),
        ("guide.rst:29", "doctest", None),
        ("guide.rst:35", "output", None),
    ]
    literal, console = snippets[3], snippets[4]
    # a literal block's commands stop at its first blank line: the rest is their output
    assert [c.line for c in literal.commands] == ["cd example_project", "scrapy crawl sample -O items.jsonl"]
    assert [(c.line, c.output) for c in console.commands] == [
        ("web2text extract --with-metadata page.html", ["title: A page", "..."]),
        ("web2text show https://example.com/ -o view.html", None),
    ]


def test_a_shown_output_matches_with_its_elisions_only():
    shown = ["Title", "First paragraph [...]", "[...]", "Last line"]
    assert output_mismatch(shown, ["Title", "First paragraph, in full.", "a", "b", "Last line", "more"]) is None
    assert output_mismatch(shown, ["Title", "First paragraph, in full.", "Last line"]) is None
    assert output_mismatch(shown, ["Title", "Second paragraph", "Last line"]) is not None
    assert output_mismatch(shown, ["Title", "First paragraph", "Last lines"]) is not None
    assert output_mismatch(["a"], []) is not None


def test_commands_split_at_top_level_and_only_there():
    assert top_level_parts('cd x && scrapy crawl a -O "a && b" && (cd y && ls) && cd ..') == [
        "cd x",
        'scrapy crawl a -O "a && b"',
        "(cd y && ls)",
        "cd ..",
    ]


def test_claimed_values_are_checked(tmp_path):
    source = "value = {'a': 1, 'b': 2}\nvalue['a']  # 1\nvalue  # {'b': 2, ...}\nprint(value)  # the value\n"
    rewritten = with_claims(source)
    assert "__claim__(2, value['a'], 1, False)" in rewritten and "__claim__(3, value, {'b': 2}, True)" in rewritten
    assert "print(value)  # the value" in rewritten  # not a literal: a comment
    path = tmp_path / "good.py"
    path.write_text(rewritten, encoding="utf-8")
    assert run_claims_file(path).returncode == 0
    path.write_text(with_claims(source.replace("# 1", "# 3")), encoding="utf-8")
    done = run_claims_file(path)
    assert done.returncode == 1 and "line 2 of the snippet shows 3, gives 1" in done.stderr


def run_claims_file(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PYTHON_RUNNER, str(path), "snippet"], capture_output=True, text=True, timeout=60
    )
