"""Malformed URLs, the page's own or in its links and metadata, cost the links' absolute form, never an output."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_web2text import extract

BROKEN_HOSTS = ["[::1", "[::1]:99999", "exa\x00mple.com", "a b", "[zz]", "host:port", "\x01", "[", "]"]


def page(link: str) -> str:
    data = json.dumps({"@type": "Article", "image": link, "url": link, "license": link, "author": {"url": link}})
    return (
        f'<html><head><link rel="canonical" href="{link}"><script type="application/ld+json">{data}</script></head>'
        f'<body><p>River towns rebuild after the flood, with <a href="{link}">a link</a> and '
        '<a href="/relative/page">a relative one</a> in the words of the article.</p>'
        "<p>Volunteers from neighbouring villages came with boats and food for the week.</p></body></html>"
    )


@settings(max_examples=60, deadline=None)
@given(
    host=st.one_of(st.sampled_from(BROKEN_HOSTS), st.text(min_size=1, max_size=12)),
    scheme=st.sampled_from(["http://", "https://"]),
    in_links=st.booleans(),
)
def test_a_malformed_url_costs_the_links_absolute_form_never_an_output(host, scheme, in_links):
    bad = f"{scheme}{host}/path"
    url, link = ("https://news.example.org/a", bad) if in_links else (bad, "/other")
    result = extract(page(link), url=url)
    assert "River towns rebuild" in result.html and "River towns rebuild" in result.markdown
    assert "Volunteers" in result.main_text
    metadata = result.metadata.to_dict()
    json.dumps(result.to_dict(formats=("metadata",)))
    assert all(
        value is None or value.startswith(("http://", "https://"))
        for value in (metadata["canonical_url"], metadata["image"])
    )
    if in_links:
        assert 'href="https://news.example.org/relative/page"' in result.html  # a good page URL still resolves
    else:  # relative where the page URL does not parse, else resolved against it
        assert 'href="/relative/page"' in result.html or f'href="{scheme}' in result.html
