"""How well a tuned model's site gate tells a site's pages from other sites'.

For every WCXB site with three pages or more and each k, k given pages drawn as ``benchmarks/adaptation.py`` draws
them: the share of their template (their boilerplate, :mod:`scrapy_web2text.labellers.web2text.site_gate`) on the
site's other pages and on other sites' pages, and how many of each a cut-off admits.

    PYTHONPATH=$PWD python benchmarks/site_gate.py --k 1 2
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np

from benchmarks.adaptation import host, sites
from scrapy_web2text.labellers.web2text.site_gate import template_digests, template_share
from scrapy_web2text.page import parse_page
from scrapy_web2text.research.corpus import default_data_dir, process_record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(default_data_dir()))
    parser.add_argument("--k", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--others", type=int, default=60, help="other sites' pages per site")
    parser.add_argument("--cuts", type=float, nargs="+", default=[0.2, 0.3, 0.4, 0.5])
    args = parser.parse_args()
    grouped = sites(Path(args.data), 3)
    texts: dict[str, list[str]] = {}
    boilerplate: dict[str, list[str]] = {}

    def page_texts(record: dict) -> list[str]:
        if record["id"] not in texts:
            texts[record["id"]] = parse_page(record["html"]).texts
        return texts[record["id"]]

    def page_boilerplate(record: dict) -> list[str]:  # labelled from the gold, as --labels corpus.jsonl.gz does
        if record["id"] not in boilerplate:
            data = process_record(record)
            boilerplate[record["id"]] = [text for text, label in zip(data.texts, data.labels) if not label]
        return boilerplate[record["id"]]

    others = random.Random("others").sample([r for rs in grouped.values() for r in rs], args.others)
    for k in args.k:
        same, other = [], []
        for name, records in grouped.items():
            if len(records) <= k:
                continue
            chosen = set(random.Random(f"{name}-{k}-0").sample(range(len(records)), k))
            digests = frozenset(template_digests(page_boilerplate(records[i]) for i in sorted(chosen)))
            same += [template_share(digests, page_texts(r)) for i, r in enumerate(records) if i not in chosen]
            other += [template_share(digests, page_texts(r)) for r in others if host(r.get("url")) != name]
        same_shares, other_shares = np.array(same), np.array(other)
        print(f"k={k}: {len(same)} pages of the sites, {len(other)} (site, other site's page) pairs")
        for cut in args.cuts:
            print(
                f"  share >= {cut}: site's pages admitted {np.mean(same_shares >= cut):.1%}, "
                f"other sites' {np.mean(other_shares >= cut):.2%}"
            )


if __name__ == "__main__":
    main()
