"""Round four's inputs (issue 53): property tests over classes of inputs, one test per class.

Argument types, escaped CSS in the page view, URL-valued metadata, invalid dates, JSON-LD numbers, server-chosen
content types.
"""

from __future__ import annotations

import codecs
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_web2text import extract
from scrapy_web2text.page.sniff import TYPE_FAMILIES
from scrapy_web2text.show import build_view

WORDS = "Readable words of the article stay in the text. " * 8
PAGE = f"<html><body><article><p>{WORDS}</p></article></body></html>"

#: Values of a type no argument of extract() takes (bool is no number: threshold=True is an error).
WRONG_VALUES = st.one_of(
    st.integers(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(object),
    st.just(3.5j),
)
#: argument -> wrong values beyond WRONG_VALUES (floats and bytes are right for some arguments).
EXTRA_WRONG = {
    "url": st.one_of(st.floats(), st.binary(max_size=8)),
    "method": st.one_of(st.none(), st.floats(), st.binary(max_size=8)),
    "encoding": st.one_of(st.floats(), st.binary(max_size=8)),
    "content_type": st.floats(),
    "model": st.one_of(st.floats(), st.binary(max_size=8)),
}


@settings(max_examples=150, deadline=None)
@given(data=st.data(), argument=st.sampled_from([*EXTRA_WRONG, "threshold"]))
def test_an_argument_of_a_wrong_type_raises_type_error_naming_it(data, argument) -> None:
    wrong = WRONG_VALUES if argument == "threshold" else st.one_of(WRONG_VALUES, EXTRA_WRONG[argument])
    # An int is a threshold's right type (its range decides); every other wrong value is a wrong type for all.
    value = data.draw(wrong.filter(lambda v: argument != "threshold" or type(v) is not int))
    with pytest.raises(TypeError, match=rf"^{argument} must be "):
        extract(PAGE, **{argument: value})


@settings(max_examples=40, deadline=None)
@given(value=st.floats(0.01, 0.99), spelling=st.sampled_from(["{:g}", " {:.4f} ", "{:e}"]))
def test_a_threshold_given_as_a_numeric_string_is_that_number(value, spelling) -> None:
    text = spelling.format(value)
    assert extract(PAGE, threshold=text).main_text == extract(PAGE, threshold=float(text)).main_text


@pytest.mark.parametrize("threshold", ["0.5x", "", "nan", "inf", "1.5", "0", -0.1, float("nan"), 1])
def test_a_threshold_outside_the_open_unit_interval_raises_value_error_naming_it(threshold) -> None:
    with pytest.raises(ValueError, match="^threshold must "):
        extract(PAGE, threshold=threshold)


# --- escaped CSS in the page view ------------------------------------------------------------------------------

#: What loads from the network, each with the word an escape may hide and the rest written plainly.
CSS_LOADS = {
    "url": ("url", "(http://evil.example/x)"),
    "import": ("@import", ' "http://evil.example/i.css";'),
    "image-set": ("image-set", "(url(http://evil.example/z) 1x)"),
}
HEX = set("0123456789abcdefABCDEF")


@st.composite
def escaped_word(draw, word: str) -> str:
    """``word`` with each character written plainly, in the other case, as a hex escape (1-6 digits, upper or lower
    case, its optional white space) or a backslash escape, with comments between characters."""
    out = []
    for index, character in enumerate(word):
        following = word[index + 1 : index + 2]
        how = draw(st.sampled_from(["plain", "case", "hex", "backslash"]))
        if how == "case":
            out.append(character.swapcase())
        elif how == "hex" or (how == "backslash" and character in HEX):
            digits = draw(st.integers(len(f"{ord(character):x}"), 6))
            code = f"{ord(character):0{digits}x}"
            code = code.upper() if draw(st.booleans()) else code
            # A hex escape of fewer than 6 digits needs its white space when a hex digit follows.
            needs_space = following in HEX and digits < 6
            space = draw(st.sampled_from([" ", "\t", "\n", "\r\n", "\f"] + ([] if needs_space else [""])))
            out.append(f"\\{code}{space}")
        elif how == "backslash":
            out.append("\\" + character)
        else:
            out.append(character)
        if following and draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(["/**/", "/* x */", "/*\n*/"])))
    return "".join(out)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(CSS_LOADS)), where=st.sampled_from(["sheet", "attribute"]))
def test_escaped_css_loads_nothing_in_the_page_view(data, kind, where) -> None:
    word, rest = CSS_LOADS[kind]
    css = data.draw(escaped_word(word)) + rest
    if where == "sheet":
        page = f"<html><head><style>.a {{ background: {css} }}</style></head><body><p>{WORDS}</p></body></html>"
    else:
        page = f"<html><body><p style='background: {css}'>{WORDS}</p></body></html>"
    view = build_view(page)
    assert "evil.example" not in view, css
    assert not re.search(r"(?<!x-)image-set\(", view, re.IGNORECASE), css


