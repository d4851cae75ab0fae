"""Pathological input: ``extract()`` never crashes, never silently loses text.

Every case below states what ``extract()`` does with it.  For every ``str``
or ``bytes`` input the answer is an :class:`~scrapy_web2text.Extraction`
(``main_text == ""`` and no blocks where there is nothing to extract); only
other types raise ``TypeError``.  Run times are not asserted here:
``python benchmarks/pathological_report.py`` prints them per case.

=============================  =================================================
case                           expected behaviour
=============================  =================================================
empty str / bytes              no blocks, ``main_text == ""``
bytearray / memoryview         accepted like ``bytes``
whitespace only                no blocks (spaces, tabs, CR/LF, NBSP, ideographic
                               space, as str and as bytes)
random binary (256 KiB)        not labelled: ``skipped == "binary"``, no blocks
gzip served as text/html       not decompressed, not labelled: ``binary:gzip``
PDF served as text/html        not labelled: ``binary:pdf``
Windows-1252 declared UTF-8    declared codec with replacement: ``caf\ufffd``
UTF-8 declared Latin-1         a declared codec that decodes wins: mojibake
<meta> charset lies            declared codec with replacement; ASCII intact
mixed UTF-8 + Windows-1252     whole page as Windows-1252 (no charset given):
                               nothing dropped, the UTF-8 part is mojibake
UTF-16 with BOM                the BOM wins over everything
unknown declared charset       ignored; UTF-8, then Windows-1252
NUL bytes (str and bytes)      a few: NUL becomes U+FFFD, text after it is kept;
                               only NULs: not labelled (``binary``)
10 MB page                     all ~10,000 paragraphs are blocks, not truncated
100,000 paragraphs             the first ``MAX_BLOCKS`` (50,000) blocks, in
                               order, ``truncated=True``
nesting 100,000 deep           no RecursionError; text before, inside and after
                               the nesting kept (libxml2 stops at depth 2048:
                               the page is re-parsed with nesting beyond
                               ``MAX_NESTING`` unwrapped)
unclosed deep nesting          as above, without end tags
text at every level (2,100)    every level's text kept, in order
deep inline / table nesting    as above, for ``span/b/i`` and ``table/tr/td``
unclosed / misnested tags      every text kept, in document order
frameset (frames only)         no blocks: frames are not fetched
frameset with <noframes>       its text is kept (libxml2 parses noframes as raw
                               text, so markup inside it shows as text)
only scripts and styles        no blocks
text only inside <noscript>    read from it (the page shows it to readers
                               without JavaScript): ``from_noscript=True``
200,000 <noscript> paragraphs  read from them once more, in order, under
                               ``MAX_BLOCKS``; the splash text outside is kept
XHTML DOCTYPE with entities    no entity is expanded (``&x;`` stays literal),
                               the internal subset never shows as text
external entity (local file)   the file is never read
billion laughs                 nothing expands; fast
huge attribute values (MBs)    text kept; attributes only feed class/id features
comments and CDATA everywhere  no comment/CDATA text (CDATA in HTML is a
                               comment, as in browsers), words around kept
right-to-left and CJK text     kept exactly
emoji (incl. ZWJ sequences)    kept exactly
surrogate-escaped str          lone surrogates become ``?``; output encodes
non-str/bytes input            ``TypeError``
=============================  =================================================
"""

from __future__ import annotations

import codecs
import gzip
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from scrapy_web2text import Extraction, Web2TextModel, extract
from scrapy_web2text.page import MAX_BLOCKS, MAX_NESTING, parse_page

MODEL = Web2TextModel.initialised(seed=0)


def texts(result: Extraction) -> list[str]:
    return [block.text for block in result.blocks]


def joined(result: Extraction) -> str:
    return "\n".join(texts(result))


@dataclass
class Case:
    name: str
    make: Callable[[], tuple[Any, dict]]
    check: Callable[[Extraction], None]
    expected: str


def _random_binary():
    rng = random.Random(5)
    return bytes(rng.getrandbits(8) for _ in range(256 * 1024)), {}


