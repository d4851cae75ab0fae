"""A model's configuration, checked field by field when the model is loaded.

A model file that would run with NaN probabilities or mis-shaped layers fails at start-up, naming the field,
instead of on the first page of a crawl.
"""

from __future__ import annotations

import math

from .errors import ModelError

#: The paper's architecture (Russian translation, §3.4 and "Model sizes").
PAPER_CONFIG = {
    "name": "paper",
    "unary_filters": [50, 50, 50, 10, 2],
    "unary_kernels": [1, 1, 3, 3, 3],
    "pairwise_filters": [50, 50, 50, 10, 4],
    "pairwise_kernels": [1, 1, 3, 3, 3],
    "pairwise_inputs": "edges",
    "dropout": 0.2,
    "weight_decay": 1e-4,
    "learning_rate": 1e-3,
    "iterations": 5000,
    "batch_size": 128,
    "fragment_length": 9,
    "lambda": 0.1,
}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_config(config: dict, where) -> None:
    """Raise :class:`ModelError` naming the first ``config`` field a model cannot run with."""
    if not isinstance(config, dict):
        raise ModelError(f"{where}: config must be a JSON object")
    for prefix in ("unary", "pairwise"):
        filters, kernels = config.get(f"{prefix}_filters"), config.get(f"{prefix}_kernels")
        for field_name, values in ((f"{prefix}_filters", filters), (f"{prefix}_kernels", kernels)):
            if not isinstance(values, list) or not values:
                raise ModelError(f"{where}: config.{field_name} must be a non-empty list, not {values!r}")
            for index, value in enumerate(values):
                if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                    raise ModelError(f"{where}: config.{field_name}[{index}] must be a positive integer, not {value!r}")
                if field_name.endswith("kernels") and value % 2 == 0:
                    raise ModelError(
                        f"{where}: config.{field_name}[{index}] must be odd (a centred kernel), not {value}"
                    )
        if len(filters) != len(kernels):
            raise ModelError(
                f"{where}: config.{prefix}_filters has {len(filters)} entries, config.{prefix}_kernels {len(kernels)}"
            )
    if "lambda" in config and not (_is_number(config["lambda"]) and config["lambda"] >= 0):
        raise ModelError(f"{where}: config.lambda must be a finite number >= 0, not {config['lambda']!r}")
    if "threshold" in config and not (_is_number(config["threshold"]) and 0 < config["threshold"] < 1):
        raise ModelError(f"{where}: config.threshold must be a number in (0, 1), not {config['threshold']!r}")
    if config.get("pairwise_inputs", "edges") not in ("edges", "edges+blocks"):
        raise ModelError(f"{where}: config.pairwise_inputs must be 'edges' or 'edges+blocks'")
    offsets = config.get("threshold_offsets", {})
    if not isinstance(offsets, dict) or not all(_is_number(v) and abs(v) < 1 for v in offsets.values()):
        raise ModelError(f"{where}: config.threshold_offsets must map page types to numbers in (-1, 1)")
    _check_pooling(config, where)
    _check_skipped_rules(config, where)


def _check_skipped_rules(config: dict, where) -> None:
    from .rules import RULE_NAMES  # the rules import the page layer; a config check needs only their names

    skipped = config.get("skip_rules", [])
    if not isinstance(skipped, list) or not all(isinstance(name, str) and name in RULE_NAMES for name in skipped):
        raise ModelError(f"{where}: config.skip_rules must list rules after decoding ({', '.join(RULE_NAMES)})")


def _check_pooling(config: dict, where) -> None:
    pooling = config.get("unary_pooling")
    if pooling is None:
        return
    if not isinstance(pooling, dict):
        raise ModelError(f"{where}: config.unary_pooling must be a JSON object, not {pooling!r}")
    after = pooling.get("after")
    last = len(config["unary_filters"]) - 1
    if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < last:
        raise ModelError(
            f"{where}: config.unary_pooling.after must be a layer index from 0 to {last - 1}, not {after!r}"
        )
    windows = pooling.get("windows", [])
    if not isinstance(windows, list) or not all(
        isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in windows
    ):
        raise ModelError(f"{where}: config.unary_pooling.windows must be a list of positive integers, not {windows!r}")
    if not isinstance(pooling.get("page", False), bool):
        raise ModelError(f"{where}: config.unary_pooling.page must be true or false")
    if not windows and not pooling.get("page"):
        raise ModelError(f"{where}: config.unary_pooling pools nothing (no windows, page false)")
