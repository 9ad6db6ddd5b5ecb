"""What an extractor returns, and the base class every extractor derives from."""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .document import Document
from .errors import ExtractionError
from .language import detect_language
from .metadata import metadata_of
from .options import OptionError, Rule
from .page_type import page_type_of

if TYPE_CHECKING:
    from .trace import Trace



#: The :class:`Extraction` metadata fields that items and ``webclean extract``
#: records carry under the same names (``title`` and ``canonical_url`` have
#: their own places). Here, not in :mod:`webclean_scrapy.items`, so the CLI
#: reads it without importing Scrapy.
ITEM_METADATA_FIELDS: tuple[str, ...] = (
    "author", "date", "date_modified", "sitename", "description", "tags", "image")

@dataclass(slots=True)
class Extraction:
    """The main content of one page.

    ``text`` holds paragraphs, headings and list items one per line;
    ``title`` and the metadata fields after ``page_type`` are read from the
    page's structured data (:mod:`webclean_scrapy.metadata`: JSON-LD,
    OpenGraph, ``<meta>``, microdata, ``<time>``, the URL), whichever method
    extracted the text; ``page_type`` is the page's kind.
    """

    text: str
    title: str
    extractor: str
    url: str | None = None
    language: str | None = None
    #: The kind of page (:data:`webclean_scrapy.page_type.PAGE_TYPES`).
    page_type: str | None = None
    #: ``True`` when ``text`` is known to come from part of the page only:
    #: the markup nests past libxml2's limit beyond repair
    #: (:attr:`Document.truncated <webclean_scrapy.document.Document.truncated>`),
    #: or the body was cut in transfer (a compressed stream that does not
    #: end: :class:`~webclean_scrapy.compression.CompressedBodyCheckMiddleware`).
    truncated: bool = False
    #: Author name(s), several joined with ``", "``.
    author: str | None = None
    #: Publication date, ISO 8601 (``"2025-09-04"`` or a datetime as the page gave it).
    date: str | None = None
    #: Last modification date, ISO 8601.
    date_modified: str | None = None
    sitename: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    #: The lead image's absolute URL (og:image...).
    image: str | None = None
    #: ``<link rel=canonical>``, else ``og:url``, resolved against the page URL.
    canonical_url: str | None = None
    #: The language of ``text`` as a language-identification model reads it
    #: (ISO 639-1, ``"de"``), next to the declared :attr:`language`; ``None``
    #: for text too short to tell or without the ``[lang]`` extra
    #: (:mod:`webclean_scrapy.language`).
    detected_language: str | None = None
    #: The model's probability for :attr:`detected_language`, in [0, 1].
    language_confidence: float | None = None
    #: The same content as Markdown / as clean HTML, when asked for
    #: (``extract(..., output="markdown")``, ``WEBCLEAN_FORMATS``;
    #: :mod:`webclean_scrapy.render`), else ``None``.
    markdown: str | None = None
    html: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Extractor:
    """Base class: turns a :class:`Document` into an :class:`Extraction`.

    Subclasses set :attr:`name`, declare their tunable parameters with their
    published defaults in :attr:`defaults`, the values each accepts in
    :attr:`rules` (:mod:`webclean_scrapy.options`), and implement
    :meth:`extract_text`. Options passed to the constructor override the
    defaults; unknown option names and values a rule refuses are an
    :class:`ExtractionError`, so a typo never silently runs the paper's
    defaults and a bad value fails at configuration, not on every page.

    ``extract_text`` may accept a keyword ``trace``: a
    :class:`~webclean_scrapy.trace.Trace` (``None`` on the normal path) in
    which the method records the values its decision is made of, for
    ``webclean explain`` (:mod:`webclean_scrapy.trace`). Every built-in does.
    """

    name: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}
    #: Option name -> rule its value must satisfy (options without one are taken as given).
    rules: ClassVar[dict[str, Rule]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - set(self.defaults)
        if unknown:
            raise ExtractionError(
                f"unknown option(s) for extractor {self.name!r}: {', '.join(sorted(unknown))}; "
                f"known: {', '.join(sorted(self.defaults)) or 'none'}"
            )
        self.options: dict[str, Any] = {**self.defaults, **options}
        for key, rule in self.rules.items():
            try:
                self.options[key] = rule(self.options[key])
            except OptionError as exc:
                raise ExtractionError(f"extractor {self.name!r}: option {key} {exc}, "
                                      f"got {self.options[key]!r}") from None

    def extract_text(self, doc: Document) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def traceable(self) -> bool:
        """Whether :meth:`extract_text` accepts a ``trace`` (records its decisions)."""
        return "trace" in inspect.signature(self.extract_text).parameters

    def extract(self, doc: Document, trace: Trace | None = None) -> Extraction:
        """The page's :class:`Extraction`; *trace*, if given, is handed to
        :meth:`extract_text` (which must then accept it)."""
        if trace is None:
            text = self.extract_text(doc)
        else:
            trace.method = self.name
            text = self.extract_text(doc, trace=trace)  # type: ignore[call-arg]
        meta = metadata_of(doc)
        detected, confidence = detect_language(text)
        return Extraction(
            text=text,
            title=meta.title,
            extractor=self.name,
            url=doc.url,
            language=doc.language,
            page_type=page_type_of(doc)[0],
            truncated=doc.truncated,
            author=meta.author,
            date=meta.date,
            date_modified=meta.date_modified,
            sitename=meta.sitename,
            description=meta.description,
            tags=list(meta.tags),
            image=meta.image,
            canonical_url=meta.canonical_url,
            detected_language=detected,
            language_confidence=confidence,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"
