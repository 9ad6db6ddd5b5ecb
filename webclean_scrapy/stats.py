"""The ``webclean/*`` crawl stats, named and updated in one place.

Keys (all under ``webclean/``):

=============================== ===============================================
``pages/extracted``             pages run through an extractor
``pages/empty``                 ... of which the extracted text was empty
``pages/truncated``             ... of which the text comes from part of the page
                                only (``Extraction.truncated``)
``truncated/<coding>``          responses whose ``gzip``/``deflate``/``br`` body
                                was cut in transfer (:mod:`~webclean_scrapy.downloadermiddlewares.compression`)
``charset/detected``            HTML responses declaring no charset, not UTF-8, read
                                in the charset the browser's detector chose
                                (:mod:`~webclean_scrapy.downloadermiddlewares.charset`)
``charset/corrected``           HTML responses read in another charset than the
                                one they declare (UTF-8 labelled ``ISO-8859-1``...)
``charset/failed``              HTML responses whose charset detection failed in a
                                worker (timeout, crash): left as Scrapy reads them
``skipped/<reason>``            responses/items not extracted: ``non_html``
                                (Content-Type / response class), ``binary``
                                (sniffed body), ``too_large``
                                (``WEBCLEAN_MAX_HTML_BYTES``), ``requested``
                                (``meta["webclean_skip"]``), ``http_status``
                                (not 2xx), ``no_html`` (pipeline: item
                                without HTML)
``errors``                      extraction errors (``errors/<ExceptionName>`` too;
                                ``errors/timeout``: over ``WEBCLEAN_PAGE_TIMEOUT``,
                                ``errors/worker_crash``: killed two worker processes)
``screened/<reason>``           pages whose markup was neutralised before parsing
                                (:mod:`webclean_scrapy.engine.html.screen`): ``attributes``
``bytes/html_in``               raw HTML bytes of extracted pages
``bytes/text_out``              UTF-8 bytes of the extracted text
``space_saving_percent``        ``100 * (1 - text_out / html_in)``, updated per page
``extraction_seconds``          CPU time spent inside extractors (sum)
``blocked``                     requests refused by the address guard
                                (``blocked/<reason>``: ``loopback``,
                                ``private``, ``link_local``, ``multicast``,
                                ``reserved``, ``unspecified``)
``explain/reports``             ``WEBCLEAN_EXPLAIN_DIR`` reports written (empty
                                or low-confidence pages; :mod:`webclean_scrapy.explain.crawl`)
``explain/errors``              reports that could not be written
``dropped/<reason>``            items dropped by :class:`~webclean_scrapy.pipelines.MinTextFilterPipeline`:
                                ``empty``, ``too_short``
``dropped/language/<lang>``     items dropped by :class:`~webclean_scrapy.pipelines.LanguageFilterPipeline`,
                                by language (``unknown``: none detected or declared)
``dropped/near_duplicate``      items dropped by :class:`~webclean_scrapy.pipelines.NearDuplicatePipeline`
``near_duplicates/kept``        items whose text this crawl added to the near-duplicate index
``warc/records``                WARC records written (warcinfo, response, request)
``warc/bytes``                  compressed bytes written to the WARC file
``warc/errors``                 WARC write failures (``warc/errors/<ExceptionName>``); recording stops
=============================== ===============================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

PREFIX = "webclean/"


class WebcleanStats:
    """Thin writer over ``crawler.stats``; every ``webclean/*`` key is spelled here."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    def skipped(self, reason: str) -> None:
        self.stats.inc_value(f"{PREFIX}skipped/{reason}")

    def dropped(self, reason: str) -> None:
        self.stats.inc_value(f"{PREFIX}dropped/{reason}")

    def kept_text(self) -> None:
        """A text added to the near-duplicate index."""
        self.stats.inc_value(f"{PREFIX}near_duplicates/kept")

    def blocked(self, reason: str) -> None:
        self.stats.inc_value(f"{PREFIX}blocked")
        self.stats.inc_value(f"{PREFIX}blocked/{reason}")

    def error(self, exc: BaseException) -> None:
        self.stats.inc_value(f"{PREFIX}errors")
        reason = getattr(exc, "stats_reason", None) or type(exc).__name__
        self.stats.inc_value(f"{PREFIX}errors/{reason}")

    def screened(self, reasons: tuple[str, ...]) -> None:
        for reason in reasons:
            self.stats.inc_value(f"{PREFIX}screened/{reason}")

    def explained(self, report: str | None, failed: bool = False) -> None:
        """Count a page's ``WEBCLEAN_EXPLAIN_DIR`` report, if it got one."""
        if report:
            self.stats.inc_value(f"{PREFIX}explain/reports")
        if failed:
            self.stats.inc_value(f"{PREFIX}explain/errors")

    def charset(self, reason: str) -> None:
        self.stats.inc_value(f"{PREFIX}charset/{reason}")

    def truncated_body(self, coding: str) -> None:
        self.stats.inc_value(f"{PREFIX}truncated/{coding}")

    def extracted(self, html_bytes: int, text: str, seconds: float, truncated: bool = False) -> None:
        stats = self.stats
        stats.inc_value(f"{PREFIX}pages/extracted")
        if not text:
            stats.inc_value(f"{PREFIX}pages/empty")
        if truncated:
            stats.inc_value(f"{PREFIX}pages/truncated")
        stats.inc_value(f"{PREFIX}bytes/html_in", html_bytes)
        stats.inc_value(f"{PREFIX}bytes/text_out", len(text.encode("utf-8")))
        # Scrapy types inc_value's count as int; a float adds up the same.
        stats.inc_value(f"{PREFIX}extraction_seconds", seconds, start=0.0)  # type: ignore[arg-type]
        html_in = stats.get_value(f"{PREFIX}bytes/html_in", 0)
        if html_in:
            text_out = stats.get_value(f"{PREFIX}bytes/text_out", 0)
            stats.set_value(f"{PREFIX}space_saving_percent", round(100.0 * (1 - text_out / html_in), 2))

    def warc_written(self, records: int, nbytes: int) -> None:
        self.stats.inc_value(f"{PREFIX}warc/records", records)
        self.stats.inc_value(f"{PREFIX}warc/bytes", nbytes)

    def warc_error(self, exc: BaseException) -> None:
        self.stats.inc_value(f"{PREFIX}warc/errors")
        self.stats.inc_value(f"{PREFIX}warc/errors/{type(exc).__name__}")
