"""``WEB2TEXT_SITE_MODELS`` and ``--site-model``: a model per site, in a real crawl and on the command line."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from urllib.parse import urlsplit

import pytest

from scrapy_web2text import load_model
from scrapy_web2text.cli import main
from scrapy_web2text.extraction.site_models import parse_site_models, site_model
from scrapy_web2text.integration.settings import Web2TextConfig

from ..scrapy_support import EXAMPLE_PROJECT, make_crawler
from ..site import LoopbackServer, Resource, Site
from .test_scrapy_crawl import crawl

CONTENT_TYPES = {".html": "text/html", ".css": "text/css", ".png": "image/png", ".pdf": "application/pdf"}


def example_site() -> Site:
    """The example project's site, served as it is."""
    root, site = EXAMPLE_PROJECT / "site", Site()
    for path in root.rglob("*.*"):
        kind = CONTENT_TYPES.get(path.suffix, "application/octet-stream")
        site.resources["/" + path.relative_to(root).as_posix()] = Resource(path.read_bytes(), kind)
    return site


@pytest.fixture(scope="module")
def site_tuned(tmp_path_factory):
    """A model that labels differently from the default one (a far higher threshold), under its own name."""
    model = load_model()
    tuned = dataclasses.replace(
        model, config={**model.config, "threshold": 0.97}, metadata={**model.metadata, "name": "site-tuned"}, path=None
    )
    return tuned.save(tmp_path_factory.mktemp("models") / "site-tuned.npz")


def test_a_domain_matches_itself_and_its_subdomains_and_the_longest_key_wins():
    models = parse_site_models(
        {"Example.org": "a.npz", "blog.example.org": "b.npz", "example.org/shop/": "c.npz", "*.news.test": "d.npz"},
        "WEB2TEXT_SITE_MODELS",
    )
    assert site_model(models, "https://example.org/story") == "a.npz"
    assert site_model(models, "http://www.EXAMPLE.org:8080/story") == "a.npz"
    assert site_model(models, "https://blog.example.org/") == "b.npz"
    assert site_model(models, "https://example.org/shop/chair") == "c.npz"
    assert site_model(models, "https://news.test/") == site_model(models, "https://a.news.test/") == "d.npz"
    for other in ("https://notexample.org/", "https://example.org.evil.test/", "file:///tmp/a.html", None):
        assert site_model(models, other) is None
    assert parse_site_models(["example.org=a.npz"], "--site-model") == (("example.org", "", "a.npz"),)
    assert parse_site_models('{"example.org": "a.npz"}', "WEB2TEXT_SITE_MODELS") == (("example.org", "", "a.npz"),)


@pytest.mark.parametrize(
    "value, message",
    [
        ({"exa mple.org": "a.npz"}, "is not a domain"),
        ({"example.org": ""}, "must name a model"),
        (["example.org"], "is not DOMAIN=MODEL"),
        (42, "must map domains to models"),
    ],
)
def test_a_wrong_map_is_refused_naming_the_setting(value, message):
    with pytest.raises(ValueError, match=message) as raised:
        Web2TextConfig.from_crawler(make_crawler({"WEB2TEXT_SITE_MODELS": value}))
    assert "WEB2TEXT_SITE_MODELS" in str(raised.value)


def test_a_missing_site_model_stops_the_crawl_at_start_up_naming_the_setting(tmp_path):
    from scrapy_web2text.integration.middleware import Web2TextSpiderMiddleware

    crawler = make_crawler({"WEB2TEXT_SITE_MODELS": {"example.org": str(tmp_path / "missing.npz")}})
    with pytest.raises(ValueError, match=r"WEB2TEXT_SITE_MODELS\['example.org'\]: cannot load .*missing.npz"):
        Web2TextSpiderMiddleware.from_crawler(crawler)


def two_sites_crawl(folder, server, hosts, *settings) -> dict:
    """A crawl of the ``two_sites`` spider from each host's index page, every host answered by ``server`` as a proxy
    (``crawl``'s result: items, stats)."""
    return crawl(
        folder,
        None,
        "default",
        "-s",
        "SPIDER_MODULES=tests.two_sites_spider",
        "-s",
        "ROBOTSTXT_OBEY=False",
        *settings,
        "-a",
        "urls=" + ",".join(f"http://{host}/index.html" for host in hosts),
        "-a",
        f"proxy={server.url}",
        spider="two_sites",
    )


@pytest.mark.parametrize("pool", ["thread", pytest.param("process", marks=pytest.mark.slow)])
def test_a_crawl_labels_each_site_with_its_own_model(tmp_path, site_tuned, pool):
    """The example site served as example.org and as example.net in one crawl: the tuned model labels example.org's
    pages (and its subdomain's), the default model the others; the stats count the pages of each."""
    with LoopbackServer(example_site()) as server:
        hosts = ("example.org", "www.example.org", "example.net")
        result = two_sites_crawl(
            tmp_path,
            server,
            hosts,
            "-s",
            f"WEB2TEXT_POOL={pool}",
            "-s",
            json.dumps({"example.org": str(site_tuned)}).join(("WEB2TEXT_SITE_MODELS=", "")),
        )
    stats = result["probe"]["stats"]
    labelled = Counter(urlsplit(item["url"]).hostname for item in result["items"] if "main_text" in item)
    assert set(labelled) == set(hosts) and labelled["example.net"] >= 15
    assert stats["web2text/model/site-tuned/pages"] == labelled["example.org"] + labelled["www.example.org"]
    assert stats["web2text/model/default/pages"] == labelled["example.net"]
    # the same page, told apart by its model: the tuned one keeps less
    texts = {item["url"]: item["main_text"] for item in result["items"] if "main_text" in item}
    page = "/articles/winter-tomatoes.html"
    assert len(texts["http://example.org" + page]) < len(texts["http://example.net" + page])
    assert texts["http://example.org" + page] == texts["http://www.example.org" + page]


def test_extract_takes_a_model_per_site(tmp_path, site_tuned, capsys):
    site = example_site()
    with LoopbackServer(site) as server:
        article, index = server.url + "articles/winter-tomatoes.html", server.url + "index.html"
        rule = f"127.0.0.1/articles/={site_tuned}"
        assert main(["extract", "--json", "--no-metadata", "--site-model", rule, article, index]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["model"] for row in rows] == ["site-tuned", "default"]
    assert main(["extract", "--site-model", f"example.org={tmp_path / 'missing.npz'}", article]) == 2
    assert "--site-model['example.org']: cannot load" in capsys.readouterr().err


def test_warc_rows_take_a_model_per_site(site_tuned):
    from types import SimpleNamespace

    from scrapy_web2text.batch.runner import Options, record_row

    body = (EXAMPLE_PROJECT / "site" / "articles" / "winter-tomatoes.html").read_bytes()
    options = Options(site_models=parse_site_models([f"example.org={site_tuned}"], "--site-model"))
    texts = {}
    for url in ("https://www.example.org/a.html", "https://example.net/a.html"):
        record = SimpleNamespace(url=url, record_id="<id>", date=None, status=200, error=None, body=body, charset=None)
        texts[url] = record_row(record, options)["main_text"]
    assert 0 < len(texts["https://www.example.org/a.html"]) < len(texts["https://example.net/a.html"])
