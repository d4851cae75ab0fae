"""What extract() gives besides the main text: skipped bodies, title, Markdown, clean HTML, block paths."""

from __future__ import annotations

import asyncio

import pytest
from lxml import html as lxml_html

from scrapy_web2text import Web2TextPipeline, extract
from scrapy_web2text.extraction.output import clean_html, find_title, metadata_title, to_markdown
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.sniff import non_html_reason

from ..scrapy_support import EXAMPLE_PROJECT, make_crawler, stat

SITE = EXAMPLE_PROJECT / "site"

ARTICLE = """<html><head><title>Growing winter tomatoes | Garden Notes</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li></ul></nav>
<article><h1>Growing winter tomatoes</h1>
<p>Tomatoes love warmth, yet a few varieties crop through the winter under glass, and this is how we grow them.</p>
<h2>What you need</h2>
<ul><li>A cold frame or an unheated greenhouse with plenty of light</li>
<li>Seeds of a short-season variety, sown in late summer</li></ul>
<blockquote>Patience is the main ingredient of every winter harvest.</blockquote>
<pre><code>water = 2 * litres</code></pre>
<table><tr><th>Month</th><th>Task</th></tr><tr><td>August</td><td>Sow</td></tr></table></article>
<footer>Copyright 2026 Garden Notes</footer></body></html>"""


def everything(html: str):
    page = parse_page(html)
    return page, page.block_elements, [True] * len(page)


@pytest.mark.parametrize(
    ("path", "reason"), [("images/logo.png", "binary:png"), ("files/planting-calendar.pdf", "binary:pdf")]
)
def test_binary_bodies_give_empty_main_text_and_a_reason(path, reason):
    result = extract((SITE / path).read_bytes())
    assert (result.main_text, result.blocks, result.skipped) == ("", (), reason)
    assert result.markdown == "" and result.html == "" and result.title is None


def test_declared_content_type_and_control_characters():
    assert extract("<p>some text here</p>", content_type="application/json").skipped == "not_html:json"
    assert extract(b"<p>fine</p>", content_type=b"text/html; charset=utf-8").skipped is None
    assert extract(bytes(range(256)) * 4).skipped == "binary"
    # UTF-16 with a BOM is text, NULs and all.
    assert non_html_reason("<p>hello</p>".encode("utf-16")) is None
    assert extract("<p>hello</p>".encode("utf-16")).main_text == "hello"


def test_markdown_keeps_headings_lists_tables_quotes_and_code():
    page, elements, keep = everything(ARTICLE)
    markdown = to_markdown(clean_html(elements, keep))
    assert "# Growing winter tomatoes" in markdown.splitlines()
    assert "## What you need" in markdown.splitlines()
    assert "- A cold frame or an unheated greenhouse with plenty of light" in markdown.splitlines()
    assert "| August | Sow |" in markdown and "> Patience is the main ingredient" in markdown
    assert "```\nwater = 2 * litres\n```" in markdown


def test_labels_decide_what_the_html_and_markdown_keep():
    page, elements, _ = everything(ARTICLE)
    keep = [text not in ("Home", "About us", "Copyright 2026 Garden Notes") for text in page.texts]
    html = clean_html(elements, keep)
    assert "Home" not in html and "Copyright" not in html and "<h2>What you need</h2>" in html
    assert "Home" not in to_markdown(html)
    assert clean_html(elements, [False] * len(keep)) == ""


def test_extract_markdown_with_the_shipped_model():
    result = extract(ARTICLE)
    lines = result.markdown.splitlines()
    assert "## What you need" in lines
    assert any(line.startswith("- ") for line in lines)
    # Markdown holds what the model keeps and nothing it drops (the menu, p(content) 0.08).
    dropped = {block.text for block in result.blocks if not block.is_content}
    assert "Home" in dropped and not any(text in result.markdown for text in dropped)
    assert result.html.startswith("<div>") and "<h2>" in result.html


def test_title_from_headings_and_metadata():
    assert extract(ARTICLE).title == "Growing winter tomatoes"
    og = '<html><head><meta property="og:title" content="The real headline"></head><body><p>x</p></body></html>'
    assert extract(og).title == "The real headline"
    suffix = "<html><head><title>Night trains of Europe - Travel Weekly</title></head><body><p>text</p></body></html>"
    assert extract(suffix).title == "Night trains of Europe"
    # No h1 matching: a heading block that matches the metadata title wins over the first h1.
    page, elements, keep = everything(
        "<title>Seed swap | Forum</title><h1>Forum</h1><h2>Seed swap</h2><p>Let us swap seeds this spring.</p>"
    )
    assert metadata_title(page.root) == "Seed swap"
    assert find_title(page.root, elements, keep) == "Seed swap"
    assert extract("<p>no title at all</p>").title is None


def test_title_reads_headings_in_order_and_falls_back_to_the_kept_h1():
    # A heading of no words never matches; the heading that matches the metadata title wins over earlier h1s.
    page, elements, _ = everything("<title>Real news</title><h1>Menu</h1><h2>***</h2><h2>Real news</h2><p>Body.</p>")
    assert find_title(page.root, elements, [False, True, True, True]) == "Real news"
    # Without a match: the first kept h1, else the first h1; a blank h1 is passed over.
    page, elements, _ = everything("<h1>Site name</h1><h2>Section</h2><h1>Story headline</h1><p>Body text.</p>")
    assert find_title(page.root, elements, [False, True, True, True]) == "Story headline"
    assert find_title(page.root, elements, [False, False, False, True]) == "Site name"
    assert find_title(page.root, elements, [True, True, True, True], page.tagged) == "Site name"


