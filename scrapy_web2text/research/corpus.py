"""Corpora: reading ``*.jsonl.gz`` pages and caching their features and labels.

A corpus file holds one page per line (``id``, ``dataset``, ``split``,
``url``, ``html``, ``text`` = gold main text).  Parsing, features and the
alignment cost tens of milliseconds a page, so each (corpus, split) is processed once and
cached as an ``.npz`` of arrays plus a gzip JSON of texts.  The cache key
includes a fingerprint of the code that produces them, so a change to
parsing, features or alignment rebuilds the cache instead of reusing stale
features.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import page as page_package
from ..labellers.web2text import features, languages
from ..labellers.web2text.features import ALL_BLOCK_FEATURES, EDGE_FEATURES, block_features, edge_features
from ..page import Page, parse_page
from ..page.declared import Declared, declared_kinds
from . import alignment
from .alignment import AlignmentReport, align_labels, drop_comment_labels, drop_leading_headline

SPLITS = ("train", "validation", "test")
#: Corpora whose gold already leaves the headline out (WCXB's annotators
#: did; a first gold line equal to an ``<h1>`` there is a sub-heading they kept).
GOLD_WITHOUT_HEADLINE = frozenset({"wcxb"})
#: Corpora whose gold keeps an article's reader comments, which the label convention leaves out.
GOLD_WITH_COMMENTS = frozenset({"cleaneval", "readability"})


def default_cache_dir() -> Path:
    return Path(os.environ.get("WEB2TEXT_CACHE", Path.home() / ".cache" / "scrapy-web2text"))


def default_data_dir() -> Path:
    """``$WEB2TEXT_DATA``, else ``../shared/data`` beside the checkout."""
    if "WEB2TEXT_DATA" in os.environ:
        return Path(os.environ["WEB2TEXT_DATA"])
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def corpus_name(path: str | Path) -> str:
    name = Path(path).name
    for suffix in (".jsonl.gz", ".jsonl", ".gz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def iter_records(path: str | Path, split: str | None = None) -> Iterator[dict]:
    """Pages of a corpus file, optionally of one split, in file order."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON line ({error})") from error
            if split is None or record.get("split") == split:
                yield record


@dataclass
class PageData:
    """A page ready for training or evaluation.

    ``block_x`` holds all block features (the paper's, then the extended
    ones); ``gold`` is the corpus gold under the label convention (no
    leading headline).
    """

    id: str
    dataset: str
    url: str | None
    gold: str
    texts: list[str]
    break_before: np.ndarray
    block_x: np.ndarray
    edge_x: np.ndarray
    labels: np.ndarray
    report: AlignmentReport
    #: What the page declares itself to be (the page-type classifier reads it).
    declared: Declared = field(default_factory=Declared)

    def __len__(self) -> int:
        return len(self.texts)


def gold_labels(record: dict, page: Page) -> tuple[str, np.ndarray, AlignmentReport]:
    """The record's gold text and its page's block labels, by one convention for every corpus: the main text has no
    headline, and readers' comments are not main text."""
    gold = record.get("text") or ""
    if record.get("dataset") not in GOLD_WITHOUT_HEADLINE:
        gold = drop_leading_headline(gold, page)
    labels, report = align_labels(page, gold)
    if record.get("dataset") in GOLD_WITH_COMMENTS:
        labels = drop_comment_labels(labels, page)
    return gold, labels, report


def process_record(record: dict, page: Page | None = None) -> PageData:
    """The record's page, parsed (or ``page``, the record's page already parsed), with its features and labels."""
    page = parse_page(record.get("html") or "") if page is None else page
    gold, labels, report = gold_labels(record, page)
    return PageData(
        id=record.get("id", ""),
        dataset=record.get("dataset", ""),
        url=record.get("url"),
        gold=gold,
        texts=page.texts,
        break_before=page.break_before,
        block_x=block_features(page, extended=True),
        edge_x=edge_features(page),
        labels=labels,
        report=report,
        declared=declared_kinds(page),
    )


@functools.cache
def code_fingerprint() -> str:
    """Hash of the code that produces cached data, taken once per process:
    the cache must be keyed by the code that runs, not by later edits."""
    digest = hashlib.sha1()
    page_sources = sorted(Path(page_package.__file__).parent.glob("*.py"))
    feature_sources = [
        Path(features.__file__),
        Path(features.__file__).with_name("counts.py"),
        Path(languages.__file__),
    ]
    for source in [*page_sources, *feature_sources, Path(alignment.__file__)]:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def _cache_stem(path: Path, split: str, cache_dir: Path) -> Path:
    stat = path.stat()
    key = f"{code_fingerprint()}-{stat.st_size}-{int(stat.st_mtime)}"
    return cache_dir / f"{corpus_name(path)}-{split}-{hashlib.sha1(key.encode()).hexdigest()[:12]}"


