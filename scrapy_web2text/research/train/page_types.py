"""Train the page-type classifier (:mod:`scrapy_web2text.labellers.web2text.page_types`).

The labels: WCXB's ``page_type`` for its pages; every page of the other corpora is a news or article page
(``"article"``).  The summaries come from the feature cache the networks train on, so training takes seconds once
the cache is built.  A multinomial logistic regression (L2, classes weighed alike so that WCXB's few listings are
not drowned by some 2,700 articles) is fitted with L-BFGS from zero weights: the same data give the same model.

    web2text train --config page-types --output page_types
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import numpy as np

from ...labellers.web2text.page_types import PAGE_TYPES, PageTypeModel, page_summary
from ..corpus import PageData, corpus_name, iter_records

#: L2 penalty on the standardised weights, per page.
L2 = 1e-3
#: What each predicted type adds to the labelling model's own threshold (docs/research/quality-round3.rst): chosen
#: out of fold on the training pages and checked on the validation pages: the highest offset whose word F1 stays
#: within a tie of the best in every sample (a tie goes to precision, as for the threshold itself).
THRESHOLD_OFFSETS: dict[str, float] = {"article": 0.10}
#: The label of every page of a corpus without page types.
DEFAULT_TYPE = "article"


def page_types_of(files: Iterable[str]) -> dict[str, str]:
    """Page id → type, for the records of ``files`` that carry a ``page_type`` (WCXB's)."""
    types: dict[str, str] = {}
    for path in files:
        for record in iter_records(path):
            value = record.get("page_type")
            if isinstance(value, str) and value in PAGE_TYPES:
                types[str(record.get("id", ""))] = value
    return types


def summaries(pages: Sequence[PageData]) -> np.ndarray:
    return np.stack(
        [page_summary(page.block_x, np.fromiter(map(len, page.texts), np.int64), page.declared) for page in pages]
    )


def targets(pages: Sequence[PageData], types: dict[str, str]) -> np.ndarray:
    return np.array([PAGE_TYPES.index(types.get(page.id, DEFAULT_TYPE)) for page in pages], np.int64)


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, labels: Sequence[str] = PAGE_TYPES) -> PageTypeModel:
    """A softmax regression of ``y`` (indices into ``labels``) on ``x``, classes weighed alike."""
    from scipy.optimize import minimize

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    n, features = z.shape
    k = len(labels)
    counts = np.bincount(y, minlength=k).astype(np.float64)
    class_weight = np.where(counts > 0, n / (k * np.maximum(counts, 1)), 0.0)
    sample_weight = class_weight[y] / n
    onehot = np.eye(k)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        weights, bias = theta[: features * k].reshape(features, k), theta[features * k :]
        logits = z @ weights + bias
        logits -= logits.max(axis=1, keepdims=True)
        log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        value = -(sample_weight * (onehot * log_p).sum(axis=1)).sum() + 0.5 * l2 * (weights**2).sum()
        error = (np.exp(log_p) - onehot) * sample_weight[:, None]
        gradient = np.concatenate([(z.T @ error + l2 * weights).ravel(), error.sum(axis=0)])
        return float(value), gradient

    result = minimize(loss, np.zeros(features * k + k), jac=True, method="L-BFGS-B", options={"maxiter": 2000})
    theta = result.x
    return PageTypeModel(
        labels=tuple(labels),
        mean=mean,
        scale=scale,
        weights=theta[: features * k].reshape(features, k),
        bias=theta[features * k :],
        metadata={"training": {"iterations": int(result.nit), "l2": l2, "converged": bool(result.success)}},
    )


def confusion(model: PageTypeModel, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rows: true type, columns: predicted type (indices of ``model.labels``)."""
    predicted = model.probabilities(x).argmax(axis=1)
    matrix = np.zeros((len(model.labels), len(model.labels)), np.int64)
    np.add.at(matrix, (y, predicted), 1)
    return matrix


def train_page_types(
    train_pages: Sequence[PageData], validation_pages: Sequence[PageData], files: Sequence[str], l2: float = L2
) -> PageTypeModel:
    """Fit on ``train_pages``; the model's metadata records its accuracy and confusion matrix on validation."""
    types = page_types_of(files)
    model = fit(summaries(train_pages), targets(train_pages, types), l2)
    model.metadata["threshold_offsets"] = dict(THRESHOLD_OFFSETS)
    x_validation, y_validation = summaries(validation_pages), targets(validation_pages, types)
    matrix = confusion(model, x_validation, y_validation)
    model.metadata["training"].update(
        {
            "corpora": [corpus_name(path) for path in files],
            "train_pages": len(train_pages),
            "validation_pages": len(validation_pages),
            "validation_accuracy": round(float(np.trace(matrix) / max(matrix.sum(), 1)), 4),
            "validation_confusion": matrix.tolist(),
        }
    )
    return model


def format_confusion(model: PageTypeModel) -> str:
    """The validation confusion matrix as text (rows: true type)."""
    matrix = model.metadata["training"]["validation_confusion"]
    width = max(map(len, model.labels)) + 1
    lines = [" " * width + " ".join(f"{label[:5]:>5}" for label in model.labels)]
    for label, row in zip(model.labels, matrix):
        lines.append(f"{label:<{width}}" + " ".join(f"{count:>5}" for count in row))
    return "\n".join(lines)


def describe(model: PageTypeModel) -> str:
    training = model.metadata["training"]
    return json.dumps({k: v for k, v in training.items() if k != "validation_confusion"})