def _pdf():
    body = (
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"4 0 obj\n<< /Length 44 /Filter /FlateDecode >>\nstream\n"
        + gzip.compress(b"BT /F1 24 Tf 100 700 Td (Hello PDF) Tj ET")
        + b"\nendstream\nendobj\nxref\n0 5\ntrailer\n<< /Root 1 0 R >>\nstartxref\n0\n%%EOF\n"
    )
    return body, {"encoding": "utf-8"}


def _ten_megabytes():
    para = "<p>" + "lorem ipsum dolor sit amet " * 37 + "</p>\n"
    count = 10_000_000 // len(para)
    return "<html><body>" + para * (count - 1) + "<p>the very last paragraph</p></body></html>", {}


def _deep(tag: str, depth: int, closed: bool = True) -> str:
    return (
        "<html><body><p>before</p>"
        + f"<{tag}>" * depth
        + "deep"
        + (f"</{tag}>" * depth if closed else "")
        + "<p>after</p></body></html>"
    )


def _every_level(depth: int) -> str:
    return "<body>" + "".join(f"<div>w{i} " for i in range(depth)) + "</div>" * depth + "<p>end</p></body>"


XXE_SECRET = "TOP-SECRET-4242-DO-NOT-READ"


def _external_entity(path: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{path}"><!ENTITY % pe SYSTEM "file://{path}"> %pe;]>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>start &xxe; end</p></body></html>'
    )


def _billion_laughs() -> str:
    entities = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return (
        '<?xml version="1.0"?><!DOCTYPE html [' + "".join(entities) + "]>"
        "<html><body><p>laugh &lol9; done</p></body></html>"
    )


def _expect(condition: bool, message: str = "") -> None:
    assert condition, message


def _exactly(*expected: str) -> Callable[[Extraction], None]:
    def check(result: Extraction) -> None:
        assert texts(result) == list(expected)

    return check


def _nothing(result: Extraction) -> None:
    assert result.blocks == () and result.main_text == ""


def _anything(result: Extraction) -> None:
    pass


def _skipped(reason: str) -> Callable[[Extraction], None]:
    def check(result: Extraction) -> None:
        assert (result.skipped, result.blocks, result.main_text) == (reason, (), "")

    return check


def _ten_mb_check(result: Extraction) -> None:
    assert not result.truncated
    assert len(result.blocks) == 10_000_000 // len("<p>" + "lorem ipsum dolor sit amet " * 37 + "</p>\n")
    assert result.blocks[-1].text == "the very last paragraph"


def _hundred_k_check(result: Extraction) -> None:
    assert result.truncated
    assert len(result.blocks) == MAX_BLOCKS
    assert texts(result)[:3] == ["para 0", "para 1", "para 2"]
    assert result.blocks[-1].text == f"para {MAX_BLOCKS - 1}"


def _every_level_check(depth: int) -> Callable[[Extraction], None]:
    def check(result: Extraction) -> None:
        words = joined(result).split()
        assert words == [f"w{i}" for i in range(depth)] + ["end"]

    return check


def _deep_mixed_check(result: Extraction) -> None:
    words = joined(result).split()
    assert words == ["before"] + [f"m{i}" for i in range(0, 30_000, 1000)] + ["deep", "after"]


def _no_entities(result: Extraction) -> None:
    text = joined(result)
    assert "EXPANDED" not in text and "]>" not in text
    assert texts(result) == ["one &x; two &y; three"]


def _billion_check(result: Extraction) -> None:
    assert texts(result) == ["laugh &lol9; done"]


