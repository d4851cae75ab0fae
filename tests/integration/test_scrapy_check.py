"""``scrapy check`` with the fields the middleware adds: Scrapy's ``@scrapes`` runs before the middleware and fails,
the package's ``@web2text_scrapes`` labels the callback's items first (issue 55)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from ..scrapy_support import EXAMPLE_PROJECT, REPO

ARTICLE = (EXAMPLE_PROJECT / "site" / "articles" / "rain-garden.html").as_uri()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("check")
    (root / "scrapy.cfg").write_text("[settings]\ndefault = checked.settings\n")
    package = root / "checked"
    (package / "spiders").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(
        'SPIDER_MODULES = ["checked.spiders"]\nADDONS = {"scrapy_web2text.Addon": 0}\nLOG_LEVEL = "INFO"\n'
        'SPIDER_CONTRACTS = {"scrapy_web2text.integration.contracts.Web2TextScrapesContract": 10}\n'
    )
    spider = f'''
        import scrapy


        class ArticleSpider(scrapy.Spider):
            name = "{{name}}"

            def parse(self, response):
                """
                @url {ARTICLE}
                @returns items 1 1
                @{{contract}} main_text title web2text_blocks
                """
                yield {{{{"url": response.url}}}}
    '''
    for name, contract in (("labelled", "web2text_scrapes"), ("plain", "scrapes")):
        source = textwrap.dedent(spider).format(name=name, contract=contract)
        (package / "spiders" / f"{name}.py").write_text(source)
    (package / "spiders" / "__init__.py").write_text("")
    return root


def check(project, spider: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(project)])}
    command = [sys.executable, "-m", "scrapy", "check", spider]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_web2text_scrapes_checks_the_fields_the_middleware_adds(project):
    done = check(project, "labelled")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "OK" in done.stderr and "Traceback" not in done.stderr


def test_scrapes_alone_runs_before_the_middleware_and_misses_them(project):
    done = check(project, "plain")
    assert done.returncode != 0
    assert "Missing fields: main_text, title, web2text_blocks" in done.stderr