def test_the_issues_escaped_css_leaves_no_loading_rule() -> None:
    page = (
        r'<style>.a{background:u\72l(http://evil/x)} @\69mport "http://evil/i.css";</style>'
        r"<p style='background:\75 rl(http://evil/y); b: \69mage-set(&quot;http://evil/z&quot; 1x)'>"
        "Some text of the page here.</p>"
    )
    view = build_view(page)
    assert "http://evil/x" not in view and "http://evil/i.css" not in view and "http://evil/y" not in view
    assert "x-image-set(" in view and not re.search(r"(?<!x-)image-set\(", view)


# --- URL-valued metadata ------------------------------------------------------------------------------------------

URL_FIELDS = ("canonical_url", "image", "license")
#: Values no URL-valued field may return, however spelt.
HOSTILE_URLS = st.sampled_from(
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " \x01javascript:alert(1)",
        "java\tscript:alert(1)",
        "javascript&colon;alert(1)",
        "javascript&#58;alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "mailto:a@example.com",
        "http://[::1",
        "http://exa\x00mple.com/x",
        "https://example.com/a b\nc",
        "http:///no-host",
        "//[::1/x",
    ]
)
#: Where a page may put a URL-valued field: each template takes the value (already escaped for its place).
URL_PLACES = {
    "json-ld": '<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "H", "license": {0},'
    ' "image": {0}, "url": {0}, "thumbnailUrl": {0}}}</script>',
    "json-ld object": '<script type="application/ld+json">{{"@type": "NewsArticle", "image": {{"url": {0}}},'
    ' "mainEntityOfPage": {{"@id": {0}}}, "license": {{"name": {0}}}}}</script>',
    "opengraph": '<meta property="og:image" content={1}><meta property="og:url" content={1}>',
    "links": '<link rel="canonical" href={1}><link rel="license" href={1}><meta name="twitter:image" content={1}>',
    "microdata": '<div itemscope itemtype="https://schema.org/Article"><link itemprop="license" href={1}>'
    '<meta itemprop="image" content={1}><a itemprop="url" href={1}>x</a></div>',
}


@settings(max_examples=80, deadline=None)
@given(
    value=HOSTILE_URLS,
    place=st.sampled_from(sorted(URL_PLACES)),
    page_url=st.sampled_from([None, "https://example.com/news/a.html", "http://[::1", "javascript:x"]),
)
def test_every_url_valued_metadata_field_is_http_or_absent(value, place, page_url) -> None:
    attribute = '"' + value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;") + '"'
    if "&" in value:  # an entity the page wrote: the parser decodes it in attributes, clean_text in JSON-LD
        attribute = f'"{value}"'
    head = URL_PLACES[place].format(json.dumps(value).replace("</", "<\\/"), attribute)
    metadata = extract(f"<html><head>{head}</head><body><p>{WORDS}</p></body></html>", page_url).metadata
    for name in URL_FIELDS:
        found = getattr(metadata, name)
        if name == "license" and found is not None and not re.match(r"https?://", found):
            assert not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", found), (name, found)  # a name, not a URL
            continue
        assert found is None or re.fullmatch(r"https?://[^\x00-\x20\x7f-\x9f]+", found), (name, found)


# --- numbers in JSON-LD ---------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    digits=st.integers(4_301, 20_000),
    sign=st.sampled_from(["", "-"]),
    tail=st.sampled_from(["", ".5", "e3", ".25E-2"]),
    where=st.sampled_from(["top", "nested", "list"]),
)
def test_a_number_past_pythons_digit_limit_costs_only_itself(digits, sign, tail, where) -> None:
    number = sign + "9" * digits + tail
    planted = {"top": number, "nested": f'{{"@type": "Rating", "ratingValue": {number}}}', "list": f"[1, {number}]"}
    script = (
        '{"@type": "NewsArticle", "headline": "Planted headline", "datePublished": "2024-03-05", '
        f'"author": {{"@type": "Person", "name": "Ann Lee"}}, "wordCount": {planted[where]}}}'
    )
    page = f'<html><head><script type="application/ld+json">{script}</script></head><body><p>{WORDS}</p></body></html>'
    metadata = extract(page).metadata
    assert (metadata.title, metadata.authors, metadata.date_published) == (
        "Planted headline",
        ("Ann Lee",),
        "2024-03-05",
    )
    assert metadata.sources["title"] == "json-ld"


# --- impossible dates -----------------------------------------------------------------------------------------

DATE_PLACES = {
    "time datetime": ("", '<time datetime="{}">published</time>'),
    "time text": ("", "<time>{}</time>"),
    "meta date": ('<meta name="date" content="{}">', ""),
    "opengraph": ('<meta property="article:published_time" content="{}">', ""),
    "json-ld": ('<script type="application/ld+json">{{"@type": "NewsArticle", "datePublished": "{}"}}</script>', ""),
}