CASES: list[Case] = [
    Case("empty str", lambda: ("", {}), _nothing, "no blocks"),
    Case("empty bytes", lambda: (b"", {}), _nothing, "no blocks"),
    Case("empty bytearray", lambda: (bytearray(), {}), _nothing, "no blocks"),
    Case("memoryview", lambda: (memoryview(b"<p>viewed</p>"), {}), _exactly("viewed"), "accepted like bytes"),
    Case("whitespace str", lambda: (" \n\t\r\f\u00a0\u3000  \n", {}), _nothing, "no blocks"),
    Case("whitespace bytes", lambda: (b" \n\t\r\n   ", {}), _nothing, "no blocks"),
    Case("whitespace in tags", lambda: ("<html> <body>\n <p> \u00a0 </p>\t</body></html>", {}), _nothing, "no blocks"),
    Case("random binary 256 KiB", _random_binary, _skipped("binary"), "not labelled: binary"),
    Case(
        "gzip as text/html",
        lambda: (gzip.compress(b"<html><body><p>Compressed words</p></body></html>" * 50), {"encoding": "utf-8"}),
        _skipped("binary:gzip"),
        "not decompressed, not labelled",
    ),
    Case("PDF as text/html", _pdf, _skipped("binary:pdf"), "not labelled"),
    Case(
        "cp1252 declared utf-8",
        lambda: ("<p>café au lait</p>".encode("cp1252"), {"encoding": "utf-8"}),
        _exactly("caf\ufffd au lait"),
        "declared codec with replacement",
    ),
    Case(
        "utf-8 declared latin-1",
        lambda: ("<p>café au lait</p>".encode(), {"encoding": "iso-8859-1"}),
        _exactly("café au lait"),
        "valid UTF-8 under a legacy label is read as UTF-8 (no mojibake)",
    ),
    Case(
        "meta charset lies",
        lambda: ('<meta charset="utf-8"><p>日本語 and ASCII words</p>'.encode("shift_jis"), {}),
        lambda r: _expect(texts(r)[0].endswith(" and ASCII words") and "\ufffd" in texts(r)[0]),
        "declared codec with replacement; ASCII intact",
    ),
    Case(
        "mixed utf-8 and cp1252",
        lambda: ("<p>café crème</p>".encode() + "<p>naïve façade</p>".encode("cp1252"), {}),
        _exactly("cafÃ© crÃ¨me", "naïve façade"),
        "whole page as Windows-1252",
    ),
    Case(
        "utf-16 with BOM",
        lambda: ("<p>héllo wörld</p>".encode("utf-16"), {"encoding": "utf-8"}),
        _exactly("héllo wörld"),
        "BOM wins",
    ),
    Case(
        "utf-8 BOM",
        lambda: (codecs.BOM_UTF8 + "<p>naïve</p>".encode(), {"encoding": "cp1252"}),
        _exactly("naïve"),
        "BOM wins",
    ),
    Case(
        "unknown charset",
        lambda: ("<p>déjà vu</p>".encode(), {"encoding": "x-no-such-charset"}),
        _exactly("déjà vu"),
        "ignored: UTF-8",
    ),
    Case(
        "NUL in str",
        lambda: ("<p>a\x00b</p><p>after \x00\x00 nul</p>", {}),
        _exactly("a\ufffdb", "after \ufffd\ufffd nul"),
        "NUL → U+FFFD",
    ),
    Case("NUL in bytes", lambda: (b"<p>a\x00b</p><p>after</p>", {}), _exactly("a\ufffdb", "after"), "NUL → U+FFFD"),
    Case("only NULs", lambda: (b"\x00" * 4096, {}), _skipped("binary"), "not labelled: binary"),
    Case("10 MB page", _ten_megabytes, _ten_mb_check, "all paragraphs, not truncated"),
    Case(
        "100,000 paragraphs",
        lambda: ("<body>" + "".join(f"<p>para {i}</p>" for i in range(100_000)) + "</body>", {}),
        _hundred_k_check,
        "first MAX_BLOCKS blocks, truncated",
    ),
    Case(
        "nesting 100,000 deep (div)",
        lambda: (_deep("div", 100_000), {}),
        _exactly("before", "deep", "after"),
        "all text kept",
    ),
    Case(
        "nesting 100,000 deep, unclosed",
        lambda: (_deep("div", 100_000, closed=False), {}),
        _exactly("before", "deep", "after"),
        "all text kept",
    ),
    Case(
        "nesting 3,000 deep (span)",
        lambda: (_deep("span", 3_000), {}),
        _exactly("before", "deep", "after"),
        "all text kept",
    ),
    Case(
        "nesting 5,000 deep (table)",
        lambda: (_deep("table", 5_000), {}),
        _exactly("before", "deep", "after"),
        "all text kept",
    ),
    Case(
        "nesting 30,000 deep, inline mix",
        lambda: (
            "<p>before</p>"
            + "".join(("<span>", "<b>", "<i>")[i % 3] + (f" m{i} " if i % 1000 == 0 else "") for i in range(30_000))
            + "deep"
            + "".join(("</span>", "</b>", "</i>")[i % 3] for i in reversed(range(30_000)))
            + "<p>after</p>",
            {},
        ),
        _deep_mixed_check,
        "all text kept, in order",
    ),
    Case(
        "text at every level, 2,100 deep",
        lambda: (_every_level(2_100), {}),
        _every_level_check(2_100),
        "every level's text kept",
    ),
    Case(
        "unclosed and misnested tags",
        lambda: (
            "<p>one<p>two<div><b><i>three</b></i>four</div><table><tr><td>five<td>six</table></span></div>"
            "seven<ul><li>eight<li>nine",
            {},
        ),
        _exactly("one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
        "all text, in order",
    ),
    Case(
        "frameset",
        lambda: (
            '<html><frameset cols="50%,50%"><frame src="a.html"><frame src="file:///etc/passwd"></frameset></html>',
            {},
        ),
        _nothing,
        "no blocks",
    ),
    Case(
        "frameset with noframes",
        lambda: (
            '<html><frameset><frame src="a.html"><noframes><p>No frames here</p></noframes></frameset></html>',
            {},
        ),
        lambda r: _expect("No frames here" in joined(r)),
        "noframes text kept",
    ),
    Case(
        "only scripts and styles",
        lambda: (
            "<html><head><style>p{color:red}</style><script>var x='<p>not text</p>';</script></head>"
            "<body><script>document.write('<p>nope</p>')</script><style>body{}</style><noscript></noscript>"
            "<template><p>inert</p></template></body></html>",
            {},
        ),
        _nothing,
        "no blocks",
    ),
    Case(
        "XHTML DOCTYPE with entities",
        lambda: (
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd" [\n<!ENTITY x "EXPANDED">\n'
            '<!ENTITY y "<p>EXPANDED markup</p>">\n]>\n<html xmlns="http://www.w3.org/1999/xhtml">'
            "<body><p>one &x; two &y; three</p></body></html>",
            {},
        ),
        _no_entities,
        "no expansion, no subset text",
    ),
    Case("billion laughs", lambda: (_billion_laughs(), {}), _billion_check, "nothing expands"),
    Case(
        "huge attribute values",
        lambda: (
            '<div class="'
            + "c " * 1_000_000
            + '" data-x="'
            + "x" * 3_000_000
            + '"><p title="'
            + "t" * 500_000
            + '">kept text</p><a href="data:text/html;base64,'
            + "QUFB" * 500_000
            + '">link text</a></div>',
            {},
        ),
        _exactly("kept text", "link text"),
        "text kept",
    ),
    Case(
        "comments and CDATA everywhere",
        lambda: (
            "<!--c1--><html><!--c2--><head><!--h--><title>T</title></head><body><!--c3-->"
            "<p>alpha<!--inner-->beta</p><![CDATA[ hidden cdata ]]><p>gamma <![CDATA[x]]> delta</p>"
            "<svg><![CDATA[svgcdata]]></svg><!----><!---->" + "<!-- many -->" * 10_000 + "<p>eps<!-- unterminated",
            {},
        ),
        _exactly("alphabeta", "gamma delta", "eps"),
        "no comment/CDATA text",
    ),
    Case(
        "RTL and CJK",
        lambda: (
            '<p dir="rtl">مرحبا بالعالم</p><p>שלום עולם</p><p>中文文本，测试。</p>'
            "<p>日本語のテキスト</p><p>한국어 텍스트</p>",
            {},
        ),
        _exactly("مرحبا بالعالم", "שלום עולם", "中文文本，测试。", "日本語のテキスト", "한국어 텍스트"),
        "kept exactly",
    ),
    Case(
        "RTL and CJK as bytes",
        lambda: ('<p dir="rtl">مرحبا بالعالم</p><p>中文文本</p>'.encode(), {}),
        _exactly("مرحبا بالعالم", "中文文本"),
        "kept exactly",
    ),
    Case(
        "emoji",
        lambda: ("<p>smile 😀 thumbs 👍🏽 family 👨\u200d👩\u200d👧 flag 🇳🇱</p>", {}),
        _exactly("smile 😀 thumbs 👍🏽 family 👨\u200d👩\u200d👧 flag 🇳🇱"),
        "kept exactly",
    ),
    Case(
        "text only inside noscript",
        lambda: ("<body><div id=splash></div><noscript><p>" + "posted " * 80 + "</p><p>a reply</p></noscript>", {}),
        lambda r: _expect(r.from_noscript and texts(r) == [("posted " * 80).strip(), "a reply"]),
        "read from the <noscript> elements",
    ),
    Case(
        "200,000 noscript paragraphs",
        lambda: (
            "<body><p>Loading</p><noscript>" + "".join(f"<p>n{i}</p>" for i in range(200_000)) + "</noscript>",
            {},
        ),
        lambda r: _expect(
            r.from_noscript and r.truncated and texts(r)[:3] == ["Loading", "n0", "n1"] and len(r.blocks) == MAX_BLOCKS
        ),
        "read once more, cut at MAX_BLOCKS",
    ),
    Case(
        "surrogate-escaped str",
        lambda: (b"<p>caf\xe9 \xff ok</p>".decode("utf-8", "surrogateescape") + "<p>lone \ud800 high</p>", {}),
        _exactly("caf? ? ok", "lone ? high"),
        "lone surrogates → ?",
    ),
]


def _squash(text: str) -> str:
    return "".join(text.split())


def _common_invariants(result: Extraction) -> None:
    """What holds for every Extraction, whatever came in."""
    assert isinstance(result, Extraction)
    assert isinstance(result.main_text, str)
    for block in result.blocks:
        assert block.text and block.text == block.text.strip()
        assert "\x00" not in block.text
        block.text.encode("utf-8")  # no lone surrogates
        assert block.label in ("content", "boilerplate")
        assert math.isfinite(block.probability) and 0.0 <= block.probability <= 1.0
    kept = [block.text for block in result.blocks if block.is_content]
    # main_text is the content blocks in order, joined by a space, a newline
    # or (before closing punctuation) nothing.
    assert _squash(result.main_text) == _squash("".join(kept))
    json.dumps(result.to_dict())


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_pathological_case(case: Case) -> None:
    html, kwargs = case.make()
    result = extract(html, model=MODEL, **kwargs)
    _common_invariants(result)
    case.check(result)


def test_external_entity_pointing_at_a_local_file_is_not_read(tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(XXE_SECRET)
    for html in (_external_entity(str(secret)), _external_entity(str(secret)).encode("utf-8")):
        result = extract(html, model=MODEL)
        _common_invariants(result)
        assert XXE_SECRET not in joined(result)
        assert texts(result) == ["start &xxe; end"]


@pytest.mark.parametrize("value", [None, 42, 4.2, ["<p>x</p>"], {"html": "<p>x</p>"}, object(), ("<p>",)])
def test_other_types_raise_type_error(value) -> None:
    with pytest.raises(TypeError):
        extract(value, model=MODEL)


def test_deep_nesting_is_flattened_only_when_libxml2_gives_up() -> None:
    shallow = parse_page(_deep("div", 2_000))
    deep = parse_page(_deep("div", 3_000))
    assert not shallow.flattened and shallow.texts == ["before", "deep", "after"]
    assert deep.flattened and deep.texts == ["before", "deep", "after"]
    # Nesting up to MAX_NESTING survives the re-parse: the CDOM stays deep.
    assert max(node.depth + len(node.tags) for node in deep.nodes) > MAX_NESTING // 2


def test_deep_page_features_and_text_output_have_no_recursion() -> None:
    from scrapy_web2text.labellers.web2text.features import block_features, edge_features

    # 30,000 levels of text: deep, yet under MAX_BLOCKS so nothing is cut.
    page = parse_page(_every_level(30_000))
    assert page.flattened
    x, e = block_features(page), edge_features(page)
    assert x.shape == (len(page), 128) and e.shape == (max(len(page) - 1, 0), 25)
    result = extract(_every_level(30_000), model=MODEL)
    assert not result.truncated
    assert joined(result).split() == [f"w{i}" for i in range(30_000)] + ["end"]
    json.dumps(result.to_dict())
    repr(result)
