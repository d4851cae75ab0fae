"""The ``WEB2TEXT_*`` settings: defaults, validation, and the spider override.

Every setting can be set in a project's ``settings.py``, on the command line (``-s WEB2TEXT_THRESHOLD=0.6``) or per
spider in ``custom_settings``; both components read them once, when the crawler builds them.  :data:`SETTINGS` holds
each one's default and a line on what it does; docs/settings.rst describes each at length, under an anchor of its
name (``:setting:`WEB2TEXT_MODEL```), and a test holds the two to the same names and defaults.

A spider attribute ``web2text_threshold`` (also ``-a web2text_threshold=0.7``) overrides ``WEB2TEXT_THRESHOLD``; per
request, ``meta={"web2text": False}`` leaves the items of its response unlabelled and ``meta={"web2text_threshold":
0.6}`` sets the threshold for them.
"""

from __future__ import annotations

import difflib
import json
import logging
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: The labelling pools ``WEB2TEXT_POOL`` may name (``pools.POOLS`` holds one class each).
POOL_KINDS = ("thread", "process")

#: Every setting: (default, what it does).  docs/settings.rst says more of each, under an anchor of its name.
SETTINGS: dict[str, tuple[Any, str]] = {
    "WEB2TEXT_ENABLED": (True, "False disables the three components (NotConfigured)."),
    "WEB2TEXT_MODEL": ("default", "A packaged model's name or the path of NAME.npz."),
    "WEB2TEXT_METHOD": ("web2text", "The labelling method, as extract(method=...)."),
    "WEB2TEXT_THRESHOLD": (None, "The p(content) a block needs; None: the model's own."),
    "WEB2TEXT_RULES": (True, "False: no rule after decoding runs (the model alone)."),
    "WEB2TEXT_TEXT_FIELD": ("main_text", "The item field of the main text."),
    "WEB2TEXT_BLOCKS_FIELD": ("web2text_blocks", "The item field of the labelled blocks."),
    "WEB2TEXT_INCLUDE_BLOCKS": (True, "False: fill only the text field (as WEB2TEXT_BLOCKS = 'none')."),
    "WEB2TEXT_BLOCKS": ("compact", "The blocks' form: 'compact', 'full' or 'none'."),
    "WEB2TEXT_FORMATS": (["text"], "Also 'markdown' and 'html': main_markdown, main_html."),
    "WEB2TEXT_TITLE_FIELD": ("title", "The item field of the headline ('': none); never overwritten."),
    "WEB2TEXT_METADATA": ([], "Metadata fields into web2text_<field>, or a dict {field: item field}."),
    "WEB2TEXT_PAGE_TYPE_FIELD": ("", "The item field of the page's type ('': none); never overwritten."),
    "WEB2TEXT_HTML_FIELD": ("html", "The item field of raw HTML put there by the spider."),
    "WEB2TEXT_URL_FIELD": ("url", "The item field of the page's URL (logs, results)."),
    "WEB2TEXT_DROP_HTML": (False, "Remove the HTML field from items once labelled."),
    "WEB2TEXT_MAX_BYTES": (5_000_000, "Larger pages are skipped (0: no limit)."),
    "WEB2TEXT_CONCURRENCY": (2, "Workers that label pages (a process-wide pool)."),
    "WEB2TEXT_BLAS_THREADS": (None, "BLAS threads while a page is labelled (None: the environment's, else 1)."),
    "WEB2TEXT_POOL": ("thread", "The workers' kind: 'thread' or 'process' (spawned)."),
    "WEB2TEXT_ERROR_FIELD": ("", "The item field that says why labelling failed ('': none)."),
    "WEB2TEXT_SHOW_DIR": (None, "A folder: write the view (web2text show) of some pages."),
    "WEB2TEXT_SHOW_EVERY": (10, "With a show folder: one labelled page in N per spider."),
}
#: Each setting's default.
DEFAULTS: dict[str, Any] = {name: default for name, (default, _) in SETTINGS.items()}

#: Settings of the prefix read elsewhere (the scrapy-redis scheduler) or from the environment, besides
#: :data:`DEFAULTS`: a name the package knows, which no warning calls misspelt.
OTHER_SETTINGS = frozenset({"WEB2TEXT_REDIS_IDLE_POLL", "WEB2TEXT_DATA", "WEB2TEXT_PURE_PYTHON", "WEB2TEXT_CACHE"})
#: The prefix this package owns: every setting under it is one of its own.
SETTINGS_PREFIX = "WEB2TEXT_"

logger = logging.getLogger(__name__)
#: Settings objects already checked for unknown names, by id (Scrapy's settings are not hashable): one warning per
#: crawler, not one per component.  An entry leaves with its object.
_checked_settings: dict[int, weakref.ref] = {}

#: ``WEB2TEXT_BLOCKS`` values.
BLOCK_FORMS = ("compact", "full", "none")
#: ``WEB2TEXT_FORMATS`` values -> the item field each fills (``"text"`` fills ``WEB2TEXT_TEXT_FIELD``).
FORMAT_FIELDS = {"markdown": "main_markdown", "html": "main_html"}

