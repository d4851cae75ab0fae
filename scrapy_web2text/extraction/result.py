"""The one-call API: HTML in, labelled blocks and main text out.

:func:`extract` runs the chain in the order a page goes through it: parse the page into blocks
(:mod:`scrapy_web2text.page`), label every block with the chosen labeller (:mod:`scrapy_web2text.labellers`),
then build the :class:`Extraction`, joining the kept blocks into the main text.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..labellers.base import PageType, get_labeller
from ..labellers.blas import blas_for_labelling
from ..labellers.web2text.network import Web2TextModel
from ..page import Page, parse_page
from ..page.decode import content_type_charset, read_bytes
from ..page.sniff import bytes_reason, declared_reason
from . import output
from .arguments import check_arguments, checked_threshold
from .blocks import (  # noqa: F401 - the blocks' names, long imported from here
    BOILERPLATE,
    CONTENT,
    Block,
    LabelledPage,
    _label_names,
    build_blocks,
    join_main_text,
    label_string,
)
from .lazy import Deferred, Later, deferred
from .responses import is_response, response_input

if TYPE_CHECKING:
    from ..metadata import Metadata


@deferred("blocks", "page_type")
@dataclass(frozen=True)
class Extraction:
    """The result of :func:`extract`.

    ``truncated`` says blocks past ``page.MAX_BLOCKS`` were dropped;
    ``flattened`` that nesting deeper than libxml2's limit was unwrapped,
    ``stripped_attributes`` that attributes past ``page.MAX_ATTRIBUTES`` on
    one element were removed (see the robustness documentation), ``from_noscript`` that the page showed its text
    only to readers without JavaScript and was read from its ``<noscript>`` elements (``page.parse.NOSCRIPT_SHARE``,
    ``MIN_NOSCRIPT_CHARS``).  ``decoded_again`` says the model's own threshold kept no block, so the page was
    labelled again at half its highest p(content) (see the model documentation).  ``page_type`` says what kind of
    page it is (``"article"``, ``"collection"``, ``"documentation"``, ``"forum"``, ``"listing"``, ``"product"``,
    ``"service"``) with the page-type classifier's probability, for the ``web2text`` labellers; the page is
    classified when ``page_type`` is first read.
    ``main_text`` joins the content blocks: blocks separated by a line break
    in the unstyled page (or by dropped boilerplate) start a new line,
    inline neighbours are joined with a space where the source has white
    space between them, as a browser shows them.  ``timings`` holds
    milliseconds of the calling thread's CPU time per stage: ``parse``, ``features``, ``network``, ``decode``.
    ``skipped`` names why a body was not labelled (``"binary:png"``, ``"binary:pdf"``, ``"binary"``,
    ``"not_html:json"``: a family of types, never the server's own words); it then has no blocks and empty main
    text.  :attr:`title`, :attr:`markdown`, :attr:`html` and :attr:`metadata` are computed on first access, from
    the page's tree and the labels; the result (and each :class:`Block`) keeps that lxml tree alive while it is
    referenced, so keep the fields you need, not the results, when collecting many pages.  A result of
    :func:`extract` builds its :class:`Block`
    objects when ``blocks`` (or anything that reads them) is first read: most callers only want the main text.
    """

    main_text: str
    blocks: tuple[Block, ...]
    url: str | None = None
    method: str = "web2text"
    model: str | None = None
    truncated: bool = False
    flattened: bool = False
    stripped_attributes: bool = False
    from_noscript: bool = False
    decoded_again: bool = False
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    skipped: str | None = None
    #: What kind of page it is (``PageType(label, probability)``), from labellers that tell; ``None`` otherwise.  A
    #: classifier's opinion about the page, like ``timings`` a measurement: not part of equality.
    page_type: PageType | None = field(default=None, compare=False)
    #: The parsed tree's root (kept for the lazy formats) and their computed values.
    root: Any = field(default=None, repr=False, compare=False)
    _formats: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def content_blocks(self) -> list[Block]:
        return [block for block in self.blocks if block.is_content]

    def _format(self, name: str, compute: Any) -> Any:
        if name not in self._formats:
            self._formats[name] = compute()
        return self._formats[name]

    def _labelled_page(self) -> LabelledPage | None:
        """The labelled page while the :class:`Block` objects are not built: the crawl's block records, counts,
        paths and title read it instead of building a frozen object per block they do not keep."""
        pending = _BLOCKS.pending(self)
        return pending if isinstance(pending, LabelledPage) else None

    def _block_count(self) -> int:
        labelled = self._labelled_page()
        return len(labelled.keep) if labelled is not None else len(self.blocks)

    def _elements(self) -> tuple[list[tuple[Any, bool]], list[bool]]:
        labelled = self._labelled_page()
        if labelled is not None:
            return labelled.elements()
        known = [block for block in self.blocks if block.element is not None]
        return [(block.element, block.in_tail) for block in known], [block.is_content for block in known]

    @property
    def empty(self) -> str | None:
        """Why a labelled page's main text is empty: ``"no_blocks"`` (the page has no text), ``"furniture_only"``
        (all it kept was its furniture around a legal line, a page a script fills: :mod:`~scrapy_web2text.labellers.
        web2text.nothing_kept`), ``"none_kept"`` (no block reached the threshold); ``None`` for a page with main
        text or a body that was not labelled (:attr:`skipped`)."""
        if self.main_text or self.skipped:
            return None
        if not self._block_count():
            return "no_blocks"
        labelled = self._labelled_page()
        rules = (labelled.rules or ()) if labelled is not None else [block.rule for block in self.blocks]
        return "furniture_only" if "furniture_only" in rules else "none_kept"

    @property
    def labels(self) -> list[str]:
        """Each block's label (``"content"`` or ``"boilerplate"``), in page order; a new list each call."""
        labelled = self._labelled_page()
        if labelled is not None:
            return _label_names(labelled.keep)
        return [block.label for block in self.blocks]

    @property
    def title(self) -> str | None:
        """The headline: a heading block matching ``og:title``/``<title>`` (site suffix removed), else the first
        ``h1``, else that metadata title; ``None`` when the page has none."""
        return self._format("title", self._find_title)

    def _find_title(self) -> str | None:
        labelled = self._labelled_page()
        tagged = labelled.page.tagged if labelled is not None and labelled.page.root is self.root else None
        return output.find_title(self.root, *self._elements(), tagged)

    @property
    def html(self) -> str:
        """The main content as clean HTML (``<div>`` with headings, paragraphs, lists, tables... kept), sanitised:
        only http, https and mailto links, absolute against :attr:`url` when it is given."""
        return self._format("html", lambda: output.clean_html(*self._elements(), url=self.url))

    @property
    def markdown(self) -> str:
        """The main content as Markdown (``#`` headings by level, ``-`` lists, pipe tables, quotes, code)."""
        return self._format("markdown", lambda: output.to_markdown(self.html))

    @property
    def metadata(self) -> Metadata:
        """What the page says about itself (authors, dates, language, site, description, image, tags...), each
        value with its source: see :class:`~scrapy_web2text.metadata.Metadata`.  Read on first access from the
        tree already parsed and the labelled blocks; a page that was not labelled has empty metadata."""
        return self._format("metadata", self._read_metadata)

    def _read_metadata(self) -> Metadata:
        from ..metadata import read_metadata  # loaded with the first page that asks (extruct: the first with microdata)

        labelled = self._labelled_page()
        source = None
        if labelled is not None:
            texts, keep = labelled.page.texts, labelled.keep.astype(bool).tolist()
            elements, source = labelled.page.block_elements, labelled.page.source
        else:
            texts, keep = [block.text for block in self.blocks], [block.is_content for block in self.blocks]
            elements = [(block.element, block.in_tail) for block in self.blocks]
        # the headline when already found (a crawl's title field), else what finds it if no markup names a title
        headline = self._formats["title"] if "title" in self._formats else (lambda: self.title)
        return read_metadata(self.root, self.url, texts, keep, elements, self.main_text, headline, source=source)

    def xpaths(self) -> list[str | None]:
        """Each block's XPath, anchored at its nearest ancestor with a page-unique ``id`` where there is one
        (``//*[@id="main"]/p[2]``), else absolute; computed once."""

        def compute() -> list[str | None]:
            elements, _ = self._elements()
            if len(elements) != self._block_count():
                return [block.xpath for block in self.blocks]
            return list(output.block_xpaths(self.root, elements))

        return self._format("xpaths", compute)

    def block_records(self, form: str = "full") -> list[Any] | str:
        """The blocks for a feed, with :meth:`xpaths`: ``"full"``, a dict each (:meth:`Block.to_dict`);
        ``"compact"``, ``[label, probability, xpath]`` each (:meth:`Block.to_compact`); ``"labels"``, one string
        with a character per block in page order, ``"1"`` content and ``"0"`` boilerplate (no XPath computed).
        Computed once per form; a new list each call."""
        if form == "labels":
            return self._format("blocks:labels", lambda: label_string(self.labels))

        def compute() -> list[Any]:
            labelled = self._labelled_page()
            if labelled is not None:  # xpaths() has one path a block whether or not the walk kept the elements
                return labelled.records(form, self.xpaths())
            pairs = zip(self.blocks, self.xpaths())
            if form == "compact":
                return [block.to_compact(xpath) for block, xpath in pairs]
            return [block.to_dict(xpath) for block, xpath in pairs]

        return list(self._format(f"blocks:{form}", compute))

    def to_dict(self, include_blocks: bool = True, formats: tuple[str, ...] = ()) -> dict[str, Any]:
        """``formats`` adds ``"markdown"``/``"html"``/``"title"`` keys; ``"metadata"`` adds
        :meth:`Metadata.to_dict`."""
        out: dict[str, Any] = {"url": self.url, "method": self.method, "model": self.model, "main_text": self.main_text}
        for name in formats:
            out[name] = self.metadata.to_dict() if name == "metadata" else getattr(self, name)
        if self.skipped:
            out["skipped"] = self.skipped
        if include_blocks:
            out["blocks"] = self.block_records()
        return out


#: ``Extraction.blocks``: made on first read for a result of :func:`build_extraction` (see :mod:`.lazy`).
_BLOCKS: Deferred = Extraction.blocks


def build_extraction(
    page: Page, keep: np.ndarray, probabilities: np.ndarray, page_type: Any = None, rules: Any = None, **details: Any
) -> Extraction:
    """The result for a labelled page; its :class:`Block` objects are built when ``blocks`` is first read (the
    result holds the page until then), and its page type when ``page_type`` is first read where it is given as a
    function (:attr:`Labelling.page_type <scrapy_web2text.labellers.base.Labelling.page_type>`).  ``rules``: each
    block's rule that changed its label (:attr:`Labelling.rules <scrapy_web2text.labellers.base.Labelling.rules>`)."""
    return Extraction(
        blocks=Later(LabelledPage(page, keep, probabilities, rules)),
        page_type=Later(page_type) if callable(page_type) else page_type,
        main_text=join_main_text(page, keep),
        truncated=page.truncated,
        flattened=page.flattened,
        root=page.root,
        stripped_attributes=page.stripped_attributes,
        from_noscript=page.from_noscript,
        **details,
    )


def extract(
    html: str | bytes | Any,
    url: str | None = None,
    *,
    threshold: float | None = None,
    model: Web2TextModel | str | Path | None = None,
    method: str = "web2text",
    encoding: str | None = None,
    content_type: str | bytes | None = None,
    tree: Any = None,
    rules: bool = True,
    skip_rules: Collection[str] = (),
) -> Extraction:
    """Label every block of ``html`` as content or boilerplate.

    ``html`` is ``str`` or ``bytes`` (bytes are decoded as a crawl decodes them: BOM, ``encoding`` or the charset
    of ``content_type``, ``<meta charset>`` or an XML declaration, UTF-8, a detected legacy encoding, then
    Windows-1252; never raising; :mod:`scrapy_web2text.page.decode`), or a Scrapy response (its body, URL and
    ``Content-Type``, and parsel's tree when the spider built one: :mod:`scrapy_web2text.extraction.responses`).
    Any other type raises ``TypeError``; so does every argument of a wrong type, naming it
    (:mod:`scrapy_web2text.extraction.arguments`).
    ``threshold`` is the probability a block needs to be kept, a number or numeric string in (0, 1) (default: the
    model's, moved by the page type's offset, +0.1 on articles with the shipped files; it also decodes a page it
    leaves empty once more at half the page's highest probability); ``model`` a loaded
    :class:`~scrapy_web2text.Web2TextModel`, a packaged model's name or
    a path (default: the shipped model, loaded once per process).
    ``method`` picks the labeller (see :mod:`scrapy_web2text.labellers`; a registered name or a dotted path).
    ``content_type`` is the declared type (an HTTP ``Content-Type``), if known.  Bodies that are not HTML (file
    signatures of images, PDFs, archives; NULs or many control characters; a declared non-HTML type) are not
    labelled: the result has no blocks, empty main text and :attr:`Extraction.skipped` says why.
    ``tree`` is parsel's lxml root of the same ``html`` (a Scrapy ``response.selector.root``), walked instead
    of parsing ``html`` again where that gives the same blocks (see :func:`~scrapy_web2text.page.parse_page`).
    ``rules=False`` runs the model alone, without the rules after decoding (the model documentation lists them);
    ``skip_rules`` names rules not to run.  :attr:`Block.rule` (and the ``"rule"`` of a full block record) names the
    rule that changed a block's label.  Labellers without rules take neither argument.
    """
    check_arguments(url=url, model=model, method=method, encoding=encoding, content_type=content_type)
    threshold = checked_threshold(threshold)
    if not isinstance(html, (str, bytes, bytearray, memoryview)):
        if not is_response(html):
            raise TypeError(f"html must be str, bytes or a Scrapy response, not {type(html).__name__}")
        response = response_input(html)
        html, tree, url = response.html, response.tree if tree is None else tree, url or response.url
        content_type, encoding = content_type or response.content_type, encoding or response.encoding
    labeller = get_labeller(method)
    clock = time.thread_time()
    reason = declared_reason(html, content_type)
    encoded = None
    if reason is None and not isinstance(html, str):
        # Decoded once here, by the crawl's rules (the transport charset: ``encoding``, else ``content_type``'s).
        data = bytes(html)
        decoded = read_bytes(data, encoding or content_type_charset(content_type))
        reason = bytes_reason(decoded, data)
        html, encoded = decoded.text, decoded.utf8
    if reason is not None:
        return Extraction(main_text="", blocks=(), url=url, method=method, skipped=reason)
    page = parse_page(html, encoded=encoded, tree=tree)
    parse_ms = 1000 * (time.thread_time() - clock)
    # passed only where asked for: a labeller without rules after decoding takes neither argument
    switches = {} if rules is True and not skip_rules else {"rules": bool(rules), "skip_rules": frozenset(skip_rules)}
    with blas_for_labelling():
        result = labeller(page, model=model, threshold=threshold, **switches)
    timings = {"parse": parse_ms, **result.timings}
    return build_extraction(
        page,
        result.keep,
        result.probabilities,
        url=url,
        method=method,
        model=result.model_name,
        timings=timings,
        decoded_again=result.decoded_again,
        page_type=result.page_type,
        rules=result.rules,
    )
