"""Experiment (issue 33): thresholds per page type and furniture rules, out of fold and on validation, per page.

``collect`` parses each page once, computes the block features once, runs every model given on it (out of fold on
the ``train`` split: each seed's fold model that did not see the page, see ``cross_validation.py``; on
``validation``: every model given, fold models included) and decodes it under every variant: the current chain at
a grid of thresholds, and the current chain plus one candidate rule at a time.  Each variant's word precision /
recall / F1 (``web2text benchmark``'s, against the corpus's own gold) is written per page, with trafilatura's on
the same page, the page's gold type (WCXB) and predicted type, and the gold's language (py3langid).  ``table``
aggregates those rows per corpus, page type and language, any mapping of predicted type to threshold applied.

    python research/round3_study.py collect --split train --cv runs/cv-s0 runs/cv-s1 runs/cv-s2 -o runs/oof.jsonl
    python research/round3_study.py collect --split validation --models default runs/cv-s0-fold0 ... -o runs/val.jsonl
    python research/round3_study.py table runs/oof.jsonl --variants base hidden rails
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import furniture_candidates  # noqa: E402
from cross_validation import FOLDS, fold_of  # noqa: E402
from rule_ablation import groups_of, page_row, trafilatura_outputs, train_page_type_folds  # noqa: E402

from scrapy_web2text.extraction import join_main_text  # noqa: E402
from scrapy_web2text.labellers.web2text import decode_empty_page_again  # noqa: E402
from scrapy_web2text.labellers.web2text.counts import block_lengths  # noqa: E402
from scrapy_web2text.labellers.web2text.features import page_features  # noqa: E402
from scrapy_web2text.labellers.web2text.network import load_model  # noqa: E402
from scrapy_web2text.labellers.web2text.page_types import PageTypeModel, page_summary  # noqa: E402
from scrapy_web2text.labellers.web2text.rules import furniture, kept_text, rails  # noqa: E402
from scrapy_web2text.labellers.web2text.viterbi import viterbi  # noqa: E402
from scrapy_web2text.page import parse_page  # noqa: E402
from scrapy_web2text.page.declared import declared_kinds  # noqa: E402
from scrapy_web2text.research.corpus import corpus_name, default_data_dir, iter_records  # noqa: E402
from scrapy_web2text.research.metrics import word_scores  # noqa: E402

THRESHOLDS = tuple(round(0.2 + 0.05 * k, 2) for k in range(12))  # 0.20 … 0.75
NON_ARTICLE = ("collection", "forum", "listing", "product", "service", "documentation")


#: The rules after decoding before this study, in their order.
BEFORE = (kept_text.kept_captions, kept_text.excerpt_teasers, kept_text.repeated_blocks)


def base_rules(page, labels, list_repeat_chars: int, rules=BEFORE):
    """The chain's rules as they were before this study (list repeats of up to ``list_repeat_chars`` kept)."""
    kept_text.MAX_LIST_REPEAT_CHARS = list_repeat_chars
    for rule in rules:
        found = rule(page, labels)
        if found.any():
            labels = np.where(found, 0, labels).astype(labels.dtype)
    return labels


def extra(rule):
    def apply(page, labels):
        found = rule(page, labels)
        return np.where(found, 0, labels).astype(labels.dtype) if found.any() else labels

    return apply


