"""The item pipeline that fills main-text fields from raw HTML.

The contract between spiders and :class:`WebcleanPipeline`:

* Spiders using the middleware yield
  :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>`;
  those items already carry ``text`` and pass through unchanged.
* Any other item -- dict, :class:`scrapy.Item`, dataclass or attrs class --
  that holds raw HTML in ``WEBCLEAN_HTML_FIELD`` (default ``"html"``; ``bytes``
  in any charset, or ``str``; an empty value is an empty page, ``None`` or
  absent is no HTML) and no ``text`` yet gets ``title``, ``text``, ``extractor``,
  ``language``, ``detected_language``, ``language_confidence``, ``page_type``, ``truncated``,
  the metadata fields (``author``, ``date``..., :data:`~webclean_scrapy.engine.extraction.ITEM_METADATA_FIELDS`),
  ``text_chars`` and ``html_bytes`` (and ``markdown`` / ``content_html`` with ``WEBCLEAN_FORMATS``); item classes only get the
  fields they declare, dicts get all of them; the metadata and detected-language fields
  ``WEBCLEAN_FIELDS`` does not name are not computed and not set.
* Afterwards the HTML field is removed (dict, ``scrapy.Item``) or set to
  ``None`` (dataclass, attrs) unless ``WEBCLEAN_KEEP_HTML`` is true.

Binary, oversized or unextractable HTML never loses the item: it continues
with empty ``text`` and a ``webclean/*`` stat (an extractor error is also
logged at WARNING with the item's URL).

A page is extracted once, whichever components are on: when
:class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware`
already extracted the response the item was made from -- the item's ``url``
is the response's and its HTML is ``response.body`` or ``response.text``, as
in ``{"url": response.url, "html": response.text}`` -- the pipeline fills the
same fields from that extraction
(:meth:`PageExtractions.extraction_for <webclean_scrapy.downloadermiddlewares.extraction.PageExtractions.extraction_for>`)
instead of extracting the HTML again, and the page counts once in
``webclean/pages/extracted`` and ``webclean/bytes/html_in``.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from webclean_scrapy.downloadermiddlewares.extraction import PageExtractions, log_extraction_error
from webclean_scrapy.engine.extraction import extraction_fields
from webclean_scrapy.engine.text.encoding import looks_binary
from webclean_scrapy.offload.offloader import Offloader
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from webclean_scrapy.engine.extraction import Extraction


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
        self.pages = PageExtractions.for_crawler(crawler)

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        adapter = ItemAdapter(item)
        field = self.settings.html_field
        html = adapter.get(field)
        if adapter.get("text"):
            pass  # already extracted, e.g. CleanedPage.from_response
        elif html is None:
            self.stats.skipped("no_html")
        else:
            url = adapter.get("url")
            extracted, extraction = self.pages.extraction_for(html, url)
            if not extracted:  # not a response the middleware extracted
                extraction = await self._extract(html, url)
            size = len(html) if isinstance(html, (bytes, bytearray)) else len(html.encode("utf-8", "replace"))
            text = extraction.text if extraction is not None else ""
            _set_declared(
                adapter,
                {
                    **extraction_fields(extraction, self.settings.formats, fields=self.settings.wanted_fields),
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
