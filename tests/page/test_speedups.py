"""The compiled twins (``page/_walk.pyx``, ``_numbering.pyx``, ``_attributes.pyx``, ``labellers/web2text/_counts.pyx``,
``_features.pyx``, ``_viterbi.pyx``) give exactly what the Python code they replace gives.

The Python walk (:meth:`~scrapy_web2text.page.walk.Walker.walk`) and the crowded-tag regex
(:data:`~scrapy_web2text.page.attributes._CROWDED_TAG`) are the reference; each test runs both on the same input
and compares every output: the whole :class:`~scrapy_web2text.page.Page` (texts, tag paths, offsets, flags, masks,
the node table, the distinct tag lists and attributes, the elements each block comes from).  The inputs cover what
the compiled code reads differently from lxml's proxies: attributes with and without values, the attributes that
set marks, namespaced tags and attributes, comments, processing instructions, entity references, CDATA, text
split over several nodes, blank text of every kind, a subtree's tail, and the block cap.
"""

from __future__ import annotations

import importlib
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_web2text.labellers.web2text import counts as counts_module
from scrapy_web2text.labellers.web2text import edges as edges_module
from scrapy_web2text.labellers.web2text import features as features_module
from scrapy_web2text.labellers.web2text.features import edge_features
from scrapy_web2text.page import attributes as attributes_module
from scrapy_web2text.page import cdom, decode_html, parse_page
from scrapy_web2text.page import declared as declared_module
from scrapy_web2text.page import twins as twins_module
from scrapy_web2text.page import walk as walk_module
from scrapy_web2text.page.attributes import _CROWDED_TAG, MAX_ATTRIBUTES, may_have_crowded_tags, strip_excess_attributes
from scrapy_web2text.page.cdom import Page, collect_blocks
from scrapy_web2text.page.nodes import PARENT
from tests.hostile import hostile_pages
from tests.site import build_site
from tests.twins import twin

#: The twins, imported directly (tests/twins.py), so that the comparisons run even where WEB2TEXT_PURE_PYTHON turns
#: them off for the package.
WALK = twin("scrapy_web2text.page.walk")
walk, find, collapsed, anchor_word = WALK.walk, WALK.find, WALK.collapsed, WALK.anchor_word
compiled_within_size = WALK.within_size
number_nodes = twin("scrapy_web2text.page.numbering").number_nodes
ATTRIBUTES = twin("scrapy_web2text.page.attributes")
crowded_tag, excess_attribute_cuts = ATTRIBUTES.crowded_tag, ATTRIBUTES.excess_attribute_cuts
compiled_text_counts = twin("scrapy_web2text.labellers.web2text.counts").text_counts
COUNTS_COLUMNS = twin("scrapy_web2text.labellers.web2text.counts").COLUMNS
FEATURES = twin("scrapy_web2text.labellers.web2text.features")
compiled_node_statistics, compiled_block_rows = FEATURES.node_statistics, FEATURES.block_rows
compiled_ancestors, compiled_extended_columns = FEATURES.ancestors, FEATURES.extended_columns
compiled_log1p_counts, compiled_edge_columns = FEATURES.log1p_counts, FEATURES.edge_columns
best_path = twin("scrapy_web2text.labellers.web2text.viterbi").best_path

#: The module (the package's ``viterbi`` attribute is the function of that name).
viterbi_module = importlib.import_module("scrapy_web2text.labellers.web2text.viterbi")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PAGE_FIELDS = (
    "texts",
    "tag_paths",
    "block_nodes",
    "starts",
    "ends",
    "path_ids",
    "in_link",
    "break_before",
    "space_before",
    "ancestor_tags",
    "ancestor_keywords",
    "node_table",
    "distinct_tags",
    "distinct_attributes",
    "truncated",
    "title",
    "og_title",
)


#: What the package loads where the twins are in use: (module, its name for the twin, the twin).
IN_USE = [
    (cdom, "compiled_walk", walk),
    (cdom, "compiled_number_nodes", number_nodes),
    (declared_module, "compiled_find", find),
    (walk_module, "compiled_within_size", compiled_within_size),
    (attributes_module, "compiled_crowded_tag", crowded_tag),
    (attributes_module, "compiled_excess_attribute_cuts", excess_attribute_cuts),
    (counts_module, "compiled_text_counts", compiled_text_counts),
    (features_module, "compiled_node_statistics", compiled_node_statistics),
    (features_module, "compiled_block_rows", compiled_block_rows),
    (features_module, "compiled_ancestors", compiled_ancestors),
    (features_module, "compiled_extended_columns", compiled_extended_columns),
    (features_module, "compiled_log1p_counts", compiled_log1p_counts),
    (edges_module, "compiled_edge_columns", compiled_edge_columns),
    (viterbi_module, "compiled_best_path", best_path),
]


@pytest.fixture(autouse=True)
def compiled_count_columns(monkeypatch) -> None:
    """The compiled counts' column names, which the package loads with the function: the tests below put the function
    in place even where WEB2TEXT_PURE_PYTHON left both out, and a table made with it keeps its columns."""
    monkeypatch.setattr(counts_module, "_COMPILED_COLUMNS", COUNTS_COLUMNS)


def test_the_twins_are_in_use_unless_turned_off() -> None:
    # CI installs the package with a C compiler at hand, so the twins are in use there (docs/speed.rst);
    # WEB2TEXT_PURE_PYTHON=1 (a developer ruling them out) must leave the Python originals running.
    turned_off = os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() not in ("", "0")
    for module, name, compiled in IN_USE:
        assert getattr(module, name) is (None if turned_off else compiled), name
    assert set(twins_module.twins_in_use().values()) == {not turned_off}


