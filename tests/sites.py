"""The generated test site and loopback HTTP server, imported from one place (the layout change moves them)."""

from scrapy_web2text.integration.testing import NAVIGATION, LoopbackServer, Site, article_page, build_site

__all__ = ["NAVIGATION", "LoopbackServer", "Site", "article_page", "build_site"]
