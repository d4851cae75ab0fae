import numpy as np
import pytest

from scrapy_web2text.labellers.web2text import counts
from scrapy_web2text.labellers.web2text.features import (
    BLOCK_FEATURE_BINARY,
    BLOCK_FEATURES,
    EDGE_FEATURES,
    block_features,
    edge_features,
    page_features,
)
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.tags import ANCESTOR_KEYWORD_BITS, ANCESTOR_TAG_BITS

from ..helpers import fixture_text


def column(name):
    return BLOCK_FEATURES.index(name)


def edge(name):
    return EDGE_FEATURES.index(name)


@pytest.fixture(scope="module")
def article():
    page = parse_page(fixture_text("article.html"))
    return page, block_features(page), edge_features(page)


def test_shapes_and_finiteness(article):
    page, blocks, edges = article
    assert len(BLOCK_FEATURES) == 128 and len(set(BLOCK_FEATURES)) == 128
    assert len(EDGE_FEATURES) == 25 and len(set(EDGE_FEATURES)) == 25
    assert blocks.shape == (len(page), 128) and edges.shape == (len(page) - 1, 25)
    assert np.isfinite(blocks).all() and np.isfinite(edges).all()
    extended = block_features(page, extended=True)
    assert extended.shape == (len(page), len(BLOCK_FEATURE_BINARY)) and np.isfinite(extended).all()
    binary = extended[:, BLOCK_FEATURE_BINARY]
    assert set(np.unique(binary)) <= {0.0, 1.0}


def test_text_statistics_of_the_node():
    page = parse_page("<body><p>Hello, world. Is it? Yes!</p><p>a-b_c/d</p></body>")
    x = block_features(page)
    assert x[0, column("node_log_chars")] == pytest.approx(np.log1p(25), rel=1e-5)
    assert x[0, column("node_log_sentences")] == pytest.approx(np.log1p(3), rel=1e-5)
    assert x[0, column("node_r_punctuation")] == pytest.approx(4 / 25, rel=1e-5)
    assert x[1, column("node_r_dashes")] == pytest.approx(3 / 7, rel=1e-5)
    assert x[0, column("node_ends_with_punctuation")] == 1
    assert x[0, column("node_r_words_with_capital")] == pytest.approx(3 / 5, rel=1e-5)
    assert x[0, column("node_r_words_of_page")] == pytest.approx(5 / 8, rel=1e-5)  # "a-b_c/d" is 3 words


def test_parent_and_grandparent_aggregate_their_blocks():
    page = parse_page("<body><div><p>one two <a href=x>three</a></p><p>four</p></div><p>x</p></body>")
    x = block_features(page)
    # Block "three": node <a>, parent <p> (3 words), grandparent <div> (4 words).
    three = page.texts.index("three")
    assert x[three, column("node_is_a")] == 1
    assert x[three, column("node_r_chars_in_link")] == 1
    assert x[three, column("parent_log_words")] == pytest.approx(np.log1p(3), rel=1e-5)
    assert x[three, column("grandparent_log_words")] == pytest.approx(np.log1p(4), rel=1e-5)
    assert x[three, column("parent_r_chars_in_link")] == pytest.approx(
        5 / len("one twothree"), rel=1e-5
    )  # block chars, no separators
    assert x[three, column("parent_is_p")] == 1


def test_ancestor_markers_and_page_features(article):
    page, blocks, _ = article
    home = page.texts.index("News")
    body = next(i for i, t in enumerate(page.texts) if t.startswith("Three weeks"))
    assert blocks[home, column("inside_nav")] == 1 and blocks[body, column("inside_nav")] == 0
    assert blocks[home, column("ancestor_class_nav")] == 1
    assert blocks[body, column("inside_article")] == 1
    assert blocks[body, column("ancestor_class_content")] == 1  # class="post"
    copyright_block = next(i for i, t in enumerate(page.texts) if t.startswith("©"))
    assert blocks[copyright_block, column("node_contains_copyright")] == 1
    assert blocks[0, column("block_position_rel")] == 0 and blocks[-1, column("block_position_rel")] == 1
    assert np.all(blocks[:, column("page_log_blocks")] == np.float32(np.log1p(len(page))))


