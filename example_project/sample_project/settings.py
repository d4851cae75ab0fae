"""Settings of the scrapy-web2text example project.

Both Web2Text components are enabled: the spider middleware labels the HTML
responses the spider sees, the pipeline labels HTML that a spider puts into
an item's ``html`` field.  Every ``WEB2TEXT_*`` setting is listed in the
documentation's settings reference; the defaults are spelled out here.
"""

BOT_NAME = "sample_project"
SPIDER_MODULES = ["sample_project.spiders"]
NEWSPIDER_MODULE = "sample_project.spiders"

# Be polite when crawling a real site with `-a url=...`.
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.25
USER_AGENT = "scrapy-web2text-example (+https://pypi.org/project/scrapy-web2text/)"
FEED_EXPORT_ENCODING = "utf-8"
# Fixed columns for every export: CSV and other fixed-column exporters take their columns from the
# first item otherwise, so a first item without ``main_text`` (a PDF, an image) would drop the column.
FEED_EXPORT_FIELDS = ["url", "status", "content_type", "title", "main_text", "web2text_blocks"]

# CSV cells of lists and dicts (metadata, other block forms) as JSON, not Python repr (the add-on sets this).
FEED_EXPORTERS = {"csv": "scrapy_web2text.integration.exporters.Web2TextCsvItemExporter"}

SPIDER_MIDDLEWARES = {"scrapy_web2text.Web2TextSpiderMiddleware": 543}
ITEM_PIPELINES = {"scrapy_web2text.Web2TextPipeline": 300}

WEB2TEXT_ENABLED = True
WEB2TEXT_MODEL = "default"  # a packaged model's name or a path to NAME.npz
WEB2TEXT_METHOD = "web2text"
WEB2TEXT_THRESHOLD = None  # None: the model's own threshold
WEB2TEXT_TEXT_FIELD = "main_text"
WEB2TEXT_BLOCKS_FIELD = "web2text_blocks"
WEB2TEXT_BLOCKS = "labels"  # "0011...": a label per block; "compact": [label, p, xpath]; "full"; "none"
WEB2TEXT_FORMATS = ["text"]  # add "markdown" / "html" for main_markdown / main_html
WEB2TEXT_TITLE_FIELD = "title"  # the headline, when the spider did not set a title itself
# What each page says about itself (docs/metadata.rst), into web2text_authors, web2text_date_published...
# (the default is [], no metadata); the feed's fixed columns follow.
WEB2TEXT_METADATA = ["authors", "date_published", "language", "site_name", "description", "image", "tags"]
FEED_EXPORT_FIELDS += [f"web2text_{name}" for name in WEB2TEXT_METADATA]
WEB2TEXT_HTML_FIELD = "html"
WEB2TEXT_MAX_BYTES = 5_000_000
WEB2TEXT_CONCURRENCY = 2
WEB2TEXT_POOL = "thread"  # "process": label in spawned worker processes, on as many cores as workers
