"""Polite project settings for the webclean spiders, as a plain dict.

The repository's Scrapy project (``spiders/settings.py``) loads this dict,
and ``webclean demo`` passes it to an in-process crawl, so both run with
the same defaults. In your own project copy what you need, or::

    from webclean_scrapy.spiders import PROJECT_SETTINGS
    globals().update(PROJECT_SETTINGS)   # in settings.py
"""

from __future__ import annotations

from typing import Any

from webclean_scrapy.guard import GUARD_ORDER
from webclean_scrapy.items import FIELD_ORDER

#: Identify the crawler and where to read about it, as robots.txt etiquette asks.
USER_AGENT = "webclean-scrapy/0.1 (+https://github.com/webclean-scrapy/webclean-scrapy)"

#: Order of the downloader middleware: after redirects (600), decompression (590),
#: meta refresh (580) and retries (550), so it sees the final page.
MIDDLEWARE_ORDER = 540

PROJECT_SETTINGS: dict[str, Any] = {
    "USER_AGENT": USER_AGENT,
    # -- politeness ---------------------------------------------------
    "ROBOTSTXT_OBEY": True,
    "AUTOTHROTTLE_ENABLED": True,
    "AUTOTHROTTLE_START_DELAY": 1.0,
    "AUTOTHROTTLE_MAX_DELAY": 30.0,
    "AUTOTHROTTLE_TARGET_CONCURRENCY": 2.0,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
    "DOWNLOAD_TIMEOUT": 30,
    # Pages over 10 MB are not articles; stop downloading them.
    "DOWNLOAD_MAXSIZE": 10 * 1024 * 1024,
    "DOWNLOAD_WARNSIZE": 2 * 1024 * 1024,
    # Re-crawls during development: turn on with -s HTTPCACHE_ENABLED=1
    # (the repository's settings also read the WEBCLEAN_HTTPCACHE=1 variable).
    "HTTPCACHE_ENABLED": False,
    "HTTPCACHE_DIR": "httpcache",
    "HTTPCACHE_IGNORE_HTTP_CODES": [500, 502, 503, 504, 429],
    # -- webclean -----------------------------------------------------
    "DOWNLOADER_MIDDLEWARES": {
        "webclean_scrapy.middleware.WebcleanMiddleware": MIDDLEWARE_ORDER,
        # No requests to loopback/private/link-local... addresses (docs/SECURITY.md);
        # WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True turns this off.
        "webclean_scrapy.guard.AddressGuardMiddleware": GUARD_ORDER,
        # Off (NotConfigured) until WEBCLEAN_WARC names a file: -s WEBCLEAN_WARC=crawl.warc.gz
        "webclean_scrapy.warc.WarcRecorder": 950,
        "webclean_scrapy.compression.CompressedBodyCheckMiddleware": 595,  # before decompression (590)
        # Scrapy 2.19's lets requests through while robots.txt downloads (webclean_scrapy/robots.py).
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "webclean_scrapy.robots.RobotsTxtMiddleware": 100,
    },
    "ITEM_PIPELINES": {
        "webclean_scrapy.pipelines.WebcleanPipeline": 300,
        "webclean_scrapy.pipelines.MinTextFilterPipeline": 400,
    },
    # /story?utm_source=x and /story are one request for the dupefilter.
    "REQUEST_FINGERPRINTER_CLASS": "webclean_scrapy.urls.TrackingParamsFingerprinter",
    # -- output -------------------------------------------------------
    "FEED_EXPORT_ENCODING": "utf-8",
    "FEED_EXPORT_FIELDS": list(FIELD_ORDER),
}
