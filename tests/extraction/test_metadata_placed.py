"""Metadata, round two (issue 54): where on the page a date or an author is read, each class of wrong page shown by
a fragment of markup."""

from __future__ import annotations

import json
import logging

from scrapy_web2text import extract
from scrapy_web2text.metadata import Metadata
from scrapy_web2text.metadata.written import text_date, url_date

from .test_metadata import ENGLISH, json_ld

TEASERS = (
    "<aside><h3>Related</h3><ul>"
    + "".join(
        f'<li><a href="/old/{n}">Older story number {n}</a> <time datetime="2019-05-0{n}">May {n}, 2019</time></li>'
        for n in range(1, 4)
    )
    + "</ul></aside>"
)


def article(before: str = "", byline: str = "", after: str = "", head: str = "", paragraphs: int = 10) -> str:
    return (
        f"<html lang='en'><head><title>A plan for the old market</title>{head}</head><body>"
        f"<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></nav>{before}"
        f"<article><h1>A plan for the old market</h1>{byline}"
        + "".join(f"<p>{ENGLISH * 3}</p>" for _ in range(paragraphs))
        + f"{after}</article><footer>Copyright The Town Paper. All rights reserved. Imprint.</footer></body></html>"
    )


def metadata_of(html: str, url: str | None = None) -> Metadata:
    return extract(html, url=url).metadata


# --- dates ----------------------------------------------------------------------------------------------------


def test_a_date_in_an_element_whose_class_says_date_after_the_text():
    # class 1: the byline window (around the first content block) does not reach the end of a long article
    metadata = metadata_of(article(after='<p class="article_date">Letzte Aktualisierung: 18.01.2018</p>'))
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2018-01-18", "date-element")


def test_a_date_in_an_abbr_title():
    metadata = metadata_of(
        article(byline='<p><abbr class="published" title="2019-03-04T10:00:00+01:00">4 March</abbr>')
    )
    assert metadata.date_published == "2019-03-04T10:00:00+01:00"


def test_the_time_element_near_the_text_beats_older_teasers():
    # class 2: htmldate kept the oldest <time> of the whole page, a related story's
    metadata = metadata_of(article(before=TEASERS, byline='<p><time datetime="2024-06-11">11 June</time></p>'))
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2024-06-11", "time-element")


def test_a_teaser_date_is_the_last_resort_after_the_url():
    html = article(after=TEASERS)
    assert metadata_of(html, "https://town.example/2024/06/11/market.html").date_published == "2024-06-11"
    assert metadata_of(html, "https://town.example/market.html").date_published == "2019-05-01"


def test_the_article_beats_an_embedded_video_before_it():
    # class 3: a VideoObject that precedes the NewsArticle gave its uploadDate
    video = {"@type": "VideoObject", "name": "Market walk", "uploadDate": "2018-02-03", "author": "Video Desk"}
    news = {"@type": "NewsArticle", "headline": "A plan for the old market", "datePublished": "2024-06-11"}
    metadata = metadata_of(article(head=json_ld({"@context": "https://schema.org", "@graph": [video, news]})))
    assert metadata.date_published == "2024-06-11"


def test_the_main_entity_and_the_headline_that_matches_the_title():
    teaser = {"@type": "Article", "headline": "Another story", "datePublished": "2017-01-01"}
    page = {"@type": "WebPage", "@id": "#page", "mainEntity": {"@id": "#story"}}
    story = {"@type": "BlogPosting", "@id": "#story", "headline": "Untitled", "datePublished": "2024-06-12"}
    titled = {"@type": "NewsArticle", "headline": "A plan for the old market", "datePublished": "2024-06-13"}
    assert metadata_of(article(head=json_ld([teaser, page, story]))).date_published == "2024-06-12"
    assert metadata_of(article(head=json_ld([teaser, titled]))).date_published == "2024-06-13"


def test_json_ld_with_a_stray_control_character_and_a_trailing_comma_is_read():
    # class 5: the whole script was skipped
    script = (
        '{"@context": {"@vocab": "https://schema.org/"}, "@type": "NewsArticle",\x0b'
        ' "author": [{"@type": "Person", "name": "Aisha Rahman"},], "datePublished": "2024-06-11",}'
    )
    metadata = metadata_of(article(head=f'<script type="application/ld+json">{script}</script>'))
    assert (metadata.date_published, metadata.authors, metadata.notes) == ("2024-06-11", ("Aisha Rahman",), ())


