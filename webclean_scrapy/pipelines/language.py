"""Keep only items in the languages the crawl asks for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from webclean_scrapy.errors import install_hint
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class LanguageFilterPipeline(WebcleanComponent):
    """Keep only items in the languages of ``WEBCLEAN_LANGUAGES`` (``["en", "de"]``).

    An item's language is its ``detected_language`` (what its text is in,
    :mod:`webclean_scrapy.engine.text.language`), else its declared ``language`` (a text
    too short to tell). Items in another language are dropped and counted as
    ``webclean/dropped/language/<lang>``; items with neither, as
    ``webclean/dropped/language/unknown``. Items without a ``text`` value
    (not pages) pass. Put it after :class:`WebcleanPipeline`.

    Left out (``NotConfigured``) when ``WEBCLEAN_LANGUAGES`` is empty; a crawl
    that sets it without the ``[lang]`` extra fails at start-up, since every
    page would otherwise be judged by its declared language alone.
    """

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        from scrapy.exceptions import NotConfigured

        from webclean_scrapy.engine.text.language import language_detection_available

        if not settings.languages:
            raise NotConfigured  # the usual case (the add-on lists it always): no message, no WARNING
        if not language_detection_available():
            raise RuntimeError(f"WEBCLEAN_LANGUAGES needs language detection: {install_hint('lang')}")
        self.languages = frozenset(settings.languages)
        self.stats = WebcleanStats(crawler.stats)

    def process_item(self, item: Any, spider: Any = None) -> Any:
        adapter = ItemAdapter(item)
        if adapter.get("text") is None:
            return item
        language = adapter.get("detected_language") or adapter.get("language")
        if language in self.languages:
            return item
        self.stats.dropped(f"language/{language or 'unknown'}")
        raise DropItem(
            f"language {language or 'unknown'} not in WEBCLEAN_LANGUAGES {sorted(self.languages)}", log_level="DEBUG"
        )
