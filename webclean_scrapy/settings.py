"""Every ``WEBCLEAN_*`` setting, its default, and the one place they are read.

Components call :meth:`WebcleanSettings.from_crawler` and never touch
``crawler.settings`` for ``WEBCLEAN_*`` names themselves, so a default or a
validation rule lives here only. The user-facing table is in ``README.md``
("Settings").

Each setting is one field of :class:`WebcleanSettings`, written once: the
field's name gives the setting's (``min_text_chars`` is
``WEBCLEAN_MIN_TEXT_CHARS``), its default is the setting's default (also in
:data:`DEFAULTS`, which :class:`webclean_scrapy.Addon` writes at add-on
priority), and its type says how the value is read (``getbool``, ``getint``,
``getdict``...; ``X | None`` also accepts ``None`` or ``""``).
"""

from __future__ import annotations

import copy
import os
import types
import typing
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from webclean_scrapy.engine.fields import FORMAT_FIELDS, OPTIONAL_FIELDS, check_fields
from webclean_scrapy.engine.formats import Markup, check_formats
from webclean_scrapy.errors import ExtractionError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from typing_extensions import Self  # typing.Self: Python 3.11

#: Ways to run extraction; see :mod:`webclean_scrapy.offload`.
OFFLOAD_MODES = ("thread", "process", "none")

#: Prefix of every setting of this library.
PREFIX = "WEBCLEAN_"


