"""Extraction.metadata: each field from each source, the order of sources, bounds on hostile markup, laziness."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from scrapy_web2text import extract
from scrapy_web2text.metadata import FIELDS, Metadata
from scrapy_web2text.metadata.dates import iso_date
from scrapy_web2text.metadata.embedded import MAX_JSON_LD_CHARS
from scrapy_web2text.metadata.language import normalise
from scrapy_web2text.metadata.model import MAX_LIST_ITEMS, MAX_TEXT_CHARS
from scrapy_web2text.metadata.walk import MAX_KEPT, page_elements

ENGLISH = "The council announced a plan to restore the old market, and the residents of the town were asked about it. "
GERMAN = (
    "Der Rat hat einen Plan angekündigt, den alten Markt wieder herzustellen, und die Bewohner wurden dazu befragt. "
)


def page(head: str = "", byline: str = "", text: str = ENGLISH, lang: str = "en") -> str:
    lang_attribute = f' lang="{lang}"' if lang else ""
    return (
        f"<html{lang_attribute}><head><title>A plan for the old market - The Town Paper</title>{head}</head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></nav>"
        f"<article><h1>A plan for the old market</h1>{byline}"
        + "".join(f"<p>{text * 3}</p>" for _ in range(4))
        + "</article><footer>Copyright The Town Paper. All rights reserved. Imprint. Privacy.</footer></body></html>"
    )


def json_ld(data) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


ARTICLE = {
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    "headline": "A plan for the old market",
    "author": [{"@type": "Person", "name": "Aisha Rahman"}, {"@type": "Person", "name": "Jonas Weber"}],
    "datePublished": "2024-06-11T08:30:00+02:00",
    "dateModified": "2024-06-12",
    "inLanguage": "en-GB",
    "description": "The council wants the market back &amp; open.",
    "image": {"@type": "ImageObject", "url": "/images/market.jpg"},
    "url": "https://town.example/news/market",
    "keywords": "market, council,  town ",
    "articleSection": ["Local news"],
    "license": "https://creativecommons.org/licenses/by/4.0/",
    "publisher": {"@type": "Organization", "name": "The Town Paper"},
}
BREADCRUMBS = {
    "@context": "https://schema.org",
    "@type": "BreadcrumbList",
    "itemListElement": [
        {"@type": "ListItem", "position": 2, "name": "News", "item": "https://town.example/news"},
        {"@type": "ListItem", "position": 1, "item": {"@id": "https://town.example/", "name": "Home"}},
    ],
}


def metadata_of(html: str, url: str | None = "https://town.example/news/market") -> Metadata:
    return extract(html, url=url).metadata


def test_json_ld_gives_every_field_with_its_source():
    metadata = metadata_of(page(json_ld(ARTICLE) + json_ld(BREADCRUMBS)))
    assert metadata.title == "A plan for the old market"
    assert metadata.authors == ("Aisha Rahman", "Jonas Weber")
    assert metadata.date_published == "2024-06-11T08:30:00+02:00"
    assert metadata.date_modified == "2024-06-12"
    assert metadata.language == "en-GB"  # declared, and the text is English
    assert metadata.description == "The council wants the market back & open."
    assert metadata.image == "https://town.example/images/market.jpg"
    assert metadata.canonical_url == "https://town.example/news/market"
    assert metadata.tags == ("market", "council", "town")
    assert metadata.categories == ("Local news",)
    assert metadata.breadcrumbs == ("Home", "News")  # by position, not by order
    assert metadata.license == "https://creativecommons.org/licenses/by/4.0/"
    assert metadata.site_name == "The Town Paper"
    assert set(metadata.sources.values()) == {"json-ld"}
    assert set(metadata.sources) == set(metadata.found())


def test_a_graph_and_a_web_site_object():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "Town Paper Online"},
            {"@type": "BlogPosting", "headline": "Market plan", "author": "Ann Lee", "datePublished": "2023-01-02"},
        ],
    }
    metadata = metadata_of(page(json_ld(graph)))
    assert (metadata.authors, metadata.date_published) == (("Ann Lee",), "2023-01-02")
    assert metadata.site_name == "Town Paper Online"
    assert metadata.title == "Market plan"


def test_microdata():
    byline = (
        '<div itemscope itemtype="https://schema.org/Article"><meta itemprop="datePublished" content="2022-03-04">'
        '<span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Ann Lee</span>'
        "</span></div>"
    )
    metadata = metadata_of(page(byline=byline))
    assert (metadata.authors, metadata.date_published) == (("Ann Lee",), "2022-03-04")
    assert metadata.sources["authors"] == metadata.sources["date_published"] == "microdata"


def test_opengraph_and_meta_tags():
    head = (
        '<meta property="og:site_name" content="The Town Paper"><meta property="og:image" content="/a.png">'
        '<meta property="article:published_time" content="2021-05-06T10:00:00Z">'
        '<meta property="article:author" content="https://town.example/staff/ann">'
        '<meta name="author" content="Ann Lee"><meta name="description" content="Plans.">'
        '<meta name="keywords" content="market,council"><link rel="canonical" href="/news/market?page=1">'
        '<meta property="article:tag" content="History"><link rel="license" href="/licence">'
    )
    metadata = metadata_of(page(head))
    assert metadata.site_name == "The Town Paper" and metadata.sources["site_name"] == "opengraph"
    assert metadata.image == "https://town.example/a.png"
    assert metadata.date_published == "2021-05-06T10:00:00+00:00"
    assert metadata.authors == ("Ann Lee",)  # the profile URL of article:author is not a name
    assert metadata.sources["authors"] == "meta"
    assert metadata.tags == ("History",)  # OpenGraph before plain meta
    assert metadata.description == "Plans."
    assert metadata.canonical_url == "https://town.example/news/market?page=1"
    assert metadata.license == "https://town.example/licence"


def test_structured_data_wins_over_meta_tags():
    head = json_ld({"@type": "Article", "datePublished": "2020-01-01"}) + (
        '<meta property="article:published_time" content="2019-01-01">'
    )
    metadata = metadata_of(page(head))
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2020-01-01", "json-ld")


def test_the_visible_byline_when_no_markup_names_the_author():
    byline = '<p class="byline">By <a href="/staff/ann">Ann Lee</a> and Bo Chen &middot; <span>11 June 2024</span></p>'
    metadata = metadata_of(page(byline=byline), url=None)
    assert metadata.authors == ("Ann Lee", "Bo Chen")
    assert metadata.date_published == "2024-06-11"
    assert metadata.sources["authors"] == metadata.sources["date_published"] == "byline"


def test_a_byline_element_by_its_class_and_a_time_element():
    byline = (
        '<div class="post-author">Jonas Weber</div><div class="meta"><time datetime="2023-09-01">Sept.</time></div>'
    )
    metadata = metadata_of(page(byline=byline), url=None)
    assert metadata.authors == ("Jonas Weber",)
    assert metadata.date_published == "2023-09-01"


def test_no_author_from_an_ordinary_sentence():
    metadata = metadata_of(page(byline="<p>Bring your own bag to the market.</p>"), url=None)
    assert metadata.authors == ()


def test_date_from_the_url_last():
    metadata = metadata_of(page(), url="https://town.example/2022/11/30/market-plan.html")
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2022-11-30", "url")


def test_language_declared_and_checked_against_the_text():
    assert metadata_of(page(lang="de-at", text=GERMAN)).language == "de-AT"
    wrong = metadata_of(page(lang="en", text=GERMAN))  # a template's lang="en" on a German page
    assert (wrong.language, wrong.sources["language"]) == ("de", "text")
    undeclared = metadata_of(page(lang="", text=GERMAN))
    assert (undeclared.language, undeclared.sources["language"]) == ("de", "text")
    assert metadata_of(page(lang="en")).sources["language"] == "html-lang"


def test_language_tags_are_normalised():
    assert normalise("en_us") == "en-US"
    assert normalise("zh-hant-tw") == "zh-Hant-TW"
    assert normalise("english") is None and normalise("") is None


def test_site_name_falls_back_to_the_host():
    metadata = metadata_of(page())
    assert (metadata.site_name, metadata.sources["site_name"]) == ("town.example", "url")
    assert metadata_of(page(), url=None).site_name is None


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2024-06-11", "2024-06-11"),
        ("2024-06-11T08:30:00Z", "2024-06-11T08:30:00+00:00"),
        ("2024-06-11 08:30", "2024-06-11T08:30:00"),
        ("99999-01-01", None),
        ("9999-01-01", None),  # far in the future
        ("1970-01-01", None),  # before the web
        ("2024-13-01", None),
        ("2024-06-11T25:00:00", None),
        ("yesterday", None),
        ("2024-06-11" + " " * 100, None),
        (20240611, None),
    ],
)
def test_iso_dates_are_checked(value, expected):
    assert iso_date(value) == expected


def test_unsafe_values_are_dropped_or_cleaned():
    data = {
        "@type": "Article",
        "image": "javascript:alert(1)",
        "url": "data:text/html,<b>x</b>",
        "author": "Ann\u202e Lee\x00",
        "description": "x" * 10_000,
        "headline": "  A   plan\n\tfor the market ",
    }
    metadata = metadata_of(page(json_ld(data)))
    assert metadata.image is None and metadata.canonical_url is None
    assert metadata.authors == ("Ann Lee",)
    assert len(metadata.description) <= 1000 and metadata.description.endswith("…")
    assert metadata.title == "A plan for the market"


# --- hostile markup: bounded time, a clear empty or cut value ------------------------------------------------


def timed_metadata(html: str) -> tuple[Metadata, float]:
    result = extract(html)
    clock = time.thread_time()
    metadata = result.metadata
    return metadata, time.thread_time() - clock


def test_a_megabyte_of_json_ld_is_skipped_with_a_note():
    huge = json_ld({"@type": "Article", "author": "Ann Lee", "description": "x" * 1_000_000})
    metadata = metadata_of(page(huge))
    assert metadata.authors == () and metadata.description is None
    assert any(f"limit {MAX_JSON_LD_CHARS}" in note for note in metadata.notes)


def test_invalid_json_ld_is_skipped_and_the_rest_still_read():
    head = (
        '<script type="application/ld+json">{"@type": "Article", "author": [</script><meta name="author" content="Bo">'
    )
    metadata = metadata_of(page(head))
    assert metadata.authors == ("Bo",)
    assert any("not valid JSON" in note for note in metadata.notes)


def test_json_ld_nested_past_the_parser_is_skipped():
    metadata = metadata_of(page('<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>"))
    assert any("RecursionError" in note for note in metadata.notes)


def test_a_date_in_the_year_99999_gives_no_date():
    head = json_ld({"@type": "Article", "datePublished": "99999-01-01T00:00:00Z"}) + (
        '<meta property="article:published_time" content="99999-01-01"><meta name="date" content="99999-01-01">'
    )
    assert metadata_of(page(head), url=None).date_published is None


def test_a_hundred_thousand_authors():
    """In one JSON-LD script (over the size limit: skipped) and as many <meta> elements (read up to the cap)."""
    names = [f"Author {number}" for number in range(100_000)]
    metadata, _ = timed_metadata(page(json_ld({"@type": "Article", "author": names})))
    assert metadata.authors == () and any("skipped" in note for note in metadata.notes)
    metas = "".join(f'<meta name="author" content="{name}">' for name in names)
    metadata, seconds_meta = timed_metadata(page(metas))
    assert len(metadata.authors) == MAX_LIST_ITEMS and metadata.authors[0] == "Author 0"
    assert any("too many" in note for note in metadata.notes)
    # linear at most: ten times the elements cost well under a hundred times the time
    small, seconds_small = timed_metadata(page("".join(f'<meta name="author" content="{n}">' for n in names[:10_000])))
    assert len(small.authors) == MAX_LIST_ITEMS
    assert seconds_meta < 30 * max(seconds_small, 0.001)


def test_a_long_author_list_within_the_limit_is_cut():
    names = [{"@type": "Person", "name": f"Ann Lee {number}"} for number in range(3000)]
    metadata = metadata_of(page(json_ld({"@type": "Article", "author": names})))
    assert metadata.authors == tuple(f"Ann Lee {number}" for number in range(MAX_LIST_ITEMS))


def test_many_microdata_items_are_not_read():
    items = "".join(
        f'<span itemscope itemtype="https://schema.org/Person"><span itemprop="name">P{n}</span></span>'
        for n in range(5000)
    )
    metadata = metadata_of(page(byline=items))
    assert any(note.startswith("microdata:") for note in metadata.notes)


def test_the_walk_keeps_a_bounded_number_of_each_kind_and_knows_a_later_time_element():
    # widgets' <abbr> and scripts by the thousand before the article's <time> and JSON-LD: the first of each kind
    # are held (more than any reader looks at), and the page still has a <time> and a JSON-LD script
    abbrs = "<abbr title='HyperText'>HTML</abbr>" * (MAX_KEPT + 5)
    scripts = "<script>var x = 1;</script>" * (MAX_KEPT + 5)
    ending = "<time datetime='2024-06-11'>June 11</time>" + json_ld({"@type": "Article", "author": "Ann Lee"})
    found = page_elements(extract(page(byline=abbrs + scripts + ending)).root)
    assert (len(found.dated), len(found.scripts), len(found.json_ld)) == (MAX_KEPT, MAX_KEPT, 1)
    assert found.times
    assert not page_elements(extract(page(byline=abbrs)).root).times


def test_a_long_value_is_cut_to_the_limit():
    metadata = metadata_of(page(json_ld({"@type": "Article", "headline": "word " * 100_000})))
    assert len(metadata.title) <= MAX_TEXT_CHARS


# --- the extraction: lazy, one tree, nothing fetched ---------------------------------------------------------


def test_metadata_is_computed_on_first_access_from_the_parsed_tree():
    result = extract(page())
    assert "metadata" not in result._formats
    # the tree is what is read: a <meta> added to it after extract() shows, though the source never had it
    head = result.root.find("head")
    head.append(head.makeelement("meta", {"name": "author", "content": "Added Later"}))
    assert result.metadata.authors == ("Added Later",)
    assert result.metadata is result.metadata  # computed once


def test_a_page_that_was_not_labelled_has_empty_metadata():
    result = extract(b"\x89PNG\r\n\x1a\n" + bytes(100))
    assert result.skipped and result.metadata == Metadata() and result.metadata.found() == []


def test_to_dict_is_json_with_every_field():
    document = extract(page(json_ld(ARTICLE)), url="https://town.example/x").to_dict(formats=("metadata",))
    metadata = json.loads(json.dumps(document))["metadata"]
    assert set(FIELDS) <= set(metadata) and metadata["authors"] == ["Aisha Rahman", "Jonas Weber"]
    assert metadata["sources"]["authors"] == "json-ld"


def test_extract_alone_imports_no_extruct_and_metadata_opens_no_socket():
    code = f"""
