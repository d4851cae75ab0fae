"""A spider for the site-model tests: crawls the same site under several host names, through a proxy (the loopback
server answers for every host), following links that stay on each page's host."""

from __future__ import annotations

from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse


class TwoSitesSpider(scrapy.Spider):
    name = "two_sites"

    def __init__(self, urls: str = "", proxy: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.urls, self.proxy = urls.split(","), proxy

    async def start(self):
        for url in self.urls:
            yield scrapy.Request(url, meta={"proxy": self.proxy})

    def parse(self, response):
        yield {"url": response.url}
        if isinstance(response, HtmlResponse):
            host = urlsplit(response.url).netloc
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href).split("#", 1)[0]
                if urlsplit(url).netloc == host and url.startswith("http://"):
                    yield scrapy.Request(url, meta={"proxy": self.proxy})