def test_compact_blocks_point_at_their_elements():
    result = extract(ARTICLE)
    tree = lxml_html.fromstring(ARTICLE).getroottree()
    for block, (label, probability, xpath) in zip(result.blocks, result.block_records("compact")):
        assert label == block.label and probability == round(block.probability, 2)
        (element,) = tree.xpath(xpath)
        assert block.text in " ".join(element.text_content().split())


def test_a_binary_item_body_is_counted_as_skipped(untrained_model):
    crawler = make_crawler({"WEB2TEXT_MODEL": str(untrained_model)})
    pipeline = Web2TextPipeline.from_crawler(crawler)
    png = (SITE / "images" / "logo.png").read_bytes()

    async def run():
        return [await pipeline.process_item(item) for item in ({"html": png}, {"html": ARTICLE})]

    out = asyncio.run(run())
    assert out[0]["main_text"] == "" and out[0]["web2text_blocks"] == ""
    assert out[1]["main_text"] and out[1]["title"] == "Growing winter tomatoes"
    assert stat(crawler, "skipped/binary:png") == 1 and stat(crawler, "pages") == 1


def test_formats_setting_fills_markdown_and_html_fields(untrained_model):
    crawler = make_crawler(
        {
            "WEB2TEXT_MODEL": str(untrained_model),
            "WEB2TEXT_FORMATS": ["text", "markdown", "html"],
            "WEB2TEXT_THRESHOLD": 0.001,
        }
    )
    pipeline = Web2TextPipeline.from_crawler(crawler)
    (item,) = asyncio.run(_one(pipeline, {"html": ARTICLE, "title": "Set by the spider"}))
    assert "## What you need" in item["main_markdown"] and "<h2>What you need</h2>" in item["main_html"]
    assert item["title"] == "Set by the spider"
    with pytest.raises(ValueError, match="WEB2TEXT_FORMATS"):
        Web2TextPipeline.from_crawler(
            make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_FORMATS": ["pdf"]})
        )
    with pytest.raises(ValueError, match="WEB2TEXT_BLOCKS"):
        Web2TextPipeline.from_crawler(make_crawler({"WEB2TEXT_MODEL": str(untrained_model), "WEB2TEXT_BLOCKS": "tiny"}))


async def _one(pipeline, item):
    return [await pipeline.process_item(item)]


def test_control_characters_do_not_break_the_formats():
    html = '<h1>Head\x0bline</h1><p>Body \x01text\x1f with <a href="/x\x02y">a link</a> and more words here.</p>'
    page, elements, keep = everything(html)
    assert "Body  text  with" in clean_html(elements, keep)
    assert "[a link](/xy)" in to_markdown(clean_html(elements, keep))
    result = extract(html, threshold=0.001)
    assert isinstance(result.markdown, str) and isinstance(result.title, str)


def test_each_method_gets_its_own_weights(untrained_model):
    from scrapy_web2text import Web2TextModel
    from scrapy_web2text.labellers.base import load_labeller_weights
    from scrapy_web2text.labellers.boilernet import BoilerNetModel
    from scrapy_web2text.labellers.crf import CRFModel

    assert isinstance(load_labeller_weights("crf"), CRFModel)
    assert isinstance(load_labeller_weights("boilernet", "default"), BoilerNetModel)
    assert load_labeller_weights("web2text", str(untrained_model)).name == Web2TextModel.load(untrained_model).name
    assert load_labeller_weights("bte", "default") is None
    with pytest.raises(ValueError, match="not a CRF baseline model"):
        load_labeller_weights("crf", str(untrained_model))
    with pytest.raises(ValueError, match="unknown method"):
        load_labeller_weights("no-such-method")


def test_block_xpaths_equal_libxml2_paths():
    """Compact block paths are built once per parent's children (libxml2's getpath rescans the siblings on every
    call: quadratic on 5,000 sibling blocks); the paths are exactly libxml2's."""
    from scrapy_web2text.extraction.output import _AbsolutePaths
    from scrapy_web2text.page import parse_page

    html = (
        "<html><body><div id='a'><p>x</p><!-- c --><p>y</p><span>z</span></div>"
        + "<p>"
        + "<b>word</b> " * 3000
        + "</p><table><tr><td>1</td><td>2</td></tr></table></body></html>"
    )
    page = parse_page(html)
    tree = page.root.getroottree()
    paths = _AbsolutePaths(tree)
    for element in page.root.iter():
        assert paths(element) == tree.getpath(element)
    children = len(paths.steps)
    assert children == sum(1 for element in page.root.iter() if isinstance(element.tag, str)) - 1  # numbered once


def test_the_default_block_form_keeps_a_label_per_block_in_under_a_third_of_the_bytes():
    import json

    def size(item) -> int:
        return len(json.dumps(item, ensure_ascii=False).encode("utf-8"))

    for name in ("rain-garden.html", "winter-tomatoes.html", "night-train.html"):
        path = SITE / "articles" / name
        result = extract(path.read_text(encoding="utf-8"), path.as_uri())
        base = {"url": path.as_uri(), "title": result.title, "main_text": result.main_text}
        labels, compact = result.block_records("labels"), result.block_records("compact")
        assert labels == "".join("1" if label == "content" else "0" for label, _, _ in compact)
        assert 3 * size({**base, "web2text_blocks": labels}) <= size({**base, "web2text_blocks": compact}), name
