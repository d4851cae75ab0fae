"""Regression tests for the hostile inputs of issue 32, one (or a few) per defect, named after it.

Growth checks count work or use generous ratios: 10x the page must cost well under 100x (quadratic code costs
about 100x), never a wall-clock budget that a loaded machine could miss.
"""

from __future__ import annotations

import base64
import gc
import io
import random
import re
import time
import tracemalloc
from collections import Counter

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_web2text import extract
from scrapy_web2text.batch.runner import Options, record_row
from scrapy_web2text.batch.warc import read_html
from scrapy_web2text.page.decode import decode_html, read_bytes, without_binary_tail
from scrapy_web2text.page.sniff import non_html_reason

# --- 1. legacy-encoded pages passed as bytes ---------------------------------------------------------------

JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で泣いていた。"
CHINESE = "我们的祖国是花园，花园的花朵真鲜艳。和暖的阳光照耀着我们，每个人脸上都笑开颜。今天天气很好，一起去公园。"
KOREAN = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다."
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. В чащах юга жил бы цитрус? Да, но фальшивый!"
#: (text, encoding) of the legacy pages a crawl still meets.
LEGACY = [
    (JAPANESE, "shift_jis"),
    (JAPANESE, "euc-jp"),
    (CHINESE, "gb18030"),
    (CHINESE, "gbk"),
    (KOREAN, "euc-kr"),
    (RUSSIAN, "windows-1251"),
    (RUSSIAN, "koi8-r"),
]


def legacy_page(text: str, meta: str | None = None, repeats: int = 8) -> str:
    head = f"<meta charset={meta}>" if meta else ""
    return f"<html><head>{head}<title>{text[:6]}</title></head><body><p>{text * repeats}</p></body></html>"


@pytest.mark.parametrize(("text", "encoding"), LEGACY)
@pytest.mark.parametrize("declared", ["meta", "content_type", "encoding", "undeclared"])
def test_legacy_encoded_bytes_are_decoded_not_thrown_away_as_binary(text, encoding, declared):
    data = legacy_page(text, encoding if declared == "meta" else None).encode(encoding)
    keywords = {"content_type": f"text/html; charset={encoding}"} if declared == "content_type" else {}
    if declared == "encoding":
        keywords = {"encoding": encoding}
    result = extract(data, **keywords)
    assert result.skipped is None
    assert text[:12] in result.main_text
    assert non_html_reason(data, keywords.get("content_type"), keywords.get("encoding")) is None


def test_the_issues_shift_jis_page_gives_its_text():
    sentence = "吾輩は猫である。名前はまだ無い。"
    html = "<html><head><meta charset=shift_jis><title>猫</title></head><body><p>" + sentence * 20
    result = extract((html + "</p></body></html>").encode("shift_jis"))
    assert result.skipped is None and "吾輩は猫である。名前はまだ無い。" in result.main_text
    undeclared = html.replace("<meta charset=shift_jis>", "") + "</p></body></html>"
    assert "吾輩は猫である" in extract(undeclared.encode("shift_jis")).main_text


def test_content_type_charset_counts_like_encoding():
    data = legacy_page(RUSSIAN, repeats=2).encode("koi8_r")
    by_type = extract(data, content_type="text/html; charset=KOI8-R")
    assert RUSSIAN[:20] in by_type.main_text
    assert by_type.main_text == extract(data, encoding="koi8-r").main_text


def test_a_meta_charset_after_the_prescan_window_is_obeyed():
    head = '<meta name="description" content="words">' * 200 + "<meta charset=windows-1251>"
    html = f"<html><head>{head}</head><body><p>{RUSSIAN * 3}</p></body></html>"
    assert len(html.split("<meta charset")[0]) > 4096
    assert RUSSIAN[:30] in extract(html.encode("cp1251")).main_text
    # Text of the body that looks like a declaration is not read as one.
    body = f"<html><head></head><body><p>{'Words of an article. ' * 300}</p><pre>&lt;meta charset=koi8-r&gt;</pre>"
    assert read_bytes(body.encode()).encoding == "utf-8"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_declared_by_an_xml_declaration_is_read(codec):
    label = codec.replace("-le", "le").replace("-be", "be")
    html = f'<?xml version="1.0" encoding="{label}"?><html><body><p>{"Words of the article here. " * 20}</p>'
    result = extract((html + "</body></html>").encode(codec))
    assert result.skipped is None and "Words of the article here." in result.main_text


