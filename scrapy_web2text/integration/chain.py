"""The labelling job a crawl runs on its workers, and the small result it returns.

:func:`run_chain` runs on a worker thread or in a worker process (see :mod:`~scrapy_web2text.integration.pools`)
and returns a :class:`PageResult`: plain strings, numbers and the block records, nothing that holds the parsed
tree.  So a result pickles in microseconds to cross from a worker process, the page's lxml tree is freed on the
worker as soon as the job ends, and both pool kinds fill items by the same code.

This module imports no Scrapy: worker processes import it, and Scrapy would cost each its import time and memory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..extraction import CONTENT, extract

if TYPE_CHECKING:
    from .settings import Web2TextConfig


@dataclass(frozen=True)
class PageResult:
    """What a crawl keeps of one page's :class:`~scrapy_web2text.Extraction`, in the forms the crawler asked for.

    ``blocks`` holds the block records in ``WEB2TEXT_BLOCKS``'s form (empty for ``"none"``); ``title``,
    ``markdown`` and ``html`` are ``None`` unless the settings ask for them.  ``skipped`` names why a body was not
    labelled (``"binary:png"``, ``"not_html:json"``...).  ``timings`` holds milliseconds per stage and
    ``total``.  ``error`` says why labelling raised (``"TypeError: ..."``); the other fields are then empty.
    """

    main_text: str
    blocks: tuple[Any, ...] = ()
    title: str | None = None
    markdown: str | None = None
    html: str | None = None
    skipped: str | None = None
    n_blocks: int = 0
    n_content_blocks: int = 0
    truncated: bool = False
    from_noscript: bool = False
    decoded_again: bool = False
    #: ``{"label", "probability"}`` when ``WEB2TEXT_PAGE_TYPE_FIELD`` asks for it and the labeller tells.
    page_type: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    error: str | None = None
    #: The ``WEB2TEXT_METADATA`` fields asked for -> their values (lists as lists; ``None``/``[]`` when not found).
    metadata: dict[str, Any] = field(default_factory=dict)
    #: ``"<format>: <error>"`` for each optional format (Markdown, HTML, title) that raised: the item keeps its
    #: main text and blocks, and that field goes out empty.
    failed_formats: tuple[str, ...] = ()


def run_chain(
    html: str | bytes,
    url: str | None,
    model: Any,
    config: Web2TextConfig,
    content_type: str | bytes | None = None,
    tree: Any = None,
) -> PageResult:
    """The workers' job: :func:`scrapy_web2text.extract` with the crawler's settings, reduced to a :class:`PageResult`.

    The formats the crawler asked for (block records, Markdown, HTML, title) are computed here, on the worker, so
    the reactor only copies strings into items.  ``tree`` (parsel's tree of ``html``) only comes from the thread
    pool: a tree cannot cross to another process.
    """
    clock = time.perf_counter()
    extraction = extract(
        html,
        url,
        threshold=config.threshold,
        model=model,
        method=config.method,
        content_type=content_type,
        tree=tree,
        rules=config.rules,
    )
    failed: list[str] = []
    formats = {name: _optional(extraction, name, failed) for name in config.formats}
    title = _optional(extraction, "title", failed) if config.title_field else None
    labels = extraction.labels  # not extraction.blocks: a frozen Block per block that nothing here keeps
    result = PageResult(
        main_text=extraction.main_text,
        blocks=tuple(extraction.block_records(config.block_form)) if config.block_form != "none" else (),
        title=title,
        markdown=formats.get("markdown"),
        html=formats.get("html"),
        skipped=extraction.skipped,
        n_blocks=len(labels),
        n_content_blocks=labels.count(CONTENT),
        truncated=extraction.truncated,
        from_noscript=extraction.from_noscript,
        decoded_again=extraction.decoded_again,
        page_type=_page_type(extraction.page_type) if config.page_type_field else None,
        timings=dict(extraction.timings),
        failed_formats=tuple(failed),
    )
    if config.metadata and not extraction.skipped:
        result.metadata.update(requested_metadata(extraction, config))
    result.timings["total"] = 1000 * (time.perf_counter() - clock)
    return result


def requested_metadata(extraction: Any, config: Web2TextConfig) -> dict[str, Any]:
    """The ``WEB2TEXT_METADATA`` fields of ``extraction.metadata`` (read here, on the worker)."""
    metadata = extraction.metadata
    values = {name: getattr(metadata, name) for name, _ in config.metadata}
    return {name: list(value) if isinstance(value, tuple) else value for name, value in values.items()}


def _optional(extraction: Any, name: str, failed: list[str]) -> Any:
    """An optional format of ``extraction`` (empty, and noted in ``failed``, where computing it raises): one
    format's failure never costs a page its main text and blocks."""
    try:
        return getattr(extraction, name)
    except Exception as error:  # noqa: BLE001 - any failure of a format is the same to the item: that field empty
        failed.append(f"{name}: {type(error).__name__}: {error}")
        return None if name == "title" else ""


def _page_type(page_type: Any) -> dict[str, Any] | None:
    return None if page_type is None else {"label": page_type.label, "probability": round(page_type.probability, 4)}
