"""Labellers: a parsed page in, a content/boilerplate decision per block out.

:mod:`.base` defines the contract and the registry; :mod:`.web2text` is the project's method; ``boilerpipe``,
``bte``, ``crf`` and ``boilernet`` are the baselines of the Web2Text paper's comparison, inference only (their
training lives in :mod:`scrapy_web2text.research.train`).
"""

from .base import Labeller, Labelling, get_labeller, labeller_names, load_weights, register_labeller

__all__ = ["Labeller", "Labelling", "get_labeller", "labeller_names", "load_weights", "register_labeller"]