#: name → rule applied after the current chain's (None: the chain alone).
RULES = {
    "base": None,
    "listrep": "listrep",
    "listrep100": "listrep100",
    "hidden": extra(furniture.hidden_blocks),
    "credits": extra(furniture_candidates.credit_blocks),
    "rails": extra(furniture_candidates.link_rails),
    "cuedrails": extra(rails.announced_rails),
    "prompts": extra(furniture_candidates.prompt_blocks),
    # The chain as shipped after round three (list repeats of up to 100 characters kept), and bylines on it.
    "cur": "cur",
    "cur_hidden": ("cur", furniture.hidden_blocks),
    "cur_mbyline": ("cur", furniture_candidates.marked_bylines),
    "cur_tbyline": ("cur", furniture_candidates.text_bylines),
    "cur_byline": ("cur", furniture_candidates.bylines),
    "cur_hidden_byline": ("cur", furniture.hidden_blocks, furniture_candidates.bylines),
    "cur_repgp": ("repgp",),
    # The chain as shipped since the sixth session of 2026-11-26 (on pages typed as articles).
    "cur_hidden_comments": ("cur", furniture.hidden_blocks, furniture.comment_sections),
    "cur_hidden_comments_after": ("cur", furniture.hidden_blocks, furniture_candidates.comments_after_body),
    "cur_comments": ("cur", furniture.comment_sections),
    "repgp_hidden_comments": ("repgp", furniture.hidden_blocks, furniture.comment_sections),
    "cur_hcm_trail": ("cur", furniture.hidden_blocks, furniture.comment_sections, furniture_candidates.trailing_meta),
    "cur_hcm_strail": (
        "cur",
        furniture.hidden_blocks,
        furniture.comment_sections,
        furniture_candidates.short_trailing_meta,
    ),
    "cur_hidden_repgp": ("repgp", furniture.hidden_blocks),
    "cur_hidden_commentsmost": ("cur", furniture.hidden_blocks, furniture_candidates.comments_unless_most),
    # Buyers' reviews (shipped on product pages in the seventh session).
    "cur_reviews": ("cur", furniture.review_sections),
    "cur_reviews_only": ("cur", furniture_candidates.reviews_named("review")),
    "cur_reviews_testimonials": ("cur", furniture_candidates.reviews_named("review", "rating", "testimonial")),
}
#: Kept blocks under other class/id words, with the comment rule's guards (eighth session): ``ahc_NAME`` on top of
#: the article chain (hidden text and comments), ``c_NAME`` on top of the chain of the other types.
SECTION_WORDS = {
    "related": ("related", "recommend", "popular", "trending"),
    "relonly": ("related",),
    "share": ("share", "sharing", "social"),
    "prompt": ("newsletter", "subscribe", "signup", "paywall"),
    "ads": ("advert", "sponsor", "promo"),
    "bio": ("author-bio", "authorbio", "about-author", "author-box", "authorbox", "author-info", "author_bio"),
}
SECTION_WORDS["five"] = tuple(w for k in ("related", "share", "prompt", "ads", "bio") for w in SECTION_WORDS[k])
#: Asides (shipped on articles in the eighth session) and two narrower word lists.
_ASIDE_WORDS = ("related", "recommend", "popular", "trending", "advert", "sponsor", "promo", "newsletter", "subscribe")
ASIDES = {
    "asides": furniture.aside_sections,
    "asides_noshare": furniture_candidates.asides_named(
        *_ASIDE_WORDS,
        "signup",
        "sign-up",
        "paywall",
        "author-bio",
        "authorbio",
        "author_bio",
        "about-author",
        "author-box",
        "authorbox",
        "author-info",
    ),
    "asides_related": furniture_candidates.asides_named("related", "recommend", "popular", "trending"),
}
#: The article chain as shipped since the eighth session: hidden text, comments, asides, announced rails.
SHIPPED_ARTICLE = (
    "cur",
    furniture.hidden_blocks,
    furniture.comment_sections,
    furniture.aside_sections,
    rails.announced_rails,
)
RULES["ahc_asides_cued"] = SHIPPED_ARTICLE
#: More class/id word families on top of it (eighth session, not shipped).
for _name, _words in {
    "toc": ("toc", "table-of-contents", "tableofcontents"),
    "crumb": ("breadcrumb",),
    "cta": ("cta",),
    "banner": ("banner",),
    "tags": ("post-tags", "tag-list", "tags-list", "entry-tags", "article-tags"),
}.items():
    RULES[f"ahcc_{_name}"] = (*SHIPPED_ARTICLE, furniture_candidates.asides_named(*_words))