def test_json_ld_inside_a_cdata_section_or_a_comment_is_read():
    # a template written for XHTML parsers wraps the script's JSON; the whole script was skipped
    data = json.dumps({"@type": "NewsArticle", "headline": "A plan", "datePublished": "2015-10-15T02:19:15Z"})
    for wrapped in (f"<![CDATA[ {data} ]]>", f"//<![CDATA[\n{data}\n//]]>", f"<!-- {data} -->"):
        metadata = metadata_of(article(head=f'<script type="application/ld+json">\n  {wrapped}\n</script>'))
        assert (metadata.date_published, metadata.notes) == ("2015-10-15T02:19:15+00:00", ()), wrapped


def test_a_structured_publication_date_that_is_the_modification_yields_to_an_earlier_one():
    # microdata's datePublished written with the last edit's time; the head states the first publication
    head = (
        '<meta property="article:published_time" content="2015-09-17T16:57:43+01:00">'
        '<meta property="article:modified_time" content="2016-05-08T10:11:51+01:00">'
    )
    item = '<div itemscope itemtype="http://schema.org/NewsArticle"><meta itemprop="datePublished" content="{}">'
    metadata = metadata_of(article(head=head, before=item.format("2016-05-08T10:11:51+01:00") + "</div>"))
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2015-09-17T16:57:43+01:00", "opengraph")
    # a structured date other than the modification is the publication, whatever the head says
    kept = metadata_of(article(head=head, before=item.format("2015-09-18T08:00:00+01:00") + "</div>"))
    assert (kept.date_published, kept.sources["date_published"]) == ("2015-09-18T08:00:00+01:00", "microdata")


def test_dates_written_for_people_are_read_without_a_date_library():
    # the <meta> names, URLs and short texts htmldate's private functions read before; a month alone is no day
    for text, day in (
        ("11 June 2024", "2024-06-11"),
        ("Stand - 12.11.2021", "2021-11-12"),
        ("June 11th, 2024", "2024-06-11"),
        ("12 de junio de 2024", "2024-06-12"),
        ("3. März 2023", "2023-03-03"),
        ("Jan. 5, 2020", "2020-01-05"),
        ("20240611", "2024-06-11"),
        ("Member since 09/2005", None),
        ("Call 555-1234 today", None),
        ("Rated 9.7/10", None),  # a score: two separators, two readings
        ("Last Updated: Saturday, 14 May 2005, 14:17 GMT 15:17 UK", "2005-05-14"),  # a zone is no currency
        ("Total: 14 May 2005 USD 1500", None),
    ):
        assert text_date(text) == day, text
    assert url_date("https://paper.example/2023/11/08/market.html") == "2023-11-08"
    head = '<meta name="DC.date.issued" content="11.06.2024"><meta name="lastmod" content="2024-07-01">'
    assert metadata_of(article(head=head)).date_published == "2024-06-11"
    modified_only = '<meta name="lastmod" content="2024-07-01">'
    assert metadata_of(article(head=modified_only)).date_published == "2024-07-01"  # the reserve
    canonical = '<link rel="canonical" href="https://paper.example/2023/11/08/market.html">'
    assert metadata_of(article(head=canonical), "https://paper.example/?p=1").date_published == "2023-11-08"


def test_a_publication_date_in_a_frameworks_page_state():
    # no JSON-LD, no <meta>, no visible date: the page's state in a script names it
    state = '{"props": {"page": {"title": "A plan", "publishedAt": "2024-11-21 04:05:21", "updatedAt": "2026-01-29"}}}'
    html = article(head=f'<script id="__NEXT_DATA__" type="application/json">{state}</script>')
    metadata = metadata_of(html)
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2024-11-21T04:05:21", "script")
    assert metadata_of(html.replace("publishedAt", "createdBy")).date_published is None


