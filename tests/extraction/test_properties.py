"""Property-based tests over generated HTML trees (hypothesis).

The trees mix block and inline elements (HTML's own auto-closing included:
``<p>`` inside ``<p>``, ``<li>`` inside ``<li>``, ``<a>`` inside ``<a>``),
text nodes of unique tokens separated by random whitespace, comments,
``<br>``/``<img>``, and scripts and styles whose tokens must never show.
Properties checked:

* every non-whitespace text node of the body lands in exactly one block,
  whole, and the blocks hold all tokens in document order, each once;
* ``main_text`` is the content blocks joined (by a space, a newline, or
  nothing before closing punctuation), hence a subsequence of the blocks'
  text;
* swapping whitespace characters (space, tab, LF) one for one, so offsets
  stay put, changes no block, label or probability (CR is left out: the
  parser turns CRLF into LF, which shifts a block's end offset by one); whitespace that moves offsets changes
  only the position features (``*_start_rel``, ``*_end_rel``,
  ``log_source_gap``), never texts, tag paths or the other features;
* str and UTF-8 bytes input give the same blocks; extraction is
  deterministic;
* the Collapsed DOM is well formed (no internal node with one child,
  contiguous leaf ranges, blocks are its leaves, offsets ordered);
* with the unary method, a higher threshold keeps a subset of the blocks.

Example counts are modest so the file runs in well under a minute.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_web2text import Web2TextModel, extract
from scrapy_web2text.labellers.web2text.features import BLOCK_FEATURES, EDGE_FEATURES, block_features, edge_features
from scrapy_web2text.page import elements, parse_page
from scrapy_web2text.page.tags import ANCESTOR_KEYWORDS

MODEL = Web2TextModel.initialised(seed=0)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BLOCK_TAGS = [
    "div",
    "section",
    "article",
    "nav",
    "header",
    "footer",
    "aside",
    "main",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "p",
    "form",
    "figure",
    "table",
    "td",
]
INLINE_TAGS = ["span", "a", "b", "i", "em", "strong", "code", "small", "label", "font"]
ATTRIBUTES = ["", ' class="content"', ' id="nav"', ' class="menu item"', ' class="post-body entry"', ' id="footer"']
WHITESPACE = st.text(alphabet=" \t\n", min_size=1, max_size=4)
WORD = st.text(
    alphabet=st.sampled_from(list("abcdefXYZ0123456789.,!?;:-'\"&<>éüß中文한글مرحبا😀")), min_size=1, max_size=6
)
POSITION_COLUMNS = np.array([name.endswith(("_start_rel", "_end_rel")) for name in BLOCK_FEATURES])
EDGE_POSITION_COLUMNS = np.array([name == "log_source_gap" for name in EDGE_FEATURES])


@dataclass
class Text:
    words: list[str]
    spaces: list[str]  # len(words) + 1 whitespace runs around the words


@dataclass
class Element:
    tag: str
    attributes: str
    children: list


@dataclass
class Opaque:
    """Markup whose words must never appear: a script, a style or a comment."""

    kind: str
    words: list[str]


@dataclass
class Void:
    tag: str


def text_nodes():
    return st.lists(WORD, min_size=1, max_size=5).flatmap(
        lambda words: st.lists(WHITESPACE, min_size=len(words) + 1, max_size=len(words) + 1).map(
            lambda spaces: Text(words, spaces)
        )
    )


LEAVES = st.one_of(
    text_nodes(),
    text_nodes(),
    st.builds(Opaque, st.sampled_from(["script", "style", "comment"]), st.lists(WORD, min_size=1, max_size=3)),
    st.builds(Void, st.sampled_from(["br", "img", "hr"])),
)
TREES = st.recursive(
    LEAVES,
    lambda children: st.builds(
        Element,
        st.sampled_from(BLOCK_TAGS + INLINE_TAGS),
        st.sampled_from(ATTRIBUTES),
        st.lists(children, min_size=1, max_size=5),
    ),
    max_leaves=40,
)
BODIES = st.lists(TREES, min_size=1, max_size=6)


class Renderer:
    """Render a tree to HTML; number the words so each is unique."""

    def __init__(self, swap: dict[str, str] | None = None, pad: str = ""):
        self.swap = swap or {}
        self.pad = pad  # extra whitespace between elements (moves offsets)
        self.visible: list[list[str]] = []  # words per text node, in order
        self.hidden: list[str] = []
        self.counter = 0

    def word(self, base: str) -> str:
        self.counter += 1
        return f"{base}#{self.counter}"

    def space(self, run: str) -> str:
        return "".join(self.swap.get(char, char) for char in run)

    def render(self, node) -> str:
        if isinstance(node, Text):
            words = [self.word(w) for w in node.words]
            self.visible.append(words)
            out = [self.space(node.spaces[0])]
            for word, space in zip(words, node.spaces[1:]):
                out += [html_lib.escape(word, quote=False), self.space(space)]
            return "".join(out)
        if isinstance(node, Opaque):
            words = [self.word(w) for w in node.words]
            self.hidden += words
            body = " ".join(words)
            if node.kind == "comment":
                return "<!-- " + body.replace("-", "_").replace(">", "_") + " -->"
            return f"<{node.kind}>{body.replace('<', '_')}</{node.kind}>"
        if isinstance(node, Void):
            return f"<{node.tag}>"
        inner = "".join(self.render(child) for child in node.children)
        return f"{self.pad}<{node.tag}{node.attributes}>{inner}</{node.tag}>{self.pad}"

    def page(self, body: list) -> str:
        return (
            "<!DOCTYPE html><html><head><title>t</title></head><body>"
            + "".join(self.render(node) for node in body)
            + "</body></html>"
        )


def squash(text: str) -> str:
    return "".join(text.split())


def block_words(result) -> list[str]:
    return [word for block in result.blocks for word in block.text.split(" ")]


@pytest.mark.slow
@SETTINGS
@given(BODIES)
def test_every_text_node_lands_in_exactly_one_block_in_order(body) -> None:
    renderer = Renderer()
    page_html = renderer.page(body)
    result = extract(page_html, model=MODEL)
    expected = [word for node in renderer.visible for word in node]
    assert block_words(result) == expected  # all words, in order, each once
    # Each text node is whole inside one block.
    owner = {}
    for index, block in enumerate(result.blocks):
        for word in block.text.split(" "):
            owner[word] = index
    for words in renderer.visible:
        assert len({owner[word] for word in words}) == 1, words
    hidden = set(renderer.hidden)
    assert not any(word in hidden for word in block_words(result))


@pytest.mark.slow
@SETTINGS
@given(BODIES, st.floats(0.05, 0.95))
def test_main_text_is_the_content_blocks_joined(body, threshold) -> None:
    result = extract(Renderer().page(body), model=MODEL, threshold=threshold)
    content = [block.text for block in result.blocks if block.is_content]
    # Joined by a space, a newline or (before closing punctuation) nothing.
    assert squash(result.main_text) == squash("".join(content))
    lines = result.main_text.split("\n") if result.main_text else []
    assert len(lines) <= len(content)
    # ... so it is a subsequence of the blocks' text, character by character.
    characters = iter(squash("".join(block.text for block in result.blocks)))
    assert all(any(char == candidate for candidate in characters) for char in squash(result.main_text))


@pytest.mark.slow
@SETTINGS
@given(BODIES, st.permutations(" \t\n"))
def test_swapping_whitespace_characters_changes_nothing(body, permutation) -> None:
    swap = dict(zip(" \t\n", permutation))
    first = extract(Renderer().page(body), model=MODEL)
    second = extract(Renderer(swap).page(body), model=MODEL)
    assert [b.text for b in first.blocks] == [b.text for b in second.blocks]
    assert [b.label for b in first.blocks] == [b.label for b in second.blocks]
    assert [b.probability for b in first.blocks] == [b.probability for b in second.blocks]
    assert first.main_text == second.main_text


@pytest.mark.slow
@SETTINGS
@given(BODIES, st.sampled_from(["\n", "  \n\t ", "\r\n" * 5]))
def test_added_whitespace_moves_only_position_features(body, pad) -> None:
    plain = parse_page(Renderer().page(body))
    padded = parse_page(Renderer(pad=pad).page(body))
    assert plain.texts == padded.texts and plain.tag_paths == padded.tag_paths
    assert np.array_equal(plain.break_before, padded.break_before)
    x, y = block_features(plain), block_features(padded)
    assert np.array_equal(x[:, ~POSITION_COLUMNS], y[:, ~POSITION_COLUMNS])
    e, f = edge_features(plain), edge_features(padded)
    assert np.array_equal(e[:, ~EDGE_POSITION_COLUMNS], f[:, ~EDGE_POSITION_COLUMNS])


@pytest.mark.slow
@SETTINGS
@given(BODIES)
def test_str_and_bytes_agree_and_extraction_is_deterministic(body) -> None:
    page_html = Renderer().page(body)
    from_str = extract(page_html, model=MODEL)
    from_bytes = extract(page_html.encode("utf-8"), model=MODEL)
    again = extract(page_html, model=MODEL)
    assert [(b.text, b.label, b.tag_path) for b in from_str.blocks] == [
        (b.text, b.label, b.tag_path) for b in from_bytes.blocks
    ]
    assert from_str == again


@pytest.mark.slow
@SETTINGS
@given(BODIES)
def test_collapsed_dom_is_well_formed(body) -> None:
    page = parse_page(Renderer().page(body))
    nodes = page.nodes
    if not len(page):
        assert not nodes
        return
    children: dict[int, list[int]] = {}
    for node in nodes:
        assert node.parent < node.index
        if node.parent >= 0:
            children.setdefault(node.parent, []).append(node.index)
            assert nodes[node.parent].depth == node.depth - 1
    for node in nodes:
        kids = children.get(node.index, [])
        assert len(kids) == node.n_children
        if node.is_leaf:
            assert not kids and node.end_block == node.first_block + 1
            assert page.block_nodes[node.first_block] == node.index
        else:
            assert len(kids) >= 2 or node.index == 0  # the collapse step
            assert nodes[kids[0]].first_block == node.first_block
            assert nodes[kids[-1]].end_block == node.end_block
            for left, right in zip(kids, kids[1:]):
                assert nodes[left].end_block == nodes[right].first_block
    assert sorted(page.block_nodes.tolist()) == [n.index for n in nodes if n.is_leaf]
    assert np.all(page.starts <= page.ends) and np.all(page.ends <= len(page.source))
    assert np.all(np.diff(page.starts) >= 0)


@pytest.mark.slow
@SETTINGS
@given(BODIES, st.floats(0.05, 0.9), st.floats(0.01, 0.09))
def test_unary_threshold_is_monotone(body, low, step) -> None:
    page_html = Renderer().page(body)
    loose = extract(page_html, model=MODEL, method="web2text-unary", threshold=low)
    strict = extract(page_html, model=MODEL, method="web2text-unary", threshold=low + step)
    assert all(b.is_content for a, b in zip(strict.blocks, loose.blocks) if a.is_content)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_an_extraction(text) -> None:
    """Arbitrary str (markup or not, surrogates included) never raises."""
    result = extract(text, model=MODEL)
    assert squash(result.main_text) == squash("".join(b.text for b in result.blocks if b.is_content))
    for block in result.blocks:
        assert block.text == block.text.strip() and block.text
        assert not re.search(r"\s\s", block.text)
        block.text.encode("utf-8")


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=2000), st.sampled_from([None, "utf-8", "cp1252", "shift_jis", "utf-16", "bogus"]))
def test_any_bytes_give_an_extraction(data, encoding) -> None:
    result = extract(data, model=MODEL, encoding=encoding)
    for block in result.blocks:
        assert "\x00" not in block.text
        block.text.encode("utf-8")


@pytest.mark.slow
@SETTINGS
@given(BODIES, st.floats(0.05, 0.95))
def test_clean_html_and_markdown_hold_exactly_the_content_blocks(body, threshold) -> None:
    """Every word of a content block is in the clean HTML and the Markdown, no word of a boilerplate block is;
    each xpath finds the element holding its block's text."""
    renderer = Renderer()
    result = extract(renderer.page(body), model=MODEL, method="web2text-unary", threshold=threshold)
    html_words = set(re.findall(r"\S+#\d+", html_lib.unescape(re.sub(r"<[^>]+>", " ", result.html))))
    kept = {word for block in result.blocks if block.is_content for word in block.text.split(" ")}
    assert html_words == kept
    markdown = result.markdown.replace("\\", "")
    assert all(word in markdown for word in kept)
    for block in result.blocks:
        assert result.root.getroottree().xpath(block.xpath)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_formats_without_raising(text) -> None:
    result = extract(text, model=MODEL, threshold=0.001)
    assert isinstance(result.markdown, str) and isinstance(result.html, str)
    assert result.title is None or isinstance(result.title, str)


