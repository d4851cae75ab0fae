"""Real crawls in subprocesses: the example project against a loopback site, and a two-spider process."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.site import NAVIGATION, LoopbackServer, build_site

from ..scrapy_support import EXAMPLE_PROJECT, REPO, require_default_model

SCRAPY = [sys.executable, "-m", "scrapy"]


def crawl(tmp_path, url: str | None, model, *extra: str, spider: str = "sample") -> dict:
    items_path, probe_path, log_path = tmp_path / "items.jsonl", tmp_path / "probe.json", tmp_path / "crawl.log"
    command = [
        *SCRAPY,
        "crawl",
        spider,
        "-O",
        str(items_path),
        "-s",
        f"WEB2TEXT_MODEL={model}",
        "-s",
        "DOWNLOAD_DELAY=0",
        "-s",
        "CONCURRENT_REQUESTS_PER_DOMAIN=8",
        "-s",
        "LOG_LEVEL=INFO",
        "-s",
        f"LOG_FILE={log_path}",
        "-s",
        f"CRAWL_PROBE_OUTPUT={probe_path}",
        "-s",
        'EXTENSIONS={"tests.crawl_probe.CrawlProbe": 0}',
        *extra,
    ]
    if url:
        command += ["-a", f"url={url}"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        "PYTHONWARNINGS": "always::DeprecationWarning",
    }
    done = subprocess.run(command, cwd=EXAMPLE_PROJECT, env=env, capture_output=True, text=True, timeout=300)
    log = log_path.read_text() if log_path.exists() else ""
    assert done.returncode == 0, done.stderr[-3000:] + log[-3000:]
    items = [json.loads(line) for line in items_path.read_text().splitlines()]
    return {"items": items, "probe": json.loads(probe_path.read_text()), "log": log + done.stderr}


@pytest.fixture(scope="module")
def site():
    return build_site(articles=50, seed=1)


@pytest.fixture(scope="module")
def untrained_crawl(site, untrained_model, tmp_path_factory):
    with LoopbackServer(site) as server:
        return {
            "server_url": server.url,
            **crawl(tmp_path_factory.mktemp("crawl"), server.url + "index.html", untrained_model),
        }


def by_path(items, server_url):
    return {item["url"][len(server_url) - 1 :]: item for item in items}


def test_every_page_yields_an_item_and_non_html_passes_through(site, untrained_crawl):
    items = by_path(untrained_crawl["items"], untrained_crawl["server_url"])
    assert set(items) == set(site.resources)  # the 404 page is dropped by HttpErrorMiddleware
    for path in site.html_paths:
        assert isinstance(items[path]["main_text"], str), path
        assert set(items[path]["web2text_blocks"]) <= {"0", "1"}, path
    for path in ("/files/report.pdf", "/images/chart.png"):
        assert set(items[path]) == {"url", "status", "content_type"}, path
    assert items["/broken.html"]["web2text_blocks"], "the broken page is still labelled"
    # The thread's posts are only in <noscript>: read from there, its heading and each post's author and text
    # are blocks (without the rule the page has none).
    assert len(items["/forum/thread.html"]["web2text_blocks"]) == 1 + 6 * 2


def test_stats_add_up(site, untrained_crawl):
    stats = untrained_crawl["probe"]["stats"]
    html_pages = len(site.html_paths)
    # robots.txt and /missing.html are 404s that never reach the spider.
    assert stats["web2text/responses"] == stats["response_received_count"] - 2 == len(site.resources)
    assert stats["web2text/pages"] == html_pages
    assert stats["web2text/items"] == html_pages
    assert stats["web2text/skipped/non_html"] == 2
    assert stats["web2text/from_noscript"] == 1  # the forum thread
    assert stats["item_scraped_count"] == html_pages + 2
    assert stats.get("web2text/errors", 0) == 0
    assert stats["web2text/blocks"] >= stats["web2text/content_blocks"] >= 0
    assert stats["web2text/blocks"] > 50 * 20
    assert stats["web2text/time_ms"] > 0
    # The pipeline is enabled too; it saw every item, labelled none of them again and counted no skip for the
    # middleware's items: the PDF's and the PNG's are counted once, as their responses' non_html.
    assert "web2text/skipped/already_labelled" not in stats
    assert "web2text/skipped/no_html" not in stats


def test_log_is_clean_and_names_the_model(untrained_crawl, untrained_model):
    log = untrained_crawl["log"]
    assert "Traceback" not in log
    assert "DeprecationWarning" not in log and "ScrapyDeprecationWarning" not in log
    assert "ERROR" not in log
    lines = [line for line in log.splitlines() if "Web2Text: model" in line]
    assert len(lines) == 1 and "INFO" in lines[0] and "untrained-paper" in lines[0] and str(untrained_model) in lines[0]


def test_crawl_process_does_not_import_torch(untrained_crawl):
    assert untrained_crawl["probe"]["torch"] is False
    assert untrained_crawl["probe"]["reason"] == "finished"


def test_trained_model_keeps_article_bodies_and_drops_navigation(site, tmp_path):
    model = require_default_model()
    with LoopbackServer(site) as server:
        result = crawl(tmp_path, server.url + "index.html", model)
    items = by_path(result["items"], server.url)
    assert "Traceback" not in result["log"]
    for path, paragraphs in site.expected.items():
        text = items[path]["main_text"]
        for paragraph in paragraphs:
            assert paragraph in text, (path, paragraph[:60])
        for entry in NAVIGATION:
            assert entry not in text, (path, entry)


EXAMPLE_ARTICLES = {
    # article file: a sentence from its body that the main text must keep
    "winter-tomatoes": "Cold nights were handled with water.",
    "sourdough-starter": "does not need a babysitter.",
    "night-train": "a grey line of sea appeared behind the fences.",
    "rain-garden": "It has needed no watering at all.",
    "fermented-chili": "fuzzy coloured mould means the batch has to go.",
    "hochbeet-anlegen": "Ein Hochbeet ist mehr als ein Kasten voller Erde.",
    "confiture-figues": "le figuier du jardin donne plus de fruits que nous ne pouvons en manger.",
    "huerto-balcon": "Un balcón orientado al sur nos demostró lo contrario",
}


def test_example_project_offline_crawl_with_the_default_model(tmp_path):
    model = require_default_model()
    result = crawl(tmp_path, None, model)
    by_file = {item["url"].split("/site/", 1)[1]: item for item in result["items"]}
    html_pages = [path for path in by_file if path.endswith(".html")]
    assert len(html_pages) >= 20 and set(by_file) - set(html_pages) == {
        "files/planting-calendar.pdf",
        "images/tomato-bed.png",
    }
    assert "main_text" not in by_file["files/planting-calendar.pdf"]
    assert sum(len(by_file[path]["main_text"]) >= 200 for path in html_pages) >= 5
    for name, sentence in EXAMPLE_ARTICLES.items():
        text = by_file[f"articles/{name}.html"]["main_text"]
        assert sentence in text, name
        assert "Gardening\nKitchen" not in text, name
        assert "cookies for statistics" not in text, name
        assert "Get our best stories every Friday." not in text, name
    thread = by_file["forum/thread-compost-smell.html"]["main_text"]
    assert "The heap is wet and slimy in the middle." in thread
    assert "Not ruined at all." in thread


def test_csv_export_has_main_text_even_when_the_first_item_has_none(tmp_path, untrained_model):
    # Crawl the PDF alone: without FEED_EXPORT_FIELDS the CSV columns would be that item's keys only.
    csv_path = tmp_path / "items.csv"
    pdf = (EXAMPLE_PROJECT / "site" / "files" / "planting-calendar.pdf").as_uri()
    result = crawl(tmp_path, pdf, untrained_model, "-O", str(csv_path))
    with csv_path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert "main_text" in reader.fieldnames and "web2text_blocks" in reader.fieldnames
    assert len(rows) == len(result["items"]) == 1 and rows[0]["main_text"] == ""


def test_sample_markdown_spider_uses_its_own_threshold(tmp_path, untrained_model):
    result = crawl(tmp_path, None, untrained_model, spider="sample_markdown")
    assert "threshold 0.6" in result["log"]
    html_items = [item for item in result["items"] if item["url"].endswith(".html")]
    assert len(html_items) >= 20
    assert all(isinstance(item["main_text"], str) for item in html_items)
    assert all(isinstance(item["main_markdown"], str) for item in html_items)
    # The same kept blocks, as Markdown: text where there is text, nothing where nothing was kept.
    assert all(bool(item["main_markdown"]) == bool(item["main_text"]) for item in html_items)
    assert "Traceback" not in result["log"]


@pytest.mark.parametrize("method", ["crf", "boilernet"])
def test_example_crawl_with_a_baseline_method_labels_every_page(tmp_path, method):
    # WEB2TEXT_MODEL=default: the method's own shipped weights, not the Web2Text model.
    result = crawl(tmp_path, None, "default", "-s", f"WEB2TEXT_METHOD={method}")
    html_items = [item for item in result["items"] if item["url"].endswith(".html")]
    assert len(html_items) >= 20
    assert all(item["web2text_blocks"] for item in html_items)
    assert sum(len(item["main_text"]) >= 200 for item in html_items) >= 5
    assert result["probe"]["stats"].get("web2text/errors") is None
    assert "Traceback" not in result["log"]


def test_the_addon_alone_enables_labelling(tmp_path, untrained_model):
    result = crawl(
        tmp_path,
        None,
        untrained_model,
        "-s",
        "SPIDER_MIDDLEWARES={}",
        "-s",
        "ITEM_PIPELINES={}",
        "-s",
        'ADDONS={"scrapy_web2text.Addon": 0}',
    )
    html_items = [item for item in result["items"] if item["url"].endswith(".html")]
    assert len(html_items) >= 20
    assert all(item["web2text_blocks"] and isinstance(item["main_text"], str) for item in html_items)
    # The add-on's default block form: a character per block, 1 content.
    assert all(set(item["web2text_blocks"]) <= {"0", "1"} for item in html_items)
    assert any("1" in item["web2text_blocks"] for item in html_items)


def test_example_project_runs_on_a_non_asyncio_reactor(tmp_path, untrained_model):
    result = crawl(
        tmp_path, None, untrained_model, "-s", "TWISTED_REACTOR=twisted.internet.selectreactor.SelectReactor"
    )
    html_items = [item for item in result["items"] if item["url"].endswith(".html")]
    assert len(result["items"]) == len(html_items) + 2  # the PDF and the PNG pass through
    assert len(html_items) >= 20
    assert all(item["web2text_blocks"] for item in html_items)
    assert "Traceback" not in result["log"]


TWO_SPIDERS = textwrap.dedent("""
    import json, sys
    import scrapy
    from scrapy.crawler import CrawlerProcess
    from scrapy_web2text.labellers.web2text import network as model_module

    loads = []
    original = model_module.Web2TextModel.load.__func__
    model_module.Web2TextModel.load = classmethod(lambda cls, path: loads.append(str(path)) or original(cls, path))
    seen = {}

    class Base(scrapy.Spider):
        async def start(self):
            yield scrapy.Request(sys.argv[2] + self.page)

        def parse(self, response):
            yield {"spider": self.name, "html": response.text if self.name == "two" else None}

    class One(Base):
        name, page = "one", "article/1.html"

    class Two(Base):
        name, page = "two", "article/2.html"

    process = CrawlerProcess({
        "WEB2TEXT_MODEL": sys.argv[1], "LOG_LEVEL": "INFO",
        "SPIDER_MIDDLEWARES": {"scrapy_web2text.Web2TextSpiderMiddleware": 543},
        "ITEM_PIPELINES": {"scrapy_web2text.Web2TextPipeline": 300},
    })
    items = []
    crawlers = []

    def collect(item):
        items.append(dict(item))

    for spider in (One, Two):
        crawler = process.create_crawler(spider)
        crawler.signals.connect(collect, signal=scrapy.signals.item_scraped)
        crawlers.append(crawler)
        process.crawl(crawler)
    process.start()
    print(json.dumps({"loads": loads, "items": items, "torch": "torch" in sys.modules,
                      "pages": [c.stats.get_value("web2text/pages") for c in crawlers]}))