def test_the_environment_variable_turns_the_twins_off(monkeypatch) -> None:
    monkeypatch.setenv("WEB2TEXT_PURE_PYTHON", "1")
    assert twins_module.load_twin("scrapy_web2text.page.walk", "walk", "find") == (None, None)
    assert not any(twins_module.twins_in_use().values())
    monkeypatch.setenv("WEB2TEXT_PURE_PYTHON", "0")
    assert twins_module.load_twin("scrapy_web2text.page.walk", "walk", "find") == (walk, find)
    assert all(twins_module.twins_in_use().values())


def test_a_twin_built_for_another_lxml_is_not_used(monkeypatch) -> None:
    monkeypatch.setenv("WEB2TEXT_PURE_PYTHON", "0")
    major = int(WALK.COMPILED_LXML_VERSION.split(".")[0])
    monkeypatch.setattr(WALK, "COMPILED_LXML_VERSION", f"{major + 1}.0.0")
    assert twins_module.load_twin("scrapy_web2text.page.walk", "walk") == (None,)
    assert twins_module.load_twin("scrapy_web2text.page.numbering", "number_nodes") == (number_nodes,)


def walked(root, source: str, compiled: bool, max_blocks: int = cdom.MAX_BLOCKS, numbered: bool | None = None) -> Page:
    """The page walked and numbered by the twins (``compiled``) or the Python code; ``numbered`` sets the numbering
    apart from the walk."""
    page = Page(source=source)
    saved = cdom.compiled_walk, cdom.compiled_number_nodes
    numbered = compiled if numbered is None else numbered
    cdom.compiled_walk, cdom.compiled_number_nodes = walk if compiled else None, number_nodes if numbered else None
    try:
        collect_blocks(page, root, max_blocks)
    finally:
        cdom.compiled_walk, cdom.compiled_number_nodes = saved
    return page


def assert_same_pages(python: Page, compiled: Page) -> None:
    for name in PAGE_FIELDS:
        expected, got = getattr(python, name), getattr(compiled, name)
        if isinstance(expected, np.ndarray):
            assert got.dtype == expected.dtype and np.array_equal(got, expected), name
        else:
            assert got == expected, name
    fields = ("index", "tags", "attributes", "parent", "depth", "first_block", "end_block", "n_children")
    assert [[getattr(node, name) for name in fields] for node in compiled.nodes] == [
        [getattr(node, name) for name in fields] for node in python.nodes
    ]
    assert len(compiled.block_elements) == len(python.block_elements)
    for (element, tail), (expected, expected_tail) in zip(compiled.block_elements, python.block_elements):
        assert element is expected and tail == expected_tail


def assert_same_walk(root, source: str = "", max_blocks: int = cdom.MAX_BLOCKS) -> Page:
    python = walked(root, source, compiled=False, max_blocks=max_blocks)
    compiled = walked(root, source, compiled=True, max_blocks=max_blocks)
    assert_same_pages(python, compiled)
    return python


def parsed(html: str):
    from scrapy_web2text.page.parse import _parse_tree, _to_utf8

    source, data = _to_utf8(html)
    root, _ = _parse_tree(data)
    return root, source


def test_same_pages_on_the_test_site_and_the_hostile_pages() -> None:
    site = build_site(articles=6, seed=3)
    resources = [site.resources[path] for path in site.html_paths] + list(hostile_pages(scale=0.05).values())
    documents = [decode_html(resource.body) for resource in resources]
    assert len(documents) > 10
    blocks = 0
    for html in documents:
        root, source = parsed(html)
        if root is not None:
            blocks += len(assert_same_walk(root, source))
    assert blocks > 100


@pytest.mark.parametrize("compiled_walk", [True, False], ids=["compiled walk", "Python walk"])
def test_either_twin_of_the_walk_and_the_numbering_stands_alone(compiled_walk: bool) -> None:
    # Each twin is loaded on its own (one may be missing): the compiled walk with the Python numbering and the
    # other way round make the same pages.
    site = build_site(articles=2, seed=5)
    resources = [site.resources[path] for path in site.html_paths] + list(hostile_pages(scale=0.02).values())
    blocks = 0
    for resource in resources:
        root, source = parsed(decode_html(resource.body))
        if root is not None:
            python = walked(root, source, compiled=False)
            assert_same_pages(python, walked(root, source, compiled=compiled_walk, numbered=not compiled_walk))
            blocks += len(python)
    assert blocks > 50


MARKUP = [
    "<div hidden>hidden words</div>",
    '<p aria-hidden="true">aria</p>',
    '<span style="DISPLAY: none">styled</span>',
    '<section role=" Main ">main role</section>',
    '<div itemprop="articleBody">body prop</div>',
    '<div class="post entry" id="x1" data-a="1">classy</div>',
    '<div class="" id="">empty attributes</div>',
    "<div class>no value</div>",
    "<p>one<br>two<b>bold</b>tail</p>",
    "<ul><li><a href='#'>link one</a></li><li><a href='#'>link two</a></li></ul>",
    "<script>var hidden = 1;</script><style>p {}</style>",
    "<p>\xa0\u2003</p><p>\x1c\x1f</p><p>\x01control\x02</p>",
    "<p>caf&eacute; &amp; &#233;</p>",
    "<table><tr><td>cell</td><td>cell two</td></tr></table>",
    "<p>\ufffe nonchar</p>",
    "<h1>Heading</h1>",
    "<font color=red>old</font>",
    "<p>   </p>",
    "<div><div><div><span>deep</span></div></div></div>",
    '<div class="outer"><section id="mid"><p class="inner">collapsed, each with attributes</p></section></div>',
    "<p>glued <b>Q</b>uil<wbr>lon seven<i>teen</i>\xa0<a href=/>a</a>\n<span> b </span>c</p>",
    "<p>吾輩は<ruby>猫<rp>(</rp><rt>ねこ</rt><rp>)</rp></ruby>である</p>",
    '<div><template shadowrootmode="open"><p>shadow</p></template><template><p>plain</p></template></div>',
    "<template shadowroot=open>old shadow<b>root</b></template>tail",
    "<svg><text>drawn</text><foreignObject><p>html</p><svg><foreignObject>inner</foreignObject>x</svg></foreignObject>"
    "drawn tail</svg>svg tail<svg><text>icon</text></svg>",
    "<form><select><option>one</option><optgroup><option>two</option></optgroup></select>after</form>",
    "<datalist><option>listed</option></datalist>",
]


