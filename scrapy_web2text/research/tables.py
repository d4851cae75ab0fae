"""The one table formatter: terminal text and reStructuredText, grouped by corpus split.

A table is a list of rows (dicts, as :mod:`.scoring` makes them) and a list of :class:`Column`; rows of the same
``(corpus, split)`` form one table under its title.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    format: str = "{:.3f}"

    def cell(self, row: dict[str, Any]) -> str:
        value = row.get(self.key)
        return "" if value is None else self.format.format(value)


def _system(row: dict[str, Any]) -> str:
    return row["name"] + (" *" if row.get("kind") == "peer" else "")


SYSTEM = Column("name", "system", "{}")
BLOCK_COLUMNS = (
    Column("accuracy", "acc"),
    Column("precision", "prec"),
    Column("recall", "rec"),
    Column("f1", "F1"),
)
TEXT_COLUMNS = (
    Column("shingle_f1", "shingleF1"),
    Column("word_f1", "wordF1"),
    Column("word_precision", "wPrec"),
    Column("word_recall", "wRec"),
)
BENCHMARK_COLUMNS = (
    SYSTEM,
    Column("pages", "pages", "{}"),
    *BLOCK_COLUMNS,
    *TEXT_COLUMNS,
    Column("ms_per_page", "ms/page", "{:.1f}"),
)
EVALUATE_COLUMNS = (
    Column("corpus", "corpus", "{}"),
    Column("pages", "pages", "{}"),
    *BLOCK_COLUMNS,
    *TEXT_COLUMNS,
    Column("ms_per_page", "ms/page", "{:.1f}"),
    Column("ms_parse_features", "parse+feat", "{:.1f}"),
    Column("ms_network_decode", "net+viterbi", "{:.1f}"),
    Column("label_coverage", "lblCov"),
    Column("label_purity", "lblPur"),
)
PEER_NOTE = "* peer returning text: a block is kept when its text occurs in the output"


def _groups(rows: Sequence[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["corpus"], row["split"]), []).append(row)
    return groups


def _cells(rows: Sequence[dict[str, Any]], columns: Sequence[Column]) -> list[list[str]]:
    return [[_system(row) if column is SYSTEM else column.cell(row) for column in columns] for row in rows]


def format_text(
    rows: Sequence[dict[str, Any]], columns: Sequence[Column] = BENCHMARK_COLUMNS, notes: Sequence[str] = ()
) -> str:
    """Aligned plain-text tables, one per corpus split (a single one when ``corpus`` is a column)."""
    grouped = {("", ""): list(rows)} if columns[0].key == "corpus" else _groups(rows)
    lines: list[str] = []
    for (corpus, split), group in grouped.items():
        cells = [[column.title for column in columns], *_cells(group, columns)]
        widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
        rendered = [
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(line, widths))
            )
            for line in cells
        ]
        rendered.insert(1, "  ".join("-" * width for width in widths))
        if corpus:
            lines.append(f"{corpus} ({split})")
        lines += [*rendered, ""]
    if any(row.get("kind") == "peer" for row in rows):
        lines.append(PEER_NOTE)
    lines.extend(f"note: {note}" for note in notes)
    return "\n".join(lines).rstrip("\n")


def format_rst(rows: Sequence[dict[str, Any]], columns: Sequence[Column] = BENCHMARK_COLUMNS) -> str:
    """reStructuredText list-tables, one per corpus split (for the docs)."""
    out: list[str] = []
    for (corpus, split), group in _groups(rows).items():
        out += [f".. list-table:: {corpus}, {split} split", "   :header-rows: 1", ""]
        for line in [[column.title for column in columns], *_cells(group, columns)]:
            out.append(f"   * - {line[0].replace(' *', ' (peer)')}")
            out += [f"     - {cell}" for cell in line[1:]]
        out.append("")
    return "\n".join(out)


def write_csv(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["name"])
        writer.writeheader()
        writer.writerows(rows)


def write_json(rows: Sequence[dict[str, Any]], notes: Sequence[str], path: str | Path) -> None:
    Path(path).write_text(json.dumps({"rows": list(rows), "notes": list(notes)}, indent=1) + "\n", encoding="utf-8")
