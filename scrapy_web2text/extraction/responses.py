"""``extract(response)``: a Scrapy response (or anything shaped like one) read without importing Scrapy.

A response is recognised by its attributes, as Scrapy's own ``TextResponse`` has them: ``body`` (bytes), ``url``
and ``headers``.  A text response is decoded as the spider middleware decodes it in a crawl (the response's own
encoding first, then the ``Content-Type`` charset, then the HTML standard's rules), so ``extract(response)`` gives
the crawl's result.  When the spider has already built ``response.selector`` from the same text, parsel's lxml
tree is walked instead of parsing the body again, as the spider middleware does.
"""

from __future__ import annotations

from email.message import Message
from typing import Any, NamedTuple

from ..page.decode import decode_html


class ResponseInput(NamedTuple):
    """What :func:`scrapy_web2text.extract` takes from a response."""

    html: str | bytes
    url: str | None
    content_type: str | None
    encoding: str | None
    tree: Any


def is_response(value: Any) -> bool:
    """Whether ``value`` looks like a Scrapy response: bytes ``body``, a ``url``, ``headers``."""
    return isinstance(getattr(value, "body", None), bytes) and hasattr(value, "url") and hasattr(value, "headers")


def _header(headers: Any, name: bytes) -> str | None:
    try:
        value = headers.get(name)
    except (AttributeError, TypeError):
        return None
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value if isinstance(value, str) else None


def _charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    message = Message()
    message["Content-Type"] = content_type
    charset = message.get_param("charset")
    return charset if isinstance(charset, str) and charset.strip() else None


def own_encoding(response: Any) -> str | None:
    """The encoding a text response was built with (``TextResponse(..., encoding=...)``), which wins over its headers.

    A browser download handler (scrapy-playwright) returns the page the browser rendered, as UTF-8 bytes built with
    ``encoding="utf-8"``, under the server's original headers: their charset (``windows-1252``) describes bytes that
    are no longer there.  ``None`` when the response was given no encoding, so that its headers decide.
    """
    encoding = getattr(response, "_encoding", None)  # Scrapy's own slot for it: .encoding also reports the header's
    return encoding.strip() if isinstance(encoding, str) and encoding.strip() else None


def response_input(response: Any) -> ResponseInput:
    """The text of a text response (decoded as the spider middleware decodes it) or the body of another, the URL,
    the declared type and charset, and parsel's tree when the spider already built it from that text."""
    content_type = _header(response.headers, b"Content-Type")
    charset = own_encoding(response) or _charset(content_type)
    url = response.url if isinstance(response.url, str) else None
    if not hasattr(response, "text"):  # not a TextResponse (an image, a PDF): the bytes, for the sniffer to judge
        return ResponseInput(response.body, url, content_type, charset, None)
    text = decode_html(response.body, charset)
    selector = getattr(response, "_cached_selector", None)  # Scrapy builds it on the first response.selector
    parsed = getattr(response, "_cached_ubody", None)
    reusable = selector is not None and getattr(selector, "type", None) == "html" and parsed == text
    return ResponseInput(text, url, content_type, charset, getattr(selector, "root", None) if reusable else None)
