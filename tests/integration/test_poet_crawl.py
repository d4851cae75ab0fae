"""The web-poet page object in a real scrapy-poet crawl of the bundled site, and its extras named when missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from ..scrapy_support import EXAMPLE_PROJECT, REPO, require_default_model

#: The example project's ``sample_poet`` spider, each item beside ``extract(response)`` of the same response and
#: the page's zyte-common-items ``Article``.
CHECKED_CRAWL = textwrap.dedent(
    """
    import json, sys

    import attrs
    from itemadapter import ItemAdapter
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    from sample_project.spiders.sample_poet import SamplePoetSpider
    from scrapy_web2text import Web2TextArticle, Web2TextArticlePage, extract


    class CheckedSpider(SamplePoetSpider):
        name = "sample_poet_checked"
        custom_settings = {**SamplePoetSpider.custom_settings, "FEED_EXPORT_FIELDS": None}

        async def parse(self, response, page: Web2TextArticlePage):
            async for out in super().parse(response, page):
                if not isinstance(out, Web2TextArticle):
                    yield out
                    continue
                result = extract(response)
                yield {
                    "page": attrs.asdict(out),
                    "extract": {
                        "url": result.url,
                        "title": result.title,
                        "main_text": result.main_text,
                        "metadata": result.metadata.to_dict(),
                        "blocks": result.block_records("compact"),
                    },
                    "article": ItemAdapter(page.to_article()).asdict(),
                }


    settings = get_project_settings()
    settings.set("FEEDS", {sys.argv[1]: {"format": "jsonl"}})
    settings.set("LOG_LEVEL", "INFO")
    settings.set("DOWNLOAD_DELAY", 0)
    process = CrawlerProcess(settings)
    process.crawl(CheckedSpider)
    process.start()
    """
)


def run_python(code: str, *args: str, cwd=EXAMPLE_PROJECT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(EXAMPLE_PROJECT)])}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def checked_items(tmp_path_factory):
    require_default_model()
    out = tmp_path_factory.mktemp("poet") / "items.jsonl"
    done = run_python(CHECKED_CRAWL, str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Traceback" not in done.stderr, done.stderr[-4000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_the_page_objects_fields_are_extracts_on_the_same_response(checked_items):
    html_pages = sorted((EXAMPLE_PROJECT / "site").rglob("*.html"))
    assert len(checked_items) == len(html_pages)  # one item per HTML page of the bundled site, none lost
    for item in checked_items:
        assert item["page"] == item["extract"], item["page"]["url"]
    articles = [item["page"] for item in checked_items if "/articles/" in item["page"]["url"]]
    assert articles and all(page["main_text"] and page["title"] and page["blocks"] for page in articles)
    assert any(page["metadata"].get("authors") for page in articles)


def test_to_article_maps_the_same_values_onto_zyte_common_items(checked_items):
    for item in checked_items:
        page, article = item["page"], item["article"]
        assert article["url"] == page["url"]
        assert article.get("articleBody") == page["main_text"]
        assert article.get("headline") == (page["title"] or page["metadata"].get("title"))
        metadata = page["metadata"]
        assert [author["name"] for author in article.get("authors") or []] == metadata.get("authors", [])
        assert article.get("datePublished") == metadata.get("date_published")
        assert article.get("inLanguage") == metadata.get("language")


BLOCKED = "import sys; sys.modules[{module!r}] = None\n"


def test_a_missing_extra_is_named_in_one_line():
    code = BLOCKED.format(module="web_poet") + "import scrapy_web2text; scrapy_web2text.Web2TextArticlePage"
    done = run_python(code)
    assert done.returncode == 1
    said = done.stderr.strip().splitlines()[-1]
    assert said.endswith("needs web-poet, which is not installed: pip install 'scrapy-web2text[poet]'")
    assert "scrapy_web2text.Web2TextArticlePage" in said
    code = BLOCKED.format(module="zyte_common_items") + textwrap.dedent(
        """
        from web_poet import HttpResponse
        from scrapy_web2text import Web2TextArticlePage
        Web2TextArticlePage(HttpResponse("http://example.com/", body=b"<p>Text</p>")).to_article()
        """
    )
    done = run_python(code)
    assert done.returncode == 1
    said = done.stderr.strip().splitlines()[-1]
    assert said.endswith("needs zyte-common-items, which is not installed: pip install 'scrapy-web2text[article]'")
    assert "Web2TextArticlePage.to_article()" in said


def test_the_example_project_runs_without_the_poet_extra():
    # Scrapy imports every spider module of the project: the page-object spider must not break the others.  (Not
    # through scrapy.cmdline: the installed scrapy-poet's command entry point would fail to import here.)
    code = BLOCKED.format(module="web_poet") + textwrap.dedent(
        """
        from scrapy.crawler import CrawlerProcess
        from scrapy.utils.project import get_project_settings
        process = CrawlerProcess(get_project_settings())
        print(" ".join(process.spider_loader.list()))
        process.crawl(sys.argv[1])
        process.start()
        """
    )
    crawled = run_python(code, "sample_poet")
    assert {"sample", "sample_markdown", "sample_poet"} <= set(crawled.stdout.split()), crawled.stderr[-3000:]
    assert crawled.returncode != 0
    assert "pip install 'scrapy-web2text[poet]'" in crawled.stderr.strip().splitlines()[-1]
