"""The loop docs/show.rst ("Teach from a crawl") tells a user to follow, end to end: crawl with views, open one in
headless Chromium, flip labels and save them, ``web2text train --init``, add the model to the site map, crawl
again, and see the tuned model in the stats, the items and the next views."""

from __future__ import annotations

import json
import re
from collections import Counter
from urllib.parse import urlsplit

import pytest

from scrapy_web2text.cli import main
from tests.show.test_view_browser import _chrome, _downloaded, _spans, browser  # noqa: F401 - browser: a fixture

from ..site import LoopbackServer
from .test_site_models import example_site, two_sites_crawl

pytestmark = [pytest.mark.browser, pytest.mark.torch, pytest.mark.slow]

PAGE = "/articles/winter-tomatoes.html"


def _crawl(folder, server, *extra):
    folder.mkdir()
    return two_sites_crawl(
        folder,
        server,
        ("example.org", "example.net"),
        "-s",
        f"WEB2TEXT_SHOW_DIR={folder / 'views'}",
        "-s",
        "WEB2TEXT_SHOW_EVERY=1",
        "-s",
        "WEB2TEXT_BLOCKS=compact",
        *extra,
    )


def _view_data(path) -> dict:
    return json.loads(re.search(r'id="w2t-data">(.*?)</script>', path.read_text(encoding="utf-8"), re.S).group(1))


def test_crawl_view_flip_save_train_map_and_crawl_again(tmp_path, browser):  # noqa: F811 - the fixture
    with LoopbackServer(example_site()) as server:
        first = _crawl(tmp_path / "first", server)
        views = tmp_path / "first" / "views" / "two_sites"
        view = next(
            path for path in views.glob("*.view.html") if _view_data(path)["url"] == "http://example.org" + PAGE
        )
        assert _view_data(view)["model"] == "default"

        # open the view, flip three blocks (two boilerplate ones to content, one content to boilerplate), save
        browser.get(view.as_uri())
        spans = _spans(browser)
        labels = {int(span.get_attribute("data-w2t")): span.get_attribute("class").split()[-1] for span in spans}
        boilerplate = [span for span in spans if "w2t-boilerplate" in span.get_attribute("class")]
        content = [span for span in spans if "w2t-content" in span.get_attribute("class")]
        flipped = [*boilerplate[-4:-2], content[-1]]
        for span in flipped:
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
            span.click()
        assert _chrome(browser, "#w2t-changed").text == "3"
        _chrome(browser, "#w2t-save").click()
        saved = _downloaded(browser.downloads, view.name.replace(".view.html", ".labels.json"))
        wanted = [block["label"] for block in saved["blocks"]]
        assert sum(block["changed"] for block in saved["blocks"]) == 3 and len(wanted) == len(labels)

        # teach: the pages the crawl kept beside its views, the labels the browser saved
        stem = tmp_path / "example"
        argv = ["train", "--init", "default", "--pages", str(views / "pages"), "--labels", str(browser.downloads)]
        # a short tuning on the page alone (no corpus mixed in): the loop, not the recipe, is what is tested here, so
        # the held-out check (tests/research/test_tuning_check.py), which may keep the shipped model, is off
        assert main([*argv, "--mix", "0", "--iterations", "40", "--no-check", "-o", str(stem)]) == 0
        card = json.loads(stem.with_suffix(".json").read_text())
        name = card["name"]
        assert name != "default" and card["fine_tuned"]["pages"][0]["url"] == "http://example.org" + PAGE

        # crawl again with the model kept to its site
        site_map = json.dumps({"example.org": str(stem.with_suffix(".npz"))})
        second = _crawl(tmp_path / "second", server, "-s", f"WEB2TEXT_SITE_MODELS={site_map}")

    stats = second["probe"]["stats"]
    labelled = Counter(urlsplit(item["url"]).hostname for item in second["items"] if "main_text" in item)
    assert stats[f"web2text/model/{name}/pages"] == labelled["example.org"] > 10
    assert stats["web2text/model/default/pages"] == labelled["example.net"] > 10
    assert f"web2text/model/{name}/pages" not in first["probe"]["stats"]

    # the taught page now follows the labels saved for it more closely than the default model did
    def agreement(result, url):
        item = next(item for item in result["items"] if item["url"] == url)
        return sum(block[0] == label for block, label in zip(item["web2text_blocks"], wanted))

    taught, elsewhere = "http://example.org" + PAGE, "http://example.net" + PAGE
    assert agreement(second, taught) > agreement(first, taught)
    assert agreement(second, elsewhere) == agreement(first, elsewhere)  # the other site keeps the default model
    # and the next view of the page names the tuned model
    views = tmp_path / "second" / "views" / "two_sites"
    models = {_view_data(path)["url"]: _view_data(path)["model"] for path in views.glob("*.view.html")}
    assert models[taught] == name and models[elsewhere] == "default"