def default_workers() -> int:
    """One worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


#: How a field of each type is read from Scrapy's settings; other types (``str``...) are taken as given.
_READERS: dict[type, str] = {
    bool: "getbool",
    int: "getint",
    float: "getfloat",
    dict: "getdict",
    list: "getlist",
    tuple: "getlist",
}


def setting_name(attribute: str) -> str:
    """``min_text_chars`` -> ``WEBCLEAN_MIN_TEXT_CHARS``."""
    return PREFIX + attribute.upper()


@dataclass(frozen=True)
class WebcleanSettings:
    """The ``WEBCLEAN_*`` settings, validated. One field per setting; see the module docstring."""

    enabled: bool = True
    extractor: str = "default"
    extractor_options: dict[str, Any] = field(default_factory=dict)
    min_text_chars: int = 200
    keep_html: bool = False
    max_html_bytes: int = 10 * 1024 * 1024
    #: ``None``: :func:`default_workers` (resolved on construction, so the attribute is an int).
    workers: int | None = None
    html_field: str = "html"
    offload: str = "process"  # measured: docs/BENCHMARKS.md
    #: Seconds per page in a worker process; ``0`` (read as ``None``): no limit.
    page_timeout: float | None = 30.0
    #: news spider: URLs read from one feed or sitemap at most; the rest are counted, not followed.
    max_feed_links: int = 50_000
    outline: bool = False  # also return each page's links, feeds, article signals (news spider: on)
    search_engines: dict[str, Any] = field(default_factory=dict)  # harvest spider: HTML result-page engines
    searxng_url: str | None = None  # harvest spider: default SearXNG endpoint
    allow_private_addresses: bool = False  # address guard off: docs/SECURITY.md
    allowed_networks: list[str] = field(default_factory=list)  # networks the address guard lets through
    warc: str | None = None  # WARC file name template; None: no recording (webclean_scrapy.downloadermiddlewares.warc)
    explain_dir: str | None = None  # write `webclean explain` reports of doubtful pages here
    explain_below: float = 0.5  # ... those whose confidence is below this (or whose text is empty)
    redis_url: str | None = None  # set: distributed crawl on scrapy-redis (docs/DISTRIBUTED.md)
    #: Seconds a busy worker's mark lives in Redis: a worker whose shared queue is empty waits
    #: while another one holds a live mark (:mod:`webclean_scrapy.crawlstate.workers`).
    redis_idle_timeout: float = 30.0
    #: LanguageFilterPipeline keeps only these (ISO 639-1, lower-cased here); empty: no filter.
    languages: list[str] = field(default_factory=list)
    near_duplicate_threshold: float = 0.6  # NearDuplicatePipeline: estimated Jaccard of word shingles
    near_duplicate_num_perm: int = 128  # ... MinHash permutations
    near_duplicate_shingle: int = 5  # ... words per shingle
    near_duplicate_key: str = "%(spider)s:webclean:near_duplicates"  # ... Redis key prefix
    #: Formats rendered besides the text ("markdown", "html"): item fields markdown / content_html
    #: (:mod:`webclean_scrapy.engine.render`); validated, "text" dropped.
    formats: tuple[str, ...] = ()
    #: Inline markup kept in those formats (off: the block structure alone): links made
    #: absolute, emphasis and inline code, images (:class:`webclean_scrapy.engine.formats.Markup`).
    markdown_links: bool = False
    markdown_formatting: bool = False
    markdown_images: bool = False
    #: The optional fields items carry (:mod:`webclean_scrapy.engine.fields`: metadata names or
    #: ``"metadata"``, ``detected_language``, ``language_confidence``); the work for the others is
    #: not done. ``None``: all of them. Expanded and checked here, in the fields' order.
    fields: tuple[str, ...] | None = None
    #: How site owners reach whoever runs the crawl (a URL or ``mailto:``), named in the
    #: webclean User-Agent by the add-on (:func:`webclean_scrapy.addon.user_agent`).
    contact: str | None = None
    #: The class of the items a crawl emits (:func:`webclean_scrapy.items.load_item_class`):
    #: ``None`` keeps them as made (``CleanedPage``...); ``"zyte_common_items.Article"``,
    #: ``"zyte_common_items.PageContent"``, ``"dict"`` or a dotted path (or the class itself):
    #: converted by :class:`~webclean_scrapy.pipelines.item_class.ItemClassPipeline`, which
    #: loads the class when the crawl starts (a bad path fails then, naming the setting).
    item_class: str | None = None

    def __post_init__(self) -> None:
        # Normalised here so that WebcleanSettings(...) built in code gets the same rules as settings.
        object.__setattr__(self, "offload", str(self.offload).lower())
        workers = default_workers() if self.workers is None else self.workers
        object.__setattr__(self, "workers", workers)
        try:
            object.__setattr__(self, "formats", tuple(check_formats(self.formats)))
        except ExtractionError as exc:
            raise ValueError(f"WEBCLEAN_FORMATS: {exc}") from None
        if self.fields is not None:
            self._check_fields()
        if self.offload not in OFFLOAD_MODES:
            raise ValueError(f"WEBCLEAN_OFFLOAD must be one of {', '.join(OFFLOAD_MODES)}, got {self.offload!r}")
        if workers < 1:
            raise ValueError(f"WEBCLEAN_WORKERS must be at least 1, got {self.workers}")
        if self.max_html_bytes < 0 or self.min_text_chars < 0:
            raise ValueError("WEBCLEAN_MAX_HTML_BYTES and WEBCLEAN_MIN_TEXT_CHARS must not be negative")
        if self.max_feed_links < 1:
            raise ValueError(f"WEBCLEAN_MAX_FEED_LINKS must be at least 1, got {self.max_feed_links}")
        if self.page_timeout is not None:
            if self.page_timeout == 0:
                object.__setattr__(self, "page_timeout", None)
            elif not self.page_timeout > 0:
                raise ValueError(
                    f"WEBCLEAN_PAGE_TIMEOUT must be a positive number of seconds (0: none), got {self.page_timeout}"
                )
        if not 0 <= self.explain_below <= 1:
            raise ValueError(f"WEBCLEAN_EXPLAIN_BELOW must be between 0 and 1, got {self.explain_below}")
        if self.redis_url is not None and not str(self.redis_url).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"WEBCLEAN_REDIS_URL must be a redis://, rediss:// or unix:// URL, got {self.redis_url!r}")
        if not self.redis_idle_timeout > 0:
            raise ValueError(
                f"WEBCLEAN_REDIS_IDLE_TIMEOUT must be a positive number of seconds, got {self.redis_idle_timeout}"
            )
        object.__setattr__(self, "languages", [str(code).strip().lower() for code in self.languages])
        if not 0 < self.near_duplicate_threshold <= 1:
            raise ValueError(
                f"WEBCLEAN_NEAR_DUPLICATE_THRESHOLD must be in (0, 1], got {self.near_duplicate_threshold}"
            )
        if self.near_duplicate_num_perm < 16 or self.near_duplicate_shingle < 1:
            raise ValueError(
                "WEBCLEAN_NEAR_DUPLICATE_NUM_PERM must be at least 16 and WEBCLEAN_NEAR_DUPLICATE_SHINGLE at least 1"
            )
        for language in self.languages:
            if not (2 <= len(language) <= 3 and language.isalpha() and language.islower()):
                raise ValueError(f"WEBCLEAN_LANGUAGES takes ISO 639-1 codes such as 'en', got {language!r}")
        if self.contact is not None:
            contact = str(self.contact).strip()
            if not contact or any(c.isspace() or c in '()"' for c in contact):
                raise ValueError(
                    "WEBCLEAN_CONTACT must be a URL or a mailto: address, without spaces, quotes "
                    f"or parentheses, got {self.contact!r}"
                )
            object.__setattr__(self, "contact", contact)
        if self.enabled:
            self.check_extractor()

    def _check_fields(self) -> None:
        try:
            wanted = check_fields(self.fields)
        except ExtractionError as exc:
            raise ValueError(f"WEBCLEAN_FIELDS: {exc}") from None
        assert wanted is not None
        formats = [name for name in FORMAT_FIELDS if name in wanted]
        if formats:  # one setting says which formats are rendered
            raise ValueError(f"WEBCLEAN_FIELDS: {', '.join(formats)} are asked for with WEBCLEAN_FORMATS")
        if self.languages and "detected_language" not in wanted:
            # The filter would read the declared language alone and drop pages it could have kept.
            raise ValueError("WEBCLEAN_LANGUAGES filters on detected_language: WEBCLEAN_FIELDS must name it")
        object.__setattr__(self, "fields", tuple(name for name in OPTIONAL_FIELDS if name in wanted))

    @property
    def wanted_fields(self) -> frozenset[str] | None:
        """``WEBCLEAN_FIELDS`` as the extraction takes it, with ``WEBCLEAN_FORMATS``
        (``None``: every field, the complete extraction)."""
        if self.fields is None:
            return None
        return frozenset((*self.fields, *self.formats))

    @property
    def markup(self) -> Markup:
        """``WEBCLEAN_MARKDOWN_LINKS``, ``_FORMATTING`` and ``_IMAGES`` as the renderer takes them."""
        return Markup(self.markdown_links, self.markdown_formatting, self.markdown_images)

    def check_extractor(self) -> None:
        """Build the configured extractor once, so a bad name or option value
        fails the crawl at start-up with the setting's name, not page by page."""
        from webclean_scrapy.engine.extractors import get_extractor  # the whole engine: loaded when a crawl checks it

        try:
            get_extractor(self.extractor, **self.extractor_options)
        except ExtractionError as exc:
            raise ValueError(
                f"WEBCLEAN_EXTRACTOR={self.extractor!r}, WEBCLEAN_EXTRACTOR_OPTIONS={self.extractor_options!r}: {exc}"
            ) from exc

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Self:
        """Read every field's setting; an absent (or ``None``) setting keeps the field's default."""
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for spec in fields(cls):
            name = setting_name(spec.name)
            if settings.get(name) is None:
                continue
            values[spec.name] = _read(settings, name, hints[spec.name])
        return cls(**values)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls.from_settings(crawler.settings)


