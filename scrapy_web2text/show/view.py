"""One self-contained HTML file showing what the model kept on a page, with labels a reader can correct.

The page is shown as its author laid it out: its own markup, inline styles and ``<style>`` sheets, sanitised
(:mod:`scrapy_web2text.show.sanitise`).  Each block's text is wrapped in a ``<span data-w2t="i">``.  The view's
own bar, side panel and outlines live in the shadow root of one element shown in the top layer, out of reach of
the page's style sheets: its script (allowed by its hash in the Content-Security-Policy, the only script that
runs) draws a box over each block's line boxes, outlined by label (solid green: content; dashed red: boilerplate)
and shaded by p(content), maps a click to the block under it (so overlays of the page cannot hide a block from
the mouse), flips labels and saves them as JSON (:data:`LABELS_FORMAT`), which ``web2text train --labels`` reads
back.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from lxml import etree

from ..extraction import Extraction, extract
from .sanitise import sanitise_body, strip_view_markers, style_sheet

#: The ``format`` of a saved labels file.
LABELS_FORMAT = "web2text-labels/1"
_CLASS_NAMES = re.compile(r"[^\w -]")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def sha256_of(data: str | bytes) -> str:
    """The hash a labels file names its page by (of the bytes given to the view; text is hashed as UTF-8)."""
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else bytes(data)).hexdigest()


def build_view(
    data: str | bytes,
    url: str | None = None,
    *,
    model: Any = None,
    threshold: float | None = None,
    encoding: str | None = None,
    content_type: str | None = None,
    name: str | None = None,
    method: str = "web2text",
    extraction: Extraction | None = None,
) -> str:
    """The view of ``data`` (an HTML page) as one HTML document.

    ``extraction`` is the page's result when the caller has it; otherwise the page is extracted here with ``model``,
    ``threshold`` and ``method``.  ``name`` names the labels file the view saves (``NAME.labels.json``).  A body that
    is not HTML raises ``ValueError``.
    """
    if extraction is None:
        extraction = extract(data, url, model=model, threshold=threshold, encoding=encoding, content_type=content_type)
    if extraction.skipped:
        raise ValueError(f"not an HTML page ({extraction.skipped}): nothing to show")
    digest = sha256_of(data)
    blocks = extraction.blocks
    xpaths = extraction.xpaths()
    document = {
        "format": LABELS_FORMAT,
        "url": extraction.url,
        "sha256": digest,
        "model": extraction.model,
        "threshold": _threshold(extraction, model, threshold),
        "page_type": getattr(extraction, "page_type", None),
        "labels_file": f"{name or 'page-' + digest[:12]}.labels.json",
        "main_text": extraction.main_text,
        "blocks": [
            {
                "xpath": xpath,
                "label": block.label,
                "p": round(block.probability, 4),
                "text": block.text,
                "br": bool(break_before),
            }
            for block, xpath, break_before in zip(blocks, xpaths, _breaks(extraction, len(blocks)))
        ],
    }
    body, sheets, body_class = _marked_page(extraction, xpaths)
    return _document(document, sanitise_body(body), style_sheet(sheets), body_class)


def _threshold(extraction: Extraction, model: Any, threshold: float | None) -> float | None:
    """The threshold the page was labelled at: the one given, or the model's own moved by the page type's offset."""
    if threshold is not None or not extraction.method.startswith("web2text"):
        return threshold
    from ..labellers.web2text import page_threshold, resolve_model
    from ..labellers.web2text.rules import PageTypeGuess

    page_type = extraction.page_type
    return float(page_threshold(resolve_model(model), PageTypeGuess.certain(page_type and page_type.label)))


def _breaks(extraction: Extraction, count: int) -> list[bool]:
    """Whether each block starts a new line in the main text (what ``join_main_text`` reads)."""
    pending = extraction._labelled_page()
    if pending is not None and len(pending.page.break_before) == count:
        return pending.page.break_before.tolist()
    return [True] * count


def _marked_page(extraction: Extraction, xpaths: list[str | None]) -> tuple[str, list[str], str]:
    """A copy of the page's body with each block's text in a marked span (the page's tree is left as it is),
    the page's style sheets, and the body's classes."""
    root = extraction.root
    if root is None:
        return "", [], ""
    copied = copy.deepcopy(root)
    twins = dict(zip(root.iter(), copied.iter()))
    from_noscript = extraction.from_noscript
    for element in list(copied.iter()):
        if isinstance(element.tag, str):
            strip_view_markers(element)
            if element.tag == "noscript":
                _open_noscript(element, keep=from_noscript)
    wrapped: set[tuple[Any, bool]] = set()
    for index, block in enumerate(extraction.blocks):
        twin = twins.get(block.element) if block.element is not None else None
        if twin is None or (twin, block.in_tail) in wrapped:
            continue  # a text node two blocks share is shown once, with the first
        wrapped.add((twin, block.in_tail))
        _wrap(twin, block.in_tail, index, block, xpaths[index])
    sheets = [element.text or "" for element in copied.iter("style")]
    body = copied.find(".//body")
    body = copied if body is None else body
    body_class = _CLASS_NAMES.sub("", body.get("class") or "")
    return etree.tostring(body, method="html", encoding="unicode", with_tail=False), sheets, body_class


def _open_noscript(element: Any, keep: bool) -> None:
    """A page read from its ``<noscript>`` shows it as a ``div``; other pages drop it, as a browser running scripts
    does (its tail text stays)."""
    if keep:
        element.tag = "div"
        return
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


#: Characters lxml refuses in text set from Python (the parser keeps them from the page): shown as U+FFFD.
_NOT_XML = dict.fromkeys([*range(9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF], 0xFFFD)


def _xml_text(text: str | None) -> str | None:
    return text.translate(_NOT_XML) if text else text


def _wrap(element: Any, in_tail: bool, index: int, block: Any, xpath: str | None) -> None:
    span = etree.Element("span")
    span.set("data-w2t", str(index))
    span.set("class", f"w2t-block w2t-{block.label}")
    span.set("style", "display: inline !important")  # a rule of the page hiding spans or classes spares it
    span.set("title", f"p(content) {block.probability:.3f} · {len(block.text)} characters · {xpath or '?'}")
    if in_tail:
        span.text, element.tail = _xml_text(element.tail), None
        element.addnext(span)
    else:
        span.text, element.text = _xml_text(element.text), None
        element.insert(0, span)


def _json_for_script(value: Any) -> str:
    """JSON that cannot end the ``<script>`` element holding it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("\u2028", "\\u2028")


#: Held on the root by its style attribute (which no page rule outweighs): what could hide the view's top-layer host.
_ROOT_STYLE = "; ".join(
    f"{name}: {value} !important"
    for name, value in (
        ("display", "block"),
        ("visibility", "visible"),
        ("content-visibility", "visible"),
        ("opacity", "1"),
        ("filter", "none"),
        ("transform", "none"),
        ("clip-path", "none"),
        ("mask", "none"),
        ("zoom", "1"),
        ("pointer-events", "auto"),
    )
)
#: The page's room beside the view's bar and panel.
_PAGE_STYLE = "display: block !important; margin: 64px 31vw 0 0 !important; pointer-events: auto !important"


def _document(data: dict[str, Any], body: str, page_css: str, body_class: str) -> str:
    script = _asset("view.js")
    script_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
        f"script-src 'sha256-{script_hash}'; base-uri 'none'; form-action 'none'"
    )
    title = html.escape(f"web2text view: {data['url'] or data['labels_file']}")
    content = sum(block["label"] == "content" for block in data["blocks"])
    facts = [
        ("model", data["model"]),
        ("threshold", None if data["threshold"] is None else f"{data['threshold']:g}"),
        ("page type", _page_type_words(data["page_type"])),
        ("blocks", f"{content} content of {len(data['blocks'])}"),
    ]
    header = " ".join(
        f'<span class="w2t-fact">{html.escape(label)} <b id="w2t-{label.replace(" ", "-")}">{html.escape(str(value))}'
        "</b></span>"
        for label, value in facts
        if value is not None
    )
    return f"""<!DOCTYPE html>
<html style="{_ROOT_STYLE}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">
<title>{title}</title>
<style>{page_css}</style>
</head><body class="{body_class} w2t-view" style="display: block !important">
<div id="w2t-page" style="{_PAGE_STYLE}">{body}</div>
<div id="w2t-view" popover="manual"><template shadowrootmode="open"><style>{_asset("view.css")}</style>
<div id="w2t-layer"><div id="w2t-boxes"></div></div>
<div id="w2t-bar"><span class="w2t-fact" id="w2t-url">{html.escape(data["url"] or "")}</span> {header}
<span class="w2t-fact">changed <b id="w2t-changed">0</b></span>
<button type="button" id="w2t-save">Save labels</button>
<span id="w2t-info">click a block (or F) to flip its label; J/K: next/previous block; S: save</span>
</div>
<div id="w2t-panel"><h2>Main text</h2><pre id="w2t-main-text">{html.escape(data["main_text"])}</pre>
<h2>Saved labels</h2><pre id="w2t-saved"></pre></div></template></div>
<script type="application/json" id="w2t-data">{_json_for_script(data)}</script>
<script>{script}</script>
</body></html>
"""


def write_view(path: str | Path, view: str) -> Path:
    target = Path(path)
    target.write_text(view, encoding="utf-8")
    return target


def _page_type_words(page_type) -> str:
    """``article, p 0.98``: the page's type and the classifier's probability, or ``not classified``."""
    if page_type is None:
        return "not classified"
    label, probability = page_type
    return f"{label}, p {probability:.2f}"
