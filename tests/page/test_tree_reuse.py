"""Walking the tree parsel already built (Scrapy's ``response.selector``) gives the blocks and labels of a parse."""

import numpy as np
import pytest
from parsel import Selector
from scrapy.http import HtmlResponse

from scrapy_web2text import extract
from scrapy_web2text.integration.middleware import parsed_tree
from scrapy_web2text.page import parse_page
from scrapy_web2text.page.cdom import BLOCK_COLUMNS

from ..helpers import fixture_text

ARTICLE = fixture_text("article.html")
CASES = {
    "article": ARTICLE,
    "comments and PIs between texts": (
        "<html><body><p>a <!--x--> b<?pi x?>c</p><!-- c1 --><div>d<!--y-->e<span>f</span><!--z-->g</div>"
        "<ul><li>one</li><!-- between --><li>two</li></ul></body></html>\n"
    ),
    "comment first and last in an element": "<html><body><p><!--a-->x y<!--b--></p><p>z</p></body></html>",
    "text to the end of the document": "<html><body><p>text runs to the end   \n\n",
    "starts with text": "  hello <b>world</b>",
    "NUL": "<html><body><p>a\x00b</p><p>c</p></body></html>",
    "XML declaration": '<?xml version="1.0"?><html><body><p>a</p><p>b</p></body></html>',
    "deep": "<html><body>" + "<div>" * 300 + "deep text" + "</div>" * 300 + "<p>after</p></body></html>",
}


def page_record(page):
    nodes = [(n.index, n.tags, n.attributes, n.parent, n.depth, n.first_block, n.end_block) for n in page.nodes]
    arrays = {name: getattr(page, name).tolist() for name in BLOCK_COLUMNS}
    return page.texts, page.tag_paths, nodes, arrays, page.block_nodes.tolist(), page.node_table.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_page_from_parsels_tree(name):
    html = CASES[name]
    tree = Selector(text=html).root
    comments_before = len(tree.xpath("//comment()"))
    assert page_record(parse_page(html, tree=tree)) == page_record(parse_page(html))
    assert len(tree.xpath("//comment()")) == comments_before  # the caller's tree is left as it was


def test_the_tree_is_walked_where_it_can_be():
    plain = "<html><body><p>one</p><p>two</p></body></html>"
    tree = Selector(text=plain).root
    assert parse_page(plain, tree=tree).root is tree
    with_comment = "<html><body><p>one<!--x-->two</p></body></html>"
    tree = Selector(text=with_comment).root
    walked = parse_page(with_comment, tree=tree).root
    assert walked is not tree and not walked.xpath("//comment()")  # a stripped copy
    nul = CASES["NUL"]  # a tree that cannot be walked as it is gives the blocks of a parse
    assert parse_page(nul, tree=Selector(text=nul).root).texts == parse_page(nul).texts


def test_same_labels_from_parsels_tree():
    tree = Selector(text=ARTICLE).root
    reused, parsed = extract(ARTICLE, tree=tree), extract(ARTICLE)
    assert [(b.text, b.label, b.probability) for b in reused.blocks] == [
        (b.text, b.label, b.probability) for b in parsed.blocks
    ]
    assert reused.main_text == parsed.main_text and reused.main_text


def test_middleware_takes_the_tree_only_once_the_spider_built_it():
    response = HtmlResponse("https://example.com/a", body=ARTICLE.encode("utf-8"), encoding="utf-8")
    assert parsed_tree(response, response.text) is None  # not built by asking
    assert response._cached_selector is None
    response.css("p")
    assert parsed_tree(response, response.text) is response.selector.root
    assert parsed_tree(response, response.text.replace("<p>", "<p> ", 1)) is None  # parsel parsed another text
    page = parse_page(response.text, tree=parsed_tree(response, response.text))
    assert np.array_equal(page.starts, parse_page(response.text).starts)
