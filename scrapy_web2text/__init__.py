"""scrapy-web2text: main-text extraction for Scrapy with the Web2Text model.

>>> from scrapy_web2text import extract
>>> result = extract("<html><body><p>Hello, world.</p></body></html>")
>>> [block.label for block in result.blocks]  # doctest: +SKIP
['content']
"""

from .extraction import Block, Extraction, extract
from .model import ModelError, Web2TextModel, load_model

__version__ = "0.1.0"

__all__ = ["Block", "Extraction", "ModelError", "Web2TextModel", "extract", "load_model", "__version__"]