def _save(pages: list[PageData], stem: Path) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    # Written aside, then renamed: a concurrent run never reads half a file,
    # and two runs building the same cache do not trip over each other.
    temporary = f"{stem}.{os.getpid()}.tmp"
    sizes = np.array([len(page) for page in pages], np.int64)
    np.savez(
        temporary + ".npz",
        sizes=sizes,
        block_x=(
            np.concatenate([p.block_x for p in pages]) if pages else np.zeros((0, len(ALL_BLOCK_FEATURES)), np.float32)
        ),
        edge_x=np.concatenate([p.edge_x for p in pages]) if pages else np.zeros((0, len(EDGE_FEATURES)), np.float32),
        labels=np.concatenate([p.labels for p in pages]) if pages else np.zeros(0, bool),
        break_before=np.concatenate([p.break_before for p in pages]) if pages else np.zeros(0, bool),
    )
    meta = [
        {
            "id": p.id,
            "dataset": p.dataset,
            "url": p.url,
            "gold": p.gold,
            "texts": p.texts,
            "report": [p.report.gold_chars, p.report.content_chars, p.report.matched_in_content],
            "declared": p.declared.as_json(),
        }
        for p in pages
    ]
    with gzip.open(temporary + ".json.gz", "wt", encoding="utf-8") as out:
        json.dump(meta, out)
    os.replace(temporary + ".npz", str(stem) + ".npz")
    os.replace(temporary + ".json.gz", str(stem) + ".json.gz")


def _load(stem: Path) -> list[PageData]:
    with np.load(str(stem) + ".npz", allow_pickle=False) as arrays:
        sizes, block_x, edge_x = arrays["sizes"], arrays["block_x"], arrays["edge_x"]
        labels, break_before = arrays["labels"], arrays["break_before"]
    with gzip.open(str(stem) + ".json.gz", "rt", encoding="utf-8") as source:
        meta = json.load(source)
    pages, block_at, edge_at = [], 0, 0
    for size, info in zip(sizes.tolist(), meta):
        edges = max(size - 1, 0)
        pages.append(
            PageData(
                id=info["id"],
                dataset=info["dataset"],
                url=info["url"],
                gold=info["gold"],
                texts=info["texts"],
                break_before=break_before[block_at : block_at + size],
                block_x=block_x[block_at : block_at + size],
                edge_x=edge_x[edge_at : edge_at + edges],
                labels=labels[block_at : block_at + size],
                report=AlignmentReport(*info["report"]),
                declared=Declared.from_json(info["declared"]),
            )
        )
        block_at += size
        edge_at += edges
    return pages


def _progress(iterable: Iterable, total: int, description: str) -> Iterable:
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=description, unit="page", disable=not sys.stderr.isatty())


def load_split(
    path: str | Path,
    split: str,
    *,
    cache_dir: str | Path | None = None,
    workers: int | None = None,
    limit: int | None = None,
) -> list[PageData]:
    """Features and labels of one split of one corpus, from cache when possible.

    ``limit`` takes the first pages only (and bypasses the cache).
    """
    path = Path(path)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    stem = _cache_stem(path, split, Path(cache_dir) if cache_dir else default_cache_dir())
    if limit is None and Path(str(stem) + ".npz").exists():
        return _load(stem)
    records = list(iter_records(path, split))[:limit]
    workers = workers or min(os.cpu_count() or 1, 4)
    description = f"{corpus_name(path)}/{split}"
    if workers > 1 and len(records) > 8:
        with ProcessPoolExecutor(workers) as pool:
            pages = list(_progress(pool.map(process_record, records, chunksize=4), len(records), description))
    else:
        pages = [process_record(r) for r in _progress(records, len(records), description)]
    if limit is None:
        _save(pages, stem)
    return pages


def load_training_splits(paths, **options) -> tuple[list[PageData], list[PageData]]:
    """The ``train`` and the ``validation`` pages of every corpus in ``paths``, each split's pages in the order of
    ``paths``; ``options`` are :func:`load_split`'s."""
    train = [page for path in paths for page in load_split(path, "train", **options)]
    validation = [page for path in paths for page in load_split(path, "validation", **options)]
    return train, validation
