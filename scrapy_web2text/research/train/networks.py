"""The unary and pairwise CNNs in torch, laid out as the numpy model reads them."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ...labellers.web2text.layers import Layers, pooling_width


class ConvStack(nn.Module):
    """Same-padded 1-D convolutions, ReLU and dropout between them.

    Input (batch, length, channels) — the block-sequence layout — output
    (batch, length, outputs) logits.
    """

    def __init__(
        self,
        n_inputs: int,
        filters: list[int],
        kernels: list[int],
        dropout: float,
        dilations: list[int] | None = None,
        pooling: dict | None = None,
    ):
        super().__init__()
        self.convs = nn.ModuleList()
        self.pooling = pooling
        for position, (n_out, kernel, dilation) in enumerate(zip(filters, kernels, dilations or [1] * len(kernels))):
            if kernel % 2 == 0:
                raise ValueError(f"kernel sizes must be odd to keep the sequence length, got {kernel}")
            self.convs.append(nn.Conv1d(n_inputs, n_out, kernel, padding=dilation * (kernel // 2), dilation=dilation))
            n_inputs = n_out * (pooling_width(pooling) if pooling and position == pooling["after"] else 1)
        self.dropout = nn.Dropout(dropout)

    @classmethod
    def from_config(cls, config: dict, prefix: str, n_inputs: int, pooled: bool = True) -> ConvStack:
        """The ``unary`` or ``pairwise`` network a model configuration describes (``pooled=False``: without the
        unary network's page pooling, as the auto-context second pass runs)."""
        return cls(
            n_inputs,
            config[f"{prefix}_filters"],
            config[f"{prefix}_kernels"],
            config["dropout"],
            config.get(f"{prefix}_dilations"),
            config.get("unary_pooling") if prefix == "unary" and pooled else None,
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``mask`` (batch, length), true on real blocks: padded pages pool over their own blocks only."""
        x = x.transpose(1, 2)
        for position, conv in enumerate(self.convs):
            x = conv(x)
            if position < len(self.convs) - 1:
                x = self.dropout(torch.relu(x))
            if self.pooling and position == self.pooling["after"]:
                x = pool(x.transpose(1, 2), self.pooling, mask).transpose(1, 2)
            if mask is not None:  # zeros beyond a page's end, as numpy's padding
                x = x * mask[:, None, :].to(x.dtype)
        return x.transpose(1, 2)

    def export(self) -> Layers:
        return [
            (conv.weight.detach().cpu().numpy().astype(np.float32), conv.bias.detach().cpu().numpy().astype(np.float32))
            for conv in self.convs
        ]

    def load(self, layers: Layers) -> None:
        with torch.no_grad():
            for conv, (weight, bias) in zip(self.convs, layers):
                conv.weight.copy_(torch.from_numpy(np.asarray(weight)))
                conv.bias.copy_(torch.from_numpy(np.asarray(bias)))


def pool(hidden: torch.Tensor, pooling: dict, mask: torch.Tensor | None = None) -> torch.Tensor:
    """The torch twin of :func:`scrapy_web2text.labellers.web2text.layers.pool`, on (batch, length, c).

    Window sums are average pools (their backward pass is cheap, unlike gathering from prefix sums), divided by the
    number of real blocks in each window so that padding and page edges count as numpy's shorter windows do.
    """
    batch, length, _ = hidden.shape
    valid = torch.ones(batch, 1, length, dtype=hidden.dtype) if mask is None else mask.to(hidden.dtype)[:, None, :]
    channels_first = hidden.transpose(1, 2) * valid  # padding adds nothing to the sums
    parts = [channels_first]
    for width in pooling.get("windows", ()):
        window = dict(kernel_size=2 * width + 1, stride=1, padding=width, count_include_pad=True)
        sums = torch.nn.functional.avg_pool1d(channels_first, **window)
        counts = torch.nn.functional.avg_pool1d(valid, **window)
        parts.append(sums / counts.clamp(min=1e-6))
    if pooling.get("page"):
        total = channels_first.sum(2, keepdim=True) / valid.sum(2, keepdim=True).clamp(min=1)
        parts.append(total.expand(-1, -1, length))
    return torch.cat(parts, 1).transpose(1, 2)