#: The item field of a metadata field named in a ``WEB2TEXT_METADATA`` list: ``web2text_authors``...
METADATA_FIELD_PREFIX = "web2text_"

#: The spider attribute that overrides ``WEB2TEXT_THRESHOLD``.
SPIDER_THRESHOLD_ATTRIBUTE = "web2text_threshold"
#: ``Request.meta`` keys: ``False`` leaves the response's items unlabelled; a threshold for its items.
META_ENABLED = "web2text"
META_THRESHOLD = "web2text_threshold"


def unknown_settings(settings: Any) -> list[tuple[str, str | None]]:
    """Each setting named with the package's prefix that the package does not know, with the nearest known name
    (``None`` when none is near): ``WEB2TEXT_TRESHOLD`` → ``WEB2TEXT_THRESHOLD``."""
    known = sorted(DEFAULTS.keys() | OTHER_SETTINGS)
    unknown = []
    for name in settings:
        if isinstance(name, str) and name.upper().startswith(SETTINGS_PREFIX) and name not in known:
            near = difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.75)
            unknown.append((name, near[0] if near else None))
    return sorted(unknown)


def warn_unknown_settings(settings: Any) -> None:
    """Log a warning for each unknown ``WEB2TEXT_`` setting, once per settings object."""
    key = id(settings)
    known = _checked_settings.get(key)
    if known is not None and known() is settings:
        return
    try:
        _checked_settings[key] = weakref.ref(settings, lambda _, key=key: _checked_settings.pop(key, None))
    except TypeError:  # not weak-referenceable: checked every time
        pass
    for name, near in unknown_settings(settings):
        hint = (
            f"; did you mean {near}?" if near else f"; see the settings documentation for the {SETTINGS_PREFIX}* names"
        )
        logger.warning("Unknown setting %s is ignored%s", name, hint)


def _integer(settings: Any, name: str, minimum: int) -> int:
    """An integer setting, with a message that names it (Scrapy's ``getint`` does not)."""
    value = settings.get(name, DEFAULTS[name])
    try:
        number = int(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None or number < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return number


def _boolean(settings: Any, name: str) -> bool:
    """A boolean setting (``True``/``False``, ``1``/``0``, ``"true"``/``"false"``), with a message that names it."""
    try:
        return settings.getbool(name, DEFAULTS[name])
    except ValueError:
        raise ValueError(f"{name} must be True or False (or 1/0), not {settings.get(name)!r}") from None


def parse_threshold(value: Any, source: str) -> float | None:
    """A threshold from a setting, a spider attribute or a request's meta: ``None``, or a number in (0, 1)."""
    if value is None or value == "":
        return None
    try:
        threshold = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{source} must be a number between 0 and 1, not {value!r}") from None
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"{source} must lie strictly between 0 and 1, not {threshold}")
    return threshold


def metadata_fields(value: Any) -> tuple[tuple[str, str], ...]:
    """``WEB2TEXT_METADATA`` as ``((metadata field, item field), ...)``: a list (or comma-separated string) of
    :data:`~scrapy_web2text.metadata.FIELDS` names, each into ``web2text_<name>``, or a dict naming the item fields."""
    from ..metadata.model import FIELDS

    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = value.strip()
        if value.startswith("{"):
            try:
                value = json.loads(value)
            except ValueError as error:
                raise ValueError(f"WEB2TEXT_METADATA: not a JSON object ({error}): {value[:200]!r}") from None
        else:
            value = [name for name in value.split(",") if name.strip()]
    pairs = (
        [(str(name).strip(), str(field).strip()) for name, field in dict(value).items()]
        if hasattr(value, "items")
        else [(str(name).strip(), METADATA_FIELD_PREFIX + str(name).strip()) for name in value]
    )
    unknown = [name for name, _ in pairs if name not in FIELDS]
    if unknown:
        raise ValueError(
            f"WEB2TEXT_METADATA: unknown field(s) {', '.join(map(repr, unknown))}; choose from {', '.join(FIELDS)}"
        )
    if any(not field for _, field in pairs):
        raise ValueError("WEB2TEXT_METADATA: every metadata field needs an item field name")
    return tuple(dict.fromkeys(pairs))


