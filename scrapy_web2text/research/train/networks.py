"""The unary and pairwise CNNs in torch, laid out as the numpy model reads them."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ...labellers.web2text.network import Layers


class ConvStack(nn.Module):
    """Same-padded 1-D convolutions, ReLU and dropout between them.

    Input (batch, length, channels) — the block-sequence layout — output
    (batch, length, outputs) logits.
    """

    def __init__(
        self, n_inputs: int, filters: list[int], kernels: list[int], dropout: float, dilations: list[int] | None = None
    ):
        super().__init__()
        self.convs = nn.ModuleList()
        for n_out, kernel, dilation in zip(filters, kernels, dilations or [1] * len(kernels)):
            if kernel % 2 == 0:
                raise ValueError(f"kernel sizes must be odd to keep the sequence length, got {kernel}")
            self.convs.append(nn.Conv1d(n_inputs, n_out, kernel, padding=dilation * (kernel // 2), dilation=dilation))
            n_inputs = n_out
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.transpose(1, 2)
        for position, conv in enumerate(self.convs):
            x = conv(x)
            if position < len(self.convs) - 1:
                x = self.dropout(torch.relu(x))
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
