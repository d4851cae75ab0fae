"""The compiled edge comparisons (``labellers/web2text/_edges.pyx``) give the numpy reference's columns and tree
distances exactly: on random block arrays (ancestor chains that meet at any level or not at all, above the root
included) and on parsed pages."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_web2text.labellers.web2text import edges
from scrapy_web2text.labellers.web2text.counts import ENDS_SENTENCE, UPPER
from scrapy_web2text.labellers.web2text.features import edge_features
from scrapy_web2text.page import parse_page
from tests.twins import twin

compiled = twin(edges.__name__).edge_comparisons


def _both(inputs: edges.EdgeInputs) -> tuple[tuple, tuple]:
    return compiled(inputs, edges.EDGE_LEVELS, ENDS_SENTENCE, UPPER), edges.edge_comparisons(inputs)


def _random_inputs(seed: int, n: int) -> edges.EdgeInputs:
    rng = np.random.default_rng(seed)
    # Ancestor chains from a small random tree, so that neighbours share ancestors at every distance; a node's
    # parent has a lower index, node 0 is the root, and -1 above it.
    nodes = int(rng.integers(1, 40))
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, nodes)])
    chain = np.empty((n, edges.EDGE_LEVELS + 2), np.int64)
    chain[:, 0] = rng.integers(0, nodes, n)
    for level in range(1, chain.shape[1]):
        above = chain[:, level - 1]
        chain[:, level] = np.where(above >= 0, parents[np.maximum(above, 0)], -1)

    def small(high: int, dtype=np.int64) -> np.ndarray:
        return rng.integers(0, high, n).astype(dtype)

    return edges.EdgeInputs(
        chain=chain,
        break_before=small(2, np.uint8),
        in_link=small(2, np.uint8),
        path_ids=small(3),
        keywords=small(3),
        tag_marks=small(3),
        leaf_tags=small(3),
        leaf_attributes=small(3),
        heading=small(2, np.uint8),
        spaces=small(25),
        first=small(2**16, np.uint16),
        last=small(2**16, np.uint16),
        bucket=np.floor(np.log2(small(300).astype(float) + 1)),
    )


def test_the_compiled_comparisons_are_in_use_unless_turned_off() -> None:
    turned_off = os.environ.get("WEB2TEXT_PURE_PYTHON", "").strip() not in ("", "0")
    assert (edges.compiled_edge_comparisons is None) == turned_off


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60))
def test_same_columns_and_distances_on_random_blocks(seed: int, n: int) -> None:
    (matrix, distance), (expected, expected_distance) = _both(_random_inputs(seed, n))
    assert matrix.dtype == expected.dtype == np.float32 and matrix.tobytes() == expected.tobytes()
    assert distance.tolist() == expected_distance.tolist()


@pytest.mark.parametrize(
    "html",
    [
        "<p>One.</p><p>Two words here, and more of them to pass ten words in all.</p>",
        "<div><h2>Heading</h2><ul><li><a href=/a>First link</a></li><li><a href=/b>Second</a></li></ul></div>"
        "<table><tr><td>cell <b>bold</b> tail</td></tr></table><footer>© 2026 <span>Someone</span></footer>",
        "<article>" + "<section><div><p>Deep <i>inline</i> text.</p></div></section>" * 5 + "</article>",
    ],
)
def test_a_page_has_the_same_edge_features_either_way(html: str, monkeypatch) -> None:
    page = parse_page(f"<html><body>{html}</body></html>")
    with_twin = edge_features(page)
    monkeypatch.setattr(edges, "compiled_edge_comparisons", None)
    assert with_twin.tobytes() == edge_features(page).tobytes()
