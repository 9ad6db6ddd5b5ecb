"""What an extractor returns, and the base class every extractor derives from."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .document import Document
from .errors import ExtractionError
from .metadata import metadata_of
from .page_type import page_type_of


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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Extractor:
    """Base class: turns a :class:`Document` into an :class:`Extraction`.

    Subclasses set :attr:`name`, declare their tunable parameters with their
    published defaults in :attr:`defaults`, and implement :meth:`extract_text`.
    Options passed to the constructor override the defaults; unknown option
    names are an error, so a typo never silently runs the paper's defaults.
    """

    name: ClassVar[str] = ""
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - set(self.defaults)
        if unknown:
            raise ExtractionError(
                f"unknown option(s) for extractor {self.name!r}: {', '.join(sorted(unknown))}; "
                f"known: {', '.join(sorted(self.defaults)) or 'none'}"
            )
        self.options: dict[str, Any] = {**self.defaults, **options}

    def extract_text(self, doc: Document) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def extract(self, doc: Document) -> Extraction:
        meta = metadata_of(doc)
        return Extraction(
            text=self.extract_text(doc),
            title=meta.title,
            extractor=self.name,
            url=doc.url,
            language=doc.language,
            page_type=page_type_of(doc)[0],
            author=meta.author,
            date=meta.date,
            date_modified=meta.date_modified,
            sitename=meta.sitename,
            description=meta.description,
            tags=list(meta.tags),
            image=meta.image,
            canonical_url=meta.canonical_url,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"