""")


def test_two_spiders_in_one_process_load_the_model_once(site, untrained_model, tmp_path):
    script = tmp_path / "two.py"
    script.write_text(TWO_SPIDERS)
    with LoopbackServer(site) as server:
        done = subprocess.run(
            [sys.executable, str(script), str(untrained_model), server.url],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loads"] == [str(untrained_model)]
    assert sorted(item["spider"] for item in report["items"]) == ["one", "two"]
    assert all(item["web2text_blocks"] for item in report["items"])
    assert report["pages"] == [1, 1]
    assert report["torch"] is False
    assert done.stderr.count("Web2Text: model") == 2  # one INFO line per crawler
    assert "Traceback" not in done.stderr


def test_csv_cells_of_lists_and_dicts_are_json(tmp_path, untrained_model):
    # The compact block form and the metadata lists are lists: the example project's CSV exporter writes them as
    # JSON, where Scrapy's own would write their Python repr.
    csv_path = tmp_path / "items.csv"
    start = (EXAMPLE_PROJECT / "site" / "articles" / "winter-tomatoes.html").as_uri()
    result = crawl(tmp_path, start, untrained_model, "-O", str(csv_path), "-s", "WEB2TEXT_BLOCKS=compact")
    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["url"].endswith(".html")]
    assert len(rows) == len([item for item in result["items"] if item["url"].endswith(".html")]) >= 2
    for row in rows:
        blocks = json.loads(row["web2text_blocks"])
        assert blocks and all(label in ("content", "boilerplate") for label, _, _ in blocks)
        assert isinstance(json.loads(row["web2text_tags"]), list)