@SETTINGS
@given(st.lists(st.sampled_from(MARKUP), min_size=1, max_size=12), st.sampled_from(["", "<nav>", "<main>"]))
def test_same_pages_on_generated_markup(parts, wrapper) -> None:
    closing = wrapper.replace("<", "</") if wrapper else ""
    html = (
        '<html><head><title>T</title><meta property="og:title" content="OG"></head><body>'
        + wrapper
        + "".join(parts)
        + closing
        + "</body></html>"
    )
    root, source = parsed(html)
    assert_same_walk(root, source)


def test_same_pages_on_xml_trees_with_namespaces_comments_entities_and_cdata() -> None:
    xml = (
        '<!DOCTYPE r [<!ENTITY e "entity text">]>'
        '<r xmlns:x="urn:x" class="top">'
        '<x:div x:class="c" id="i">namespaced<x:p>inner</x:p>after</x:div>'
        "<p>before<!-- a comment -->after comment<?pi data?>after pi</p>"
        "<p>text &e; more</p>"
        "<p><![CDATA[cdata one]]> and <![CDATA[cdata two]]></p>"
        '<div hidden="">hidden</div>'
        "<span>x</span>tail of span"
        "</r>"
    )
    root = etree.fromstring(xml.encode(), etree.XMLParser(resolve_entities=False))
    assert_same_walk(root)
    # A subtree as the root: its tail is walked too.
    page = assert_same_walk(root.find("span"))
    assert page.texts == ["x", "tail of span"]


def test_same_pages_with_many_states_of_every_key_shape() -> None:
    # The compiled walk keeps its states in a table of its own that grows (256 slots to start): 1,200 elements of
    # 400 keys, each key written three ways, with and without attributes, class and id empty or absent, marks.
    shapes = [
        '<div class="c{i}">class {i}</div>',
        '<div class="c{i}" id="post-{i}" data-x="1">class and id {i}</div>',
        '<div id="" class="">empty {i}</div>',
        '<div style="display:none" class="c{i}">marked {i}</div>',
        '<div role="main" class="c{i}">role {i}</div>',
        "<div>bare {i}</div>",
        '<div title="t">other attribute {i}</div>',
    ]
    body = "".join(shapes[i % len(shapes)].format(i=i % 400) for i in range(1200))
    root, source = parsed(f"<html><body><main>{body}</main></body></html>")
    assert len(assert_same_walk(root, source)) == 1200


def test_same_pages_when_a_key_is_read_through_the_proxy_and_directly() -> None:
    # A namespaced attribute sends an element's key through lxml's proxy; its state is the one of its plain twin.
    xml = (
        '<r xmlns:x="urn:x">'
        + "".join(
            f'<div class="a{i % 3}" x:lang="en">proxied {i}</div><div class="a{i % 3}">plain {i}</div>'
            f'<div class="a{i % 3}" hidden="" x:k="v">proxied, marked {i}</div>'
            for i in range(200)
        )
        + "</r>"
    )
    page = assert_same_walk(etree.fromstring(xml.encode()))
    assert len(page) == 600


def test_same_pages_when_the_select_lists_go_past_their_share() -> None:
    lists = "".join("<select>" + "<option>o</option>" * count + "</select>" for count in (1500, 501, 500, 1, 0))
    root, source = parsed(f"<body><form>{lists}</form><p>after</p></body>")
    page = assert_same_walk(root, source)
    assert len(page) == 1500 + 500 + 1


def test_same_pages_on_xml_svg_and_templates_with_namespaces() -> None:
    xml = (
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:x="urn:x"><body>'
        '<svg xmlns="http://www.w3.org/2000/svg"><text>drawn</text>'
        '<foreignObject><p xmlns="http://www.w3.org/1999/xhtml">foreign <b>bold</b></p></foreignObject></svg>'
        '<template x:shadowrootmode="open"><p>namespaced attribute: hidden</p></template>'
        '<template shadowrootmode="open"><p>shown</p></template>'
        "</body></html>"
    )
    page = assert_same_walk(etree.fromstring(xml.encode()))
    assert page.texts == ["foreign", "bold", "shown"]


def test_same_pages_when_the_block_cap_is_hit() -> None:
    root, source = parsed("<body>" + "".join(f"<p>paragraph {i}</p>" for i in range(50)) + "</body>")
    page = assert_same_walk(root, source, max_blocks=7)
    assert page.truncated and len(page) == 7


def test_same_pages_through_parse_page() -> None:
    html = "<html><body>" + "".join(MARKUP) + "</body></html>"
    saved = cdom.compiled_walk, cdom.compiled_number_nodes
    try:
        cdom.compiled_walk, cdom.compiled_number_nodes = None, None
        python = parse_page(html)
        cdom.compiled_walk, cdom.compiled_number_nodes = walk, number_nodes
        compiled = parse_page(html)
    finally:
        cdom.compiled_walk, cdom.compiled_number_nodes = saved
    for name in PAGE_FIELDS:
        expected, got = getattr(python, name), getattr(compiled, name)
        assert np.array_equal(expected, got) if isinstance(expected, np.ndarray) else expected == got, name