def test_edge_features_tree_relations():
    page = parse_page("<body><ul><li><a href=1>A</a></li><li><a href=2>B</a></li></ul><div><p>C</p></div></body>")
    e = edge_features(page)
    # A and B: siblings under <ul> in the CDOM (distance 2), same tag path.
    assert e[0, edge("tree_distance_2")] == 1
    assert e[0, edge("same_parent")] == 1
    assert e[0, edge("same_tag_path")] == 1
    assert e[0, edge("same_tag")] == 1
    assert e[0, edge("both_in_link")] == 1
    # B and C: the collapsed <div><p> hangs from the body; B from the <ul>.
    assert e[1, edge("same_parent")] == 0
    assert e[1, edge("tree_distance_3")] == 1
    assert e[1, edge("one_in_link")] == 1
    assert e[1, edge("line_break_between")] == 1


def test_empty_and_single_block_pages():
    assert block_features(parse_page("")).shape == (0, 128)
    single = parse_page("<p>only</p>")
    assert block_features(single).shape == (1, 128)
    assert edge_features(single).shape == (0, 25)


def test_every_feature_is_documented():
    from pathlib import Path

    documentation = (Path(__file__).parents[2] / "docs" / "model.rst").read_text(encoding="utf-8")
    from scrapy_web2text.labellers.web2text.features import EXTENDED_BLOCK_FEATURES, NODE_STATISTICS

    levels = ("node_", "parent_", "grandparent_")
    per_level = {f"{level}{stat}" for level in levels for stat in NODE_STATISTICS}
    assert per_level <= set(BLOCK_FEATURES)
    named = [name for name in BLOCK_FEATURES if name not in per_level]
    named += list(EXTENDED_BLOCK_FEATURES)
    missing = [name for name in [*NODE_STATISTICS, *named, *EDGE_FEATURES] if f"``{name}``" not in documentation]
    assert not missing, f"features missing from docs/model.rst: {missing}"


def test_feature_matrices_are_float32_even_when_empty():
    # The cache concatenates pages: one float64 page would double its size.
    for html in ("", "<p>x</p>", "<p>x</p><p>y</p>"):
        page = parse_page(html)
        assert block_features(page).dtype == np.float32
        assert edge_features(page).dtype == np.float32


def test_tag_list_bits_are_the_same_from_the_shared_cache_and_long_lists_are_not_kept(monkeypatch):
    from scrapy_web2text.labellers.web2text import tag_groups

    monkeypatch.setattr(tag_groups, "_TAG_LIST_BITS", {})
    monkeypatch.setattr(tag_groups, "_TAG_LIST_CACHE_SIZE", 3)
    # A <p> collapsed into 40 nested <b>: one tag list longer than the cached maximum.
    nested = "<b>" * 40 + "bold" + "</b>" * 40
    page = parse_page(f"<body><h2>Title</h2><ul><li><a href='/'>x</a></li></ul><p>{nested}</p><td>cell</td></body>")
    first = tag_groups.tag_list_bits(page)
    second = tag_groups.tag_list_bits(page)  # now from the cache
    assert first.tolist() == second.tolist()
    expected = []
    for tags in page.distinct_tags:
        bits = 0
        for tag in tags:
            bits |= tag_groups._TAG_BITS.get(tag, 0)
        expected.append(bits)
    assert first.tolist() == expected
    assert any(len(tags) > tag_groups._CACHED_TAG_LIST_MAX for tags in page.distinct_tags)
    assert all(len(tags) <= tag_groups._CACHED_TAG_LIST_MAX for tags in tag_groups._TAG_LIST_BITS)
    assert 0 < len(tag_groups._TAG_LIST_BITS) <= 3
    headings = tag_groups.tag_masks(first, tag_groups.HEADING_TAGS)[:, 0]
    assert [("h2" in tags) for tags in page.distinct_tags] == headings.tolist()


PARAGRAPH = "A paragraph of the article, long enough to weigh in the page's text. " * 3


def test_a_header_that_swallows_the_page_does_not_mark_its_blocks():
    # The <header> never closes properly: libxml2 nests the whole page inside it, as browsers do.
    page = parse_page(
        "<body><header><a href=/>Home</a> <nav><a href=/a>Section</a></nav>"
        f"<article><header><h2>Story title</h2></header><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article></body>"
    )
    blocks, edges = block_features(page), edge_features(page)
    body = page.texts.index(PARAGRAPH.strip())
    assert (page.ancestor_tags[body] & ANCESTOR_TAG_BITS["header"]) != 0  # the page layer keeps the fact
    assert blocks[body, column("inside_header")] == 0
    # The small <nav> inside it marks its link, the story's own small <header> its title; no other block is marked.
    section, title = page.texts.index("Section"), page.texts.index("Story title")
    assert blocks[section, column("inside_nav")] == 1
    assert np.flatnonzero(blocks[:, column("inside_header")]).tolist() == [title]
    assert edges[body, edge("same_ancestor_tags")] == 1  # the two paragraphs, now alike


