"""Security: no pickle loading anywhere, models read as data only, a parser that fetches nothing.

* The package source is scanned (as Python syntax trees, so comments and
  docstrings do not count) for pickle-family imports, ``torch.load``,
  ``pandas.read_pickle``, ``allow_pickle=True`` and any ``numpy.load``
  without ``allow_pickle=False``; the shipped ``.npz`` files must load with
  ``allow_pickle=False``.
* ``WEB2TEXT_MODEL`` / ``load_model`` take names and paths as data: a Python
  file, a module name or a directory is a :class:`ModelError`, and nothing
  in it runs.
* The HTML parser expands no entity, reads no local file and opens no
  connection, whatever the page asks for (DTDs, external entities,
  XInclude, stylesheets, ``src``/``href`` attributes).
"""

from __future__ import annotations

import ast
import socket
from pathlib import Path

import numpy as np
import pytest

import scrapy_web2text
from scrapy_web2text import ModelError, Web2TextModel, extract, load_model
from scrapy_web2text.page import parse_page

PACKAGE = Path(scrapy_web2text.__file__).resolve().parent
PICKLE_MODULES = {"pickle", "_pickle", "cPickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "pickletools"}
MODEL = Web2TextModel.initialised(seed=0)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def pickle_risks(source: str, filename: str) -> list[str]:
    """Every construct in ``source`` that can unpickle data."""
    tree = ast.parse(source, filename)
    numpy_names = {"np", "numpy"}
    torch_names = {"torch"}
    findings = []
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in PICKLE_MODULES:
                    findings.append(f"{where} imports {alias.name}")
                if root == "numpy":
                    numpy_names.add(alias.asname or "numpy")
                if root == "torch":
                    torch_names.add(alias.asname or "torch")
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if root in PICKLE_MODULES:
                findings.append(f"{where} imports from {node.module}")
            for alias in node.names:
                if (root == "numpy" and alias.name == "load") or (root == "torch" and alias.name == "load"):
                    findings.append(f"{where} imports {node.module}.load")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            base, _, attribute = name.rpartition(".")
            keywords = {kw.arg: kw.value for kw in node.keywords}
            if attribute in ("read_pickle", "load_pickle"):
                findings.append(f"{where} calls {name}")
            if base in torch_names and attribute == "load":
                findings.append(f"{where} calls {name}")
            if base in numpy_names and attribute == "load":
                flag = keywords.get("allow_pickle")
                if not (isinstance(flag, ast.Constant) and flag.value is False):
                    findings.append(f"{where} calls {name} without allow_pickle=False")
            flag = keywords.get("allow_pickle")
            if isinstance(flag, ast.Constant) and flag.value is True:
                findings.append(f"{where} passes allow_pickle=True")
    return findings


def test_the_scanner_catches_what_it_should() -> None:
    bad = """
import pickle
from joblib import load
import numpy as numpyish
import torch as t
numpyish.load("x.npz")
numpyish.load("x.npz", allow_pickle=True)
t.load("model.pt")
import pandas; pandas.read_pickle("x")
"""
    findings = pickle_risks(bad, "bad.py")
    assert len(findings) == 7, findings
    assert pickle_risks('import numpy as np\nnp.load("x.npz", allow_pickle=False)\n', "good.py") == []


def test_no_pickle_loading_anywhere_in_the_package() -> None:
    sources = sorted(PACKAGE.rglob("*.py"))
    assert len(sources) > 10
    findings = [finding for path in sources for finding in pickle_risks(path.read_text(encoding="utf-8"), str(path))]
    assert findings == []


def test_shipped_model_archives_hold_no_objects() -> None:
    for archive in sorted(PACKAGE.rglob("*.npz")):
        with np.load(archive, allow_pickle=False) as arrays:
            for key in arrays.files:
                assert arrays[key].dtype != object, (archive, key)


@pytest.mark.parametrize("kind", ["python file", "module name", "directory", "json only", "npz named .py"])
def test_model_paths_are_data_only(tmp_path, kind, monkeypatch) -> None:
    marker = tmp_path / "executed.txt"
    code = f"open({str(marker)!r}, 'w').write('ran')\n"
    monkeypatch.chdir(tmp_path)
    if kind == "python file":
        target = tmp_path / "evil.py"
        target.write_text(code)
    elif kind == "module name":
        (tmp_path / "evilmodule.py").write_text(code)
        monkeypatch.syspath_prepend(str(tmp_path))
        target = "evilmodule"
    elif kind == "directory":
        target = tmp_path / "package"
        target.mkdir()
        (target / "__init__.py").write_text(code)
    elif kind == "json only":
        target = tmp_path / "model.json"
        target.write_text('{"format": "web2text-model", "__import__": "os", "config": {}}')
    else:
        target = tmp_path / "model.py"
        target.write_text(code)
        MODEL.save(tmp_path / "model")  # model.npz + model.json beside it
        (tmp_path / "model.json").write_text('{"format": "not-a-model", "exec": "import os"}')
    with pytest.raises(ModelError):
        load_model(target)
    assert not marker.exists()


def test_parser_expands_no_entity_and_reads_no_file(tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT-123")
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY leak SYSTEM "file://{secret}"><!ENTITY inner "INNER-EXPANSION">')
    page = f"""<?xml version="1.0"?>
<!DOCTYPE html SYSTEM "file://{dtd}" [
  <!ENTITY local "LOCAL-EXPANSION">
  <!ENTITY xxe SYSTEM "file://{secret}">
  <!ENTITY % remote SYSTEM "file://{dtd}"> %remote;
]>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:xi="http://www.w3.org/2001/XInclude">
<body><p>a &local; b &xxe; c &leak; d &inner;</p>
<xi:include href="file://{secret}" parse="text"/>
<iframe src="file://{secret}"></iframe><object data="file://{secret}"></object></body></html>"""
    for html in (page, page.encode("utf-8")):
        text = "\n".join(parse_page(html).texts)
        for leaked in ("SECRET-CONTENT-123", "LOCAL-EXPANSION", "INNER-EXPANSION"):
            assert leaked not in text
        assert "a &local; b &xxe; c &leak; d &inner;" in text


def test_parser_opens_no_connection() -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    page = f"""<?xml version="1.0"?>
<?xml-stylesheet type="text/xsl" href="{url}/style.xsl"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "{url}/xhtml1-strict.dtd" [
  <!ENTITY remote SYSTEM "{url}/entity.txt">
  <!ENTITY % param SYSTEM "{url}/param.dtd"> %param;
]>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:xi="http://www.w3.org/2001/XInclude">
<head><link rel="stylesheet" href="{url}/a.css"/><script src="{url}/a.js"></script><base href="{url}/"/></head>
<body><p>text &remote; more</p><img src="{url}/a.png"/><iframe src="{url}/frame.html"></iframe>
<xi:include href="{url}/include.xml"/><frameset><frame src="{url}/f.html"/></frameset>
<a href="{url}/link">link</a><video src="{url}/v.mp4"></video></body></html>"""
    try:
        result = extract(page, model=MODEL)
        extract(page.encode("utf-8"), model=MODEL)
        assert "text &remote; more" in "\n".join(block.text for block in result.blocks)
        with pytest.raises(TimeoutError):
            connection, _ = listener.accept()
            connection.close()
    finally:
        listener.close()
