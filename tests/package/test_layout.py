"""The package's layering, read from the modules' imports (AST), so that it stays true.

The flow of one page: ``page`` ← ``labellers`` ← ``metadata`` ← ``extraction`` ← ``show`` ← ``integration``, with
``batch`` beside ``integration``.  ``research`` (corpora, metrics, evaluation, benchmarks, training) may import
everything and nothing imports it, except the ``cli`` entry point, which dispatches to it.  Only ``integration``
imports Scrapy; only ``research.train`` imports torch.  Every top-level module and folder of the package has its
layer in :data:`TOP_LEVEL`: a new one is refused until it is placed.  docs/architecture.rst draws the same picture.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_web2text"
#: Python modules and the Cython sources of the compiled twins (their Python-level imports count the same).
MODULES = sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")])
#: A Python-level import statement of a Cython source (``cimport`` lines are C declarations, not imports).
_PYX_IMPORT = re.compile(r"^[ \t]*((?:from[ \t]+[\w.]+[ \t]+import[ \t]+[\w., ]+|import[ \t]+[\w., ]+))$", re.M)

#: layer -> the layers it may import (its own included); every layer may also import ``base``.
ALLOWED = {
    "base": {"base"},
    "page": {"page"},
    "labellers": {"page", "labellers"},
    "metadata": {"page", "labellers", "metadata"},
    "extraction": {"page", "labellers", "metadata", "extraction"},
    "show": {"page", "labellers", "metadata", "extraction", "show"},
    "integration": {"page", "labellers", "metadata", "extraction", "show", "integration"},
    "batch": {"page", "labellers", "metadata", "extraction", "batch"},
    "research": {"page", "labellers", "metadata", "extraction", "show", "integration", "batch", "research"},
    "cli": {"page", "labellers", "metadata", "extraction", "show", "integration", "batch", "research", "cli"},
}
for _allowed in ALLOWED.values():
    _allowed.add("base")
#: Every top-level module and folder of the package -> its layer.  The package's own ``__init__`` is the
#: ``extraction`` layer: it re-exports what users call.
TOP_LEVEL = {
    "_extras": "base",  # the error naming a missing extra, raised wherever an optional dependency is imported
    "_blas_threads": "base",  # WEB2TEXT_BLAS_THREADS read without numpy, so that the command sets it before numpy loads
    "page": "page",
    "labellers": "labellers",
    "blas": "labellers",  # labellers.blas's names, importable from the top
    "metadata": "metadata",
    "extraction": "extraction",
    "show": "show",
    "integration": "integration",
    "batch": "batch",
    "research": "research",
    "cli": "cli",
    "__main__": "cli",
    "_licences": "cli",  # python -m scrapy_web2text._licences: the dependencies' licence table of docs/model.rst
    # extraction/'s modules under their old paths, with a DeprecationWarning, until 0.4.0 (test_imports.py)
    **dict.fromkeys(("blocks", "output", "markup", "responses"), "extraction"),
}
#: Top-level folders that hold data, not modules.
DATA_FOLDERS = {"models"}


#: Modules longer than 400 lines, each with the reason it is one file.
LONG_MODULES = {
    "labellers/boilerpipe.py": "a port of Boilerpipe's filter chain, kept in the order the original runs it",
    "page/_walk.pyx": "the compiled twin of walk.Walker.walk: one loop, step for step, its node and text readers",
    "labellers/web2text/counts.py": "every per-block text count in one vectorised pass, beside its compiled twin's "
    "table: the two must count alike, and a split would put one count's two halves in two files",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "extraction"
    if parts[1] not in TOP_LEVEL:
        raise KeyError(f"{module}: {parts[1]!r} has no layer; place it in TOP_LEVEL (and docs/architecture.rst)")
    return TOP_LEVEL[parts[1]]


def unplaced(package: Path) -> list[str]:
    """The top-level modules and folders of ``package`` that :data:`TOP_LEVEL` does not place."""
    found = []
    for entry in sorted(package.iterdir()):
        if entry.is_dir():
            name = entry.name
            if name == "__pycache__" or name in DATA_FOLDERS:
                continue
        elif entry.suffix in (".py", ".pyx"):
            name = entry.stem
            if name == "__init__":
                continue
        else:  # py.typed, a compiled twin built in place
            continue
        if name not in TOP_LEVEL:
            found.append(entry.name)
    return found


def imports(path: Path, module: str | None = None) -> list[tuple[str, int]]:
    """Every module ``path`` imports (absolute names), with line numbers; TYPE_CHECKING blocks excluded."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":  # only its import statements are Python
        text = "\n".join(match.group(1) for match in _PYX_IMPORT.finditer(text) if " cimport " not in match.group(1))
    tree = ast.parse(text)
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for statement in node.body for child in ast.walk(statement))
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            # "from . import alignment" imports a module, not a name
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names]
    return found