def crowded_pattern(tokens: int) -> re.Pattern:
    return re.compile(_CROWDED_TAG.pattern.replace(f"{{{MAX_ATTRIBUTES}}}", f"{{{tokens}}}"))


PATTERNS = {tokens: crowded_pattern(tokens) for tokens in (1, 2, 3, 4)}
TAG_SOUP = st.text(alphabet=st.sampled_from(list("<<>aB=\"' \t\n\f\r/x=é\u4e00\U0001f600")), max_size=40)


@settings(max_examples=2000, deadline=None)
@given(TAG_SOUP, st.sampled_from(sorted(PATTERNS)))
def test_crowded_tag_scan_equals_the_regex(text, tokens) -> None:
    assert crowded_tag(text, tokens) == (PATTERNS[tokens].search(text) is not None)


@pytest.mark.parametrize("filler", ["x", "é", "\u4e00", "\U0001f600"])  # one, two and four bytes per code point
def test_crowded_tag_scan_finds_each_character_at_every_offset(filler) -> None:
    # The searches for "<" and for a closing quote read 16 bytes at a time: each at every offset from a lane's
    # start, after and before long runs without it, and a quote never closed.
    for before in range(40):
        for after in range(0, 40, 7):
            for tag, crowded in (("<a b c d>", True), ('<a b="' + filler * after + '" c d>', True), ("<a b c>", False)):
                html = filler * before + tag + filler * after
                assert crowded_tag(html, 3) == crowded == (PATTERNS[3].search(html) is not None)
            unclosed = filler * before + '<a b="' + filler * after
            assert crowded_tag(unclosed, 2) == (PATTERNS[2].search(unclosed) is not None)


@pytest.mark.parametrize(
    "attribute",
    ['a="1"', "a='1'", "a=1", "a", '="x"', "'x'", 'a="1>2"', "a = '<b>'", "a/"],
)
@pytest.mark.parametrize("count", [MAX_ATTRIBUTES - 1, MAX_ATTRIBUTES])
@pytest.mark.parametrize("text", ["", "é", "\u4e00", "\U0001f600"])  # one, two and four bytes per code point
def test_crowded_tag_scan_at_the_cap(attribute, count, text) -> None:
    html = f"<p>{text}</p><div " + " ".join([attribute] * count) + ">x</div>"
    expected = _CROWDED_TAG.search(html) is not None
    assert crowded_tag(html, MAX_ATTRIBUTES) == expected
    assert may_have_crowded_tags(html) == expected


#: Tag soup with what the attribute tokenizer treats apart: raw-text elements (their end tags in other cases and with
#: a dotted capital I, which the end tag's case-insensitive pattern accepts), comments of every shape, declarations.
TOKENIZER_SOUP = st.lists(
    st.sampled_from(
        list("<<>aBsS=\"' \t\n\f\r/x!?-é\u4e00\U0001f600")
        + ["<script>", "</script>", "</SCRIPT ", "<Style a=1>", "</style>", "<title>", "</t\u0130tle>", "<textarea"]
        + ["<!--", "-->", "--!>", "<!-->", "<!--->", "<!doctype x>", "<?pi?>", "<div a b c d>", "<p ==x '>'>"]
        + ["<p", ' a="1"', " b='>'", " c=3", ' d = "4"', " e"]
    ),
    max_size=30,
).map("".join)


def python_and_compiled_cuts(html: str, cap: int) -> tuple[list, list]:
    return attributes_module.excess_attribute_cuts(html, cap), excess_attribute_cuts(
        html, cap, attributes_module.RAW_TEXT_TAGS, attributes_module._RAW_TEXT_END
    )


@settings(max_examples=3000, deadline=None)
@given(TOKENIZER_SOUP, st.integers(0, 3))
def test_attribute_cuts_equal_the_tokenizer(html, cap) -> None:
    python, compiled = python_and_compiled_cuts(html, cap)
    assert compiled == python


@pytest.mark.parametrize("text", ["", "é", "\u4e00", "\U0001f600"])  # one, two and four bytes per code point
def test_attribute_cuts_skip_scripts_and_cut_crowded_tags(text) -> None:
    # A script loop ("i<n;") followed by hundreds of words is a crowded tag to the quick search, not to the
    # tokenizer: nothing is cut.  A real crowded tag after it is cut in the same place by both.
    script = "<script>for (i=0;i<n;i++) " + " ".join(["x"] * 400) + "</script>"
    crowded = "<div " + " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES + 5)) + ">Inside.</div>"
    assert may_have_crowded_tags(f"<p>{text}</p>{script}")
    for html, expected_cuts in ((f"<p>{text}</p>{script}", 0), (f"<p>{text}</p>{script}{crowded}", 1)):
        python, compiled = python_and_compiled_cuts(html, MAX_ATTRIBUTES)
        assert compiled == python and len(compiled) == expected_cuts
        stripped, changed = strip_excess_attributes(html)
        assert changed == expected_cuts and stripped.endswith("Inside.</div>" if expected_cuts else "</script>")


def test_hostile_pages_get_the_same_attribute_cuts() -> None:
    cut = 0
    for name, resource in hostile_pages(scale=0.2).items():
        html = decode_html(resource.body)
        for cap in (MAX_ATTRIBUTES, 2):
            python, compiled = python_and_compiled_cuts(html, cap)
            assert compiled == python, name
            cut += len(compiled)
    assert cut > 0  # the hostile page with a crowded tag


