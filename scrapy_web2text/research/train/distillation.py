"""Distillation: one network trained on several teachers' mean probabilities, mixed with the gold labels.

Two seeds of one recipe disagree on the blocks their data leaves open, and where each one lands there is luck; the
mean of several seeds' probabilities is steadier (an ensemble), and a student trained to reproduce it runs at one
model's cost.  Each training block's target is ``teacher_weight`` times the teachers' mean p(label) plus the rest
times the gold label; each pair of neighbours' likewise over the four transitions.  Validation stays on the gold
labels, so checkpoints and the threshold are chosen as for any model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..corpus import PageData
from .selection import page_potentials

#: The recipe keys of a distilled configuration; a teacher's configuration is the same without them.
DISTILLATION_KEYS = ("teachers", "teacher_weight")


def teacher_config(config: dict) -> dict:
    """The configuration a teacher of ``config`` trains with: the same recipe, not distilled."""
    return {key: value for key, value in config.items() if key not in DISTILLATION_KEYS}


def teacher_seeds(config: dict, seed: int) -> list[int]:
    """The seeds of the teachers a distilled recipe trains for ``seed``: ``seed``, ``seed + 1``, …"""
    return [seed + number for number in range(int(config.get("teachers", 0)))]


def student_seed(config: dict, seed: int) -> int:
    """The student's own seed, after its teachers' (so it starts from none of their weights)."""
    return seed + int(config.get("teachers", 0))


def soft_targets(
    teachers: Sequence, pages: Sequence[PageData], labels: Sequence[np.ndarray], teacher_weight: float
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each page's unary targets (n, 2) and pairwise targets (n - 1, 4: index 2 * previous + next).

    ``labels`` are the pages' gold block labels (0/1).
    """
    if not teachers:
        raise ValueError("distillation needs at least one teacher")
    if not 0.0 <= teacher_weight <= 1.0:
        raise ValueError(f"teacher_weight must be in [0, 1], not {teacher_weight!r}")
    widths = {len(teacher.block_features) for teacher in teachers}
    if max(widths) > min(page.block_x.shape[1] for page in pages):
        raise ValueError("a teacher reads more block features than the training pages hold")
    unary_sum = [np.zeros((len(page), 2)) for page in pages]
    pair_sum = [np.zeros((max(len(page) - 1, 0), 4)) for page in pages]
    for teacher in teachers:
        for index, (unary, pairwise) in enumerate(page_potentials(teacher, pages)):
            unary_sum[index] += np.exp(unary)
            pair_sum[index] += np.exp(pairwise).reshape(-1, 4)
    unary_targets, pair_targets = [], []
    for unary, pairwise, label in zip(unary_sum, pair_sum, labels):
        label = np.asarray(label, np.int64)
        gold_unary = np.eye(2)[label]
        gold_pair = np.eye(4)[2 * label[:-1] + label[1:]] if len(label) >= 2 else np.zeros((0, 4))
        unary_targets.append(_mix(unary / len(teachers), gold_unary, teacher_weight))
        pair_targets.append(_mix(pairwise / len(teachers), gold_pair, teacher_weight))
    return unary_targets, pair_targets


def _mix(teacher: np.ndarray, gold: np.ndarray, teacher_weight: float) -> np.ndarray:
    mixed = teacher_weight * teacher + (1.0 - teacher_weight) * gold
    # Rows sum to one again after float32 rounding, as cross-entropy on probabilities expects.
    return (mixed / mixed.sum(axis=-1, keepdims=True)).astype(np.float32) if len(mixed) else mixed.astype(np.float32)
