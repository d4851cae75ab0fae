import pytest

from scrapy_web2text.extraction.output import metadata_title
from scrapy_web2text.page import decode_html, parse_page
from scrapy_web2text.page.declared import declared_kinds
from scrapy_web2text.page.decode import decode_html_utf8
from scrapy_web2text.page.marks import LOOKED_UP_TAGS


def leaf_tags(page):
    return [page.nodes[i].tags for i in page.block_nodes]


def test_blocks_are_text_leaves_in_document_order():
    page = parse_page("<body><p>one <b>two</b> three</p><div>four</div>five</body>")
    assert page.texts == ["one", "two", "three", "four", "five"]


def test_preprocessing_drops_non_content_and_whitespace():
    page = parse_page(
        "<html><head><title>t</title><script>var a</script></head><body>"
        "<style>p{}</style><p>kept</p><img src=x><br><iframe>frame</iframe>   <!-- c --><input value=v>"
        "<noscript>ns</noscript></body></html>"
    )
    assert page.texts == ["kept"]


def test_single_child_chains_collapse_into_one_node():
    page = parse_page("<body><ul><li><a href=1>A</a></li><li><a href=2>B</a></li></ul><p>x</p></body>")
    assert leaf_tags(page)[:2] == [("li", "a", "#text"), ("li", "a", "#text")]
    first, second = (page.nodes[i] for i in page.block_nodes[:2])
    # Both links share the <ul> as their collapsed parent.
    assert first.parent == second.parent
    assert page.nodes[first.parent].tags == ("ul",)
    assert page.nodes[first.parent].n_children == 2


def test_node_leaf_ranges_cover_their_blocks():
    page = parse_page("<body><div><p>a <i>b</i></p><p>c</p></div><p>d</p></body>")
    for node in page.nodes:
        assert 0 <= node.first_block < node.end_block <= len(page)
        for block in range(node.first_block, node.end_block):
            ancestor = page.block_nodes[block]
            while ancestor != node.index and ancestor >= 0:
                ancestor = page.nodes[ancestor].parent
            assert ancestor == node.index


def test_offsets_point_at_the_text_in_the_source():
    html = "<html><body><p>Alpha beta</p><p>a <a href='#a'>link text</a> tail words</p></body></html>"
    page = parse_page(html)
    for text, start, end in zip(page.texts, page.starts, page.ends):
        assert text in " ".join(page.source[start:end].split())
    assert list(page.starts) == sorted(page.starts)


def test_tag_path_and_flags():
    page = parse_page('<body><div class="nav x"><a href="/">Home</a></div><p>Body text<br>after break</p></body>')
    assert page.tag_paths[0] == "html>body>div.nav>a>#text"
    assert list(page.in_link) == [True, False, False]
    assert list(page.break_before) == [True, True, True]
    inline = parse_page("<body><p>one <b>two</b></p></body>")
    assert list(inline.break_before) == [True, False]


def test_decoding_uses_declared_charset_then_falls_back():
    latin = '<meta charset="iso-8859-1"><p>café</p>'.encode("latin-1")
    assert "café" in decode_html(latin)
    assert "café" in decode_html("<p>café</p>".encode())
    assert "café" in decode_html("<p>café</p>".encode("cp1252"))  # not UTF-8: Windows-1252
    assert decode_html(b"\xef\xbb\xbf<p>x</p>") == "<p>x</p>"
    assert isinstance(decode_html(b"\xff\xfe\x00\xd8garbage", "utf-8"), str)


def test_valid_utf8_under_a_legacy_label_is_read_as_utf8():
    # issue 54: a page saved as UTF-8 under a template's ISO-8859-1 or GB2312 label gave "AndrÃ©s" in the title
    # and the text alike
    latin_label = '<meta charset="iso-8859-1"><title>Andrés Müller</title><p>Grüße</p>'
    assert "<title>Andrés Müller</title><p>Grüße</p>" in decode_html(latin_label.encode())
    assert "Grüße" in decode_html(latin_label.encode(), "ISO-8859-1")  # the transport's label alike
    chinese = '<meta charset="gb2312"><title>中文标题</title><p>这是一个中文段落。</p>'
    assert "中文标题" in decode_html(chinese.encode()) and "中文标题" in decode_html(chinese.encode("gb2312"))
    # text in the label's encoding stays so: Latin-1 that is not UTF-8, and two GB2312 bytes that happen to be
    assert "café" in decode_html('<meta charset="iso-8859-1"><p>café</p>'.encode("latin-1"))
    assert "<p>模</p>" in decode_html(b'<meta charset="gb2312"><p>\xc4\xa3</p>')