@dataclass(frozen=True)
class Web2TextConfig:
    """The settings of one crawler, read and checked once."""

    model: str
    method: str
    threshold: float | None
    text_field: str
    blocks_field: str
    include_blocks: bool
    html_field: str | None
    url_field: str | None
    drop_html: bool
    max_bytes: int
    concurrency: int
    block_form: str = "compact"
    formats: tuple[str, ...] = ()
    title_field: str | None = "title"
    page_type_field: str | None = None
    blas_threads: str | None = None
    pool: str = "thread"
    show_dir: str | None = None
    show_every: int = 10
    #: ``WEB2TEXT_METADATA``: (metadata field, item field) pairs.
    metadata: tuple[tuple[str, str], ...] = ()
    error_field: str | None = None
    #: ``WEB2TEXT_RULES``: whether the rules after decoding run (``extract(rules=...)``).
    rules: bool = True

    @staticmethod
    def check_enabled(settings: Any) -> None:
        """``NotConfigured`` when ``WEB2TEXT_ENABLED`` is False."""
        # Imported here, not at the top: worker processes unpickle this class and need no Scrapy.
        from scrapy.exceptions import NotConfigured

        if not _boolean(settings, "WEB2TEXT_ENABLED"):
            raise NotConfigured("WEB2TEXT_ENABLED is False")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Web2TextConfig:
        """Read the crawler's settings; ``NotConfigured`` when disabled, ``ValueError`` when wrong."""
        settings = crawler.settings

        def get(name: str) -> Any:
            return settings.get(name, DEFAULTS[name])

        cls.check_enabled(settings)
        warn_unknown_settings(settings)
        from ..labellers import get_labeller

        method = str(get("WEB2TEXT_METHOD"))
        get_labeller(method)  # unknown names fail here, at start-up
        threshold = parse_threshold(get("WEB2TEXT_THRESHOLD"), "WEB2TEXT_THRESHOLD")
        spider = getattr(crawler, "spider", None)
        if spider is not None and getattr(spider, SPIDER_THRESHOLD_ATTRIBUTE, None) is not None:
            threshold = parse_threshold(
                getattr(spider, SPIDER_THRESHOLD_ATTRIBUTE), f"spider attribute {SPIDER_THRESHOLD_ATTRIBUTE}"
            )
        text_field = str(get("WEB2TEXT_TEXT_FIELD") or "")
        blocks_field = str(get("WEB2TEXT_BLOCKS_FIELD") or "")
        include_blocks = _boolean(settings, "WEB2TEXT_INCLUDE_BLOCKS")
        block_form = str(get("WEB2TEXT_BLOCKS") or "none").lower()
        if block_form not in BLOCK_FORMS:
            raise ValueError(f"WEB2TEXT_BLOCKS must be one of {', '.join(BLOCK_FORMS)}, not {block_form!r}")
        include_blocks = include_blocks and block_form != "none"
        formats = []
        for name in settings.getlist("WEB2TEXT_FORMATS", DEFAULTS["WEB2TEXT_FORMATS"]):
            name = str(name).strip().lower()
            if name != "text" and name not in FORMAT_FIELDS:
                raise ValueError(f"WEB2TEXT_FORMATS: unknown format {name!r}; choose from text, markdown, html")
            if name != "text" and name not in formats:
                formats.append(name)
        if not text_field or (include_blocks and not blocks_field):
            raise ValueError("WEB2TEXT_TEXT_FIELD and WEB2TEXT_BLOCKS_FIELD must name item fields")
        concurrency = _integer(settings, "WEB2TEXT_CONCURRENCY", 1)
        pool = str(get("WEB2TEXT_POOL") or "").strip().lower()
        if pool not in POOL_KINDS:
            raise ValueError(
                f"WEB2TEXT_POOL must be one of {', '.join(map(repr, POOL_KINDS))}, not {get('WEB2TEXT_POOL')!r}"
            )
        show_every = settings.getint("WEB2TEXT_SHOW_EVERY", DEFAULTS["WEB2TEXT_SHOW_EVERY"])
        if show_every < 1:
            raise ValueError(f"WEB2TEXT_SHOW_EVERY must be at least 1, not {show_every}")
        return cls(
            model=str(get("WEB2TEXT_MODEL") or "default"),
            method=method,
            threshold=threshold,
            text_field=text_field,
            blocks_field=blocks_field,
            include_blocks=include_blocks,
            html_field=str(get("WEB2TEXT_HTML_FIELD") or "") or None,
            url_field=str(get("WEB2TEXT_URL_FIELD") or "") or None,
            drop_html=_boolean(settings, "WEB2TEXT_DROP_HTML"),
            max_bytes=_integer(settings, "WEB2TEXT_MAX_BYTES", 0),
            concurrency=concurrency,
            block_form=block_form if include_blocks else "none",
            formats=tuple(formats),
            title_field=str(get("WEB2TEXT_TITLE_FIELD") or "") or None,
            page_type_field=str(get("WEB2TEXT_PAGE_TYPE_FIELD") or "") or None,
            blas_threads=None if get("WEB2TEXT_BLAS_THREADS") in (None, "") else str(get("WEB2TEXT_BLAS_THREADS")),
            pool=pool,
            error_field=str(get("WEB2TEXT_ERROR_FIELD") or "") or None,
            rules=_boolean(settings, "WEB2TEXT_RULES"),
            metadata=metadata_fields(get("WEB2TEXT_METADATA")),
            show_dir=str(get("WEB2TEXT_SHOW_DIR") or "") or None,
            show_every=show_every,
        )

    @property
    def output_fields(self) -> tuple[str, ...]:
        """The fields every labelled item gets (the optional title field is not among them)."""
        fields = (self.text_field, self.blocks_field) if self.include_blocks else (self.text_field,)
        return fields + tuple(FORMAT_FIELDS[name] for name in self.formats) + tuple(item for _, item in self.metadata)
