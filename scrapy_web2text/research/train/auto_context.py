"""Training the auto-context second pass (labellers/web2text/context.py) on a first pass's summaries."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...labellers.web2text.context import CONTEXT_FEATURES, context_features
from ..corpus import PageData
from .batches import lay_out
from .fitting import fit


def _with_context(torch, unary, pages: Sequence[PageData], inputs: dict[str, list]) -> list[np.ndarray]:
    """Each page's standardised block features followed by the first pass's context summaries."""
    unary.eval()
    out = []
    with torch.no_grad():
        for page, x in zip(pages, inputs["ux"]):
            if not len(x):
                out.append(np.zeros((0, x.shape[1] + len(CONTEXT_FEATURES)), np.float32))
                continue
            p_content = torch.softmax(unary(torch.from_numpy(x[None]))[0], -1)[:, 1].numpy().astype(np.float64)
            out.append(np.hstack([x, context_features(p_content, page.block_x, page.edge_x)]).astype(np.float32))
    return out


def _out_of_fold_context(torch, train_pages, train_in, valid_in, config, seed, word_f1_on) -> list[np.ndarray]:
    """Context summaries of each training page from a first pass that never saw it.

    The first pass is more confident on its own training pages than on unseen ones, and a second pass trained on
    those summaries learns to trust them too much.  Here the training pages are split in two folds; a first pass
    trained on one fold summarises the other, as the shipped first pass summarises a user's page.
    """
    from .networks import ConvStack

    fragment = config["fragment_length"]
    folds = [list(range(0, len(train_pages), 2)), list(range(1, len(train_pages), 2))]
    out: list = [None] * len(train_pages)
    for fold, held_out in enumerate(folds):
        seen = folds[1 - fold]
        first_pass = ConvStack.from_config(config, "unary", train_in["ux"][0].shape[1])
        fit(
            torch,
            first_pass,
            lay_out(
                [train_in["ux"][i] for i in seen],
                [train_in["uy"][i] for i in seen],
                fragment,
                [train_in["uw"][i] for i in seen],
            ),
            lay_out(valid_in["ux"], valid_in["uy"], fragment, valid_in["uw"]),
            config,
            seed + 10 + fold,
            f"fold {fold}",
            select=word_f1_on(valid_in["ux"]),
        )
        summaries = _with_context(
            torch, first_pass, [train_pages[i] for i in held_out], {"ux": [train_in["ux"][i] for i in held_out]}
        )
        for i, x in zip(held_out, summaries):
            out[i] = x
    return out


def fit_context(torch, unary, train_pages, validation_pages, train_in, valid_in, config, seed, word_f1_on):
    """The auto-context second pass, trained on the first pass's summaries (labellers/web2text/context.py)."""
    from .networks import ConvStack

    if config.get("auto_context") == "out_of_fold":
        train_x = _out_of_fold_context(torch, train_pages, train_in, valid_in, config, seed, word_f1_on)
    else:
        train_x = _with_context(torch, unary, train_pages, train_in)
    valid_x = _with_context(torch, unary, validation_pages, valid_in)
    context = ConvStack.from_config(config, "unary", train_x[0].shape[1], pooled=False)
    fragment = config["fragment_length"]
    report = fit(
        torch,
        context,
        lay_out(train_x, train_in["uy"], fragment, train_in["uw"]),
        lay_out(valid_x, valid_in["uy"], fragment, valid_in["uw"]),
        config,
        seed,
        "context",
        select=word_f1_on(valid_x),
    )
    return context, report
