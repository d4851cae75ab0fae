"""What kind of page it is: a small classifier over the page's block features (numpy, no torch at run time).

Main text means something different on an article, a forum thread or a shop's listing, and the labelling model
keeps more or less of a page depending on it.  :class:`PageTypeModel` is a multinomial logistic regression on a
page-level summary (:func:`page_summary`): the means over blocks and over characters of the paper's 128 features,
which the labeller computes anyway, the page's size, and what the page declares itself to be (``og:type``,
schema.org types, ``<article>`` elements: :mod:`scrapy_web2text.page.declared`).  It is trained from the page types
the WCXB corpus carries (the other corpora are news and article pages) by
:mod:`scrapy_web2text.research.train.page_types` and saved as ``NAME.npz`` (arrays) + ``NAME.json`` (labels,
feature names, training record), validated on load.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...page.declared import Declared
from ..base import load_weights_file, weights_files
from .feature_names import BLOCK_FEATURES

FORMAT = "scrapy-web2text-page-types"
#: Version 2 adds what the page declares itself to be (:data:`DECLARED_NAMES`); version 1 files, which read the
#: block summary alone, still load.
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
#: The page types the training data carries (WCXB's seven).
PAGE_TYPES = ("article", "collection", "documentation", "forum", "listing", "product", "service")
#: Block features summarised: the paper's 128, which every model computes (extended models append theirs).
SUMMARISED = len(BLOCK_FEATURES)
BLOCK_SUMMARY_NAMES: tuple[str, ...] = (
    *(f"mean_{name}" for name in BLOCK_FEATURES),
    *(f"char_mean_{name}" for name in BLOCK_FEATURES),
    "log_blocks",
    "log_chars",
)
#: schema.org types (JSON-LD or microdata) read in groups: the page declares at least one type of the group.
SCHEMA_GROUPS: dict[str, frozenset[str]] = {
    "article": frozenset(
        """Article NewsArticle BlogPosting Report ScholarlyArticle TechArticle AnalysisNewsArticle OpinionNewsArticle
        ReportageNewsArticle LiveBlogPosting""".split()
    ),
    "product": frozenset({"Product", "Offer", "AggregateOffer"}),
    "discussion": frozenset({"DiscussionForumPosting", "QAPage", "Question", "Answer", "Comment"}),
    "list": frozenset({"ItemList", "CollectionPage", "SearchResultsPage"}),
    "faq": frozenset({"FAQPage"}),
    "organization": frozenset({"Organization", "LocalBusiness", "Service", "ProfessionalService"}),
    "software": frozenset({"SoftwareApplication", "SoftwareSourceCode", "APIReference"}),
}
#: ``og:type`` values read one by one (``product.group`` and ``ebay-objects:item`` count as ``product``).
OG_TYPES = ("article", "website", "product")
DECLARED_NAMES: tuple[str, ...] = (
    *(f"schema_{group}" for group in SCHEMA_GROUPS),
    *(f"og_{kind}" for kind in OG_TYPES),
    "og_other",
    "og_none",
    "articles_none",
    "articles_one",
    "articles_many",
)
SUMMARY_NAMES: tuple[str, ...] = (*BLOCK_SUMMARY_NAMES, *DECLARED_NAMES)
#: The largest threshold offset a page type may set.
MAX_OFFSET = 0.5
PACKAGED_PAGE_TYPES = Path(__file__).resolve().parents[2] / "models" / "page_types"


def declared_columns(declared: Declared) -> np.ndarray:
    """The 0/1 columns of :data:`DECLARED_NAMES` for what a page declares itself to be."""
    og = declared.og_type
    if og.startswith("product") or og.endswith(":item"):
        og = "product"
    og_columns = [og == kind for kind in OG_TYPES] + [bool(og) and og not in OG_TYPES, not og]
    schema_columns = [not group.isdisjoint(declared.schema_types) for group in SCHEMA_GROUPS.values()]
    articles = [declared.articles == 0, declared.articles == 1, declared.articles > 1]
    return np.array(schema_columns + og_columns + articles, np.float64)


def page_summary(block_x: np.ndarray, lengths: np.ndarray, declared: Declared | None = None) -> np.ndarray:
    """One row per page: block features averaged over blocks and weighted by characters, then log sizes, then
    :func:`declared_columns` (``declared``: ``Declared()`` when not given).

    ``block_x``: (blocks, ≥128) block features; ``lengths``: each block's characters.  A page without blocks gives
    zeros for its block columns (its sizes included)."""
    out = np.zeros(len(SUMMARY_NAMES), np.float64)
    out[len(BLOCK_SUMMARY_NAMES) :] = declared_columns(declared or Declared())
    if not len(block_x):
        return out
    # One float64 copy for both sums: the product with float32 features makes that copy anyway, and a mean over
    # float32 with a float64 sum casts block by block (same sums, in the same order: same bits).
    x = block_x[:, :SUMMARISED].astype(np.float64)
    weights = np.asarray(lengths, np.float64)
    total = weights.sum()
    out[:SUMMARISED] = np.add.reduce(x, axis=0) / len(x)
    out[SUMMARISED : 2 * SUMMARISED] = weights @ x / total if total > 0 else out[:SUMMARISED]
    out[2 * SUMMARISED] = np.log1p(len(block_x))
    out[2 * SUMMARISED + 1] = np.log1p(total)
    return out


class PageTypeError(ValueError):
    """A page-type model file that cannot be used (wrong format, shapes or values)."""


@dataclass(frozen=True)
class PageTypeModel:
    """Standardised page summary → softmax over :attr:`labels`."""

    labels: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features, labels)
    bias: np.ndarray  # (labels,)
    metadata: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        features = len(self.mean) if len(self.mean) == len(BLOCK_SUMMARY_NAMES) else len(SUMMARY_NAMES)
        labels = len(self.labels)
        expected = {"mean": (features,), "scale": (features,), "weights": (features, labels), "bias": (labels,)}
        for name, shape in expected.items():
            array = getattr(self, name)
            if array.shape != shape:
                raise PageTypeError(f"page-type model: {name} has shape {array.shape}, expected {shape}")
            if not np.isfinite(array).all():
                raise PageTypeError(f"page-type model: {name} holds non-finite values")
        if not labels or len(set(self.labels)) != labels:
            raise PageTypeError(f"page-type model: labels must be distinct and not empty, got {self.labels}")
        if (self.scale <= 0).any():
            raise PageTypeError("page-type model: scale must be positive")
        offsets = self.metadata.get("threshold_offsets", {})
        if not isinstance(offsets, dict) or not set(offsets) <= set(self.labels):
            raise PageTypeError(f"page-type model: threshold_offsets must map page types to numbers, got {offsets!r}")
        for value in offsets.values():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not abs(value) <= MAX_OFFSET:
                raise PageTypeError(f"page-type model: threshold offsets must be numbers within ±{MAX_OFFSET}")

    @property
    def threshold_offsets(self) -> dict[str, float]:
        """Page type → what it adds to the labelling model's own threshold (types not named add nothing)."""
        return self.metadata.get("threshold_offsets", {})

    @property
    def sets_offsets(self) -> bool:
        """Whether any page type moves the labelling model's threshold."""
        return any(self.threshold_offsets.values())

    def threshold_offset(self, label: str | None) -> float:
        """What a page of type ``label`` adds to the labelling model's own threshold (0 when not set)."""
        return float(self.threshold_offsets.get(label, 0.0))

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The summary columns the model reads: all of :data:`SUMMARY_NAMES`, or the block summary alone (a
        version 1 file)."""
        return SUMMARY_NAMES[: len(self.mean)]

    @property
    def reads_declared(self) -> bool:
        """Whether the model reads what the page declares itself to be (not a version 1 file)."""
        return len(self.mean) == len(SUMMARY_NAMES)

    def probabilities(self, summaries: np.ndarray) -> np.ndarray:
        """(pages, labels) probabilities of :func:`page_summary` rows."""
        columns = np.atleast_2d(summaries)[:, : len(self.mean)]
        logits = ((columns - self.mean) / self.scale) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def predict(self, block_x: np.ndarray, lengths: np.ndarray, declared: Declared | None = None) -> tuple[str, float]:
        """The likeliest type of one page and its probability (arguments as :func:`page_summary`'s)."""
        row = self.probabilities(page_summary(block_x, lengths, declared))[0]
        best = int(row.argmax())
        return self.labels[best], float(row[best])

    def distribution(self, block_x: np.ndarray, lengths: np.ndarray, declared: Declared | None = None) -> dict:
        """Each type's probability for one page, in :attr:`labels`' order (arguments as :func:`page_summary`'s)."""
        row = self.probabilities(page_summary(block_x, lengths, declared))[0]
        return dict(zip(self.labels, row.tolist()))

    def save(self, stem: str | Path) -> Path:
        npz, description = weights_files(stem)
        np.savez(npz, mean=self.mean, scale=self.scale, weights=self.weights, bias=self.bias)
        meta = {
            "format": FORMAT,
            "version": FORMAT_VERSION if self.reads_declared else 1,
            "labels": list(self.labels),
            "features": list(self.feature_names),
            **self.metadata,
        }
        description.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return npz

    @classmethod
    def load(cls, stem: str | Path) -> PageTypeModel:
        npz, description = weights_files(stem)
        try:
            meta = json.loads(description.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, RecursionError) as error:
            raise PageTypeError(
                f"{description}: cannot read the page-type model's description ({type(error).__name__})"
            ) from error
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") not in READABLE_VERSIONS:
            raise PageTypeError(f"{description} is not a page-type model of format {FORMAT} v{FORMAT_VERSION}")
        expected = SUMMARY_NAMES if meta["version"] == FORMAT_VERSION else BLOCK_SUMMARY_NAMES
        if meta.get("features") != list(expected):
            raise PageTypeError(f"{npz}: trained on other page features; retrain it")
        labels = meta.get("labels")
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            raise PageTypeError(f"{description}: labels must be a list of strings")
        with np.load(npz, allow_pickle=False) as arrays:
            missing = {"mean", "scale", "weights", "bias"} - set(arrays.files)
            if missing:
                raise PageTypeError(f"{npz} lacks {sorted(missing)}")
            parts = {key: arrays[key].astype(np.float64) for key in ("mean", "scale", "weights", "bias")}
        extra = {k: v for k, v in meta.items() if k not in ("format", "version", "labels", "features")}
        return cls(labels=tuple(labels), metadata=extra, **parts)


def load_page_types(path: str | Path | None = None) -> PageTypeModel:
    """The page-type model at ``path`` (default: the shipped one), loaded once per process."""
    return load_weights_file(
        PageTypeModel.load,
        path,
        PACKAGED_PAGE_TYPES,
        "page-type model",
        "train one with web2text train --config page-types --output NAME",
    )


@functools.cache
def shipped_page_types() -> PageTypeModel | None:
    """The packaged page-type model, loaded once per process; ``None`` when the package has none."""
    if not PACKAGED_PAGE_TYPES.with_suffix(".npz").is_file():
        return None
    return load_page_types()