def test_valid_html_followed_by_megabytes_of_binary_junk_keeps_its_article():
    article = "<html><body><h1>Headline</h1><p>" + "The article is read before the junk starts. " * 30 + "</p>"
    junk = random.Random(3).randbytes(2_000_000)
    result = extract(article.encode() + junk)
    assert result.skipped is None and "The article is read before the junk starts." in result.main_text


def test_only_binary_that_runs_to_the_end_is_cut_off():
    head = ("<html><body><p>" + "Text before the binary. " * 60 + "</p>").encode()
    junk = random.Random(4).randbytes(5000)
    tail = ("<p>" + "Text after the binary. " * 60 + "</p></body></html>").encode()
    cut = without_binary_tail(head + junk)
    assert cut.startswith(head) and len(cut) < len(head) + 100  # at the junk's first control character
    assert without_binary_tail(head + junk + tail) == head + junk + tail  # text again at the end: no tail
    assert without_binary_tail(head + tail) == head + tail


def test_bytes_that_are_text_in_no_encoding_are_still_binary():
    noise = random.Random(5).randbytes(4096)
    assert extract(noise).skipped == "binary"
    assert extract(bytes(range(256)) * 4).skipped == "binary"
    assert read_bytes(noise).binary


def test_mostly_utf8_with_a_stray_legacy_byte_stays_utf8():
    data = ("<p>" + "Crème brûlée à la façade. " * 10).encode() + b"caf\xe9</p>"
    text = decode_html(data)
    assert "Crème brûlée à la façade." in text and "caf\ufffd" in text


def _warc_with_legacy_pages(path) -> list[tuple[str, str]]:
    pages = []
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for number, (text, encoding) in enumerate(LEGACY[:5]):
            url = f"http://legacy.example/{number}.html"
            body = legacy_page(text).encode(encoding)  # no <meta>: only the HTTP header says the charset
            headers = [("Content-Type", f"text/html; charset={encoding}"), ("Content-Length", str(len(body)))]
            http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))
            pages.append((url, text))
    return pages


def test_warc_records_with_the_charset_in_their_http_header_decode(tmp_path):
    pages = dict(_warc_with_legacy_pages(tmp_path / "legacy.warc.gz"))
    counts: Counter = Counter()
    rows = [record_row(record, Options()) for record in read_html(tmp_path / "legacy.warc.gz", counts)]
    assert counts["html"] == 5 and len(rows) == 5
    for row in rows:
        assert "skipped" not in row
        assert pages[row["url"]][:12] in row["main_text"]


# --- 2. deep nesting through every output ---------------------------------------------------------------------

WORDS = "Some words of the article. " * 40
DEEP_PAGES = {
    "400 divs": "<div>" * 400 + f"<p>{WORDS}</p>",
    "5,000 nested tables": "<table><tr><td>" * 5000 + f"<p>{WORDS}</p>",
    "10,000 nested b": "<p>" + "<b>" * 10000 + WORDS + "</p>",
    "400 nested lists": "<ul><li>" * 400 + WORDS,
    "2,000 nested blockquotes": "<blockquote>" * 2000 + f"<p>{WORDS}</p>",
}


@pytest.mark.parametrize("name", DEEP_PAGES)
def test_markdown_and_every_output_survive_deep_nesting_without_recursion_error(name):
    result = extract(DEEP_PAGES[name])
    assert "Some words of the article." in result.main_text
    assert "Some words of the article." in result.markdown
    assert "Some words of the article." in result.html
    assert len(result.block_records("compact")) == len(result.blocks)
    result.title  # noqa: B018 - computed without raising
    assert result.html.count("<") < 4 * 200  # the clean tree nests at most MAX_OUTPUT_DEPTH deep


def test_paragraphs_past_the_output_depth_stay_apart():
    wrapped = "<section>" + "<article><div>" * 150 + "<p>Lead paragraph of the article, with words.</p>"
    html = wrapped + "".join(f"<p>Paragraph number {n} of the article, with words.</p>" for n in range(20))
    lines = [line.strip() for line in extract(html, threshold=0.001).markdown.splitlines()]
    assert "Lead paragraph of the article, with words." in lines
    assert all(f"Paragraph number {n} of the article, with words." in lines for n in range(20))


