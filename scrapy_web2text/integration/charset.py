"""Downloader middleware: HTML responses whose declared charset Python cannot decode get one it can.

Enable it in ``settings.py``::

    DOWNLOADER_MIDDLEWARES = {"scrapy_web2text.Web2TextCharsetMiddleware": 590}

Scrapy decodes a response by its ``Content-Type`` charset or its ``<meta charset>``; for a label Python's codecs
know but cannot decode with (``undefined``, ``punycode``, ...), ``response.text`` raises, and Scrapy's own
``MetaRefreshMiddleware`` (which reads it) turns the page into a download error: the spider never sees it and its
items never exist.  This middleware runs before that one (a higher number: process_response runs from high to low)
and, only when decoding fails, replaces the response with one that carries the encoding the HTML standard's rules
choose (:func:`scrapy_web2text.page.decode.html_encoding`), counted in ``web2text/charset_replaced``.
"""

from __future__ import annotations

from email.message import Message
from typing import TYPE_CHECKING

from scrapy.http import TextResponse

from ..page.decode import html_encoding
from .base import PREFIX

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


def header_charset(response: Response) -> str | None:
    """The ``charset`` parameter of the response's ``Content-Type`` header, if any (any label: the decoder judges)."""
    content_type = response.headers.get(b"Content-Type")
    if not content_type:
        return None
    message = Message()
    message["Content-Type"] = content_type.decode("latin-1")
    charset = message.get_param("charset")
    return charset if isinstance(charset, str) else None


class Web2TextCharsetMiddleware:
    """Replaces an undecodable declared charset of a text response by the one the HTML standard picks."""

    def __init__(self, crawler: Crawler):
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Web2TextCharsetMiddleware:
        """``NotConfigured`` when ``WEB2TEXT_ENABLED`` is False, as for the other two components."""
        from .settings import Web2TextConfig

        Web2TextConfig.check_enabled(crawler.settings)
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, TextResponse):
            return response
        try:
            response.text  # noqa: B018 - decodes once; Scrapy caches the text for the spider
        except (LookupError, UnicodeError):
            encoding = html_encoding(response.body, header_charset(response))
            if self.stats is not None:
                self.stats.inc_value(f"{PREFIX}/charset_replaced")
            return response.replace(encoding="utf-8" if encoding == "replacement" else encoding)
        return response
