"""``Page.node_table``'s columns are read by name (``table[:, FIRST_BLOCK]``), never by a bare number, and the
compiled twins' names (``page/nodes.pxd``) are the Python ones (``page/nodes.py``).

The check reads the package's source (AST): in each function, the names bound to ``node_table`` or to rows of it
(``table = page.node_table``, ``selected = table[mask]``, ``self.table = page.node_table``) are followed, and an
integer constant as the column of a subscript of any of them fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from scrapy_web2text.page import nodes

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_web2text"
#: Calls that hand back the same columns as the table they are given.
_SAME_COLUMNS = frozenset({"ascontiguousarray", "asarray", "array", "copy"})


def _is_int(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _bare_column(index: ast.AST) -> bool:
    """Whether ``index`` (a column index) is or holds an integer constant: ``5``, ``5:``, ``(5, 6)``."""
    if isinstance(index, ast.Slice):
        return any(_is_int(bound) for bound in (index.lower, index.upper))
    if isinstance(index, (ast.Tuple, ast.List)):
        return any(_is_int(element) for element in index.elts)
    return _is_int(index)


class _Tables:
    """The expressions of one scope that hold node-table rows (all of the table's columns)."""

    def __init__(self, attributes: set[str]):
        self.names: set[str] = set()
        self.attributes = attributes  # ``self.<name>``, shared by a module's methods

    def holds(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            if node.attr == "node_table":
                return True
            return isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.attributes
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Subscript):  # rows of a table: a mask, a list of rows, a slice of rows
            return self.holds(node.value) and not isinstance(node.slice, ast.Tuple)
        if isinstance(node, ast.Call) and node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            return name in _SAME_COLUMNS and self.holds(node.args[0])
        if isinstance(node, ast.IfExp):
            return self.holds(node.body) or self.holds(node.orelse)
        return False

    def bind(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for one_target, one_value in zip(target.elts, value.elts):
                self.bind(one_target, one_value)
        elif isinstance(target, ast.Name) and self.holds(value):
            self.names.add(target.id)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and self.holds(value):
            if target.value.id == "self":
                self.attributes.add(target.attr)


def _scopes(tree: ast.Module):
    yield tree
    yield from (node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def bare_column_indices(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: code`` of every integer column index into a node table in ``source``."""
    tree = ast.parse(source)
    attributes: set[str] = set()
    found = set()
    for _ in range(2):  # a method may read an attribute another method binds later in the file
        for scope in _scopes(tree):
            tables = _Tables(attributes)
            body = [node for node in ast.walk(scope) if node is not scope]
            for _ in range(3):  # bindings in any order: the names settle in a few passes
                for node in body:
                    if isinstance(node, ast.Assign):
                        for target in node.targets:
                            tables.bind(target, node.value)
                    elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                        tables.bind(node.target, node.value)
            for node in body:
                if not isinstance(node, ast.Subscript):
                    continue
                value, index = node.value, node.slice
                if isinstance(value, ast.Attribute) and value.attr == "T" and tables.holds(value.value):
                    column = index  # ``table.T[5]``: a column
                elif tables.holds(value) and isinstance(index, ast.Tuple) and len(index.elts) == 2:
                    column = index.elts[1]
                else:
                    continue
                if _bare_column(column):
                    found.add(f"{filename}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_no_bare_column_index_into_the_node_table() -> None:
    found = []
    for folder in (PACKAGE, PACKAGE.parent / "benchmarks", PACKAGE.parent / "research"):  # the scripts read it too
        for path in sorted(folder.rglob("*.py")):
            found += bare_column_indices(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    assert not found, "read the node table's columns by name (page/nodes.py):\n" + "\n".join(found)


def test_the_check_finds_bare_column_indices() -> None:
    source = """
class Rule:
    def __init__(self, page):
        self.table = page.node_table

    def parent(self, node):
        return self.table[node, 0]


def spans(page, mask):
    table, tags = page.node_table, page.distinct_tags
    chosen = table[mask]
    first = page.node_table[:, FIRST_BLOCK]
    return chosen[:, 2], table[:, 5:], page.node_table[page.block_nodes, -1], table.T[3], tags[0], first
"""
    found = [line.split(": ", 1)[1] for line in bare_column_indices(source)]
    assert sorted(found) == sorted(
        ["self.table[node, 0]", "chosen[:, 2]", "table[:, 5:]", "page.node_table[page.block_nodes, -1]", "table.T[3]"]
    )


def test_the_compiled_twins_number_the_columns_alike() -> None:
    declared = dict(re.findall(r"^\s+(\w+) = (\d+)$", (PACKAGE / "page" / "nodes.pxd").read_text(), re.M))
    python = {name.upper(): number for number, name in enumerate(nodes.NODE_COLUMNS)}
    assert {name: int(number) for name, number in declared.items()} == {**python, "NODE_WIDTH": len(python)}
    assert [getattr(nodes, name) for name in python] == list(range(len(python)))
