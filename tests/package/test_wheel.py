"""The done-when check of a first contact: the wheel, in a fresh venv without torch, on the lowest Scrapy allowed.

A wheel is built from the checkout (``pip wheel --no-deps``) and installed into a new virtualenv with its
dependencies, Scrapy pinned to the lowest version the wheel's metadata allows; no editable install, no torch, no
``PYTHONPATH``.  The example crawl then runs from the example folder with each of ``WEB2TEXT_METHOD`` = web2text,
crf, boilernet: every HTML page's item must carry main text and block labels, with no traceback.

Dependency wheels are kept in a wheelhouse (``.cache/wheelhouse`` in the checkout, or ``$WEB2TEXT_WHEELHOUSE``)
and installed with ``--no-index``; only when that fails (first run, new dependency) are they fetched from the
package index into it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

from scrapy_web2text.page.twins import TWINS

from ..scrapy_support import EXAMPLE_PROJECT, REPO

METHODS = ("web2text", "crf", "boilernet")
WHEELHOUSE = Path(os.environ.get("WEB2TEXT_WHEELHOUSE", REPO / ".cache" / "wheelhouse"))
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
#: The environment of every step: no PYTHONPATH, so that the checkout is seen as installed nowhere.
CLEAN_ENV = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "WEB2TEXT_BLAS_THREADS")}


def _run(command: list[str], timeout: int = 600, **options) -> subprocess.CompletedProcess:
    options.setdefault("env", CLEAN_ENV)
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def lowest_scrapy(wheel: Path) -> str:
    """``scrapy==X`` for the ``scrapy>=X`` the wheel requires."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    match = re.search(r"^Requires-Dist: scrapy\s*\(?>=\s*([0-9][0-9.]*)", text, re.M | re.I)
    assert match, "the wheel's metadata sets no lower bound on Scrapy"
    return f"scrapy=={match.group(1)}"


def build_venv(root: Path, timings: dict[str, float]) -> tuple[Path, Path, str]:
    """Build the wheel, make a venv and install it there; returns (python, wheel, scrapy pin)."""
    clock = time.perf_counter()
    _run([*PIP, "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(REPO)])
    (wheel,) = (root / "dist").glob("scrapy_web2text-*.whl")
    timings["wheel"] = time.perf_counter() - clock
    clock = time.perf_counter()
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pin = lowest_scrapy(wheel)
    _drop_project_wheels()
    install = [*PIP, "--python", str(python), "install", "-q", str(wheel), pin]
    offline = subprocess.run(
        [*install, "--no-index", "--find-links", str(WHEELHOUSE)],
        capture_output=True,
        text=True,
        timeout=600,
        env=CLEAN_ENV,
    )
    if offline.returncode != 0:
        WHEELHOUSE.mkdir(parents=True, exist_ok=True)
        _run([*PIP, "wheel", "-q", "-w", str(WHEELHOUSE), "--find-links", str(WHEELHOUSE), str(wheel), pin])
        _run([*install, "--no-index", "--find-links", str(WHEELHOUSE)])
    _drop_project_wheels()
    timings["install"] = time.perf_counter() - clock
    return python, wheel, pin


def _drop_project_wheels() -> None:
    """The wheelhouse caches dependencies only: a copy of this project's wheel there (``pip wheel`` puts one) would
    stand in for the next build (same name and version) and hide a dependency added since, before and after."""
    for stale in WHEELHOUSE.glob("scrapy_web2text-*.whl"):
        stale.unlink()


def crawl(python: Path, root: Path, method: str) -> tuple[list[dict], str]:
    items, log = root / f"items-{method}.jsonl", root / f"crawl-{method}.log"
    command = [str(python), "-m", "scrapy", "crawl", "sample", "-O", str(items), "-s", f"WEB2TEXT_METHOD={method}"]
    command += ["-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=INFO", "-s", f"LOG_FILE={log}"]
    done = subprocess.run(command, cwd=EXAMPLE_PROJECT, env=CLEAN_ENV, capture_output=True, text=True, timeout=300)
    text = (log.read_text() if log.exists() else "") + done.stderr
    assert done.returncode == 0, text[-4000:]
    return [json.loads(line) for line in items.read_text().splitlines()], text


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("wheel")
    timings: dict[str, float] = {}
    python, wheel, pin = build_venv(root, timings)
    return {"root": root, "python": python, "wheel": wheel, "pin": pin, "timings": timings}


def test_the_wheel_ships_the_models_and_the_type_marker(wheel_venv):
    names = set(zipfile.ZipFile(wheel_venv["wheel"]).namelist())
    shipped = ("models/default.npz", "models/languages.npz", "models/languages.json", "models/languages-LICENSE.txt")
    for name in ("py.typed", *shipped, "models/baselines/crf.npz", "models/baselines/boilernet.json"):
        assert f"scrapy_web2text/{name}" in names


def test_the_venv_has_the_wheel_the_lowest_scrapy_and_no_torch(wheel_venv):
    probe = (
        "import importlib.util, json, scrapy, scrapy_web2text\n"
        "from scrapy_web2text.page.twins import twins_in_use\n"
        "print(json.dumps([scrapy.__version__, scrapy_web2text.__file__, importlib.util.find_spec('torch') is None,"
        " twins_in_use()]))"
    )
    done = _run([str(wheel_venv["python"]), "-c", probe], cwd=wheel_venv["root"], env={"PATH": os.environ["PATH"]})
    version, location, no_torch, in_use = json.loads(done.stdout)
    assert Version(version) == Version(wheel_venv["pin"].partition("==")[2])
    assert str(wheel_venv["root"] / "venv") in location and no_torch
    assert in_use == dict.fromkeys(TWINS, True), f"the wheel's compiled twins do not all load: {in_use}"


@pytest.mark.parametrize("method", METHODS)
def test_the_example_crawl_from_the_wheel_labels_every_html_page(wheel_venv, method):
    items, log = crawl(wheel_venv["python"], wheel_venv["root"], method)
    html_items = [item for item in items if item["url"].endswith(".html")]
    assert len(html_items) >= 20 and len(items) == len(html_items) + 2  # and the PDF and the PNG
    for item in html_items:
        assert isinstance(item.get("main_text"), str) and item["web2text_blocks"], item["url"]
    assert sum(len(item["main_text"]) >= 200 for item in html_items) >= 5
    assert "Traceback" not in log and "'web2text/errors'" not in log
    assert f"method {method}" in log


def _venv_command(wheel_venv, name: str) -> str:
    return str(wheel_venv["python"].parent / name)


def test_the_command_line_works_on_a_plain_install(wheel_venv, tmp_path):
    """No extra installed: --help, one file, a pipe into head, a folder in and out on two processes."""
    python, web2text = wheel_venv["python"], _venv_command(wheel_venv, "web2text")
    extras = ("warcio", "dask", "redis", "scrapy_redis", "torch")
    absent = f"import importlib.util as u; print([m for m in {extras!r} if u.find_spec(m)])"
    assert _run([str(python), "-c", absent]).stdout.strip() == "[]", "the venv has an extra's packages"
    page = tmp_path / "page.html"
    page.write_bytes((REPO / "tests" / "fixtures" / "article.html").read_bytes())
    pages = tmp_path / "pages"
    (pages / "more").mkdir(parents=True)
    for name in ("one.html", "two.html", "more/three.html"):
        (pages / name).write_bytes(page.read_bytes())

    helped = _run([web2text, "--help"])
    assert "extract" in helped.stdout and "warc" in helped.stdout and not helped.stderr
    single = _run([web2text, "extract", str(page)])
    assert "Volunteers from neighbouring villages" in single.stdout and "Traceback" not in single.stderr
    piped = _run(["bash", "-c", f"cat {page} | {web2text} extract - | head -1; echo rc=$?"])
    assert piped.stdout.splitlines() == ["River towns rebuild after the flood", "rc=0"], piped
    assert "Traceback" not in piped.stderr
    many = _run([web2text, "extract", "--input-dir", str(pages), "-o", str(tmp_path / "out"), "--workers", "2"])
    written = sorted(str(path.relative_to(tmp_path / "out")) for path in (tmp_path / "out").rglob("*.txt"))
    assert written == ["more/three.txt", "one.txt", "two.txt"] and "Traceback" not in many.stderr
    assert "Volunteers from neighbouring villages" in (tmp_path / "out" / "more" / "three.txt").read_text()


def test_a_missing_extra_is_named_on_a_plain_install(wheel_venv, tmp_path):
    archive = tmp_path / "crawl.warc.gz"
    archive.write_bytes(b"")
    done = subprocess.run(
        [_venv_command(wheel_venv, "web2text"), "warc", "-o", str(tmp_path / "rows.jsonl"), str(archive)],
        capture_output=True,
        text=True,
        env=CLEAN_ENV,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pip install 'scrapy-web2text[warc]'" in done.stderr, done.stderr


def test_the_wheel_is_stripped_and_its_metadata_complete(wheel_venv):
    import scrapy_web2text

    with zipfile.ZipFile(wheel_venv["wheel"]) as archive:
        names = archive.namelist()
        metadata = archive.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode()
        twins = {name: archive.getinfo(name).file_size for name in names if name.endswith(".so")}
    assert sorted(name.partition(".")[0].replace("/", ".") for name in twins) == sorted(
        twin for twin, _ in TWINS.values()
    )
    for name, size in twins.items():  # unstripped, the twins weigh 0.4-1.4 MB each (debug information)
        assert size < 400_000, (name, size)
    fields = re.findall(r"^([\w-]+): (.*)$", metadata, re.M)
    # The version setup.py writes into the wheel is the package's own (setup.py reads it from __init__.py).
    assert ("Version", scrapy_web2text.__version__) in fields
    assert ("License-Expression", "BSD-3-Clause") in fields and ("Author", "scrapy-web2text maintainers") in fields
    assert not [value for key, value in fields if key == "Classifier" and value.startswith("License ::")]
    assert {value.split(",")[0] for key, value in fields if key == "Project-URL"} >= {"Source", "Documentation"}


def _source_files() -> list[str]:
    """The checkout's tracked files; in a copy without ``.git`` (``.ci/no_compiler``'s, made from ``git ls-files``),
    every file but caches and build outputs, since git there would list the enclosing checkout's files."""
    if (REPO / ".git").exists():
        files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        return [name for name in files.decode("utf-8").split("\0") if name]
    skipped = {"__pycache__", ".pytest_cache", ".hypothesis", "build", "dist"}
    return [
        str(path.relative_to(REPO))
        for path in REPO.rglob("*")
        if path.is_file()
        and not skipped & set(path.relative_to(REPO).parts)
        and not path.name.endswith((".so", ".pyd", ".pyc"))
        and ".egg-info" not in str(path)
    ]


def test_a_wheel_built_without_a_compiler_is_pure_python(tmp_path):
    # Cython is there (so the twins are declared) but no compiler works: every optional twin fails, and the wheel
    # must not claim this interpreter and platform.
    pytest.importorskip("Cython")
    source = tmp_path / "src"
    source.mkdir()
    for name in _source_files():
        target = source / name
        if (REPO / name).is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((REPO / name).read_bytes())
    env = {**CLEAN_ENV, "CC": "/bin/false", "CXX": "/bin/false", "LDSHARED": "/bin/false"}
    _run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), "."],
        cwd=source,
        env=env,
    )
    (wheel,) = (tmp_path / "dist").glob("scrapy_web2text-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        assert not [name for name in archive.namelist() if name.endswith((".so", ".pyd"))]
        assert "scrapy_web2text/__init__.py" in archive.namelist()  # the package itself, at the root (purelib)
        (marker,) = [name for name in archive.namelist() if name.endswith(".dist-info/WHEEL")]
        assert "Root-Is-Purelib: true" in archive.read(marker).decode()


def test_an_sdist_builds_a_wheel_that_installs_and_labels_offline(wheel_venv, tmp_path):
    """The README's other route: a source distribution of the checkout, built into a wheel without the network and
    installed beside the dependencies of the wheel's venv, labels a page and runs the command line."""
    _run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")], cwd=REPO)
    (sdist,) = (tmp_path / "sdist").glob("scrapy_web2text-*.tar.gz")
    _run([*PIP, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(tmp_path), str(sdist)])
    (wheel,) = tmp_path.glob("scrapy_web2text-*.whl")
    target = tmp_path / "installed"
    _run(
        [*PIP, "--python", str(wheel_venv["python"]), "install", "-q", "--no-deps", "--target", str(target), str(wheel)]
    )
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(target)}
    probe = (
        "import scrapy_web2text\n"
        "page = '<html><body><nav>Home About</nav><article><h1>From the sdist</h1><p>'"
        " + 'A sentence of the article. ' * 30 + '</p></article></body></html>'\n"
        "print(scrapy_web2text.__file__)\n"
        "print(scrapy_web2text.extract(page).main_text)"
    )
    done = _run([str(wheel_venv["python"]), "-c", probe], cwd=tmp_path, env=env)
    location, text = done.stdout.split("\n", 1)
    assert location.startswith(str(target)) and "From the sdist" in text and "A sentence of the article." in text
    page = tmp_path / "page.html"
    page.write_text(
        "<html><body><article><p>" + "Words of a page read from a file. " * 30 + "</p></article></body></html>"
    )
    done = _run([str(wheel_venv["python"]), "-m", "scrapy_web2text", "extract", str(page)], cwd=tmp_path, env=env)
    assert "Words of a page read from a file." in done.stdout
