"""The licences of the package's runtime dependencies, read from their installed metadata.

::

    python -m scrapy_web2text._licences          # the direct runtime dependencies (docs/licences.inc)
    python -m scrapy_web2text._licences --all    # and everything they pull in

Each licence is the distribution's ``License-Expression``, else its ``License`` field when that is short, else the
names of its ``License ::`` classifiers, as ``pip show`` would find them; ``tests/package/test_licences.py`` checks
that ``docs/licences.inc`` is this module's table.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata as metadata
import re
from pathlib import Path

#: The table the docs include (``.. include:: licences.inc``), from the repository root.
DOCS_TABLE = "docs/licences.inc"
SETUP = Path(__file__).resolve().parents[1] / "setup.py"
#: Where a requirement's name ends (a version, a marker, extras).
_NAME_END = re.compile(r"[\s<>=!~;\[(]")


def _name(requirement: str) -> str:
    return _NAME_END.split(requirement.strip(), maxsplit=1)[0]


def runtime_requirements() -> list[str]:
    """The ``install_requires`` names of ``setup.py`` (a checkout), else of the installed distribution."""
    if SETUP.is_file():
        for node in ast.walk(ast.parse(SETUP.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "install_requires":
                return [_name(value.value) for value in node.value.elts]
    return [_name(line) for line in metadata.requires("scrapy-web2text") or [] if "extra ==" not in line]


def licence(name: str) -> str:
    """The installed distribution's licence, in SPDX words where it states them."""
    found = metadata.metadata(name)
    expression = found.get("License-Expression")
    if expression:
        return expression
    text = (found.get("License") or "").strip()
    if text and len(text) <= 40 and "\n" not in text:
        return text
    classifiers = [c.split(" :: ")[-1] for c in found.get_all("Classifier") or [] if c.startswith("License ::")]
    return ", ".join(classifiers) or "unknown"


def dependencies(direct: list[str]) -> list[str]:
    """``direct`` and every distribution their installed metadata requires (no extras), sorted."""
    seen: dict[str, None] = {}
    pending = list(direct)
    while pending:
        name = pending.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen[key] = None
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            del seen[key]  # required only where its marker holds (another Python, another system)
            continue
        pending += [_name(line) for line in requires if "extra ==" not in line and _applies(line)]
    return sorted(seen)


def _applies(requirement: str) -> bool:
    """Whether ``requirement``'s environment marker holds here (no marker: it does)."""
    from packaging.requirements import Requirement

    marker = Requirement(requirement).marker
    return marker is None or marker.evaluate({"extra": ""})


def table(names: list[str]) -> str:
    """An RST table: each distribution and its licence."""
    rows = [(name, licence(name)) for name in sorted(names, key=str.lower)]
    width = max(len("Dependency"), *(len(name) + 4 for name, _ in rows))
    right = max(len("Licence"), *(len(text) for _, text in rows))
    rule = f"{'=' * width}  {'=' * right}"
    lines = [rule, f"{'Dependency':<{width}}  Licence", rule]
    lines += [f"{'``' + name + '``':<{width}}  {text}".rstrip() for name, text in rows]
    return "\n".join([*lines, rule]) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also the dependencies' own dependencies")
    args = parser.parse_args(argv)
    direct = runtime_requirements()
    print(table(dependencies(direct) if args.all else direct), end="")


if __name__ == "__main__":
    main()