def test_only_the_kelvin_sign_lowercases_to_ascii() -> None:
    # The compiled tokenizer looks a tag name up among the raw-text tags only when it is ASCII letters: a name
    # with another code point could lower-case into one only if that code point lower-cased to ASCII.
    to_ascii = [c for c in range(128, 0x110000) if not 0xD800 <= c <= 0xDFFF and chr(c).lower().isascii()]
    assert to_ascii == [0x212A]  # KELVIN SIGN -> "k"
    assert not any("k" in name for name in attributes_module.RAW_TEXT_TAGS)


def counted(texts: list[str], compiled: bool) -> tuple[dict, tuple]:
    saved = counts_module.compiled_text_counts
    counts_module.compiled_text_counts = compiled_text_counts if compiled else None
    try:
        in_link = np.arange(len(texts)) % 3 == 0
        return counts_module.block_counts(texts, in_link), counts_module.edge_text_properties(texts)
    finally:
        counts_module.compiled_text_counts = saved


def assert_same_counts(texts: list[str]) -> dict:
    python, python_edges = counted(texts, compiled=False)
    compiled, compiled_edges = counted(texts, compiled=True)
    assert list(compiled) == list(python)
    for name, expected in python.items():
        assert compiled[name].dtype == expected.dtype and np.array_equal(compiled[name], expected), name
    for expected, got in zip(python_edges, compiled_edges):
        assert np.array_equal(got, expected)
    module = counts_module
    table = compiled_text_counts(texts, module._PROPERTIES, module._describe, module._PACKED_STOPWORDS, module._BITS)
    assert module.block_lengths(texts, table).tolist() == [len(text) for text in texts]
    return python


PIECES = list("abcXYZ 0123456789.!?,;:-_/\\|•»@©()\"'”’İıſK\u00e9\u4e00\U0001f600\u00a0") + [
    "the ",
    "and ",
    "of ",
    "I ",
    "ist ",
    "der ",
    "und ",
    "le ",
    "www.",
    "http://",
    "(c)",
    "Copyright",
    "all rights reserved",
    "1999",
    "2024",
    "19999",
    "20",
    "\u0661\u0669",
    "HTTPS://",
    "WWW.",
    "www._",
    "(C)",
    "COPYRIGHT",
    "All Rights Reserved",
    "x@y.zz",
    "a.b@c.de",
    "...",
    "?!",
    "Thereafter",
]
BLOCK_TEXT = (
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=20)
    .map(lambda pieces: " ".join("".join(pieces).split()))
    .filter(bool)
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(BLOCK_TEXT, min_size=1, max_size=12))
def test_same_counts_on_generated_blocks(texts) -> None:
    assert_same_counts(texts)


def compiled_pattern_columns(text: str) -> tuple[dict, bool]:
    """The compiled counts' columns of the one block ``text``, by name, and whether it holds a CASE_EXCEPTION
    character."""
    table, case_exception = compiled_text_counts(
        [text], counts_module._PROPERTIES, counts_module._describe, counts_module._PACKED_STOPWORDS, counts_module._BITS
    )
    return dict(zip(COUNTS_COLUMNS, table[0].tolist())), case_exception


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(BLOCK_TEXT)
def test_compiled_pattern_columns_equal_the_regexes(text) -> None:
    # The compiled URL, year and copyright columns against the patterns themselves, one block at a time (the
    # copyright column holds for pages without a CASE_EXCEPTION character, which run the regex instead).
    row, case_exception = compiled_pattern_columns(text)
    assert row["url"] == bool(counts_module._URL.search(text))
    assert row["year"] == bool(counts_module._YEAR.search(text))
    if not case_exception:
        assert row["copyright"] == bool(counts_module._COPYRIGHT.search(text))


@pytest.mark.parametrize(
    "text",
    ["cOpYrIgHt", "aLL RIGHTS RESERVED", "ALL rights reserved", "x(C)y", "(c", "©", "www.a", "ww", "https://", "h",
     "2019", "x2019", "1999!", "20", "all rights reserve", "copyrigh", "a", "c", "AL", "co"],
)  # fmt: skip
def test_compiled_pattern_columns_at_every_case_and_cut(text) -> None:
    # Every pair a match can start with, in each case, and matches cut short at the block's end.
    row, _ = compiled_pattern_columns(text)
    assert row["url"] == bool(counts_module._URL.search(text))
    assert row["year"] == bool(counts_module._YEAR.search(text))
    assert row["copyright"] == bool(counts_module._COPYRIGHT.search(text))


def compiled_and_python(twins: list[tuple], compute) -> tuple:
    """``compute()`` with the compiled ``twins`` (module, attribute, function) in place, then with each turned off."""
    saved = [getattr(module, name) for module, name, _ in twins]
    try:
        for module, name, twin in twins:
            setattr(module, name, twin)
        compiled = compute()
        for module, name, _ in twins:
            setattr(module, name, None)
        return compiled, compute()
    finally:
        for (module, name, _), value in zip(twins, saved):
            setattr(module, name, value)


LOGARITHM_TWIN = (features_module, "compiled_log1p_counts", compiled_log1p_counts)
#: The edge features read each block's spaces and first and last characters from the compiled counts' table.
EDGE_TWINS = [(counts_module, "compiled_text_counts", compiled_text_counts), LOGARITHM_TWIN]
EDGE_TWINS += [(edges_module, "compiled_edge_columns", compiled_edge_columns)]
BLOCK_TWINS = [
    (features_module, f"compiled_{twin.__name__}", twin)
    for twin in (compiled_node_statistics, compiled_block_rows, compiled_ancestors, compiled_extended_columns)
] + [LOGARITHM_TWIN]