def test_a_failing_format_leaves_the_items_main_text_and_blocks(monkeypatch, untrained_model):
    from scrapy_web2text.extraction import output
    from scrapy_web2text.integration.chain import run_chain
    from tests.integration.test_process_pool import config_for

    def broken(html):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(output, "to_markdown", broken)  # an injected fault: no page breaks it any more
    config = config_for(untrained_model, WEB2TEXT_FORMATS=["text", "markdown", "html"], WEB2TEXT_THRESHOLD=0.001)
    result = run_chain(f"<html><body><p>{WORDS}</p></body></html>", "http://example.com/", None, config)
    assert "Some words of the article." in result.main_text and result.blocks
    assert result.markdown == "" and "Some words" in result.html
    assert result.failed_formats == ("markdown: RecursionError: maximum recursion depth exceeded",)


# --- 3. safe outputs ------------------------------------------------------------------------------------------

#: The spellings of a script link browsers run, and the other schemes that must never reach a reader.
HOSTILE_HREFS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " \x01javascript:alert(1)",
    "jav&#x09;ascript:alert(1)",
    "jav&#10;ascript:alert(1)",
    "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)",
    "javascript&colon;alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
]


def _links_page(hrefs: list[str], text: str = "") -> str:
    links = "".join(
        f'<p>Link {n} goes <a href="{href}">somewhere else</a> in this text.</p>' for n, href in enumerate(hrefs)
    )
    return f"<html><body><h1>Headline</h1><p>{WORDS}</p>{links}<p>{text}{WORDS}</p></body></html>"