def test_short_headers_and_long_footers_keep_their_marks():
    page = parse_page(
        "<body><header><nav><a href=/>Home</a> <a href=/a>Section</a></nav></header>"
        f"<main><p>{PARAGRAPH}</p></main>"
        f"<footer><ul>{''.join(f'<li><a href=/l{n}>Link number {n} of the directory</a></li>' for n in range(40))}"
        "</ul></footer></body>"
    )
    blocks = block_features(page)
    home, body = page.texts.index("Home"), page.texts.index(PARAGRAPH.strip())
    assert blocks[home, column("inside_header")] == 1 and blocks[home, column("inside_nav")] == 1
    assert blocks[body, column("inside_header")] == 0
    footer_rows = [i for i, text in enumerate(page.texts) if text.startswith("Link number")]
    chars = sum(len(page.texts[i]) for i in footer_rows)
    assert chars > 0.5 * sum(map(len, page.texts))  # the footer holds most of the text, and keeps its mark
    assert all(blocks[i, column("inside_footer")] == 1 for i in footer_rows)


def test_boilerplate_keywords_on_an_element_around_every_block_mark_none():
    # The body's classes list the site's features: every block would look like a sidebar, an ad and a cookie banner.
    page = parse_page(
        '<body class="single-post has-sidebar ad-free cookie-consent">'
        f'<nav class="menu"><a href=/>Home</a></nav><div id="content"><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></div>'
        '<div class="sidebar"><a href=/x>Elsewhere</a></div></body>'
    )
    blocks = block_features(page)
    body, home, elsewhere = page.texts.index(PARAGRAPH.strip()), page.texts.index("Home"), page.texts.index("Elsewhere")
    for group in ("sidebar", "ad", "cookie"):
        assert (page.ancestor_keywords[body] & ANCESTOR_KEYWORD_BITS[group]) != 0  # the page layer keeps the fact
        assert blocks[body, column(f"ancestor_class_{group}")] == 0
    # Marks that tell blocks apart stay: the sidebar's own block is not marked by the body, but by its own class.
    assert blocks[elsewhere, column("ancestor_class_sidebar")] == 1
    assert blocks[home, column("ancestor_class_nav")] == 1 and blocks[body, column("ancestor_class_nav")] == 0
    # The content group stays on every block ("single-post"): a page-wide wrapper carries it by right.
    assert all(blocks[:, column("ancestor_class_content")] == 1)


def test_a_keyword_on_only_some_blocks_keeps_its_mark():
    page = parse_page(f'<body><div class="sidebar"><a href=/x>Elsewhere</a></div><div><p>{PARAGRAPH}</p></div></body>')
    blocks = block_features(page)
    marked = blocks[:, column("ancestor_class_sidebar")].tolist()
    assert marked == [1, 0]


#: Nested deeper than the edge features' five levels, with headings, links, a title and a footer.
NESTED = (
    "<html><head><title>Der Titel der Seite</title></head><body><header><nav><ul><li><a href='/'>Start</a></li>"
    "<li><a href='/a'>Archiv</a></li></ul></nav></header><main><article><h1>Der Titel der Seite</h1>"
    + "<div><section>" * 6
    + "<p>Das ist der erste Absatz, und er ist nicht sehr lang. Aber er hat zwei Sätze.</p>"
    + "</section></div>" * 6
    + "<h2>Zweiter Teil</h2><p>Noch ein Absatz mit <b>fettem</b> Text und www.example.org im Jahr 2024.</p>"
    "</article></main><footer><p>© 2024 Beispiel, mail@example.org</p></footer></body></html>"
)


@pytest.mark.parametrize("html", [fixture_text("article.html"), NESTED], ids=["article", "nested"])
@pytest.mark.parametrize("compiled", [True, False])
def test_page_features_equal_each_matrix_computed_alone(html, compiled, monkeypatch):
    """page_features shares the ancestor chains, tag bits and text counts between the two matrices; the bytes are
    those of block_features and edge_features computed separately, with the compiled counts and without."""
    if not compiled:
        monkeypatch.setattr(counts, "compiled_text_counts", None)
    page = parse_page(html)
    for extended in (False, True):
        shared = page_features(page, extended=extended)
        alone = block_features(page, extended=extended), edge_features(page)
        for together, separate in zip(shared, alone):
            assert together.dtype == separate.dtype and together.shape == separate.shape
            assert together.tobytes() == separate.tobytes()