def edge_matrices(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """The page's edge features, alone, with the compiled counts and with the Python ones."""
    return compiled_and_python(EDGE_TWINS, lambda: edge_features(page))


def shared_edge_matrices(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """The page's edge features as :func:`~scrapy_web2text.labellers.web2text.features.page_features` makes them,
    from the pieces the block features share."""
    pieces = features_module.PagePieces.of(page, features_module.EDGE_LEVELS)
    return compiled_and_python(EDGE_TWINS, lambda: edge_features(page, pieces))


def block_matrices(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """The page's extended block features with the compiled node statistics, rows, ancestors, extended columns and
    logarithms and with the numpy ones."""
    return compiled_and_python(BLOCK_TWINS, lambda: features_module.block_features(page, extended=True))


#: Each feature matrix with its compiled parts and without them.
FEATURE_TWINS = pytest.mark.parametrize(
    "matrices", [edge_matrices, shared_edge_matrices, block_matrices], ids=["edges", "shared edges", "blocks"]
)


@FEATURE_TWINS
def test_same_features_on_the_test_site_and_the_hostile_pages(matrices) -> None:
    site = build_site(articles=6, seed=3)
    resources = [site.resources[path] for path in site.html_paths] + list(hostile_pages(scale=0.05).values())
    rows = 0
    for resource in resources:
        compiled, python = matrices(parse_page(decode_html(resource.body)))
        assert compiled.dtype == python.dtype == np.float32 and np.array_equal(compiled, python)
        rows += len(python)
    assert rows > 100


def test_same_edge_logarithms_past_the_table() -> None:
    # A script of 5,000 characters between two blocks: the gap's logarithm is past the compiled table's whole numbers.
    page = parse_page(f"<html><body><p>One.</p><script>{'x' * 5000}</script><p>Two</p><p>Three</p></body></html>")
    compiled, python = edge_matrices(page)
    gap = page.starts[1] - page.ends[0]
    assert gap >= len(features_module.LOG1P_TABLE) and np.array_equal(compiled, python)
    assert compiled[0, 15] == np.float32(np.log1p(gap)) and compiled[1, 15] < compiled[0, 15]


def test_same_extended_columns_on_a_page_of_links_alone() -> None:
    # No node holds text outside links: no main region, its four columns zero in both; one block hidden.
    page = parse_page(
        '<html><body><a href="/">Home</a><div hidden><a href="/x">About us</a></div>'
        '<ul><li><a href="/y">Other things</a></li></ul></body></html>'
    )
    compiled, python = block_matrices(page)
    assert np.array_equal(compiled, python) and len(python) == 3
    assert not python[:, -4:].any() and python[:, 128].tolist() == [0, 1, 0]


@FEATURE_TWINS
@SETTINGS
@given(st.lists(st.sampled_from(MARKUP), min_size=1, max_size=12), st.sampled_from(["", "<nav>", "<main>"]))
def test_same_features_on_generated_markup(matrices, parts, wrapper) -> None:
    closing = wrapper.replace("<", "</") if wrapper else ""
    compiled, python = matrices(parse_page(f"<html><body>{wrapper}{''.join(parts)}{closing}</body></html>"))
    assert np.array_equal(compiled, python)


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_same_node_statistics_on_random_counts(n: int, seed: int) -> None:
    # Nodes over random block ranges (empty ones too) and counts with zeros, so that every ratio meets both a
    # denominator below one and above, and every pattern column both hits and misses.
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 2 * n + 2))
    first = rng.integers(0, n, nodes)
    end = np.minimum(first + rng.integers(0, 4, nodes), n)
    table = np.column_stack([rng.integers(-1, nodes, nodes), rng.integers(0, 30, nodes), first, end])
    table = np.column_stack([table, rng.integers(0, 9, nodes), rng.integers(0, 5, nodes), np.zeros(nodes, np.int64)])
    summed = rng.integers(0, 3, (n, len(features_module._SUMMED))).astype(float)
    flags = [rng.integers(0, 2, n).astype(float) for _ in range(2)]
    starts = np.sort(rng.integers(0, 1000, n))
    ends = starts + rng.integers(0, 50, n)

    class Nodes:  # what the reference reads of a page
        node_table = table

    Nodes.starts, Nodes.ends = starts, ends
    Nodes.__len__ = lambda self: n
    page_words, source_length = float(max(summed[:, 1].sum(), 1.0)), float(ends[-1] + 1)
    python = features_module.node_statistics_reference(Nodes(), summed, *flags, page_words, source_length)
    compiled = compiled_node_statistics(
        np.ascontiguousarray(table), summed, *flags, starts, ends, page_words, source_length,
        *features_module._LAYOUT, len(features_module.NODE_STATISTICS),
    )  # fmt: skip
    for expected, got in zip(python, compiled):
        assert expected.dtype == got.dtype and np.array_equal(expected, got)


@SETTINGS
@given(st.integers(0, 40), st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_same_ancestors_on_random_trees(n: int, levels: int, seed: int) -> None:
    # A random tree in pre-order (each node's parent comes before it, the root's is -1), read through a strided
    # column as block_features passes it; blocks anywhere in it, so that chains run past the root at every level.
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 2 * n + 2))
    parents = np.array([-1] + [int(rng.integers(0, node)) for node in range(1, nodes)], np.int64)
    table = np.column_stack([parents, rng.integers(0, 9, (nodes, 6))])
    blocks = rng.integers(0, nodes, n)
    python = features_module.ancestors_reference(table[:, PARENT], blocks, levels)
    compiled = compiled_ancestors(table[:, PARENT], blocks, levels)
    assert python.shape == compiled.shape == (n, levels + 1)
    assert compiled.dtype == python.dtype and np.array_equal(python, compiled)


