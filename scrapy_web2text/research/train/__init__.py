"""Training the Web2Text networks in torch (the ``train`` extra).

Inference never needs torch: :func:`~scrapy_web2text.research.train.trainer.train`
exports the weights to a :class:`~scrapy_web2text.labellers.web2text.network.Web2TextModel`
(``.npz`` + ``.json``) that numpy runs.
"""


def require_torch():
    """Import torch, or fail with the command that installs it."""
    try:
        import torch
    except ImportError as error:  # pragma: no cover - exercised without torch only
        raise ImportError(
            "training needs torch, which scrapy-web2text does not install by default: "
            "pip install 'scrapy-web2text[train]' (or pip install torch==2.13.0)"
        ) from error
    return torch