def test_bytes_and_str_give_the_same_blocks():
    html = "<html><body><p>Grüße aus Köln</p></body></html>"
    assert parse_page(html.encode("utf-8")).texts == parse_page(html).texts == ["Grüße aus Köln"]


def test_rejects_other_types():
    with pytest.raises(TypeError):
        parse_page(42)


def test_block_cap_truncates_and_says_so():
    html = "<body>" + "".join(f"<p>p{i}</p>" for i in range(50)) + "</body>"
    page = parse_page(html, max_blocks=10)
    assert len(page) == 10 and page.truncated
    assert not parse_page(html).truncated


def test_main_text_joins_inline_blocks_and_breaks_paragraphs():
    import numpy as np

    from scrapy_web2text.extraction import join_main_text

    page = parse_page(
        "<body><p>See <a href=x>the report</a>. Then <b>act</b></p><p>Next</p><div>gone</div><p>Last</p></body>"
    )
    keep = np.array([True, True, True, True, True, False, True])
    assert join_main_text(page, keep) == "See the report. Then act\nNext\nLast"


def test_control_characters_are_blank_in_block_text():
    # They carry nothing a reader sees and XML feed exports reject them.
    page = parse_page("<body><p>bell\x07 and escape\x1b and\x0b\x0e kept text</p><p>\x1b\x07</p></body>")
    assert page.texts == ["bell and escape and kept text"]


def test_extraction_reports_flattened_deep_pages():
    from scrapy_web2text import Web2TextModel, extract

    model = Web2TextModel.initialised(seed=0)
    deep = "<body><p>before</p>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "<p>after</p></body>"
    result = extract(deep, model=model)
    assert result.flattened and [b.text for b in result.blocks] == ["before", "deep", "after"]
    assert not extract("<p>shallow</p>", model=model).flattened


# A thread's posts, over MIN_NOSCRIPT_CHARS (500) characters in all.
POSTS = [
    "Deploy failed",
    "All of a sudden the deployment stopped working for my site. " * 5 + "The build passes, the deploy does not.",
    "Try clearing the build cache and deploying again. " * 4 + "If that fails, pin the runtime version.",
]
SCRIPT_RENDERED = (
    "<html><head><title>Thread</title><noscript><style>.x{color:red}</style></noscript></head><body>"
    "<section id='splash'><div class='dots'></div></section>"
    f"<noscript data-path='/t/1'><div id='main-outlet' role='main'><h1>{POSTS[0]}</h1>"
    f"<div class='post'><p>{POSTS[1]}</p></div>"
    f"<div class='post'><p>{POSTS[2]}</p></div></div></noscript>"
    "<script>start()</script></body></html>"
)


def test_a_page_with_its_text_only_in_noscript_is_read_from_it():
    page = parse_page(SCRIPT_RENDERED)
    assert page.texts == POSTS and page.from_noscript
    # Offsets still point into the source, and the tree (for Markdown, titles) is the unwrapped one.
    assert [page.source[s:e] for s, e in zip(page.starts, page.ends)] == POSTS
    assert page.root.find(".//noscript") is None


def test_noscript_lines_beside_the_pages_own_text_stay_dropped():
    html = (
        "<body><noscript><p>Please enable JavaScript to use this site.</p><img src=pixel.gif></noscript>"
        "<article><p>" + "The article's own text, long enough to be the page. " * 3 + "</p></article></body>"
    )
    page = parse_page(html)
    assert not page.from_noscript and len(page.texts) == 1 and page.texts[0].startswith("The article's own text")


def test_styles_and_scripts_in_noscript_do_not_count_as_its_text():
    html = "<body><p>short</p><noscript><style>" + "p{margin:0}" * 500 + "</style></noscript></body>"
    page = parse_page(html)
    assert page.texts == ["short"] and not page.from_noscript


def test_noscript_rule_leaves_parsels_tree_unchanged_and_agrees_with_a_fresh_parse():
    from parsel import Selector

    from scrapy_web2text.page.parse import reusable_tree

    root = Selector(text=SCRIPT_RENDERED).root
    assert reusable_tree(SCRIPT_RENDERED, root) is not None  # the shared tree is really walked
    page = parse_page(SCRIPT_RENDERED, tree=root)
    assert page.texts == POSTS and page.from_noscript
    assert len(root.findall(".//noscript")) == 2


