"""The webclean spiders, usable from any Scrapy project or in-process.

* ``news`` (:class:`NewsSpider`): crawl news sites, one item per article;
  its article-or-hub rule is :mod:`.articles`.
* ``harvest`` (:class:`HarvestSpider`): a corpus from a search engine's results.

Both need :class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware` and add
:class:`webclean_scrapy.Addon` to ``ADDONS`` themselves when the project has not. :data:`PROJECT_SETTINGS` holds the
polite defaults the repository's project and ``webclean demo`` run with.

The names are imported on first use: extraction workers import
:mod:`.articles` (the outline gathers its signals where the page is
parsed) without loading the spiders and the Scrapy components they use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webclean_scrapy.spiders.harvest import HarvestSpider
    from webclean_scrapy.spiders.news import NewsSpider
    from webclean_scrapy.spiders.project import PROJECT_SETTINGS, USER_AGENT, user_agent

__all__ = ["HarvestSpider", "NewsSpider", "PROJECT_SETTINGS", "USER_AGENT", "user_agent"]

_MODULES = {
    "HarvestSpider": ".harvest",
    "NewsSpider": ".news",
    "PROJECT_SETTINGS": ".project",
    "USER_AGENT": ".project",
    "user_agent": ".project",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
