"""Write a model card (Markdown) from a model's JSON and evaluation rows.

``python -m scrapy_web2text.research.train.card MODEL.json --validation V.json --test T.json -o MODEL_CARD.md``
where the row files come from ``web2text evaluate --json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

LICENCES = {
    "cleaneval": "CleanEval 2007 shared task, research use",
    "dragnet": "Dragnet data (Moz, 2012), AGPL-3.0",
    "l3s-gn1": "L3S-GN1 (Kohlschütter et al. 2010), research use",
    "cleanportaleval": "CleanPortalEval (Endrédy 2013), research use",
    "readability": "Mozilla Readability test pages, Apache-2.0",
    "wcxb": "WCXB development set (2026), CC-BY-4.0",
}

_COLUMNS = ("pages", "accuracy", "precision", "recall", "f1", "shingle_f1", "word_f1", "median_ms")


def _table(rows: list[dict]) -> str:
    lines = ["| corpus | split | " + " | ".join(_COLUMNS) + " |", "|---|---|" + "---|" * len(_COLUMNS)]
    for row in rows:
        cells = [str(row["pages"])] + [f"{row[key]:.3f}" for key in _COLUMNS[1:-1]] + [f"{row['median_ms']:.1f}"]
        lines.append(f"| {row['corpus']} | {row['split']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(metadata: dict, validation: list[dict], test: list[dict]) -> str:
    config = metadata["config"]
    training = metadata.get("training", {})
    corpora = metadata.get("corpora", [])
    parts = [
        f"# Model card: `{metadata.get('name', config.get('name'))}`",
        "",
        f"Created {metadata.get('created', 'unknown')} with scrapy-web2text's"
        f" `web2text train --config {config['name']}` (seed {metadata.get('seed', 0)},"
        f" torch {training.get('torch', '?')}); runs on numpy.",
        "",
        "## Training data (train splits only)",
        "",
        *[f"- `{name}`: {LICENCES.get(name, 'see the corpus documentation')}" for name in corpora],
        "",
        f"{training.get('train_pages', '?')} pages, {training.get('train_blocks', '?')} blocks;"
        f" checkpoints chosen on the validation splits ({training.get('validation_pages', '?')} pages);"
        f" training took {training.get('seconds', '?')} s.",
        "Labels come from aligning each page's gold text with its blocks (2/3 rule).",
        "",
        "## Configuration",
        "",
        "```json",
        json.dumps(config, indent=2, sort_keys=True),
        "```",
        "",
        "## Validation (model selection)",
        "",
        _table(validation),
        "",
        "## Test (reported once, never used for choices)",
        "",
        _table(test) if test else "No test figures recorded.",
        "",
        "Block-level figures pool all blocks (every block weighs the same); shingle F1 is the",
        "article-extraction-benchmark's 4-gram definition; word F1 the mean per-page bag-of-words F1.",
        "WCXB has no public test split here, so it appears under validation only.",
        "",
        "## Limits",
        "",
        "- Stop-word features use the page's language (py3langid + the stop-words package, 33 languages);",
        "  pages in other languages fall back to English stop-words.",
        "- Trained on news, blogs, forums, product and documentation pages; pages unlike those",
        "  (search results, web apps rendered by JavaScript) are outside what it has seen.",
        "- Text injected by JavaScript is invisible: the model sees the HTML as served.",
    ]
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_json")
    parser.add_argument("--validation", required=True)
    parser.add_argument("--test", default=None)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    metadata = json.loads(Path(args.model_json).read_text())
    validation = json.loads(Path(args.validation).read_text())
    test = json.loads(Path(args.test).read_text()) if args.test else []
    Path(args.output).write_text(render(metadata, validation, test), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
