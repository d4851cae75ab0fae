"""Every command and Python snippet of the README and the user guide, run as shown and checked against what it shows.

The blocks are read by :mod:`tests.snippets` (which says how a block's kind and claims are read).  They run in
document order, README first, in one sandbox laid out like a checkout: ``example_project/`` (a copy), ``page.html``
(``tests/fixtures/article.html``), ``pages/`` (two pages, each with a ``.txt`` gold), ``urls.txt`` (paths, one a
line), and ``.venv/bin/`` with ``python``, ``scrapy`` and ``web2text`` running this checkout on this interpreter, first
on ``PATH``.  A command that cannot run here matches one of :data:`NOT_RUN`, which says why; a whole block the
reader cannot run as shown carries a ``not-run:`` marker in the document.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..snippets import PYTHON_RUNNER, REPO, Snippet, collect, output_mismatch, top_level_parts, with_claims

#: The commands of the documents that are not run here, each with the reason: (pattern of a command, reason).
NOT_RUN = [
    (
        r"^(python3? -m venv|\S*pip install|python -m pip wheel)",
        "installs packages: tests/package/test_wheel.py builds the wheel, installs it in a fresh venv and crawls",
    ),
    (r"pytest|^bash \.ci/", "the test suite itself, and .ci/chromium installs a browser"),
    (
        r"^(\w+=\S+\s+)*(nice\s+)?python3? (benchmarks/|-m scrapy_web2text\.research)"
        r"|^web2text (train|evaluate|benchmark)\b",
        "trains or scores on the corpora of ../shared/data, minutes to hours: tests/research and tests/cli run these "
        "commands on small data",
    ),
    (
        r"--labels ",
        "needs the labels a reader saves from a view in the browser: tests/integration/test_show_crawl.py runs the "
        "crawl, view, save and fine-tune loop",
    ),
    (r"^curl |^(web2text [a-z]+|scrapy shell)\b.*\bhttps?://", "needs the network"),
    (r"scrapy crawl myspider", "the reader's own spider"),
    (
        r"-m scrapy_web2text\.integration\.redis ",
        "needs a Redis server and a crawl's queue: tests/integration/test_redis_scheduler.py requeues on a real one",
    ),
    (
        r"^web2text warc ",
        "shows the message of an install without the warc extra, which this environment has: "
        "tests/package/test_wheel.py checks it on a wheel installed without extras",
    ),
]
#: ``not-run:`` markers are for the few blocks that cannot run as shown; more than this is a guide that shows code
#: its reader cannot run.
MOST_MARKERS = 3
TIMEOUT = 300
SNIPPETS = collect()
RUN_KINDS = ("python", "settings", "doctest", "shell", "stats")


@dataclass
class Outcome:
    failures: list[str] = field(default_factory=list)
    not_run: list[tuple[str, str]] = field(default_factory=list)
    ran: int = 0


def not_run_reason(command: str) -> str | None:
    return next((reason for pattern, reason in NOT_RUN if re.search(pattern, command)), None)


def make_sandbox(root: Path) -> dict[str, str]:
    shutil.copytree(
        REPO / "example_project",
        root / "example_project",
        ignore=shutil.ignore_patterns("*.jsonl", "*.csv", "__pycache__", ".scrapy"),
    )
    fixtures = REPO / "tests" / "fixtures"
    shutil.copy(fixtures / "article.html", root / "page.html")
    pages = root / "pages"
    pages.mkdir()
    shutil.copy(fixtures / "article.html", pages / "flood.html")
    shutil.copy(fixtures / "article.txt", pages / "flood.txt")
    shutil.copy(REPO / "example_project" / "site" / "articles" / "winter-tomatoes.html", pages)
    (pages / "winter-tomatoes.txt").write_text("How we grew tomatoes through a northern winter\n", encoding="utf-8")
    (root / "urls.txt").write_text("page.html\npages/winter-tomatoes.html\n", encoding="utf-8")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    shims = {
        "python": "",
        "python3": "",
        "scrapy": "-m scrapy",
        "web2text": "-m scrapy_web2text",
    }
    for name, module in shims.items():
        (bin_dir / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" {module} "$@"\n')
        (bin_dir / name).chmod(0o755)
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]),
        "PYTHONPATH": str(REPO),
    }


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as error:
        return subprocess.CompletedProcess(argv, -1, error.stdout or "", f"timed out after {TIMEOUT} s")


def tail(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\nstdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-2500:]}"


SETTINGS_RUNNER = textwrap.dedent(
    """
    import importlib, re, sys
    from scrapy.utils.misc import load_object
    from scrapy.utils.test import get_crawler
    from scrapy_web2text.integration.settings import Web2TextConfig, unknown_settings

    namespace = {}
    exec(compile(open(sys.argv[1], encoding="utf-8").read(), sys.argv[2], "exec"), namespace)
    settings = {name: value for name, value in namespace.items() if name.isupper()}
    unknown = unknown_settings(settings)
    assert not unknown, f"settings the package does not know (nearest known name): {unknown}"
    strings = [v for v in settings.values() if isinstance(v, str)]
    strings += [k for v in settings.values() if isinstance(v, dict) for k in v if isinstance(k, str)]
    for text in strings:  # every dotted path a setting names must import
        if re.fullmatch(r"[A-Za-z_]\\w*(\\.[A-Za-z_]\\w*)+", text):
            try:
                importlib.import_module(text.split(".")[0])
            except ImportError:
                continue  # a dotted word, not a path ("queue-host" and the like)
            load_object(text)
    Web2TextConfig.from_crawler(get_crawler(settings_dict=settings))
    """
)

DOCTEST_RUNNER = textwrap.dedent(
    """
    import doctest, sys
    from pathlib import Path

    text, name, page = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2], sys.argv[3]
    globs = {}
    if page:  # what `scrapy shell PATH` gives: Scrapy's file download handler's response
        from scrapy.responsetypes import responsetypes
        path = Path(page).resolve()
        body = path.read_bytes()
        cls = responsetypes.from_args(filename=str(path), body=body)
        globs["response"] = cls(url=path.as_uri(), body=body)
    test = doctest.DocTestParser().get_doctest(text, globs, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    sys.exit(1 if runner.failures else 0)
    """
)


def run_python(snippet: Snippet, root: Path, cwd: Path, env: dict[str, str], outcome: Outcome) -> None:
    script = root / ".snippet.py"
    runner = {"python": PYTHON_RUNNER, "settings": SETTINGS_RUNNER}[snippet.kind]
    script.write_text(with_claims(snippet.text) if snippet.kind == "python" else snippet.text, encoding="utf-8")
    done = run([sys.executable, "-c", runner, str(script), snippet.where], cwd, env)
    outcome.ran += 1
    if done.returncode != 0:
        outcome.failures.append(f"{snippet.kind} snippet failed: {tail(done)}")


def run_doctest(snippet: Snippet, root: Path, cwd: Path, env: dict[str, str], outcome: Outcome) -> None:
    first, _, rest = snippet.text.partition("\n")
    shell = re.match(r"^\$ scrapy shell (\S+)$", first.strip())
    if shell and not_run_reason(first[2:]):
        outcome.not_run.append((first[2:], not_run_reason(first[2:])))
        return
    script = root / ".snippet.txt"
    script.write_text(rest if shell else snippet.text, encoding="utf-8")
    done = run([sys.executable, "-c", DOCTEST_RUNNER, str(script), snippet.where, shell.group(1) if shell else ""],
               cwd, env)  # fmt: skip
    outcome.ran += 1
    if done.returncode != 0:
        outcome.failures.append(f"doctest failed: {tail(done)}")


def run_shell(
    snippet: Snippet, root: Path, cwd: Path, env: dict[str, str], outcome: Outcome, crawls: dict[str, str]
) -> Path:
    """Runs the snippet's commands from ``cwd``; returns the folder its ``cd`` commands leave the reader in."""
    for command in snippet.commands:
        stdout = stderr = ""
        for part in top_level_parts(command.line):
            reason = not_run_reason(part)
            if reason:
                outcome.not_run.append((part, reason))
                continue
            change = re.fullmatch(r"cd (\S+)", part)
            if change:
                cwd = (cwd / change.group(1)).resolve()
                if not cwd.is_dir():
                    outcome.failures.append(f"`{part}`: no such folder")
                    return root
                continue
            done = run(["bash", "-c", part], cwd, env)
            outcome.ran += 1
            stdout, stderr = stdout + done.stdout, stderr + done.stderr
            if done.returncode != 0:
                outcome.failures.append(f"`{part}` (in {cwd.relative_to(root)}/) failed: {tail(done)}")
                return cwd
            if re.search(r"\bscrapy crawl\b", part):
                crawls[snippet.source] = done.stdout + done.stderr
        if command.output is not None and all(not_run_reason(p) is None for p in top_level_parts(command.line)):
            mismatch = output_mismatch(command.output, stdout.splitlines())
            if mismatch and output_mismatch(command.output, stderr.splitlines()) is None:
                mismatch = None  # the output shown is what goes to stderr (an error message)
            if mismatch:
                outcome.failures.append(f"`{command.line}`: {mismatch}\nstderr: {stderr[-1500:]}")
    return cwd


def check_stats(snippet: Snippet, crawls: dict[str, str], outcome: Outcome) -> None:
    log = crawls.get(snippet.source)
    if log is None:
        outcome.failures.append("Scrapy stats shown, but no `scrapy crawl` ran before them in this document")
        return
    dumped = {line.strip().strip("{}").rstrip(",") for line in log.splitlines()}
    outcome.ran += 1
    for line in snippet.text.splitlines():
        if line.strip() and line.strip().strip("{}").rstrip(",") not in dumped:
            outcome.failures.append(f"the crawl's stats have no {line.strip()!r}")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    root = tmp_path_factory.mktemp("checkout")
    env = make_sandbox(root)
    crawls: dict[str, str] = {}
    #: Where each document's reader stands: its blocks follow one another, from the checkout's root.
    cwds: dict[str, Path] = {}
    results = {}
    for snippet in SNIPPETS:
        outcome = results[snippet.where] = Outcome()
        cwd = cwds.setdefault(snippet.source, root)
        if snippet.not_run:
            outcome.not_run.append((snippet.where, snippet.not_run))
        elif snippet.kind in ("python", "settings"):
            run_python(snippet, root, cwd, env, outcome)
        elif snippet.kind == "doctest":
            run_doctest(snippet, root, cwd, env, outcome)
        elif snippet.kind == "shell":
            cwds[snippet.source] = run_shell(snippet, root, cwd, env, outcome, crawls)
        elif snippet.kind == "stats":
            check_stats(snippet, crawls, outcome)
    return results


@pytest.mark.parametrize("snippet", [s for s in SNIPPETS if s.kind in RUN_KINDS], ids=lambda s: f"{s.where}-{s.kind}")
def test_snippet_does_what_it_shows(snippet, outcomes):
    outcome = outcomes[snippet.where]
    assert not outcome.failures, f"{snippet.where} ({snippet.kind}):\n{snippet.text[:600]}\n\n" + "\n\n".join(
        outcome.failures
    )


def test_what_is_not_run_is_listed_with_its_reason(outcomes):
    not_run = [(where, command, reason) for where, o in outcomes.items() for command, reason in o.not_run]
    print("\nNot run:\n" + "\n".join(f"  {where}: {command}\n      ({reason})" for where, command, reason in not_run))
    ran = sum(outcome.ran for outcome in outcomes.values())
    assert ran >= 25, f"only {ran} snippets and commands ran: the documents' blocks are no longer read"
    stale = [reason for pattern, reason in NOT_RUN if not any(re.search(pattern, c) for _, c, _ in not_run)]
    assert not stale, f"NOT_RUN entries that match no command any more (remove them): {stale}"
    markers = [snippet.where for snippet in SNIPPETS if snippet.not_run]
    assert len(markers) <= MOST_MARKERS, f"blocks marked not-run: {markers}; make them runnable"
