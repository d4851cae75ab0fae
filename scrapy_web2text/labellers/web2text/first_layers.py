"""Both networks' first layers in one product, the feature scaling folded into their weights.

Where both first layers have kernel 1 (the shipped model and the paper's), each is a product with the
standardised features, ``((x - mean) / std) @ W = (x - mean) @ (W / std)``: the division moves into the weights,
once per model.  The pairwise network's input ``[edge, block before, block after]`` splits its weight into an edge
part and two block parts, so the centred block features are multiplied once, by ``[W_unary | W_before |
W_after]``: the unary network reads each block's first columns, a pair the second part of the block it starts and
the third of the block it ends.  No standardised copies and no ``(n - 1, edges + 2 × blocks)`` input are made.
The mean stays a subtraction: folded into the bias as well (``- (mean / std) @ W``) it cancels against large
products where a feature's deviation is small, and moved probabilities past the parity tests' bound; as a
subtraction they stay well inside it.  The sums are not the reference path's (standardise, then
:func:`.layers.conv_stack`), so the outputs differ in the last float bits; a test bounds them by 1e-5, as the
torch parity tests do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layers import Layers, conv_stack, without_subnormals


@dataclass(frozen=True)
class FirstLayers:
    """One model's folded first-layer weights and biases (float32), and the arrays they were made from."""

    #: (block features, unary units [+ 2 × pairwise units]): the unary part, then the pair's block before and after.
    block_weight: np.ndarray
    edge_weight: np.ndarray
    unary_bias: np.ndarray
    pairwise_bias: np.ndarray
    block_mean: np.ndarray
    edge_mean: np.ndarray
    #: Whether the pairwise network reads the neighbours' block features (``"pairwise_inputs": "edges+blocks"``).
    with_blocks: bool
    made_from: tuple


def fold(
    unary: Layers, pairwise: Layers, block_stats: tuple[np.ndarray, np.ndarray], edge_stats: tuple, with_blocks: bool
) -> FirstLayers:
    """The first layers of ``unary`` and ``pairwise`` with the scaling of the standardisation (``(mean, std)`` of
    the block and of the edge features) folded in; computed in float64, stored in float32."""
    (block_mean, block_std), (edge_mean, edge_std) = block_stats, edge_stats
    n_block, n_edge = len(block_mean), len(edge_mean)
    unary_weight, unary_bias = (np.asarray(a, np.float64) for a in unary[0])
    pair_weight, pair_bias = (np.asarray(a, np.float64) for a in pairwise[0])
    block_scale, edge_scale = 1 / np.asarray(block_std, np.float64), 1 / np.asarray(edge_std, np.float64)
    # Columns of each (in, out) product matrix: the layer's weight (out, in, 1) transposed.
    block_parts = [unary_weight[:, :, 0].T]
    edge_part = pair_weight[:, :n_edge, 0].T
    if with_blocks:
        block_parts += [pair_weight[:, start : start + n_block, 0].T for start in (n_edge, n_edge + n_block)]
    block_weight = np.hstack(block_parts) * block_scale[:, None]
    return FirstLayers(
        block_weight=without_subnormals(np.ascontiguousarray(block_weight, np.float32)),
        edge_weight=without_subnormals(np.ascontiguousarray(edge_part * edge_scale[:, None], np.float32)),
        unary_bias=unary_bias.astype(np.float32),
        pairwise_bias=pair_bias.astype(np.float32),
        block_mean=np.asarray(block_mean, np.float32),
        edge_mean=np.asarray(edge_mean, np.float32),
        with_blocks=with_blocks,
        made_from=(*unary[0], *pairwise[0], block_mean, block_std, edge_mean, edge_std),
    )


def foldable(unary: Layers, pairwise: Layers) -> bool:
    """Whether both networks start with a kernel-1 layer (a product per block or pair)."""
    return bool(unary and pairwise) and unary[0][0].shape[2] == 1 and pairwise[0][0].shape[2] == 1


def made_from(first: FirstLayers | None, unary: Layers, pairwise: Layers, block_stats, edge_stats) -> bool:
    """Whether ``first`` was folded from these very arrays (a retrained model gets new ones)."""
    if first is None:
        return False
    current = (*unary[0], *pairwise[0], *block_stats, *edge_stats)
    return len(current) == len(first.made_from) and all(a is b for a, b in zip(current, first.made_from))


def network_logits(
    first: FirstLayers,
    block_x: np.ndarray,
    edge_x: np.ndarray,
    unary: Layers,
    pairwise: Layers,
    dilations: tuple[list[int] | None, list[int] | None],
    pooling: dict | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The unary network's logits (n, 2) and the pairwise network's (n - 1, 4), ``None`` for a page of one block,
    from the raw features."""
    # float32 products, as the reference path's (features given in float64 are rounded after centring).
    products = (block_x - first.block_mean).astype(np.float32, copy=False) @ first.block_weight
    units = first.unary_bias.shape[0]
    unary_layers = [(unary[0][0], first.unary_bias), *unary[1:]]
    unary_logits = conv_stack(None, unary_layers, dilations[0], pooling, products[:, :units])
    if len(block_x) < 2:
        return unary_logits, None
    pair_first = (edge_x - first.edge_mean).astype(np.float32, copy=False) @ first.edge_weight
    if first.with_blocks:
        pair_units = first.pairwise_bias.shape[0]
        pair_first += products[:-1, units : units + pair_units]
        pair_first += products[1:, units + pair_units :]
    pair_layers = [(pairwise[0][0], first.pairwise_bias), *pairwise[1:]]
    return unary_logits, conv_stack(None, pair_layers, dilations[1], None, pair_first)