for _name, _rule in ASIDES.items():
    RULES[f"ahc_{_name}"] = ("cur", furniture.hidden_blocks, furniture.comment_sections, _rule)
    RULES[f"c_{_name}"] = ("cur", _rule)
for _name, _words in SECTION_WORDS.items():
    RULES[f"ahc_{_name}"] = (
        "cur",
        furniture.hidden_blocks,
        furniture.comment_sections,
        furniture_candidates.reviews_named(*_words),
    )
    RULES[f"c_{_name}"] = ("cur", furniture_candidates.reviews_named(*_words))
#: The chain's rules with the repeats kept where both copies share a grandparent.
REPEATS_APART = (kept_text.kept_captions, kept_text.excerpt_teasers, furniture_candidates.repeats_apart)


def decode(page, unary, pair, lam, threshold, own):
    labels = viterbi(unary, pair, lam, threshold)
    if own and not labels.any():
        again = decode_empty_page_again(unary, pair, lam, threshold)
        if again is not None:
            labels = again
    return labels


def score_variants(page, gold, unary, pair, model) -> dict[str, list[float]]:
    own_threshold = model.config.get("threshold", 0.5)
    memo: dict[bytes, list[float]] = {}  # most variants give the labels of another: score each labelling once

    def scored(labels) -> list[float]:
        key = np.asarray(labels, bool).tobytes()
        if key not in memo:
            memo[key] = [round(v, 4) for v in word_scores(join_main_text(page, labels), gold)]
        return memo[key]

    out = {}
    labelled = {}
    raw = decode(page, unary, pair, model.lam, own_threshold, True)
    base = base_rules(page, raw, 0)
    for name, rule in RULES.items():
        if rule is None:
            labels = base
        elif rule == "listrep":
            labels = base_rules(page, raw, 10**9)
        elif rule == "listrep100":
            labels = base_rules(page, raw, 100)
        elif rule == "cur" or isinstance(rule, tuple):
            repgp = isinstance(rule, tuple) and rule[0] == "repgp"
            labels = base_rules(page, raw, 100, REPEATS_APART if repgp else BEFORE)
            for then in rule[1:] if isinstance(rule, tuple) else ():
                labels = extra(then)(page, labels)
        else:
            labels = rule(page, base)
        labelled[name] = labels
        out[name] = scored(labels)
    for threshold in THRESHOLDS:
        decoded = decode(page, unary, pair, model.lam, threshold, True)
        labels = base_rules(page, decoded, 0)
        out[f"t{threshold:.2f}"] = scored(labels)
        out[f"h{threshold:.2f}"] = scored(RULES["hidden"](page, labels))  # the threshold and the hidden rule
        # The chain at this threshold: c (types without rules), a (articles: hidden text and comments, the article
        # rules before the eighth session's asides and rails), p (products).
        current = base_rules(page, decoded, 100)
        out[f"c{threshold:.2f}"] = scored(current)
        out[f"a{threshold:.2f}"] = scored(
            extra(furniture.comment_sections)(page, extra(furniture.hidden_blocks)(page, current))
        )
        out[f"p{threshold:.2f}"] = scored(extra(furniture.review_sections)(page, current))
        shipped = current  # s: the article chain as shipped (SHIPPED_ARTICLE) at this threshold
        for then in SHIPPED_ARTICLE[1:]:
            shipped = extra(then)(page, shipped)
        out[f"s{threshold:.2f}"] = scored(shipped)
        out[f"k{threshold:.2f}"] = scored(kept_code(page, shipped))  # k: s with code between kept blocks kept
    for name in ("cur", "cur_reviews", "c_asides"):  # NAME_code: code between kept blocks kept
        out[f"{name}_code"] = scored(kept_code(page, labelled[name]))
    return out


def kept_code(page, labels):
    found = furniture_candidates.code_between_kept(page, labels)
    return np.where(found, 1, labels).astype(labels.dtype) if found.any() else labels


