"""Settings of the repository's Scrapy project.

The polite defaults (robots.txt obeyed, AutoThrottle, a descriptive
User-Agent, 10 MB size limit, the webclean middleware and pipelines, UTF-8
feeds with a fixed field order) live in the library as
:data:`webclean_scrapy.spiders.PROJECT_SETTINGS` so ``webclean demo`` and this
project share them; anything below overrides them.
"""

import os

from webclean_scrapy.spiders import PROJECT_SETTINGS

globals().update(PROJECT_SETTINGS)

BOT_NAME = "webclean"
SPIDER_MODULES = ["spiders"]
NEWSPIDER_MODULE = "spiders"

# HTTP cache is opt-in: WEBCLEAN_HTTPCACHE=1 scrapy crawl ... (or -s HTTPCACHE_ENABLED=1)
# replays earlier responses from ./.scrapy/httpcache while you tune extraction.
HTTPCACHE_ENABLED = os.environ.get("WEBCLEAN_HTTPCACHE", "").lower() in {"1", "true", "yes", "on"}

# Example of an HTML result-page engine for `scrapy crawl harvest -a engine=...`
# (see docs/SPIDERS.md); SearXNG's JSON API is built in.
WEBCLEAN_SEARCH_ENGINES: dict = {}
