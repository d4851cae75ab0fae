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
    """The torch twin of :func:`scrapy_web2text.labellers.web2text.layers.pool`, on (batch, length, c)."""
    batch, length, _ = hidden.shape
    valid = torch.ones(batch, length, dtype=hidden.dtype) if mask is None else mask.to(hidden.dtype)
    hidden = hidden * valid[..., None]  # padding adds nothing to the sums
    zero = hidden.new_zeros(batch, 1, hidden.shape[2])
    prefix = torch.cat([zero, hidden.cumsum(1)], 1)
    counts = torch.cat([valid.new_zeros(batch, 1), valid.cumsum(1)], 1)
    index = torch.arange(length)
    parts = [hidden]
    for width in pooling.get("windows", ()):
        low, high = (index - width).clamp(min=0), (index + width + 1).clamp(max=length)
        parts.append((prefix[:, high] - prefix[:, low]) / (counts[:, high] - counts[:, low]).clamp(min=1)[..., None])
    if pooling.get("page"):
        total = prefix[:, -1:] / counts[:, -1:].clamp(min=1)[..., None]
        parts.append(total.expand(-1, length, -1))
    return torch.cat(parts, 2)