_KEYWORD_PARTS = [word for _, pattern in ANCESTOR_KEYWORDS for word in re.findall(r"[\w-]+", pattern)]


_KEYWORD_TOKENS = st.lists(st.sampled_from(_KEYWORD_PARTS) | st.text("adsb-_x0é ", max_size=3), max_size=6).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_KEYWORD_TOKENS, max_size=4), st.sampled_from([" ", "  ", "\t", "\n", "\x1c", "\xa0"]))
def test_keyword_mask_is_each_group_pattern_searched_in_each_token(tokens: list[str], blank: str) -> None:
    # The single scan of page/elements.py over the whole string against the definition: each group's own pattern
    # searched in each token of the string (str.split's tokens), the masks joined.
    attributes = blank.join(tokens)
    expected = 0
    for token in attributes.split():
        expected |= sum(1 << bit for bit, (_, pattern) in enumerate(ANCESTOR_KEYWORDS) if re.search(pattern, token))
    elements._STRING_MASKS.clear()
    assert elements.keyword_mask(attributes) == expected


_ATTRIBUTE_VALUES = st.none() | st.lists(
    st.sampled_from(_KEYWORD_PARTS) | st.text("AdsΣΑİ-_ \t\x1c\xa0'07\u0663", max_size=4), max_size=4
).map("".join)


