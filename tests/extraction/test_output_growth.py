"""Every output of a page grows linearly with the page, in time and in memory (issue 53, item 15).

Time is CPU time of this thread, the best of three, for a page and the same page 10 times larger; the larger may
take at most ``GROWTH_LIMIT`` times the smaller (linear code takes about 10 times, quadratic about 100), the
smaller counted as at least ``FLOOR_SECONDS`` so that timer noise on a small page cannot fail the test.
"""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest

from scrapy_web2text import extract
from scrapy_web2text.show.view import build_view

GROWTH_LIMIT = 25.0
FLOOR_SECONDS = 0.02
#: Peak memory an output may take above what is already held, per byte of the page, and a constant.
OUTPUT_BYTES_PER_BYTE, OUTPUT_CONSTANT = 10, 5_000_000

PAGES = {
    "ordered_list": lambda n: "<ol>" + "".join(f"<li>Item number {i} of the list</li>" for i in range(n)) + "</ol>",
    "nested_lists": lambda n: "<ul>" + "<li>Item here<ol><li>first</li><li>second</li></ol></li>" * n + "</ul>",
    "line_breaks": lambda n: "<p>" + "words of a line<br>" * n + "</p>",
    "table_rows": lambda n: "<table>" + "<tr><td>a cell</td><td>another cell</td></tr>" * n + "</table>",
    "links": lambda n: "<p>" + "".join(f'<a href="/page/{i}">link {i}</a> and ' for i in range(n)) + "</p>",
}


def page(body: str) -> str:
    return f"<html><head><title>A page</title></head><body><h1>The page</h1>{body}</body></html>"


def all_outputs(html: str, result) -> None:
    result._formats.clear()  # every output computed again, not read from the cache
    result.html, result.markdown, result.title, result.metadata.to_dict()
    json.dumps(result.to_dict())  # the text and the block records
    build_view(html, extraction=result)


def cpu_seconds(html: str) -> float:
    result = extract(html, threshold=0.001)  # every block kept: the outputs are as large as they can be
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        all_outputs(html, result)
        best = min(best, time.thread_time() - start)
    return best


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_every_output_grows_linearly_with_the_page(kind):
    size = 800 if kind == "ordered_list" else 200  # markdownify's numbering was quadratic: clear at 8,000 items
    small, large = (page(PAGES[kind](n)) for n in (size, 10 * size))
    ratio = cpu_seconds(large) / max(cpu_seconds(small), FLOOR_SECONDS)
    assert ratio < GROWTH_LIMIT, f"{kind}: 10x the page took {ratio:.0f}x the time"


@pytest.mark.parametrize("text", ["word " * 200_000, "[a] <b> &amp;c; " * 60_000, "w\n\t x  " * 120_000])
def test_one_long_text_node_costs_each_output_a_bounded_multiple_of_its_size(text):
    """1 MB of text in one node: markdownify's substitutions kept a str per match (16 times the text in all)."""
    html = page(f"<p>{text}</p>")
    result = extract(html, threshold=0.001)
    outputs = {
        "html": lambda: result.html,
        "markdown": lambda: result.markdown,
        "to_dict": lambda: json.dumps(result.to_dict()),
        "metadata": lambda: result.metadata.to_dict(),
        "view": lambda: build_view(html, extraction=result),
    }
    tracemalloc.start()
    try:
        for name, output in outputs.items():
            tracemalloc.reset_peak()
            held = tracemalloc.get_traced_memory()[0]
            assert output()
            peak = tracemalloc.get_traced_memory()[1] - held
            assert peak < OUTPUT_BYTES_PER_BYTE * len(html) + OUTPUT_CONSTANT, f"{name}: {peak / len(html):.1f}x"
    finally:
        tracemalloc.stop()
    assert result.markdown.count("word") == text.count("word")


def test_a_run_of_line_breaks_is_one_blank_line_in_every_output():
    """500,000 ``<br>`` took Markdown 23 s: the clean HTML copied every one of them, around text already dropped."""
    html = page("<p>The words of the first line here<br>" + "<br>" * 20_000 + "and a last line of the page.</p>")
    result = extract(html, threshold=0.001)
    assert result.html.count("<br>") == 2 and "first line here<br><br>and a last" in result.html
    assert result.markdown.endswith("first line here  \n  \nand a last line of the page.")