def test_extraction_reports_pages_read_from_noscript():
    from scrapy_web2text import Web2TextModel, extract

    model = Web2TextModel.initialised(seed=0)
    result = extract(SCRIPT_RENDERED, model=model)
    assert result.from_noscript and [b.text for b in result.blocks] == POSTS
    assert not extract("<p>plain</p>", model=model).from_noscript


def test_a_script_only_apps_enable_javascript_line_is_not_its_text():
    html = (
        "<body><noscript>You need to enable JavaScript to run this app. <a href=/help>Help</a></noscript>"
        "<div id=root></div><script src=app.js></script></body>"
    )
    page = parse_page(html)
    assert page.texts == [] and not page.from_noscript


def test_closed_dialogs_are_not_text_and_open_ones_are():
    html = (
        "<body><p>Article text.</p><dialog class=newsletter><p>Subscribe to our newsletter</p></dialog>after"
        "<dialog open><p>An open dialog shows</p></dialog><p>More article text.</p></body>"
    )
    page = parse_page(html)
    assert page.texts == ["Article text.", "after", "An open dialog shows", "More article text."]


def test_closed_dialogs_leave_parsels_tree_unchanged():
    from parsel import Selector

    html = "<html><body><p>Kept text.</p><dialog><p>Cookie consent</p></dialog><p>Also kept.</p></body></html>"
    root = Selector(text=html).root
    assert parse_page(html, tree=root).texts == ["Kept text.", "Also kept."] == parse_page(html).texts
    assert root.find(".//dialog") is not None


@pytest.mark.parametrize(
    "data, encoding",
    [
        (b"<p>plain ASCII</p>", None),
        ("<p>Grüße, 東京, 😀</p>".encode(), None),  # sniffed as UTF-8
        ('<meta charset="utf-8"><p>Grüße</p>'.encode(), None),  # declared
        ("<p>Grüße</p>".encode(), "utf-8"),  # transport charset
        (b"<p>bad \xff byte</p>", "utf-8"),  # replaced: not the same bytes
        ("<p>cut short é".encode()[:-1], None),  # a last character cut short
        ("\ufeff<p>BOM</p>".encode(), None),  # the BOM is not text
        ('<meta charset="windows-1252"><p>caf\xe9</p>'.encode("cp1252"), None),
        ("<p>Grüße</p>".encode("utf-16-le"), "utf-16-le"),
        (b"<p>\x00 NUL and <?xml version='1.0'?></p>", None),
        (b'<!DOCTYPE html [<!ENTITY e "subset">]><p>\xc3\xa9 after a DOCTYPE subset</p>', None),  # normalised
    ],
)
def test_the_pages_own_bytes_are_parsed_only_where_they_are_its_text_in_utf8(data, encoding):
    text, utf8 = decode_html_utf8(data, encoding)
    assert text == decode_html(data, encoding)
    assert utf8 is None or (utf8 is data and text.encode("utf-8") == data)
    assert (utf8 is not None) == (text.encode("utf-8", "surrogatepass") == data)
    from_bytes, from_text = parse_page(data, encoding), parse_page(text)
    assert from_bytes.source == from_text.source and from_bytes.texts == from_text.texts
    assert from_bytes.starts.tolist() == from_text.starts.tolist()


LOOKED_UP = """<html><head><title>Two | Site</title><meta name="twitter:title" content="Tw">
<noscript><meta property="og:title" content="Late"></noscript></head><body><article><h1>Tw</h1>
<p>One two three.</p></article><svg><title>drawn</title></svg><template><article>hidden</article></template>
<noscript><p>no js</p></noscript><ARTICLE>b</ARTICLE><dialog><meta name="og:title" content="closed"></dialog></body>
</html>"""


def test_the_parse_finds_the_looked_up_tags_in_one_pass_as_each_search_would():
    page = parse_page(LOOKED_UP)
    for tag in LOOKED_UP_TAGS:
        assert page.tagged[tag] == list(page.root.iter(tag)) and page.tagged[tag], tag
    assert len(page.tagged["article"]) == 3 and len(page.tagged["meta"]) == 2  # the closed dialog's is gone
    declared, title = declared_kinds(page), metadata_title(page.root, page.tagged)
    page.tagged = None  # what a page made otherwise reads: the tree's own searches
    assert (declared_kinds(page), metadata_title(page.root)) == (declared, title) == (declared, "Tw")
    # A page read from its <noscript> elements has another tree: its searches are its own.
    assert parse_page(SCRIPT_RENDERED).tagged is None