def _internal(name: str) -> str | None:
    if name != "scrapy_web2text" and not name.startswith("scrapy_web2text."):
        return None
    # only names that are modules count ("from ..page import Page" also yields scrapy_web2text.page.Page)
    while name and not any((PACKAGE.parent / (name.replace(".", "/") + suffix)).exists() for suffix in (".py", ".pyx")):
        if (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists():
            return name
        name = name.rpartition(".")[0]
    return name or None


def test_every_module_imports_only_the_layers_below_it():
    wrong = []
    for path in MODULES:
        own = layer(module_name(path))
        for name, line in imports(path):
            target = _internal(name)
            if target and target != "scrapy_web2text" and layer(target) not in ALLOWED[own]:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} ({own}) imports {target} ({layer(target)})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "library, owner", [("scrapy", "integration"), ("twisted", "integration"), ("torch", "research.train")]
)
def test_heavy_libraries_stay_in_their_layer(library, owner):
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line} imports {name}"
        for path in MODULES
        for name, line in imports(path)
        if (name == library or name.startswith(library + "."))
        and not module_name(path).startswith(f"scrapy_web2text.{owner}")
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        module = module_name(path)
        targets = {_internal(name) for name, _ in imports(path)}
        # A package that holds the module is imported before it whatever the module says ("from . import output"
        # names its own package): that edge is no cycle.
        graph[module] = {t for t in targets if t and t != module and not module.startswith(t + ".")}
    cycles = []
    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(trail[trail.index(target) :] + [target]))
            elif target not in state:
                visit(target, trail + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_modules_stay_readable_in_one_sitting():
    long = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in MODULES
        if len(path.read_text(encoding="utf-8").splitlines()) > 400
    }
    assert set(long) <= set(LONG_MODULES), f"modules over 400 lines without a stated reason: {long}"


def test_the_rule_checker_sees_a_violation(tmp_path):
    """The checker itself: a labeller importing Scrapy glue is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from ...integration import runtime\nimport scrapy\n")
    names = [name for name, _ in imports(bad, "scrapy_web2text.labellers.web2text.bad")]
    assert "scrapy_web2text.integration" in names and "scrapy" in names
    assert layer("scrapy_web2text.integration.runtime") not in ALLOWED["labellers"]
    assert _internal("scrapy_web2text.page.Page") == "scrapy_web2text.page"


def test_every_top_level_module_and_folder_has_a_layer():
    assert not unplaced(PACKAGE), "unplaced top-level modules or folders (give each a layer in TOP_LEVEL)"
    assert set(TOP_LEVEL.values()) <= set(ALLOWED)


def test_an_unplaced_folder_or_module_is_refused(tmp_path):
    """The check itself: a new folder or a loose module beside the known ones is named, and has no layer."""
    for name in ("page", "extraction", "models", "__pycache__"):
        (tmp_path / name).mkdir()
    for name in ("__init__.py", "cli.py", "py.typed"):
        (tmp_path / name).write_text("")
    assert unplaced(tmp_path) == []
    (tmp_path / "widgets").mkdir()
    (tmp_path / "loose.py").write_text("")
    assert unplaced(tmp_path) == ["loose.py", "widgets"]
    with pytest.raises(KeyError, match="'widgets' has no layer"):
        layer("scrapy_web2text.widgets.thing")