def _read(settings: BaseSettings, name: str, hint: Any) -> Any:
    """The value of setting *name* as the field type *hint* (``int``, ``dict[str, Any]``, ``str | None``...)."""
    args = typing.get_args(hint)
    optional = type(None) in args and isinstance(hint, types.UnionType)
    if optional:
        if settings.get(name) == "":
            return None
        (hint,) = [arg for arg in args if arg is not type(None)]
    kind = typing.get_origin(hint) or hint
    reader = _READERS.get(kind)
    try:
        if reader is None:  # str (or an Extractor class given directly): as given
            return settings.get(name)
        value = getattr(settings, reader)(name)
        return dict(value) if kind is dict else tuple(value) if kind is tuple else value
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: {exc}") from None


def _default(spec: Field[Any]) -> Any:
    if spec.default is not MISSING:
        return spec.default
    if spec.default_factory is not MISSING:
        return spec.default_factory()
    raise TypeError(f"WebcleanSettings.{spec.name} has no default")


#: Defaults, by setting name, derived from :class:`WebcleanSettings` (never written twice).
#: Also usable as a settings dict (``settings.update(DEFAULTS)``); :class:`webclean_scrapy.Addon`
#: writes a deep copy at add-on priority.
DEFAULTS: dict[str, Any] = {setting_name(spec.name): _default(spec) for spec in fields(WebcleanSettings)}


def default_settings() -> dict[str, Any]:
    """A fresh copy of :data:`DEFAULTS` (its dict values are not shared)."""
    return copy.deepcopy(DEFAULTS)


class WebcleanComponent:
    """Base of the middleware and pipelines: ``from_crawler`` reads the
    settings once and honours ``WEBCLEAN_ENABLED`` (``NotConfigured``, so
    Scrapy leaves a disabled component out), the constructor receives them."""

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        self.crawler = crawler
        self.settings = settings

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        from scrapy.exceptions import NotConfigured

        settings = WebcleanSettings.from_crawler(crawler)
        if not settings.enabled:
            raise NotConfigured("WEBCLEAN_ENABLED is off")
        return cls(crawler, settings)