@SETTINGS
@given(st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_same_logarithms_of_counts_from_the_table(n: int, seed: int) -> None:
    # Whole numbers below, at and past the table's end, and values that are not whole (negative too): each is numpy's
    # log1p, from the table or given back to numpy; the columns not named stay as they were.
    rng = np.random.default_rng(seed)
    choices = [rng.integers(0, 60, (n, 8)), rng.integers(4090, 4100, (n, 8)), rng.integers(0, 10**7, (n, 8))]
    values = np.choose(rng.integers(0, 3, (n, 8)), choices).astype(float)
    values[rng.random((n, 8)) < 0.1] += 0.5
    negative = rng.random((n, 8)) < 0.05
    values[negative] = -0.9 * rng.random(int(negative.sum()))  # above -1, where log1p is defined
    columns = np.array(sorted(rng.choice(8, 5, replace=False)), np.int64)
    expected, got = values.copy(), values.copy()
    expected[:, columns] = np.log1p(expected[:, columns])
    pending = compiled_log1p_counts(got, columns, features_module.LOG1P_TABLE)
    flat = got.reshape(-1)
    flat[pending] = np.log1p(flat[pending])
    assert np.array_equal(expected, got, equal_nan=True)
    assert len(pending) == int(
        ((values[:, columns] >= 4096) | (values[:, columns] % 1 != 0) | (values[:, columns] < 0)).sum()
    )


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_same_block_rows_on_random_inputs(n: int, seed: int) -> None:
    # Statistics of every magnitude (float32 rounding of each), chains into few nodes, every flag bit both set and
    # clear somewhere, and page values; the columns past 128 (the extended ones) are left alone by both.
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 8))
    stats = rng.normal(0, 1, (nodes, len(features_module.NODE_STATISTICS))) * 10.0 ** rng.integers(-8, 8)
    chain = rng.integers(0, nodes, (n, 9))[:, :3]  # a strided view, as block_features passes it
    packed = rng.integers(0, 1 << len(features_module._FLAG_BITS), n, np.int64)
    page_values = rng.uniform(-5, 5, 4)
    python, compiled = (np.full((n, 140), np.nan, np.float32) for _ in range(2))
    features_module.block_rows_reference(python[:, :128], stats, chain, packed, page_values)
    compiled_block_rows(compiled, stats, chain, packed, len(features_module._FLAG_BITS), page_values)
    assert np.array_equal(python, compiled, equal_nan=True) and not np.isnan(python[:, :128]).any()


def test_same_counts_on_a_code_point_never_seen_before() -> None:
    # The compiled counts describe a code point the table has not seen (first use of a character): as the
    # Python counts do, through counts._describe.
    fresh = [0xF0101, 0xF0102]
    for code in fresh:
        counts_module._PROPERTIES[code] = counts_module._UNKNOWN
    texts = [f"Word{chr(fresh[0])} and the end.", f"{chr(fresh[1])}x"]
    counted(texts, compiled=True)
    assert all(counts_module._PROPERTIES[code] != counts_module._UNKNOWN for code in fresh)
    got = assert_same_counts(texts)
    assert got["words"].tolist() == [4.0, 1.0] and got["stopwords"].tolist() == [2.0, 0.0]


def test_every_stop_word_and_none_of_its_near_misses_is_counted() -> None:
    # The compiled counts look stop words up in a hash table: every one of them must be found, in either case,
    # and a word one letter longer or shorter must not.
    words = sorted(counts_module.STOPWORDS)
    near_misses = [word + "s" for word in words] + [word[:-1] for word in words if len(word) > 1]
    texts = words + [word.upper() for word in words] + near_misses
    got = assert_same_counts(texts)
    assert got["stopwords"].tolist() == [1.0] * (2 * len(words)) + [float(w in words) for w in near_misses]


def test_the_compiled_counts_refuse_more_stop_words_than_their_table_holds() -> None:
    many = np.arange(1, 1000, dtype=np.int64)
    with pytest.raises(ValueError, match="at most 256 stop words"):
        compiled_text_counts(["a b"], counts_module._PROPERTIES, counts_module._describe, many, counts_module._BITS)


def test_same_counts_on_a_non_english_page() -> None:
    # Few English stop words: the page's language's list (languages.py) replaces them, in both paths.
    texts = ["Der Hund und die Katze sind im Garten, und der Vogel ist auf dem Dach."] * 4 + ["Impressum"]
    got = assert_same_counts(texts)
    assert got["stopwords"][0] > 0


SOURCE_TEXT = st.text(alphabet=st.sampled_from(list("ab A\x00\u0100\u4100\u0041\U00010041\U0001f600é")), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(SOURCE_TEXT, SOURCE_TEXT.filter(bool), st.integers(0, 45), st.integers(0, 80))
def test_the_walks_search_equals_str_find(source, word, start, end) -> None:
    # Mixed widths on purpose (a UCS-2 or UCS-4 source and a narrower word, a word wider than the source), and
    # windows past the end.
    assert find(source, word, start, end) == source.find(word, start, end)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["ab", "ab\u0100", "ab\U0001f600"]), st.integers(0, 2**32 - 1), st.integers(1, 20))
