"""Item pipelines: fill main-text fields from raw HTML, drop pages with too little text.

The contract between spiders and :class:`WebcleanPipeline`:

* Spiders using the middleware yield
  :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>`;
  those items already carry ``text`` and pass through unchanged.
* Any other item -- dict, :class:`scrapy.Item`, dataclass or attrs class --
  that holds raw HTML in ``WEBCLEAN_HTML_FIELD`` (default ``"html"``; ``bytes``
  in any charset, or ``str``; an empty value is an empty page, ``None`` or
  absent is no HTML) and no ``text`` yet gets ``title``, ``text``, ``extractor``,
  ``language``, ``detected_language``, ``language_confidence``, ``page_type``, ``truncated``,
  the metadata fields (``author``, ``date``..., :data:`~webclean_scrapy.extraction.ITEM_METADATA_FIELDS`),
  ``text_chars`` and ``html_bytes`` (and ``markdown`` / ``content_html`` with ``WEBCLEAN_FORMATS``); item classes only get the
  fields they declare, dicts get all of them.
* Afterwards the HTML field is removed (dict, ``scrapy.Item``) or set to
  ``None`` (dataclass, attrs) unless ``WEBCLEAN_KEEP_HTML`` is true.

Binary, oversized or unextractable HTML never loses the item: it continues
with empty ``text`` and a ``webclean/*`` stat (an extractor error is also
logged at WARNING with the item's URL).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from .encoding import looks_binary
from .errors import install_hint
from .extraction import extraction_fields
from .middleware import log_extraction_error
from .offload import Offloader, await_concurrent
from .settings import WebcleanComponent, WebcleanSettings
from .stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from .extraction import Extraction


#: Log level of Scrapy's "Dropped:" line, by drop reason. An empty page (a
#: non-HTML response, an extraction that found nothing) is worth a look;
#: short pages (stubs, listings, error pages) are routine, one per page.
DROP_LOG_LEVELS: dict[str, str] = {"empty": "INFO", "too_short": "DEBUG"}


def _set_declared(adapter: ItemAdapter, values: dict[str, Any]) -> None:
    """Set *values* on the item, skipping fields its class does not declare."""
    declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
    for name, value in values.items():
        if declared is None or name in declared:
            adapter[name] = value


class WebcleanPipeline(WebcleanComponent):
    """Extract the main text of items that carry raw HTML."""

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        self.stats = WebcleanStats(crawler.stats)
        self.offloader = Offloader.for_crawler(crawler, settings)

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        adapter = ItemAdapter(item)
        field = self.settings.html_field
        html = adapter.get(field)
        if adapter.get("text"):
            pass  # already extracted, e.g. CleanedPage.from_response
        elif html is None:
            self.stats.skipped("no_html")
        else:
            extraction = await self._extract(html, adapter.get("url"))
            size = len(html) if isinstance(html, (bytes, bytearray)) else len(html.encode("utf-8", "replace"))
            text = extraction.text if extraction is not None else ""
            _set_declared(
                adapter,
                {
                    **extraction_fields(extraction, self.settings.formats),
                    "html_bytes": size,
                    "text_chars": len(text),
                },
            )
        if not self.settings.keep_html and field in adapter:
            if isinstance(item, MutableMapping):
                del adapter[field]
            else:  # dataclass/attrs fields cannot be removed
                adapter[field] = None
        return item

    async def _extract(self, html: bytes | str, url: str | None) -> Extraction | None:
        if isinstance(html, str):
            raw = html.encode("utf-8", "replace")
            size = len(raw)
        else:
            html = raw = bytes(html)
            size = len(raw)
        if looks_binary(raw):  # for str: a binary body decoded as text keeps its NULs
            self.stats.skipped("binary")
            return None
        if size > self.settings.max_html_bytes:
            self.stats.skipped("too_large")
            return None
        try:
            result = await self.offloader.extract_markup(html, url)
        except Exception as exc:  # bad input must never lose the item
            self.stats.error(exc)
            log_extraction_error(self.crawler, url, exc)
            return None
        self.stats.screened(result.screened)
        self.stats.extracted(size, result.extraction.text, result.seconds, result.extraction.truncated)
        self.stats.explained(result.report, result.report_failed)
        return result.extraction


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


class LanguageFilterPipeline(WebcleanComponent):
    """Keep only items in the languages of ``WEBCLEAN_LANGUAGES`` (``["en", "de"]``).

    An item's language is its ``detected_language`` (what its text is in,
    :mod:`webclean_scrapy.language`), else its declared ``language`` (a text
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

        from .language import language_detection_available

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


class NearDuplicatePipeline(WebcleanComponent):
    """Drop items whose ``text`` is a near-copy of the text of an item already kept.

    Catches what URL-based duplicate filters miss: a syndicated article under
    another site's boilerplate, the same page under other URLs, a lightly
    edited or truncated copy. Texts are compared by MinHash LSH over word
    shingles (:mod:`webclean_scrapy.near_duplicates`, the ``[dedup]`` extra)
    at ``WEBCLEAN_NEAR_DUPLICATE_THRESHOLD`` (estimated Jaccard similarity).

    The first item with a text is kept, the later near-copies are dropped with
    a DEBUG line naming both URLs; stats ``webclean/dropped/near_duplicate``
    and ``webclean/near_duplicates/kept``. Items without text pass and are
    not indexed. With ``WEBCLEAN_REDIS_URL`` the index is in Redis under
    ``WEBCLEAN_NEAR_DUPLICATE_KEY`` (per spider by default) and shared by
    every worker of a distributed crawl, and by later runs. Put it after
    :class:`WebcleanPipeline` and the filters.
    """

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        from .near_duplicates import NearDuplicateIndex

        spider = getattr(crawler, "spider", None)
        name = getattr(spider, "name", None) or getattr(getattr(crawler, "spidercls", None), "name", "") or "webclean"
        self.index = NearDuplicateIndex(
            threshold=settings.near_duplicate_threshold,
            num_perm=settings.near_duplicate_num_perm,
            shingle=settings.near_duplicate_shingle,
            redis_url=settings.redis_url,
            redis_key=settings.near_duplicate_key % {"spider": name},
        )
        self.stats = WebcleanStats(crawler.stats)
        # One thread: the signature (CPU) and the Redis round trips stay off the
        # reactor, and checks run one at a time, so check-then-keep is atomic
        # within this process.
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="webclean-dedup")

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        adapter = ItemAdapter(item)
        text = adapter.get("text")
        if not text:
            return item
        key = adapter.get("url") or adapter.get("canonical_url") or f"item-{id(item)}"
        match = await await_concurrent(self._executor.submit(self.index.check, key, text))
        if match is None:
            self.stats.kept_text()
            return item
        self.stats.dropped("near_duplicate")
        raise DropItem(f"near-duplicate of {match.of}: {key}", log_level="DEBUG")
