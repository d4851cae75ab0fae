"""The labelling job a crawl runs on its workers, and the small result it returns.

:func:`run_chain` runs on a worker thread or in a worker process (see :mod:`~scrapy_web2text.integration.pools`)
and returns a :class:`PageResult`: plain strings, numbers and the block records, nothing that holds the parsed
tree.  So a result pickles in microseconds to cross from a worker process, the page's lxml tree is freed on the
worker as soon as the job ends, and both pool kinds fill items by the same code.

This module imports no Scrapy: worker processes import it, and Scrapy would cost each of them 0.7 s and 44 MB.
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
    labelled (``"binary:png"``, ``"not_html:application/json"``...).  ``timings`` holds milliseconds per stage and
    ``total``.
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
    )
    formats = {name: getattr(extraction, name) for name in config.formats}
    labels = extraction.labels  # not extraction.blocks: a frozen Block per block that nothing here keeps
    result = PageResult(
        main_text=extraction.main_text,
        blocks=tuple(extraction.block_records(config.block_form)) if config.block_form != "none" else (),
        title=extraction.title if config.title_field else None,
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
    )
    result.timings["total"] = 1000 * (time.perf_counter() - clock)
    return result


def _page_type(page_type: Any) -> dict[str, Any] | None:
    return None if page_type is None else {"label": page_type.label, "probability": round(page_type.probability, 4)}