def test_the_walks_search_equals_str_find_on_long_near_misses(alphabet, seed, length) -> None:
    # Sources of every width, long enough for the 16-byte steps, over two letters: most starts match the word's
    # first and last code points and only the whole comparison tells them apart.
    rng = np.random.default_rng(seed)
    source = "".join(rng.choice(list(alphabet), size=int(rng.integers(0, 400))))
    word = "".join(rng.choice(list(alphabet), size=length))
    start, end = (int(v) for v in sorted(rng.integers(0, 420, size=2)))
    assert find(source, word, start, end) == source.find(word, start, end)
    assert find(source, word, 0, 65536) == source.find(word)


BLANKS_AND_CONTROLS = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2028\u3000\x00\x01\x7f\xad\u200b\ufffe"
BLOCK_TEXT = st.text(alphabet=st.sampled_from(list("ab é\u4100\U0001f600" + BLANKS_AND_CONTROLS)), max_size=30)


@settings(max_examples=3000, deadline=None)
@given(BLOCK_TEXT | st.text(max_size=30) | st.text(alphabet=st.characters(max_codepoint=255), max_size=30))
def test_the_walks_blank_collapse_equals_split_and_join(raw) -> None:
    # The third strategy keeps every code point within a byte: the compiled collapse reads and writes each width apart.
    expected = " ".join(raw.split())
    got = collapsed(raw)
    # None sends the walk to block_text, as a text that is not printable does in the Python walk.  (A string made
    # wider than its code points need would not be equal either: str equality compares the storage kind first.)
    assert got == (expected if expected.isprintable() else None)


@settings(max_examples=3000, deadline=None)
@given(BLOCK_TEXT | st.text(max_size=40) | st.text(alphabet="ab_1\u0663\u00b2 .-", max_size=40))
def test_the_walks_anchor_word_equals_the_regex(raw) -> None:
    match = cdom._ANCHOR_WORD.search(raw)
    assert anchor_word(raw) == ((match.group(), match.start()) if match else None)


def _both_decoders(unary: np.ndarray, pairwise: np.ndarray, lam: float, threshold: float) -> tuple:
    saved = viterbi_module.compiled_best_path
    try:
        viterbi_module.compiled_best_path = best_path
        compiled = viterbi_module.viterbi(unary, pairwise, lam, threshold)
        viterbi_module.compiled_best_path = None
        python = viterbi_module.viterbi(unary, pairwise, lam, threshold)
    finally:
        viterbi_module.compiled_best_path = saved
    return compiled, python


@SETTINGS
@given(
    st.integers(1, 60),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.1, 1.0, 5.0]),
    st.sampled_from([0.2, 0.45, 0.5, 0.9]),
    st.booleans(),
)
def test_same_viterbi_labels(n: int, seed: int, lam: float, threshold: float, coarse: bool) -> None:
    rng = np.random.default_rng(seed)
    unary, pairwise = rng.normal(size=(n, 2)), rng.normal(size=(n - 1, 2, 2))
    if coarse:  # few distinct values: ties between the two predecessors on every other step
        unary, pairwise = np.round(unary), np.round(pairwise)
    compiled, python = _both_decoders(unary.astype(np.float32), pairwise.astype(np.float32), lam, threshold)
    assert compiled.dtype == python.dtype == np.int8
    assert compiled.tolist() == python.tolist()
    score = viterbi_module.sequence_score
    assert score(compiled, unary, pairwise, lam, threshold) >= score(1 - compiled, unary, pairwise, lam, threshold)


def test_same_viterbi_labels_on_ties_and_an_empty_page() -> None:
    flat_unary, flat_pairwise = np.zeros((7, 2), np.float32), np.zeros((6, 2, 2), np.float32)
    compiled, python = _both_decoders(flat_unary, flat_pairwise, 0.1, 0.5)
    assert compiled.tolist() == python.tolist() == [0] * 7  # a tie keeps boilerplate
    empty = _both_decoders(np.zeros((0, 2), np.float32), np.zeros((0, 2, 2), np.float32), 0.1, 0.5)
    assert [labels.tolist() for labels in empty] == [[], []]


def python_within_size(root, max_elements: int, max_product: int) -> bool:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(walk_module, "compiled_within_size", None)
        return walk_module.within_size(root, max_elements, max_product)


#: Nested markup: siblings, deep chains, text and tails between them.
NESTED = st.recursive(
    st.just(""),
    lambda inner: st.lists(inner, min_size=1, max_size=4).map(lambda parts: "".join(f"<div>{p}</div>x" for p in parts)),
    max_leaves=40,
)


@SETTINGS
@given(NESTED, st.integers(0, 60), st.integers(0, 400))
def test_within_size_is_the_same_compiled(markup, max_elements, max_product) -> None:
    root = etree.fromstring(f"<html><body>{markup}</body></html>", etree.HTMLParser())
    for top in (root, root.find("body"), *root.iter("div")):
        limits = (max_elements, max_product)
        assert compiled_within_size(top, *limits) == python_within_size(top, *limits)


def test_within_size_at_its_bounds_and_on_xml_trees() -> None:
    # 1 + 3 elements, 3 deep (r > a > b, and c beside a): true at the exact bounds, false one under either.
    root = etree.fromstring("<r><!-- not counted --><a><b>x</b><?pi not counted?></a><c/></r>")
    for size in (compiled_within_size, python_within_size):
        assert size(root, 4, 12)
        assert not size(root, 3, 100)
        assert not size(root, 100, 11)
        assert size(root.find("a"), 2, 4)  # a subtree, without its following sibling
    xml = '<!DOCTYPE r [<!ENTITY e "entity text">]><r><p>text &e; more &e;</p></r>'
    root = etree.fromstring(xml.encode(), etree.XMLParser(resolve_entities=False))
    for limit in range(0, 6):
        assert compiled_within_size(root, limit, 100) == python_within_size(root, limit, 100) == (limit >= 4)
