"""Block paths and block records: the compiled paths (``extraction/_output.pyx``) and the records a crawl reads without
building :class:`~scrapy_web2text.Block` objects give exactly what the Python original and the blocks give."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_web2text import extract
from scrapy_web2text.extraction import Extraction, LabelledPage, output
from scrapy_web2text.page import decode_html, parse_page
from tests.helpers import python_paths
from tests.hostile import hostile_pages
from tests.site import build_site
from tests.twins import twin

compiled_block_xpaths = twin(output.__name__).block_xpaths
first_blocks_of_headings = twin(output.__name__).first_blocks_of_headings

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def python_headings(elements) -> list:
    saved, output.compiled_first_blocks_of_headings = output.compiled_first_blocks_of_headings, None
    try:
        return output._first_blocks_of_headings(elements)
    finally:
        output.compiled_first_blocks_of_headings = saved


def assert_same_headings(elements) -> list:
    compiled = first_blocks_of_headings(list(elements), output._INLINE_IN_HEADINGS)
    expected = python_headings(elements)
    assert [(index, heading) for index, heading in compiled] == expected  # the same element proxies
    return compiled


def assert_same_paths(html: str) -> list[str] | None:
    page = parse_page(html)
    if page.root is None:
        return None
    compiled = compiled_block_xpaths(page.root, list(page.block_elements), output.MAX_XPATH_CHARS)
    assert compiled == python_paths(page.root, page.block_elements)
    assert_same_headings(page.block_elements)
    return compiled


def test_the_compiled_paths_are_in_use_unless_turned_off() -> None:
    # CI builds the twins (docs/speed.rst); WEB2TEXT_PURE_PYTHON=1 leaves the Python original running.
    if os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() not in ("", "0"):
        assert output.compiled_block_xpaths is None
    else:
        assert output.compiled_block_xpaths is compiled_block_xpaths


def test_same_paths_on_the_test_site_and_the_hostile_pages() -> None:
    site = build_site(articles=6, seed=3)
    resources = [site.resources[path] for path in site.html_paths] + list(hostile_pages(scale=0.05).values())
    paths = 0
    for resource in resources:
        found = assert_same_paths(decode_html(resource.body))
        paths += len(found or ())
    assert paths > 100


PARTS = [
    '<div id="main"><p>in main</p><p>second</p></div>',
    '<div id="main"><p>main again: not unique</p></div>',
    '<section id="s1"><div><span>deep</span> tail text</div></section>',
    "<div id='say \"hi\"'><p>quoted id</p></div>",
    '<div id=""><p>empty id</p></div>',
    "<ul><li>one</li><li>two</li><li><a href='#'>three</a></li></ul>",
    "<table><tr><td>cell</td><td>cell two</td></tr></table>",
    "<p>before<b>bold</b>after<i>it</i>end</p>",
    "<h1 id='t'>Heading</h1>",
    "<h2><a href='#'><span>Linked</span> heading</a> tail</h2>",
    "<h3><em>em</em><div>not inline</div></h3>",
    "<p><b>bold, not a heading</b></p>",
    "<div><div><div><p>nested</p></div></div><p>sibling</p></div>",
]


@SETTINGS
@given(st.lists(st.sampled_from(PARTS), min_size=1, max_size=14))
def test_same_paths_on_generated_markup(parts) -> None:
    paths = assert_same_paths("<html><body>" + "".join(parts) + "</body></html>")
    assert paths is not None and all(path.startswith(("/html", "//*[@id=")) for path in paths)


def test_same_paths_among_thousands_of_siblings() -> None:
    # Each parent's children are numbered once, in both: libxml2's own getpath rescans the siblings per call.
    paths = assert_same_paths("<html><body><p>" + "<b>word</b> " * 3000 + "</p><div id='x'>end</div></body></html>")
    assert paths[0] == "/html/body/p/b[1]" and paths[-2] == "/html/body/p/b[3000]" and paths[-1] == '//*[@id="x"]'


def test_same_paths_under_a_parent_with_more_distinct_child_names_than_the_compiled_table() -> None:
    # _output.pyx counts up to 32 distinct names per parent in C and numbers a parent with more by a dict.
    for distinct in (31, 32, 33, 60):
        # Every name twice, then every name once more but the last: /x-N[k] for all but one /x-N.
        repeated = "".join(f"<x-{n % distinct}>text {n}</x-{n % distinct}>" for n in range(2 * distinct))
        once = f"<y-{distinct}>once</y-{distinct}>"
        paths = assert_same_paths(f"<html><body><div>{repeated}{once}</div></body></html>")
        assert paths[0] == "/html/body/div/x-0[1]" and paths[distinct] == "/html/body/div/x-0[2]"
        assert paths[-1] == f"/html/body/div/y-{distinct}"


def test_same_paths_for_elements_added_after_parsing() -> None:
    # Elements added through lxml's API share the parsed elements' names and numbering.
    root = parse_page("<html><body><div><p>one</p><span>two</span></div></body></html>").root
    div = root.find(".//div")
    for n in range(3):
        etree.SubElement(div, "p").text = f"added {n}"
    elements = [(element, False) for element in root.iter() if isinstance(element.tag, str) and element.text]
    compiled = compiled_block_xpaths(root, elements, output.MAX_XPATH_CHARS)
    assert compiled == python_paths(root, elements)
    assert compiled[-1] == "/html/body/div/p[4]"


def test_same_headings_in_an_xml_tree_with_capitals_namespaces_and_comments() -> None:
    root = etree.fromstring(
        b'<r xmlns:x="urn:x"><H1>Upper</H1><x:h2><x:SPAN>ns span</x:SPAN></x:h2>'
        b"<h3><!-- c -->after comment<q>quoted</q></h3><hX>not one</hX><h7>nor</h7><h12>these</h12><h>three</h></r>"
    )
    elements = [(element, False) for element in root.iter() if isinstance(element.tag, str) and element.text]
    elements += [(element, True) for element in root.iter() if element.tail and element.tail.strip()]
    found = assert_same_headings(elements)
    # Capitals and namespaces are headings and inline elements all the same; "quoted" sits in a <q>, not inline.
    assert [heading.tag for _, heading in found] == ["H1", "{urn:x}h2", "h3"]
    assert [elements[index][0].text for index, _ in found] == ["Upper", "ns span", " c "]
    assert elements[found[-1][0]][1]  # the h3 is found from the comment's tail


def test_a_namespaced_child_among_many_distinct_names_falls_back_to_the_python_paths() -> None:
    # Past 32 distinct names the compiled numbering uses a dict; a namespaced sibling still sends the page back.
    # An empty <x:c0>: libxml2 names it "c0" as the first child, while lxml's tag, {urn:x}c0, is another name.
    children = "".join(f"<c{n}>text {n}</c{n}>" for n in range(40)) + "<x:c0/>"
    root = etree.fromstring(f'<r xmlns:x="urn:x"><d>{children}</d></r>'.encode())
    elements = [(element, False) for element in root.iter() if element.text and element.text.strip()]
    assert compiled_block_xpaths(root, elements, output.MAX_XPATH_CHARS) is None
    assert output.block_xpaths(root, elements) == python_paths(root, elements)


def test_a_namespaced_tree_falls_back_to_the_python_paths() -> None:
    root = etree.fromstring(b'<r xmlns:x="urn:x"><x:div id="i">namespaced</x:div><p>plain</p></r>')
    elements = [(element, False) for element in root.iter() if element.text and element.text.strip()]
    assert compiled_block_xpaths(root, elements, output.MAX_XPATH_CHARS) is None
    saved = output.compiled_block_xpaths
    assert output.block_xpaths(root, elements) == python_paths(root, elements)
    assert output.compiled_block_xpaths is saved


def labelled(html: str) -> Extraction:
    result = extract(html)
    assert isinstance(result._labelled_page(), LabelledPage)  # blocks not built yet
    return result


SITE_PAGE = next(iter(build_site(articles=2, seed=5).resources.values())).body


@pytest.mark.parametrize("form", ["compact", "full"])
def test_records_read_from_the_labelled_page_equal_those_of_the_blocks(form) -> None:
    fast = labelled(SITE_PAGE)
    records = fast.block_records(form)
    labels = fast.labels
    assert isinstance(fast._labelled_page(), LabelledPage)  # still not built
    built = labelled(SITE_PAGE)
    assert len(built.blocks) > 20 and built._labelled_page() is None
    assert records == built.block_records(form)
    assert labels == [block.label for block in built.blocks] == built.labels
    assert {"content", "boilerplate"} <= set(labels)
    assert fast.title == built.title and fast.xpaths() == built.xpaths()


def test_records_of_an_extraction_made_by_hand() -> None:
    result = labelled("<html><body><p>One paragraph of words.</p></body></html>")
    by_hand = Extraction(main_text=result.main_text, blocks=result.blocks)
    assert by_hand.labels == result.labels and by_hand._block_count() == 1
    assert by_hand.block_records("compact")[0][:2] == result.block_records("compact")[0][:2]
