"""Polite project settings for the webclean spiders, as a plain dict.

The repository's Scrapy project (``spiders/settings.py``) loads this dict,
and ``webclean demo`` passes it to an in-process crawl, so both run with
the same defaults. In your own project copy what you need, or::

    from webclean_scrapy.spiders import PROJECT_SETTINGS
    globals().update(PROJECT_SETTINGS)   # in settings.py
"""

from __future__ import annotations

from typing import Any

from webclean_scrapy.addon import DEFAULT_USER_AGENT, user_agent
from webclean_scrapy.items import FIELD_ORDER

__all__ = ["PROJECT_SETTINGS", "USER_AGENT", "user_agent"]

#: Names the project; ``-s WEBCLEAN_CONTACT=https://you.example/crawler`` (or
#: ``mailto:``) adds how site owners reach you, as robots.txt etiquette asks:
#: ``webclean-scrapy/0.1.0 (+https://you.example/crawler)`` (:func:`user_agent`).
USER_AGENT = DEFAULT_USER_AGENT

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
    # The middleware, both pipelines, the address guard, the cut-body check,
    # the WARC recorder (off until WEBCLEAN_WARC names a file), the fixed
    # robots.txt middleware, the fingerprinter that ignores tracking
    # parameters (/story?utm_source=x and /story are one request for the
    # dupefilter) and the WEBCLEAN_* defaults; see webclean_scrapy/addon.py.
    "ADDONS": {"webclean_scrapy.Addon": 0},
    # -- output -------------------------------------------------------
    "FEED_EXPORT_ENCODING": "utf-8",
    "FEED_EXPORT_FIELDS": list(FIELD_ORDER),
}
