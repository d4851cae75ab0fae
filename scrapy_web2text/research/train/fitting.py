"""One network's training loop: mini-batches, periodic validation, the best checkpoint kept."""

from __future__ import annotations

import contextlib
import logging
import sys

import numpy as np

from .batches import Sequences, page_batch

logger = logging.getLogger(__name__)


def fit(
    torch, network, train: Sequences, validation: Sequences, config: dict, seed: int, label: str, select=None
) -> dict:
    """Train one network; restore and report its best validation checkpoint.

    ``select(network)`` scores a checkpoint (higher is better); without it
    the lowest validation error wins.
    """
    generator = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(network.parameters(), lr=config["learning_rate"], weight_decay=config["weight_decay"])
    schedule = config.get("lr_schedule", "constant")
    if schedule not in ("constant", "cosine"):
        raise ValueError(f"lr_schedule must be 'constant' or 'cosine', not {schedule!r}")
    # Cosine: the learning rate falls to zero over the run, so late checkpoints move less from one to the next.
    scheduler = (
        torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, config["iterations"]) if schedule == "cosine" else None
    )
    average = _WeightAverage(torch, network, config.get("ema_decay"))
    loss_function = torch.nn.CrossEntropyLoss(reduction="none")
    fragment = config["fragment_length"]
    offsets = np.arange(fragment)
    iterations = config["iterations"]
    every = max(iterations // 20, 50)
    best = {"error": float("inf"), "score": -float("inf"), "iteration": 0, "state": None}
    initial_error, initial_loss = validate(torch, network, validation)
    progress = _progress_bar(iterations, label)
    x_train, y_train = torch.from_numpy(train.x), torch.from_numpy(train.y)
    weight_train = torch.from_numpy(train.weight)
    whole_pages = bool(getattr(network, "pooling", None))
    gamma = focal_gamma(config) if label == "unary" else 0.0
    for iteration in range(1, iterations + 1):
        network.train()
        if whole_pages:  # page pooling needs whole pages: a batch of them, padded
            index, mask = page_batch(train, generator, config)
            logits = network(x_train[index], mask)
        else:
            index = torch.from_numpy(
                train.starts[generator.integers(0, len(train.starts), config["batch_size"])][:, None] + offsets
            )
            logits = network(x_train[index])
        weight = weight_train[index].reshape(-1)  # zero on padding
        classes = logits.shape[-1]
        # Class numbers, or class probabilities (a distilled network's targets: a row per block).
        target = y_train[index].reshape(-1, classes) if y_train.dim() == 2 else y_train[index].reshape(-1)
        losses = loss_function(logits.reshape(-1, classes), target)
        if gamma and target.dim() == 1:  # class targets; a distilled network's probability targets keep plain CE
            losses = focal(torch, losses, gamma)
        loss = (losses * weight).sum() / weight.sum().clamp(min=1e-6)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if scheduler is not None:
            scheduler.step()
        average.update()
        if iteration % every == 0 or iteration == iterations:
            with average.swapped_in():
                error, validation_loss = validate(torch, network, validation)
                score = select(network) if select is not None else -error
                if score > best["score"]:
                    best = {
                        "score": score,
                        "error": error,
                        "loss": validation_loss,
                        "iteration": iteration,
                        "state": {k: v.detach().clone() for k, v in network.state_dict().items()},
                    }
            progress.update(every if iteration % every == 0 else iteration % every)
            progress.set_postfix(
                train_loss=f"{loss.item():.3f}", val_loss=f"{validation_loss:.3f}", val_error=f"{error:.4f}"
            )
            logger.info(
                "%s %d/%d train loss %.4f validation loss %.4f error %.4f",
                label,
                iteration,
                iterations,
                loss.item(),
                validation_loss,
                error,
            )
    progress.close()
    if best["state"] is not None:
        network.load_state_dict(best["state"])
    return {
        "validation_error": best["error"],
        "selection_score": best["score"],
        "validation_loss": best.get("loss"),
        "best_iteration": best["iteration"],
        "initial_validation_error": initial_error,
        "initial_validation_loss": initial_loss,
    }


def focal_gamma(config: dict) -> float:
    """The recipe's ``focal_gamma`` (0: plain cross-entropy), a number of 0 or more."""
    gamma = config.get("focal_gamma", 0.0)
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not gamma >= 0:
        raise ValueError(f"focal_gamma must be a number of 0 or more, not {gamma!r}")
    return float(gamma)


def focal(torch, losses, gamma: float):
    """Each block's cross-entropy scaled by ``(1 - p)^gamma``, ``p`` the probability of its true class (the focal loss
    of Lin et al. 2017): the blocks the network already labels surely weigh less, the doubtful ones as much."""
    return losses * (1 - torch.exp(-losses)) ** gamma


def validate(torch, network, data: Sequences) -> tuple[float, float]:
    """Error rate and mean loss over whole validation pages."""
    network.eval()
    wrong = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for at, n in data.pages:
            logits = network(torch.from_numpy(data.x[None, at : at + n]))[0]
            target = torch.from_numpy(data.y[at : at + n])
            loss_sum += torch.nn.functional.cross_entropy(logits, target, reduction="sum").item()
            wrong += int((logits.argmax(-1) != target).sum())
            total += n
    return (wrong / total, loss_sum / total) if total else (0.0, 0.0)


class _WeightAverage:
    """An exponential moving average of the weights (``ema_decay``, e.g. 0.999), which checkpoints are taken from.

    The average of the last ~1/(1 - decay) steps moves less from one checkpoint to the next than the weights do,
    so the checkpoint chosen on validation depends less on where the last mini-batches happened to push them.
    """

    def __init__(self, torch, network, decay):
        self.torch, self.network = torch, network
        self.decay = float(decay) if decay else 0.0
        if not 0.0 <= self.decay < 1.0:
            raise ValueError(f"ema_decay must be in [0, 1), not {decay!r}")
        self.average = [p.detach().clone() for p in network.parameters()] if self.decay else None

    def update(self) -> None:
        if self.average is None:
            return
        with self.torch.no_grad():
            for kept, current in zip(self.average, self.network.parameters()):
                kept.lerp_(current, 1.0 - self.decay)

    @contextlib.contextmanager
    def swapped_in(self):
        """The network holds the averaged weights inside the block, its own again after."""
        if self.average is None:
            yield
            return
        own = [p.detach().clone() for p in self.network.parameters()]
        with self.torch.no_grad():
            for parameter, kept in zip(self.network.parameters(), self.average):
                parameter.copy_(kept)
        try:
            yield
        finally:
            with self.torch.no_grad():
                for parameter, mine in zip(self.network.parameters(), own):
                    parameter.copy_(mine)


class _NoProgress:
    def update(self, n):
        pass

    def set_postfix(self, **kwargs):
        pass

    def close(self):
        pass


def _progress_bar(total: int, label: str):
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoProgress()
    return tqdm(total=total, desc=f"training {label}", unit="it", disable=not sys.stderr.isatty())
