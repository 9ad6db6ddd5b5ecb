"""Drop items whose main text is empty or too short."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


#: Log level of Scrapy's "Dropped:" line, by drop reason. An empty page (a
#: non-HTML response, an extraction that found nothing) is worth a look;
#: short pages (stubs, listings, error pages) are routine, one per page.
DROP_LOG_LEVELS: dict[str, str] = {"empty": "INFO", "too_short": "DEBUG"}


class MinTextFilterPipeline(WebcleanComponent):
    """Drop items whose ``text`` is shorter than ``WEBCLEAN_MIN_TEXT_CHARS``.

    Items without a ``text`` value (``None`` or absent: not pages) pass. Drops
    are counted as ``webclean/dropped/empty`` (no text at all, e.g. a non-HTML
    response) or ``webclean/dropped/too_short``. Put it after
    :class:`WebcleanPipeline`.

    Dropping short pages is this filter's ordinary job, not a problem: Scrapy
    logs the drops at INFO (empty) and DEBUG (too short) rather than its
    default WARNING, through :class:`~scrapy.exceptions.DropItem`'s ``log_level``.
    """

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        self.min_chars = settings.min_text_chars
        self.stats = WebcleanStats(crawler.stats)

    def process_item(self, item: Any, spider: Any = None) -> Any:
        text = ItemAdapter(item).get("text")
        if text is None:
            return item
        chars = len(text.strip())
        if chars == 0:
            self.stats.dropped("empty")
            raise DropItem("no main text", log_level=DROP_LOG_LEVELS["empty"])
        if chars < self.min_chars:
            self.stats.dropped("too_short")
            raise DropItem(
                f"main text too short ({chars} < WEBCLEAN_MIN_TEXT_CHARS={self.min_chars})",
                log_level=DROP_LOG_LEVELS["too_short"],
            )
        return item
