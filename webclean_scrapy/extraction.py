"""What an extractor returns, and the base class every extractor derives from."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from .document import Document
from .errors import ExtractionError
from .page_type import page_type_of


@dataclass(slots=True)
class Extraction:
    """The main content of one page.

    ``text`` holds paragraphs, headings and list items one per line;
    ``title`` is extracted separately (og:title, ``<h1>``, ``<title>``);
    ``page_type`` is the page's kind, whichever method extracted the text.
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
        return Extraction(
            text=self.extract_text(doc),
            title=doc.title,
            extractor=self.name,
            url=doc.url,
            language=doc.language,
            page_type=page_type_of(doc)[0],
            truncated=doc.truncated,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"
