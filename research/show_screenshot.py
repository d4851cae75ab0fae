"""The screenshot of a view in docs/show.rst: the example site's winter-tomatoes article, one block flipped.

    python research/show_screenshot.py docs/_static/show-view.png

Needs the OS's chromium and chromium-driver (as the browser tests do) and selenium (the 'test' extra).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from scrapy_web2text.show import build_view

PAGE = Path(__file__).resolve().parents[1] / "example_project" / "site" / "articles" / "winter-tomatoes.html"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="PNG to write")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    args = parser.parse_args()
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(argument)
    options.add_argument(f"--window-size={args.width},{args.height}")
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    with tempfile.TemporaryDirectory() as folder:
        view = Path(folder) / "view.html"
        view.write_text(build_view(PAGE.read_bytes(), "https://allotment.example/articles/winter-tomatoes.html"))
        try:
            driver.get(view.as_uri())
            boilerplate = driver.find_elements("css selector", "#w2t-page span.w2t-boilerplate")
            target = next(span for span in boilerplate if span.is_displayed() and span.location["y"] > 300)
            target.click()  # one flipped block, to show how a correction looks
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.output)
        finally:
            driver.quit()
    print(f"screenshot written to {args.output}")


if __name__ == "__main__":
    main()