import sys
events = []
outgoing = ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto", "urllib.Request")
sys.addaudithook(lambda event, args: events.append(event) if event in outgoing else None)
from scrapy_web2text import extract
result = extract({page(json_ld(ARTICLE)).encode()!r}, url="https://town.example/2024/01/02/a.html")
assert "extruct" not in sys.modules, "loaded without metadata"
metadata = result.metadata
assert metadata.authors == ("Aisha Rahman", "Jonas Weber"), metadata
# no markup date here: the <meta> names, <time> elements and the URL are read without a date library
dated = extract({page().encode()!r}, url="https://town.example/2024/01/02/a.html").metadata
assert dated.date_published == "2024-01-02", dated
heavy = [name for name in ("extruct", "htmldate", "dateparser", "dateutil", "rdflib") if name in sys.modules]
assert not heavy, heavy
# microdata needs extruct: its reader runs under the hook too
item = '<div itemscope itemtype="https://schema.org/Article"><span itemprop="headline">H</span></div>'
assert extract({page().encode()!r}.replace(b"<article>", item.encode() + b"<article>")).metadata.title
assert "extruct" in sys.modules
assert not events, events
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_metadata_without_the_metadata_extra():
    # extruct made unimportable, as in an install without the extra: JSON-LD that is JSON, OpenGraph, the <meta>
    # date names, the byline and the language are read; microdata and a JSON-LD script only extruct reads are
    # skipped with a note, but for an article item's author
    microdata = '<div itemscope itemtype="https://schema.org/Article"><span itemprop="author">Ann Lee</span></div>'
    lenient = '<script type="application/ld+json">/* a comment */ {"@type": "Article"}</script>'
    structured = page(json_ld(ARTICLE) + lenient).replace("<article>", microdata + "<article>")
    opengraph = page(
        '<meta property="og:site_name" content="Town Gazette"><meta property="og:title" content="Market day">'
        '<meta name="dc.date.issued" content="11.06.2024">',
        lang="",
    )
    person = '<span itemprop="author" itemscope><meta itemprop="name" content="Ann Lee"></span>'  # no visible byline
    item = page().replace("<article>", '<article itemscope itemtype="https://schema.org/BlogPosting">' + person)
    code = f"""
import sys
sys.modules["extruct"] = None
from scrapy_web2text import extract
for html in ({structured.encode()!r}, {opengraph.encode()!r}, {item.encode()!r}):
    metadata = extract(html, url="https://town.example/a.html").metadata
    fields = metadata.title, metadata.language, metadata.site_name, metadata.authors, metadata.date_published
    print(*fields, metadata.sources.get("authors"), sep="|")
    print(*metadata.notes, sep="|")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    structured_fields, notes, opengraph_fields, _, item_fields, _ = done.stdout.splitlines()
    title, language, site_name, authors, date, _ = structured_fields.split("|")
    assert (title, language, site_name) == (ARTICLE["headline"], "en-GB", "The Town Paper")
    assert authors == "('Aisha Rahman', 'Jonas Weber')" and date == ARTICLE["datePublished"]
    assert "microdata: not read (needs extruct" in notes and "json-ld: a script that is not valid JSON" in notes
    assert opengraph_fields == "Market day|en|Town Gazette|()|2024-06-11|None"
    assert item_fields.split("|")[3:] == ["('Ann Lee',)", "None", "microdata"]
