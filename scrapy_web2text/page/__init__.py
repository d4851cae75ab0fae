"""Reading a page: bytes → text → lxml tree → Collapsed DOM → blocks.

The first layer of the chain; it knows nothing of labels.  :func:`parse_page` is the entry point, and
:class:`Page` is what every labeller reads.
"""

from .attributes import MAX_ATTRIBUTES
from .cdom import MAX_BLOCKS, CDOMNode, Page, block_text
from .decode import decode_html
from .flatten import MAX_NESTING, flatten_nesting
from .parse import parse_page

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_BLOCKS",
    "MAX_NESTING",
    "CDOMNode",
    "Page",
    "block_text",
    "decode_html",
    "flatten_nesting",
    "parse_page",
]