def test_ids_that_differ_in_their_digits_share_one_cached_mask() -> None:
    # Ids number a page's posts: "post-1234" and "post-7" are one cache entry, each with the mask its own scan gives.
    elements._ID_MASKS.clear()
    ids = ["post-1234", "post-7", "ads12", "ads", "comment_2024_11", "comment_9_9", "x\u0663\u0664ad"]
    for element_id in ids:
        assert elements._id_mask(element_id) == elements._scanned_mask(element_id.lower())
    assert set(elements._ID_MASKS) == {"post-0", "ads0", "ads", "comment_0_0", "x0ad"}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["div", "p"]), _ATTRIBUTE_VALUES, _ATTRIBUTE_VALUES)
def test_element_described_as_its_whole_class_and_id(tag: str, class_name: str | None, element_id: str | None) -> None:
    # The walk caches an element's description by (tag, class) and adds its id's mask: against the definition, the
    # lower-cased "class id" string scanned whole and the first class as the path segment (the Greek capital sigma
    # lower-cases by its neighbours, hence in the alphabet).
    attributes = f"{class_name or ''} {element_id or ''}".strip().lower()
    first_class = (class_name or "").split(None, 1)
    segment = tag + ("." + first_class[0] if first_class else "")
    elements._STRING_MASKS.clear()
    expected = (attributes, segment, elements._scanned_mask(attributes))
    for _ in range(2):  # described, then read back from the caches
        assert elements.describe_element(tag, class_name, element_id) == expected
