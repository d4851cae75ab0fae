"""``WEB2TEXT_SHOW_DIR``: a real crawl of the test site writes the views of one page in N."""

from __future__ import annotations

import json
import math
import re

from scrapy_web2text.integration.views import view_name
from scrapy_web2text.show import sha256_of
from tests.integration.test_scrapy_crawl import crawl
from tests.site import LoopbackServer, build_site


def test_a_crawl_writes_one_view_in_n_with_its_page(tmp_path, untrained_model):
    site = build_site(articles=12, seed=3)
    show_dir = tmp_path / "views"
    with LoopbackServer(site) as server:
        result = crawl(
            tmp_path,
            server.url + "index.html",
            untrained_model,
            "-s",
            f"WEB2TEXT_SHOW_DIR={show_dir}",
            "-s",
            "WEB2TEXT_SHOW_EVERY=5",
        )
    stats = result["probe"]["stats"]
    assert stats["web2text/views/pages"] >= 12  # the pages the middleware labelled (the pipeline's are not shown)
    expected = math.ceil(stats["web2text/views/pages"] / 5)
    assert stats["web2text/views/written"] == expected and "web2text/views/errors" not in stats
    views = sorted((show_dir / "sample").glob("*.view.html"))
    assert len(views) == expected and len(list((show_dir / "sample" / "pages").glob("*.html"))) == expected
    urls = {item["url"] for item in result["items"]}
    for view in views:
        text = view.read_text(encoding="utf-8")
        data = json.loads(re.search(r'id="w2t-data">(.*?)</script>', text, re.S).group(1))
        assert data["url"] in urls and view.name == view_name(data["url"]) + ".view.html"
        page = show_dir / "sample" / "pages" / view.name.replace(".view.html", ".html")
        assert data["sha256"] == sha256_of(page.read_bytes()) and "untrained" in data["model"]
        assert data["blocks"] and "Content-Security-Policy" in text
    assert len(result["items"]) == len(site.resources)  # the views cost no item


def test_views_are_off_by_default(tmp_path, untrained_model):
    site = build_site(articles=2, seed=4, extras=False)
    with LoopbackServer(site) as server:
        result = crawl(tmp_path, server.url + "index.html", untrained_model)
    assert "web2text/views/written" not in result["probe"]["stats"]
    assert not list(tmp_path.rglob("*.view.html"))


def test_show_every_must_be_positive():
    import pytest

    from scrapy_web2text.integration.settings import Web2TextConfig

    from ..scrapy_support import make_crawler

    config = Web2TextConfig.from_crawler(make_crawler({"WEB2TEXT_SHOW_DIR": "v", "WEB2TEXT_SHOW_EVERY": "3"}))
    assert (config.show_dir, config.show_every) == ("v", 3)
    with pytest.raises(ValueError, match="WEB2TEXT_SHOW_EVERY must be at least 1"):
        Web2TextConfig.from_crawler(make_crawler({"WEB2TEXT_SHOW_DIR": "v", "WEB2TEXT_SHOW_EVERY": 0}))