def test_a_date_line_above_or_in_the_text_is_the_last_resort():
    # a dateline above a long menu, out of the byline's reach; no markup, no <time>, no URL date
    menu = "<ul>" + "".join(f"<li><a href='/s{n}'>Section {n}</a></li>" for n in range(40)) + "</ul>"
    metadata = metadata_of(article(before=f"<div>5 April 2013</div>{menu}"))
    assert (metadata.date_published, metadata.sources["date_published"]) == ("2013-04-05", "date-line")
    # a sentence that mentions a date is not a date line; nor is a comment's date after the text
    mention = article(
        before=f"<p>{ENGLISH} The council met <a href='/m'>on the square</a> on 26 October 2017 again.</p>{menu}",
        after="<div class='comments'><p>Posted by ann | 7 January 2019</p></div>" + "<p>x</p>" * 10,
    )
    assert metadata_of(mention).date_published is None
    # nor is a cited work's date among the text (a reference list, "Retrieved ...")
    more = "".join(f"<p>{ENGLISH * 3}</p>" for _ in range(5))
    for cited in ("<ol class='references'><li>3 May 2009</li></ol>", "<p>Retrieved 3 May 2009</p>"):
        assert metadata_of(article(after=cited + more)).date_published is None, cited
    assert metadata_of(article(after="<p>3 May 2009</p>" + more)).date_published == "2009-05-03"


def test_a_utc_instant_is_given_on_the_local_day():
    # class 4: 03:28 UTC on 9 November is the evening of the 8th in New York, as the URL and the byline say
    head = json_ld({"@type": "NewsArticle", "headline": "A plan", "datePublished": "2023-11-09T03:28:35Z"})
    on_the_8th = "https://paper.example/2023/11/08/market.html"
    assert metadata_of(article(head=head), on_the_8th).date_published == "2023-11-08T23:28:35-04:00"  # same instant
    stated = head + '<meta property="article:modified_time" content="2023-11-09T10:00:00-05:00">'
    assert metadata_of(article(head=stated)).date_published == "2023-11-08T22:28:35-05:00"  # the page's own zone
    visible = article(head=head, byline='<p class="dateline">November 8, 2023</p>')
    assert metadata_of(visible).date_published.startswith("2023-11-08T")
    assert metadata_of(article(head=head)).date_published == "2023-11-09T03:28:35+00:00"  # nothing says otherwise


# --- authors --------------------------------------------------------------------------------------------------


def test_particles_stay_inside_names():
    # class 8: "le", "el", "on", "am" were cut as if a date followed
    assert metadata_of(article(byline="<p>Par Loïc Le Clerc le 12 mars 2021</p>")).authors == ("Loïc Le Clerc",)
    assert metadata_of(article(byline="<p>By Ana El Sayed on June 5, 2024</p>")).authors == ("Ana El Sayed",)
    assert metadata_of(article(byline="<p>Von Max Muster am 3. Mai 2022</p>")).authors == ("Max Muster",)


def test_labels_buttons_and_weekdays_are_not_names():
    # class 10
    labelled = article(byline='<p class="author">Veröffentlicht von</p><p>Eine Notiz</p>')
    assert metadata_of(labelled).authors == ()
    assert metadata_of(article(byline='<div class="author">Jane Doe Follow</div>')).authors == ("Jane Doe",)
    assert metadata_of(article(byline="<p>Von Max Muster, Dienstag</p>")).authors == ("Max Muster",)
    assert metadata_of(article(byline="<p>Veröffentlicht von Max Muster</p>")).authors == ("Max Muster",)
    # a newsroom's collective byline, in markup or on the page, is no person
    staff = {"@type": "NewsArticle", "headline": "A plan", "author": [{"@type": "Person", "name": "Our Foreign Staff"}]}
    assert metadata_of(article(head=json_ld(staff))).authors == ()
    assert metadata_of(article(byline="<p>By News Desk and Jane Doe</p>")).authors == ("Jane Doe",)
    staff["author"] = [{"@type": "Person", "name": "David Jackson - FullStack Editorial Team"}]
    assert metadata_of(article(head=json_ld(staff))).authors == ("David Jackson",)


def test_slugs_handles_and_addresses_are_not_names():
    # class 11: a template's user name in the markup
    for slug in ("robert.stitz", "edilson.la.rosa", "name[at]example.net", "@robert", "mcupdate"):
        head = f'<meta name="author" content="{slug}">'
        assert metadata_of(article(head=head)).authors == (), slug
    assert metadata_of(article(head='<meta name="author" content="Robert Stitz">')).authors == ("Robert Stitz",)


