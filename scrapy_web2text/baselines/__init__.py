"""Baselines on the same DOM-leaf blocks as Web2Text.

Each submodule exposes labellers with the :mod:`scrapy_web2text.methods`
signature ``(page, *, model=None, threshold=None) -> Labelling``; they are
registered lazily by name (``boilerpipe-article``, ``bte``, ``crf``…).
"""
