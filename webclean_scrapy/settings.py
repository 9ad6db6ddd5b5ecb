"""Every ``WEBCLEAN_*`` setting, its default, and the one place they are read.

Components call :meth:`WebcleanSettings.from_crawler` and never touch
``crawler.settings`` for ``WEBCLEAN_*`` names themselves, so a default or a
validation rule lives here only. ``docs/SCRAPY.md`` has the user-facing table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

#: Ways to run extraction; see :mod:`webclean_scrapy.offload`.
OFFLOAD_MODES = ("thread", "process", "none")


def default_workers() -> int:
    """One worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


#: Defaults, by setting name. Also usable as a settings dict (``settings.update(DEFAULTS)``).
DEFAULTS: dict[str, Any] = {
    "WEBCLEAN_ENABLED": True,
    "WEBCLEAN_EXTRACTOR": "default",
    "WEBCLEAN_EXTRACTOR_OPTIONS": {},
    "WEBCLEAN_MIN_TEXT_CHARS": 200,
    "WEBCLEAN_KEEP_HTML": False,
    "WEBCLEAN_MAX_HTML_BYTES": 10 * 1024 * 1024,
    "WEBCLEAN_WORKERS": None,  # None: default_workers()
    "WEBCLEAN_HTML_FIELD": "html",
    "WEBCLEAN_OFFLOAD": "process",  # measured: docs/BENCHMARKS.md
    "WEBCLEAN_SEARCH_ENGINES": {},  # harvest spider: HTML result-page engines by name
    "WEBCLEAN_SEARXNG_URL": None,  # harvest spider: default SearXNG endpoint
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": False,  # address guard off: docs/SECURITY.md
    "WEBCLEAN_ALLOWED_NETWORKS": [],  # networks the address guard lets through
    "WEBCLEAN_WARC": None,  # WARC file name template; None: no recording (webclean_scrapy.warc)
    "WEBCLEAN_EXPLAIN_DIR": None,  # write `webclean explain` reports of doubtful pages here
    "WEBCLEAN_EXPLAIN_BELOW": 0.5,  # ... those whose confidence is below this (or whose text is empty)
    "WEBCLEAN_FORMATS": [],  # "markdown" and/or "html": item fields markdown / content_html (webclean_scrapy.render)
}