def test_the_site_publisher_or_an_organisation_is_not_an_author():
    # class 9: most false authors were the site itself
    organisation = {"@type": "NewsArticle", "headline": "A plan", "author": {"@type": "Organization", "name": "Desk"}}
    assert metadata_of(article(head=json_ld(organisation))).authors == ()
    site = (
        '<meta property="og:site_name" content="National Geographic"><meta name="author" content="National Geographic">'
    )
    assert metadata_of(article(head=site)).authors == ()
    host = '<meta name="author" content="Motorsport-Total.com">'
    assert metadata_of(article(head=host), "https://www.motorsport-total.com/news/1.html").authors == ()
    person = site.replace('name="author" content="National Geographic"', 'name="author" content="Aisha Rahman"')
    assert metadata_of(article(head=person)).authors == ("Aisha Rahman",)


def test_bylines_outside_the_window():
    # class 7: far below the first content block, or after the text
    link = '<p>Story by <a rel="author" href="/staff/ann">Ann Lee</a></p>'
    assert metadata_of(article(after=link, paragraphs=20)).authors == ("Ann Lee",)
    comment = '<div class="comments"><p><a rel="author" href="/u/x">Random Reader</a> wrote:</p></div>'
    assert metadata_of(article(after=comment, paragraphs=20)).authors == ()
    assert metadata_of(article(after="<p>Text: Ursula Eggers</p>", paragraphs=20)).authors == ("Ursula Eggers",)
    assert metadata_of(article(after="<p>Erstellt von Max Muster</p>", paragraphs=20)).authors == ("Max Muster",)
    meta = '<meta itemprop="author" content="Aisha Rahman">'
    assert metadata_of(article(head=meta)).authors == ("Aisha Rahman",)


# --- other fields ---------------------------------------------------------------------------------------------


def test_licence_categories_and_tags_from_body_links():
    links = (
        '<p>Filed under <a href="/c/local" rel="category tag">Local news</a>; tagged'
        ' <a href="/t/m" rel="tag">market</a> <a href="/t/c" rel="tag">council</a></p>'
    )
    footer = '<p><a href="https://creativecommons.org/licenses/by-sa/4.0/">CC BY-SA 4.0</a></p>'
    metadata = metadata_of(article(after=links + footer), "https://town.example/news/market")
    assert metadata.license == "https://creativecommons.org/licenses/by-sa/4.0/"
    assert (metadata.categories, metadata.tags) == (("Local news",), ("market", "council"))
    declared = '<a rel="license" href="/licence">Licence</a>' + footer
    assert metadata_of(article(after=declared), "https://town.example/a").license == "https://town.example/licence"


# --- weight ---------------------------------------------------------------------------------------------------


def test_metadata_writes_no_library_debug_lines(caplog):
    # at Scrapy's default level (DEBUG) every string htmldate tried was a line of the crawl's log: no library's
    # logger writes while dates, bylines and microdata are read
    item = '<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Ann Lee</span></div>'
    with caplog.at_level(logging.DEBUG):
        metadata = metadata_of(article(byline=f"<p>By Ann Lee, 11 June 2024</p>{item}"))
    assert metadata.date_published == "2024-06-11"
    assert [record.name for record in caplog.records if not record.name.startswith("scrapy_web2text")] == []


def test_a_numeric_date_on_an_american_page_is_month_first():
    # "3/09/15" on <html lang="en-US"> is 9 March; the same line elsewhere is read day first, as before
    byline = "<p>By Ann Lee on 3/09/15 8:00am</p>"
    american = article(byline=byline).replace("<html lang='en'>", "<html lang='en-US'>")
    assert metadata_of(american).date_published == "2015-03-09"
    assert metadata_of(article(byline=byline)).date_published == "2015-09-03"
    locale = article(byline="<p><time>11/06/2012</time></p>", head="<meta property='og:locale' content='en_US'>")
    assert metadata_of(locale).date_published == "2012-11-06"
    # a day past 12 decides the order alone; dots are day first everywhere
    assert text_date("27/08/2025", month_first=True) == "2025-08-27"
    assert text_date("01.08.2025", month_first=True) == "2025-08-01"
