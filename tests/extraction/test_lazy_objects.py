"""Objects made on first access: the result's blocks (extraction.build_extraction), with the same blocks,
equality, repr and pickling as a result built with its blocks; a parsed page's CDOM nodes (Page.__getattr__)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from scrapy_web2text import Block, Extraction, extract
from scrapy_web2text.extraction import build_extraction
from scrapy_web2text.page import parse_page

PAGE = "<html><body><h1>Title</h1><p>First paragraph, with <a href='/x'>a link</a> in it.</p><div>Footer</div>"


def labelled_page(html: str = PAGE):
    page = parse_page(html)
    keep = np.array([index % 2 == 0 for index in range(len(page))])
    probabilities = np.linspace(0.1, 0.9, len(page))
    return page, keep, probabilities


def test_blocks_read_later_are_the_page_blocks_with_their_labels():
    page, keep, probabilities = labelled_page()
    result = build_extraction(page, keep, probabilities)
    assert [block.text for block in result.blocks] == page.texts
    assert [block.is_content for block in result.blocks] == keep.tolist()
    assert [block.probability for block in result.blocks] == probabilities.tolist()
    assert [block.node for block in result.blocks] == [page.nodes[node] for node in page.block_nodes]
    assert [(block.element, block.in_tail) for block in result.blocks] == page.block_elements
    assert result.blocks is result.blocks  # built once
    assert [block.text for block in result.content_blocks] == page.texts[::2]


def test_a_result_equals_one_constructed_with_its_blocks():
    unread, read = extract(PAGE), extract(PAGE)
    blocks = read.blocks
    assert isinstance(blocks, tuple) and all(isinstance(block, Block) for block in blocks)
    constructed = Extraction(main_text=read.main_text, blocks=blocks, model=read.model)
    assert unread == constructed and constructed == unread
    fresh = extract(PAGE)
    assert repr(fresh) == repr(
        Extraction(
            main_text=read.main_text, blocks=blocks, model=read.model, timings=fresh.timings, page_type=fresh.page_type
        )
    )
    assert hash(extract(PAGE).blocks) == hash(blocks)


def test_a_result_without_a_tree_pickles_with_its_blocks():
    page, keep, probabilities = labelled_page()
    page.root, page.block_elements = None, []  # an lxml tree does not pickle; the rest must
    result = build_extraction(page, keep, probabilities)
    copy = pickle.loads(pickle.dumps(result))
    assert copy == result and [block.text for block in copy.blocks] == page.texts


def test_other_missing_attributes_still_raise():
    result = extract(PAGE)
    with pytest.raises(AttributeError, match="no_such_field"):
        result.no_such_field  # noqa: B018
    assert not hasattr(result, "blocks_") and hasattr(result, "blocks")


def test_page_nodes_are_made_from_the_node_table_on_first_read():
    page = parse_page(PAGE)
    assert "nodes" not in vars(page)  # left for the first read
    nodes = page.nodes
    assert nodes is page.nodes and len(nodes) == len(page.node_table)
    for index, (node, row) in enumerate(zip(nodes, page.node_table.tolist())):
        parent, depth, first_block, end_block, n_children, tags_id, attributes_id = row
        assert (node.index, node.parent, node.depth, node.first_block, node.end_block, node.n_children) == (
            index,
            parent,
            depth,
            first_block,
            end_block,
            n_children,
        )
        assert node.tags == page.distinct_tags[tags_id] and node.attributes == page.distinct_attributes[attributes_id]
    with pytest.raises(AttributeError, match="no_such_field"):
        page.no_such_field  # noqa: B018


def test_a_lazy_result_stays_frozen_before_and_after_its_blocks_are_made():
    import dataclasses

    result = extract(PAGE)
    for name in ("blocks", "page_type", "main_text"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, name, ())
    assert result._labelled_page() is not None  # the refused assignments made nothing
    blocks = result.blocks
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.blocks = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        del result.blocks
    assert result.blocks is blocks and result._labelled_page() is None


def test_a_page_type_given_as_a_function_is_made_once_on_first_read():
    from scrapy_web2text.labellers.base import PageType

    page, keep, probabilities = labelled_page()
    calls = []

    def classify():
        calls.append(1)
        return PageType("article", 0.9)

    result = build_extraction(page, keep, probabilities, page_type=classify)
    assert calls == [] and result.main_text
    assert result.page_type == PageType("article", 0.9) and result.page_type.label == "article"
    assert calls == [1]


def test_replace_and_copy_see_the_made_fields():
    import copy
    import dataclasses

    result = extract(PAGE)
    moved = dataclasses.replace(result, url="https://example.com/")
    assert moved.url == "https://example.com/" and moved.blocks == result.blocks and moved != result
    assert copy.copy(extract(PAGE)).blocks == result.blocks


def test_a_deferred_field_is_made_once_then_read_like_any_other():
    import dataclasses

    from scrapy_web2text.extraction.lazy import Later, deferred

    @deferred("value")
    @dataclasses.dataclass(frozen=True)
    class Holder:
        value: list
        other: int = 0

    calls = []
    holder = Holder(Later(lambda: calls.append(1) or [1, 2]), other=3)
    assert calls == [] and Holder.value.pending(holder) is not None
    assert holder.value == [1, 2] and holder.value is holder.value and calls == [1]
    assert vars(holder) == {"value": [1, 2], "other": 3}  # the builder is gone; reads go to the instance
    assert Holder.value.pending(holder) is None
    given = Holder([5])
    assert given.value == [5] and Holder.value.pending(given) is None
    import copy

    copied = copy.copy(Holder(Later(lambda: [7])))  # pickling's path: the state is taken with the field made
    assert vars(copied) == {"value": [7], "other": 0}