@dataclass(frozen=True)
class WebcleanSettings:
    """The ``WEBCLEAN_*`` settings, validated."""

    enabled: bool = DEFAULTS["WEBCLEAN_ENABLED"]
    extractor: str = DEFAULTS["WEBCLEAN_EXTRACTOR"]
    extractor_options: dict[str, Any] = field(default_factory=dict)
    min_text_chars: int = DEFAULTS["WEBCLEAN_MIN_TEXT_CHARS"]
    keep_html: bool = DEFAULTS["WEBCLEAN_KEEP_HTML"]
    max_html_bytes: int = DEFAULTS["WEBCLEAN_MAX_HTML_BYTES"]
    workers: int = field(default_factory=default_workers)
    html_field: str = DEFAULTS["WEBCLEAN_HTML_FIELD"]
    offload: str = DEFAULTS["WEBCLEAN_OFFLOAD"]
    search_engines: dict[str, Any] = field(default_factory=dict)
    searxng_url: str | None = DEFAULTS["WEBCLEAN_SEARXNG_URL"]
    allow_private_addresses: bool = DEFAULTS["WEBCLEAN_ALLOW_PRIVATE_ADDRESSES"]
    allowed_networks: tuple[str, ...] = ()
    warc: str | None = DEFAULTS["WEBCLEAN_WARC"]
    explain_dir: str | None = DEFAULTS["WEBCLEAN_EXPLAIN_DIR"]
    explain_below: float = DEFAULTS["WEBCLEAN_EXPLAIN_BELOW"]
    #: Formats rendered besides the text, validated ("text" dropped): ``("markdown", "html")``.
    formats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from .errors import ExtractionError
        from .render import check_formats

        try:
            object.__setattr__(self, "formats", check_formats(self.formats))
        except ExtractionError as exc:
            raise ValueError(f"WEBCLEAN_FORMATS: {exc}") from None
        if self.offload not in OFFLOAD_MODES:
            raise ValueError(f"WEBCLEAN_OFFLOAD must be one of {', '.join(OFFLOAD_MODES)}, got {self.offload!r}")
        if self.workers < 1:
            raise ValueError(f"WEBCLEAN_WORKERS must be at least 1, got {self.workers}")
        if self.max_html_bytes < 0 or self.min_text_chars < 0:
            raise ValueError("WEBCLEAN_MAX_HTML_BYTES and WEBCLEAN_MIN_TEXT_CHARS must not be negative")
        if self.enabled:
            self.check_extractor()

    def check_extractor(self) -> None:
        """Build the configured extractor once, so a bad name or option value
        fails the crawl at start-up with the setting's name, not page by page."""
        from .errors import ExtractionError
        from .extractors import get_extractor

        try:
            get_extractor(self.extractor, **self.extractor_options)
        except ExtractionError as exc:
            raise ValueError(f"WEBCLEAN_EXTRACTOR={self.extractor!r}, WEBCLEAN_EXTRACTOR_OPTIONS="
                             f"{self.extractor_options!r}: {exc}") from exc
        if not 0 <= self.explain_below <= 1:
            raise ValueError(f"WEBCLEAN_EXPLAIN_BELOW must be between 0 and 1, got {self.explain_below}")

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> WebcleanSettings:
        workers = settings.get("WEBCLEAN_WORKERS")
        extractor = settings.get("WEBCLEAN_EXTRACTOR", DEFAULTS["WEBCLEAN_EXTRACTOR"])
        return cls(
            enabled=settings.getbool("WEBCLEAN_ENABLED", DEFAULTS["WEBCLEAN_ENABLED"]),
            extractor=extractor,
            extractor_options=dict(settings.getdict("WEBCLEAN_EXTRACTOR_OPTIONS")),
            min_text_chars=settings.getint("WEBCLEAN_MIN_TEXT_CHARS", DEFAULTS["WEBCLEAN_MIN_TEXT_CHARS"]),
            keep_html=settings.getbool("WEBCLEAN_KEEP_HTML", DEFAULTS["WEBCLEAN_KEEP_HTML"]),
            max_html_bytes=settings.getint("WEBCLEAN_MAX_HTML_BYTES", DEFAULTS["WEBCLEAN_MAX_HTML_BYTES"]),
            workers=int(workers) if workers not in (None, "") else default_workers(),
            html_field=settings.get("WEBCLEAN_HTML_FIELD", DEFAULTS["WEBCLEAN_HTML_FIELD"]),
            offload=str(settings.get("WEBCLEAN_OFFLOAD", DEFAULTS["WEBCLEAN_OFFLOAD"])).lower(),
            search_engines=dict(settings.getdict("WEBCLEAN_SEARCH_ENGINES")),
            searxng_url=settings.get("WEBCLEAN_SEARXNG_URL") or None,
            allow_private_addresses=settings.getbool("WEBCLEAN_ALLOW_PRIVATE_ADDRESSES",
                                                     DEFAULTS["WEBCLEAN_ALLOW_PRIVATE_ADDRESSES"]),
            allowed_networks=tuple(settings.getlist("WEBCLEAN_ALLOWED_NETWORKS")),
            warc=str(settings.get("WEBCLEAN_WARC") or "") or None,
            explain_dir=str(settings.get("WEBCLEAN_EXPLAIN_DIR")) if settings.get("WEBCLEAN_EXPLAIN_DIR") else None,
            explain_below=settings.getfloat("WEBCLEAN_EXPLAIN_BELOW", DEFAULTS["WEBCLEAN_EXPLAIN_BELOW"]),
            formats=tuple(settings.getlist("WEBCLEAN_FORMATS")),
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WebcleanSettings:
        return cls.from_settings(crawler.settings)


class WebcleanComponent:
    """Base of the middleware and pipelines: ``from_crawler`` reads the
    settings once and honours ``WEBCLEAN_ENABLED`` (``NotConfigured``, so
    Scrapy leaves a disabled component out), the constructor receives them."""

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        self.crawler = crawler
        self.settings = settings

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Any:
        from scrapy.exceptions import NotConfigured

        settings = WebcleanSettings.from_crawler(crawler)
        if not settings.enabled:
            raise NotConfigured("WEBCLEAN_ENABLED is off")
        return cls(crawler, settings)