def collect(args) -> None:
    files = args.data or sorted(str(p) for p in default_data_dir().glob("*.jsonl.gz"))
    folds = range(FOLDS) if args.only_fold is None else [args.only_fold]
    if args.split == "train":
        models = {
            stem: [load_model(f"{stem}-fold{fold}.npz") if fold in folds else None for fold in range(FOLDS)]
            for stem in args.cv
        }
    else:
        models = {stem: [load_model(stem)] for stem in args.models}
    with open(args.output, "w", encoding="utf-8") as out:
        for path in files:
            corpus = corpus_name(path)
            records = [r for r in iter_records(path, args.split)][: args.limit]
            if args.shard is not None:
                records = [r for k, r in enumerate(records) if k % args.shards == args.shard]
            peer = trafilatura_outputs(records, Path(f"{args.peer_cache}-{corpus}-{args.split}-{args.shard}.json.gz"))
            if args.peers_only:
                continue
            if args.split == "train":
                records = [r for r in records if fold_of(str(r["id"])) in folds]
            for record in records:
                gold, html = record.get("text") or "", record.get("html") or ""
                page = parse_page(html)
                block_x, edge_x = page_features(page, extended=True)
                row = {**page_row(record, corpus, page, gold, peer), "scores": {}, "split": args.split}
                fold = fold_of(str(record["id"]))
                for stem, fold_models in models.items():
                    model = fold_models[fold] if args.split == "train" else fold_models[0]
                    unary, pair = model.potentials(block_x, edge_x)
                    row["scores"][stem] = score_variants(page, gold, unary, pair, model)
                lengths = block_lengths(page.texts)
                row["summary"] = [float(f"{v:.5g}") for v in page_summary(block_x, lengths, declared_kinds(page))]
                out.write(json.dumps(row) + "\n")
                out.flush()


def parse_policy(spec: str) -> dict[str, str]:
    """``"article=t0.50,*=base"`` → {type: variant}; a bare variant name applies to every type."""
    if "=" not in spec:
        return {"*": spec}
    return dict(part.split("=", 1) for part in spec.split(","))


def predicted_type(row, classifiers, min_probability: float = 0.0) -> str:
    """The type the page-type classifier that did not see the page predicts ("article" without classifiers;
    "uncertain" under ``min_probability``)."""
    if not classifiers:
        return "article"
    classifier = classifiers[fold_of(row["id"])] if row["split"] == "train" else classifiers[-1]
    probabilities = classifier.probabilities(np.array(row["summary"]))[0]
    best = int(np.argmax(probabilities))
    return classifier.labels[best] if probabilities[best] >= min_probability else "uncertain"


def load_classifiers(stem: str | None) -> list:
    """``STEM-fold0``, ``STEM-fold1`` (out of fold) and ``STEM`` (validation), those that exist."""
    if not stem:
        return []
    folds = [f"{stem}-fold{fold}" for fold in range(FOLDS)]
    if not all(Path(f"{name}.npz").exists() for name in folds):
        folds = [stem] * FOLDS  # validation rows only need the full one
    return [PageTypeModel.load(name) for name in folds] + [PageTypeModel.load(stem)]


@functools.cache
def own_threshold(path: str) -> float:
    return json.loads(Path(path).with_suffix(".json").read_text())["config"].get("threshold", 0.5)


def relative_variant(name: str, row, model: str) -> str:
    """``o+0.15``: the threshold grid's entry 0.15 above the model's own threshold (clipped to the grid)."""
    if name.startswith("o") and name[1:2] in ("c", "a", "p", "s", "k"):  # oa+0.10: the shipped chain's variants
        prefix, offset = name[1], name[2:]
    elif name.startswith(("o", "ho")):
        prefix, offset = ("h" if name.startswith("h") else "t"), name.lstrip("ho")
    else:
        return name
    path = f"{model}-fold{fold_of(row['id'])}.npz" if row["split"] == "train" else model
    wanted = own_threshold(path) + float(offset)
    return f"{prefix}{min(max(round(wanted / 0.05) * 0.05, THRESHOLDS[0]), THRESHOLDS[-1]):.2f}"