@st.composite
def impossible_dates(draw) -> tuple[str, str]:
    """(an impossible ISO date, the possible one it was broken from): one part out of its range."""
    year, month, day = draw(st.integers(2000, 2023)), draw(st.integers(1, 12)), draw(st.integers(1, 28))
    hour, minute, zone = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.sampled_from(["", "Z", "+02:00"]))
    with_time = draw(st.booleans()) or zone
    broken = draw(st.sampled_from(["day", "month", "hour", "minute", "zone"] if with_time else ["day", "month"]))
    days_in = {2: 29 if year % 4 == 0 else 28, 4: 30, 6: 30, 9: 30, 11: 30}.get(month, 31)
    parts = {"month": month, "day": day, "hour": hour, "minute": minute, "zone": zone}
    good = f"{year}-{month:02d}-{day:02d}" + (f"T{hour:02d}:{minute:02d}:00{zone}" if with_time else "")
    out_of_range = {
        "day": st.sampled_from([0, *range(days_in + 1, 100)]),
        "month": st.sampled_from([0, *range(13, 100)]),
        "hour": st.integers(24, 99),
        "minute": st.integers(60, 99),
        "zone": st.builds(lambda sign, hours: f"{sign}{hours:02d}:00", st.sampled_from("+-"), st.integers(24, 99)),
    }
    parts[broken] = draw(out_of_range[broken])
    bad = f"{year}-{parts['month']:02d}-{parts['day']:02d}" + (
        f"T{parts['hour']:02d}:{parts['minute']:02d}:00{parts['zone']}" if with_time else ""
    )
    return bad, good


@settings(max_examples=60, deadline=None)
@given(dates=impossible_dates(), place=st.sampled_from(sorted(DATE_PLACES)))
def test_an_impossible_date_is_no_date(dates, place) -> None:
    bad, good = dates
    head, body = DATE_PLACES[place]

    def published(value: str) -> str | None:
        page = f"<html><head>{head.format(value)}</head><body><p>{WORDS}</p>{body.format(value)}</body></html>"
        return extract(page).metadata.date_published

    assert published(bad) is None, bad
    assert (published(good) or "")[:10] == good[:10]  # the place is read: its possible date is found


# --- UTF-32 and XHTML served as XML ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    planted=st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=40).filter(str.strip),
    order=st.sampled_from(["utf-32-le", "utf-32-be"]),
)
def test_a_page_in_utf32_with_its_byte_order_mark_is_decoded(planted, order) -> None:
    from html import escape

    page = f"<html><body><article><p>{WORDS} {escape(planted)}</p></article></body></html>"
    mark = {"utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}[order]
    via_bytes, via_text = extract(mark + page.encode(order)), extract(page)
    assert via_bytes.skipped is None
    assert [block.text for block in via_bytes.blocks] == [block.text for block in via_text.blocks]


XHTML = (
    '<?xml version="1.0" encoding="{encoding}"?>\n<!DOCTYPE html>\n<!-- served as XML -->\n'
    '<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><title>T</title></head>'
    f"<body><article><p>{WORDS}</p></article></body></html>"
)


@pytest.mark.parametrize("content_type", ["application/xml", "text/xml", "Application/XML; charset=UTF-8"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "text"])
def test_xhtml_served_as_generic_xml_is_labelled(content_type, encoding) -> None:
    page = XHTML.format(encoding="utf-8" if encoding == "text" else encoding)
    body = page if encoding == "text" else page.encode(encoding)
    result = extract(body, content_type=content_type)
    assert result.skipped is None and WORDS.strip() in result.main_text


@pytest.mark.parametrize(
    "body",
    [
        "<rss version='2.0'><channel><title>Feed</title></channel></rss>",
        '<root><html xmlns="http://www.w3.org/1999/xhtml"><body><p>inside</p></body></html></root>',
        "<html><body><p>no XHTML namespace on the root</p></body></html>",
    ],
)
def test_other_xml_is_still_not_labelled(body) -> None:
    assert extract(body, content_type="application/xml").skipped == "not_html:xml"


# --- server-chosen content types ------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    content_type=st.one_of(
        st.text(max_size=200),
        st.builds(lambda a, b: f"{a}/{b}", st.sampled_from(["application", "text", "image", "x"]), st.text()),
        st.builds(lambda junk: "application/x-" + junk * 500, st.text(min_size=1, max_size=20)),
    )
)
def test_a_declared_content_type_gives_a_reason_from_a_fixed_vocabulary(content_type) -> None:
    skipped = extract(PAGE, content_type=content_type).skipped
    assert skipped is None or skipped in {f"not_html:{family}" for family in TYPE_FAMILIES}, skipped