def _rendered_markdown(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(markdown)


def _hrefs(html: str) -> list[str]:
    return re.findall(r"""href=["']?([^"' >]*)""", html)


@pytest.mark.parametrize("url", [None, "https://example.com/news/story.html"])
def test_script_and_data_links_are_gone_from_the_html_and_markdown(url):
    result = extract(_links_page(HOSTILE_HREFS), url, threshold=0.001)
    assert result.main_text.count("somewhere else") == len(HOSTILE_HREFS)  # the links' text stays
    for html in (result.html, _rendered_markdown(result.markdown)):
        assert "somewhere else" in html
        squashed = re.sub(r"[\s\x00-\x1f]+", "", html.lower())
        assert "javascript" not in squashed and "vbscript" not in squashed and "data:" not in squashed
        assert not _hrefs(html)


def test_links_are_made_absolute_when_the_url_is_known():
    hrefs = ["/a/page.html", "other.html", "https://elsewhere.org/x", "mailto:someone@example.com", "//cdn.example/x"]
    result = extract(_links_page(hrefs), "https://example.com/news/story.html", threshold=0.001)
    expected = [
        "https://example.com/a/page.html",
        "https://example.com/news/other.html",
        "https://elsewhere.org/x",
        "mailto:someone@example.com",
        "https://cdn.example/x",
    ]
    assert _hrefs(result.html) == expected
    assert _hrefs(_rendered_markdown(result.markdown)) == expected
    # Without a URL, relative links stay relative (nothing to resolve them against); schemes are still checked.
    assert _hrefs(extract(_links_page(hrefs[:2]), threshold=0.001).html) == hrefs[:2]


def test_page_text_never_becomes_raw_html_or_a_live_link_in_the_markdown():
    text = (
        "&lt;img src=x onerror=alert(1)&gt; [click](javascript:alert(1)) &lt;script&gt;alert(2)&lt;/script&gt; "
        "![x](http://tracker.example/p.gif) &lt;https://autolink.example&gt; [ref]: javascript:alert(3) "
        "&amp;lt;b&amp;gt; "
    )
    result = extract(_links_page([], text), threshold=0.001)
    rendered = _rendered_markdown(result.markdown)
    assert "<img" not in rendered and "<script" not in rendered and "<b>" not in rendered
    assert not _hrefs(rendered) and "<a " not in rendered
    # The text reads as the page shows it, escapes and all.
    assert "&lt;img src=x onerror=alert(1)&gt;" in rendered and "[click](javascript:alert(1))" in rendered
    assert "&lt;img" in result.html and "<img" not in result.html


def test_code_with_a_fence_inside_cannot_close_its_block():
    html = f"<html><body><p>{WORDS}</p><pre>```\n&lt;img src=x onerror=alert(1)&gt;\n```</pre><p>{WORDS}</p>"
    rendered = _rendered_markdown(extract(html, threshold=0.001).markdown)
    assert "<img" not in rendered and "&lt;img src=x" in rendered


# --- 4. quadratic outputs ----------------------------------------------------------------------------------


def _timed(function) -> float:
    """Seconds ``function()`` takes, the garbage collector paused: its full passes come when the heap crosses a
    threshold, not in proportion to the call, and one landing in the small run made 10x look like 60x."""
    gc.collect()
    gc.disable()
    try:
        clock = time.thread_time()
        function()
        return time.thread_time() - clock
    finally:
        gc.enable()


def _best_of(function, runs: int = 2) -> float:
    return max(min(_timed(function) for _ in range(runs)), 0.01)


def _growth(page, output, small: int) -> float:
    """How many times longer ``output`` takes on ``page(10 * small)`` than on ``page(small)``: each timed on a
    fresh extraction (outputs are computed once and kept), best of two, at least 10 ms (timer noise below)."""

    def timed(n: int) -> float:
        best = float("inf")
        for _ in range(2):
            result = extract(page(n))
            best = min(best, _timed(lambda: output(result)))  # noqa: B023 - called before the loop moves on
        return max(best, 0.01)

    return timed(10 * small) / timed(small)


#: Generous: linear code grows about 10x, quadratic code about 100x.
LINEAR = 30


@pytest.mark.slow
def test_many_kept_pieces_under_one_parent_give_html_and_markdown_in_linear_time():
    page = lambda n: "<p>" + "word <br>" * n + "</p>"  # noqa: E731
    assert _growth(page, lambda result: result.html, 3000) < LINEAR
    assert _growth(page, lambda result: result.markdown, 500) < LINEAR


def test_closed_dialogs_are_removed_in_linear_time():
    from scrapy_web2text.page import parse_page

    page = lambda n: f"<p>{WORDS}</p>" + "<dialog>x</dialog>y" * n  # noqa: E731
    small, large = _best_of(lambda: parse_page(page(2000))), _best_of(lambda: parse_page(page(20000)))
    assert large / small < LINEAR
    assert parse_page(page(3)).texts[-1] == "y y y"


def test_title_matching_costs_headings_times_a_bounded_title():
    from scrapy_web2text.extraction.output import MAX_TITLE_CHARS

    page = lambda n: "<title>" + "a" * (50 * n) + "</title>" + "<h2>aaaaaaaaaaa</h2>" * n  # noqa: E731
    assert _growth(page, lambda result: result.title, 1000) < LINEAR
    title = extract("<title>" + "Headline words " * 1000 + "</title><p>text</p>").title
    assert len(title) <= MAX_TITLE_CHARS


#: Page families that grow one dimension of a page, at ``n`` units, and the ``n`` of the smaller page (large
#: enough that it takes milliseconds, not timer noise).
FAMILIES = {
    "pieces under one parent": (lambda n: "<p>" + "word <br>" * (10 * n) + "</p>", 100),
    "nesting depth": (lambda n: "<div>" * n + f"<p>{WORDS}</p>" + "<table><tr><td>" * n + "<b>" * n + "cells", 100),
    "many blocks": (lambda n: "<h2>Heading</h2>" + "<p>A paragraph of words, <a href='/x'>linked</a>.</p>" * n, 1000),
    "long words": (lambda n: PARAGRAPH + "<p>" + "x" * (1000 * n) + "</p>" + PARAGRAPH, 100),
}
#: Every output a crawl or an API user reads (the text and blocks are read from a fresh extraction, timed with it).
OUTPUTS = {
    "main_text": None,
    "blocks": lambda result: result.blocks,
    "title": lambda result: result.title,
    "html": lambda result: result.html,
    "markdown": lambda result: result.markdown,
    "block records": lambda result: result.block_records("compact"),
}


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name", OUTPUTS)
def test_every_output_grows_linearly_with_the_page(family, name):
    (page, small), output = FAMILIES[family], OUTPUTS[name]

    def measured() -> float:
        if output is None:  # main_text is made inside extract(): time the whole call
            return _best_of(lambda: extract(page(10 * small))) / _best_of(lambda: extract(page(small)))
        return _growth(page, output, small)

    ratio = measured()
    if ratio >= LINEAR:  # measured again before it counts: a loaded machine stalls a run now and then
        ratio = min(ratio, measured())
    assert ratio < LINEAR, f"{name} on {family}: 10x the page took {ratio:.1f}x the time"


# --- 5. block XPaths on deep pages ------------------------------------------------------------------------


def test_block_xpaths_are_bounded_on_deep_pages():
    from scrapy_web2text.extraction.output import MAX_XPATH_CHARS
    from tests.helpers import python_paths

    result = extract("<div>" * 1900 + "<p>w</p>" * 5000)
    paths = [record[2] for record in result.block_records("compact")]
    assert len(paths) == 5000 and max(map(len, paths)) <= MAX_XPATH_CHARS
    assert paths[-1].startswith("//div/div") and paths[-1].endswith("/p[5000]")
    assert paths == python_paths(result.root, [(b.element, b.in_tail) for b in result.blocks])
    # A cut path still finds its block's element (among others: the cut drops the steps above).
    assert result.blocks[-1].element in result.root.getroottree().xpath(paths[-1])
    custom = "<" + "x" * 40 + ">"
    deep = extract(custom * 1500 + "<p>w</p>" * 3000)
    assert sum(len(record[2]) for record in deep.block_records("compact")) <= 3000 * MAX_XPATH_CHARS


def test_a_cut_xpath_never_splits_an_anchor_or_a_step():
    from scrapy_web2text.extraction.output import cut_xpath

    anchored = '//*[@id="a/b/c"]' + "/div" * 100 + "/p[2]"
    assert cut_xpath(anchored, 40) == "//div/div/div/div/div/div/div/div/p[2]"
    assert cut_xpath('//*[@id="' + "x" * 60 + '"]/p', 40) == "//p"
    assert cut_xpath("/html/body/" + "y" * 80, 40) == "//" + "y" * 80  # one step longer than the cap: kept whole
    assert cut_xpath("/html/body/p", 40) == "/html/body/p"


# --- 6. long runs of word characters ---------------------------------------------------------------------

PARAGRAPH = "<p>" + "Some words of the article here, to read. " * 20 + "</p>"
LONG_RUNS = {
    "3,000 underscores": "_" * 3000,
    "20 KB of x": "x" * 20_000,
    "a base64 blob": base64.b64encode(random.Random(1).randbytes(6000)).decode(),
}


@pytest.mark.parametrize("name", LONG_RUNS)
def test_one_long_run_of_word_characters_keeps_the_neighbouring_paragraphs(name):
    result = extract(PARAGRAPH + "<p>" + LONG_RUNS[name] + "</p>" + PARAGRAPH)
    assert result.main_text.count("Some words of the article here") == 40


def test_a_word_counts_at_most_max_word_chars_in_both_counts():
    import numpy as np

    from scrapy_web2text.labellers.web2text import counts

    texts = ["_" * 3000, "short words here", "x" * 70 + " and " + "y" * 10]
    compiled = counts.block_counts(texts, np.zeros(3, bool))["word_length"]
    saved, counts.compiled_text_counts = counts.compiled_text_counts, None
    try:
        python = counts.block_counts(texts, np.zeros(3, bool))["word_length"]
    finally:
        counts.compiled_text_counts = saved
    assert compiled.tolist() == python.tolist() == [64, 14, 64 + 3 + 10]


def test_a_huge_text_node_keeps_the_planted_paragraph_in_bounded_memory():
    html = PARAGRAPH + "<p>" + "x" * 5_000_000 + "</p>" + PARAGRAPH
    tracemalloc.start()
    try:
        result = extract(html)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.main_text.count("Some words of the article here") == 40
    from scrapy_web2text.labellers.web2text import counts

    # Compiled: a few copies of the text (source, parser input, block text), never a per-character table.  The
    # numpy reference of the counts (installs without a C compiler) holds per-character arrays: about 45 bytes a
    # character at its peak (docs/robustness.rst), still linear.
    assert peak < (20 if counts.compiled_text_counts is not None else 60) * len(html)


# --- 7. noembed ---------------------------------------------------------------------------------------------


def test_noembed_content_never_shows_as_literal_tags():
    result = extract(f"<p>{WORDS}</p><noembed><p>Your browser cannot embed this.</p></noembed><p>{WORDS}</p>")
    assert "<p>" not in result.main_text and "cannot embed" not in result.main_text


def test_unwrapped_and_collapsed_blocks_keep_the_text_after_them_apart():
    for html in (
        "<div><div>Alpha words here.</div>Beta words here.</div>",
        "<div><div>Alpha words here.</div><span>Beta words here.</span></div>",
        "<div>" * 60 + "<section><p>Alpha words here.</p></section>" + "<ul><li>" * 60 + "Beta words here.",
    ):
        markdown = extract(html, threshold=0.001).markdown
        assert "here.Beta" not in markdown and "here. Beta" not in markdown, markdown
        assert "Alpha words here." in markdown and "Beta words here." in markdown
