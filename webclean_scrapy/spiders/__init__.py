"""The webclean spiders, usable from any Scrapy project or in-process.

* ``news`` (:class:`NewsSpider`): crawl news sites, one item per article.
* ``harvest`` (:class:`HarvestSpider`): a corpus from a search engine's results.

Both need :class:`~webclean_scrapy.middleware.WebcleanMiddleware` and add
:class:`webclean_scrapy.Addon` to ``ADDONS`` themselves when the project has not. :data:`PROJECT_SETTINGS` holds the
polite defaults the repository's project and ``webclean demo`` run with.
"""

from .harvest import HarvestSpider
from .news import NewsSpider
from .project import PROJECT_SETTINGS, USER_AGENT

__all__ = ["HarvestSpider", "NewsSpider", "PROJECT_SETTINGS", "USER_AGENT"]
