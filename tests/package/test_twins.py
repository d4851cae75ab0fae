"""The compiled twins are one table (``page/twins.py``), read by ``setup.py``, and reached through one loader.

These tests read the sources only: they run with or without the twins built (the no-compiler CI leg included).
"""

from __future__ import annotations

import ast
from pathlib import Path

from scrapy_web2text.page.twins import TWINS

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "scrapy_web2text"


def _module(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def test_every_cython_source_is_a_twin_of_the_table_and_named_after_its_original() -> None:
    assert sorted(_module(path) for path in PACKAGE.rglob("*.pyx")) == sorted(twin for twin, _ in TWINS.values())
    for original, (twin, _) in TWINS.items():
        assert (REPO / (original.replace(".", "/") + ".py")).is_file(), original
        package, _, name = original.rpartition(".")
        assert twin == f"{package}._{name}", (original, twin)


def test_setup_reads_the_table() -> None:
    # setup.py's reader, run alone (importing setup.py would run setup()).
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    reader = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "read_twins")
    namespace = {"ast": ast, "HERE": REPO}
    exec(compile(ast.Module(body=[reader], type_ignores=[]), "setup.py", "exec"), namespace)
    assert namespace["read_twins"]() == TWINS
    for node in ast.walk(tree):  # no twin named anywhere else in setup.py
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert not any(twin.rpartition(".")[2] in node.value for twin, _ in TWINS.values()), node.value


def _calls_and_imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "load_twin":
            yield "call", node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield "import", node


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute names an import statement of ``module`` names (a module, or a module and its attributes)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module if is_package else module.rpartition(".")[0]
    if node.level:
        base = ".".join(base.split(".")[: len(base.split(".")) - node.level + 1])
        target = ".".join(filter(None, (base, node.module)))
    else:
        target = node.module or ""
    return [target, *(f"{target}.{alias.name}" for alias in node.names)]


def test_the_package_reaches_a_twin_only_through_load_twin() -> None:
    twins = {twin for twin, _ in TWINS.values()}
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path).removesuffix(".__init__")
        for kind, node in _calls_and_imports(path):
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            if kind == "import":
                if twins.intersection(_imported(node, module, path.name == "__init__.py")):
                    wrong.append(f"{where}: imports a twin ({ast.unparse(node)})")
                continue
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and first.id == "__name__":
                original = module
            elif isinstance(first, ast.Constant):
                original = first.value
            else:
                original = None
            if original not in TWINS:
                wrong.append(f"{where}: load_twin of {ast.unparse(first) if first else None}, not a table key")
    assert not wrong, "\n".join(wrong)


def test_the_check_finds_a_direct_import_of_a_twin() -> None:
    node = ast.parse("from ._walk import walk").body[0]
    assert "scrapy_web2text.page._walk" in _imported(node, "scrapy_web2text.page.cdom", False)
    assert "scrapy_web2text.page._walk" not in _imported(node, "scrapy_web2text.labellers.bte", False)


def test_the_no_compiler_leg_deselects_the_twin_tests_by_their_marker() -> None:
    script = (REPO / ".ci" / "no_compiler").read_text(encoding="utf-8")
    assert "--ignore" not in script and '-m "not twins"' in script
