"""A web-poet page object: :class:`Web2TextArticlePage`, for spiders structured with scrapy-poet.

The page object runs :func:`scrapy_web2text.extract` on the response it is given, so its fields are
``extract()``'s on the same page: ``url``, ``title``, ``main_text``, ``metadata`` (:meth:`Metadata.to_dict`) and
``blocks`` (:meth:`Extraction.block_records` in :attr:`Web2TextArticlePage.block_form`).  It needs web-poet
(``pip install 'scrapy-web2text[poet]'``, which brings scrapy-poet too); :meth:`Web2TextArticlePage.to_article` maps
the same values onto zyte-common-items' ``Article`` and needs that package too (``[article]``), which is heavier.

It labels in the callback's thread, one page at a time, and reads no ``WEB2TEXT_*`` setting: a subclass sets
:attr:`~Web2TextArticlePage.model`, :attr:`~Web2TextArticlePage.threshold` or :attr:`~Web2TextArticlePage.method`.
The spider middleware labels on its pool instead; use one or the other for a page, not both.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from .._extras import missing_extra

try:
    import attrs
    from web_poet import WebPage, field
except ImportError as error:
    raise missing_extra("web-poet", "poet", "scrapy_web2text.Web2TextArticlePage") from error

from scrapy_web2text import extract

if TYPE_CHECKING:
    from pathlib import Path

    from scrapy_web2text import Extraction, Web2TextModel

__all__ = ["Web2TextArticle", "Web2TextArticlePage"]


@attrs.define
class Web2TextArticle:
    """The item :class:`Web2TextArticlePage` returns: ``extract()``'s values for one page."""

    url: str | None
    title: str | None
    main_text: str
    metadata: dict[str, Any]
    blocks: list[Any]


class Web2TextArticlePage(WebPage[Web2TextArticle]):
    """The main text, title, metadata and labelled blocks of an HTML response, as a web-poet page object.

    In a scrapy-poet spider, ask for it in a callback (``async def parse(self, response, page:
    Web2TextArticlePage)``) and yield ``await page.to_item()``; :meth:`to_article` gives a zyte-common-items
    ``Article`` instead.
    """

    #: A loaded model, a packaged model's name or a path; ``None``: the shipped model (``extract()``'s ``model``).
    model: ClassVar[Web2TextModel | str | Path | None] = None
    #: The probability a block needs to be kept; ``None``: the model's own (``extract()``'s ``threshold``).
    threshold: ClassVar[float | None] = None
    #: The labeller (``extract()``'s ``method``).
    method: ClassVar[str] = "web2text"
    #: The form of :attr:`blocks`: ``"compact"`` or ``"full"`` (:meth:`Extraction.block_records`).
    block_form: ClassVar[str] = "compact"

    @cached_property
    def extraction(self) -> Extraction:
        """``extract()``'s result for the response, computed once.  The body is decoded as a crawl decodes it:
        the encoding the response was built with (scrapy-poet passes a Scrapy response's own), else the
        ``Content-Type`` charset, else the page's own declarations."""
        response = self.response
        return extract(
            bytes(response.body),
            url=str(response.url),
            content_type=response.headers.get("Content-Type"),
            encoding=getattr(response, "_encoding", None),  # web-poet keeps a given encoding here, unlike .encoding
            model=self.model,
            threshold=self.threshold,
            method=self.method,
        )

    @field
    def url(self) -> str | None:
        return self.extraction.url

    @field
    def title(self) -> str | None:
        return self.extraction.title

    @field
    def main_text(self) -> str:
        return self.extraction.main_text

    @field
    def metadata(self) -> dict[str, Any]:
        return self.extraction.metadata.to_dict()

    @field
    def blocks(self) -> list[Any]:
        return self.extraction.block_records(self.block_form)

    def to_article(self) -> Any:
        """The page as a zyte-common-items ``Article``: ``articleBody`` (the main text), ``articleBodyHtml`` (the
        clean HTML), ``headline``, ``authors``, ``datePublished``, ``dateModified``, ``inLanguage``,
        ``description``, ``canonicalUrl``, ``mainImage``/``images`` and ``breadcrumbs`` where the page gives
        them.  ``Article`` has no field for the blocks, the site name, tags, categories or the licence."""
        try:
            from zyte_common_items import Article, Author, Breadcrumb, Image
        except ImportError as error:
            raise missing_extra("zyte-common-items", "article", "Web2TextArticlePage.to_article()") from error
        extraction, metadata = self.extraction, self.extraction.metadata
        image = [Image(url=metadata.image)] if metadata.image else None
        return Article(
            url=str(self.response.url),
            headline=extraction.title or metadata.title,
            articleBody=extraction.main_text,
            articleBodyHtml=extraction.html if extraction.main_text else None,
            authors=[Author(name=name, nameRaw=name) for name in metadata.authors] or None,
            datePublished=metadata.date_published,
            dateModified=metadata.date_modified,
            inLanguage=metadata.language,
            description=metadata.description,
            canonicalUrl=metadata.canonical_url,
            mainImage=image[0] if image else None,
            images=image,
            breadcrumbs=[Breadcrumb(name=name) for name in metadata.breadcrumbs] or None,
        )
