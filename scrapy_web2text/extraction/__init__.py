"""The layer users call: HTML in, an :class:`Extraction` out.

:mod:`~scrapy_web2text.extraction.result` holds :func:`extract` and the :class:`Extraction` it returns;
:mod:`~scrapy_web2text.extraction.blocks` the :class:`Block` objects and the main text's joining;
:mod:`~scrapy_web2text.extraction.output` and :mod:`~scrapy_web2text.extraction.markup` the formats (title, clean
HTML, Markdown, block XPaths); :mod:`~scrapy_web2text.extraction.responses` a Scrapy response read without Scrapy;
:mod:`~scrapy_web2text.extraction.arguments` the checks of :func:`extract`'s arguments.
"""

from .blocks import BOILERPLATE, CONTENT, Block, LabelledPage, build_blocks, join_main_text
from .result import Extraction, build_extraction, extract

__all__ = [
    "BOILERPLATE",
    "CONTENT",
    "Block",
    "Extraction",
    "LabelledPage",
    "build_blocks",
    "build_extraction",
    "extract",
    "join_main_text",
]
