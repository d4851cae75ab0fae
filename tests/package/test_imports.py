"""What ``import scrapy_web2text`` does to the interpreter (no import hook added), and the module paths that moved:
those of 0.1 are gone, those of ``extraction/`` import the moved module with a warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: Run in a fresh interpreter: this one has imported the package long ago.
_PROBE = """
import json, sys
hooks = (list(sys.meta_path), list(sys.path_hooks))
import scrapy_web2text
from scrapy_web2text import Addon, Metadata, extract
import scrapy_web2text.extraction, scrapy_web2text.integration, scrapy_web2text.show
extract("<html><body><p>Hello, world, a sentence of text.</p></body></html>")
added = [[repr(f) for f in now if f not in before] for before, now in zip(hooks, (sys.meta_path, sys.path_hooks))]
print(json.dumps(added))
"""


def test_importing_the_package_installs_no_import_hook():
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    added_finders, added_hooks = json.loads(done.stdout.strip().splitlines()[-1])
    assert added_finders == [] and added_hooks == []


def test_the_probe_sees_an_added_finder():
    """The probe itself: a finder added after the package's import is reported."""
    finder = "class Finder:\n    find_spec = staticmethod(lambda *args: None)\nsys.meta_path.append(Finder())\n"
    probe = _PROBE.replace("import scrapy_web2text\n", "import scrapy_web2text\n" + finder, 1)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    added_finders, _ = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(added_finders) == 1 and "Finder object" in added_finders[0]


@pytest.mark.parametrize("old", ["scrapy_web2text.baselines.crf", "scrapy_web2text.model", "scrapy_web2text.training"])
def test_the_module_paths_of_0_1_are_gone(old):
    """Announced in 0.2.0 for removal in 0.3.0 (CHANGELOG.md)."""
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


@pytest.mark.parametrize("name", ["blocks", "output", "markup", "responses"])
def test_the_old_paths_of_the_extraction_modules_give_the_moved_module_with_a_warning(name):
    """A fresh interpreter: the warning comes on the first import only."""
    probe = f"""
import importlib, warnings
moved = importlib.import_module("scrapy_web2text.extraction.{name}")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import scrapy_web2text.{name} as old
    from scrapy_web2text import {name} as attribute
assert old is moved and attribute is moved, (old, moved)
assert [w.category.__name__ for w in caught] == ["DeprecationWarning"], caught
print(caught[0].message)
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"scrapy_web2text.{name} moved to scrapy_web2text.extraction.{name}" in done.stdout


_LAZY_PROBE = """
import json, sys
import scrapy_web2text
loaded = sorted(name for name in ("numpy", "scrapy", "lxml") if name in sys.modules)
names = {name: type(getattr(scrapy_web2text, name)).__name__ for name in scrapy_web2text.__all__}
print(json.dumps({"loaded": loaded, "names": names, "blas": scrapy_web2text.blas.labelling_threads()}))
"""


def test_importing_the_package_loads_neither_numpy_nor_scrapy_and_every_public_name_resolves():
    env = {name: value for name, value in os.environ.items() if name != "WEB2TEXT_BLAS_THREADS"}
    done = subprocess.run([sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True, check=True, env=env)
    probe = json.loads(done.stdout)
    assert probe["loaded"] == []
    assert probe["names"]["extract"] == "function" and probe["names"]["Extraction"] == "type"
    assert probe["names"]["Web2TextSpiderMiddleware"] == "type" and probe["names"]["__version__"] == "str"
    assert probe["blas"] == 1  # the submodule, reachable as an attribute as before