def table(args) -> None:
    merged: dict[str, dict] = {}
    for path in args.rows:  # files of the same pages (other models) are merged by page id
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            if row["id"] in merged:
                merged[row["id"]]["scores"].update(row["scores"])
            else:
                merged[row["id"]] = row
    rows = list(merged.values())
    policies = [(spec, parse_policy(spec)) for spec in args.policies]
    models = args.models or sorted(rows[0]["scores"])
    classifiers = load_classifiers(args.page_types)
    # sums[group][policy][model] = [p, r, f1, n]
    sums: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: np.zeros(4))))
    peer: dict = defaultdict(lambda: np.zeros(4))
    for row in rows:
        kind = predicted_type(row, classifiers, args.min_probability)
        groups = groups_of(row)
        for group in groups:
            peer[group] += [*row["traf"], 1]
        for spec, policy in policies:
            chosen = policy.get(kind, policy.get("*", "base"))
            for model in models:
                variant = relative_variant(chosen, row, model)
                scores = row["scores"][model][variant]
                for group in groups:
                    sums[group][spec][model] += [*scores, 1]
    shown = [g for g in sums if peer[g][3] >= args.min_pages]
    order = sorted(shown, key=lambda g: (g != "all", g.startswith("lang:"), g))
    head = f"{'group':<22}{'n':>5}  {'trafilatura F/P/R':<18}"
    for spec, _ in policies:
        head += f"  {spec[:30]:<30}"
    print(head)
    for group in order:
        n = int(peer[group][3])
        tp, tr, tf = peer[group][:3] / n
        line = f"{group:<22}{n:>5}  {tf:.3f}/{tp:.3f}/{tr:.3f}  "
        base = None
        for spec, _ in policies:
            per_model = np.array([sums[group][spec][m][:3] / n for m in models])
            p, r, f = per_model.mean(axis=0)
            if base is None:
                base = per_model
                cell = f"{f:.3f}/{p:.3f}/{r:.3f}"
            else:
                delta = per_model[:, 2] - base[:, 2]
                dp = per_model[:, 0] - base[:, 0]
                cell = f"{f:.3f}/{p:.3f} dF{delta.min():+.3f}..{delta.max():+.3f} dP{dp.mean():+.3f}"
            line += f"  {cell:<30}"
        print(line)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(required=True)
    c = commands.add_parser("collect")
    c.add_argument("--split", choices=["train", "validation"], required=True)
    c.add_argument("--cv", nargs="*", default=[], help="fold-model stems (train split)")
    c.add_argument("--models", nargs="*", default=[], help="model paths (validation split)")
    c.add_argument("--data", nargs="*")
    c.add_argument("--limit", type=int, default=None)
    c.add_argument("--shard", type=int, default=None)
    c.add_argument("--shards", type=int, default=1)
    c.add_argument("--peer-cache", default="runs/trafilatura")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--only-fold", type=int, default=None, help="train split: only the pages of this fold")
    c.add_argument("--peers-only", action="store_true", help="only fill the trafilatura cache")
    c.set_defaults(run=collect)
    a = commands.add_parser("table")
    a.add_argument("rows", nargs="+")
    a.add_argument("--policies", nargs="+", default=["base"])
    a.add_argument("--models", nargs="*", default=None)
    a.add_argument("--page-types", default=None, help="page-type stem whose prediction the policies use")
    a.add_argument("--min-pages", type=int, default=10)
    a.add_argument("--min-probability", type=float, default=0.0, help="below it a page's type is 'uncertain'")
    a.set_defaults(run=table)
    t = commands.add_parser("page-type-folds")
    t.add_argument("--data", nargs="*")
    t.add_argument("-o", "--output", required=True)
    t.set_defaults(run=train_page_type_folds)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
