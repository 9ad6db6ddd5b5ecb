"""What an extractor returns, and the base class every extractor derives from."""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .options import OptionError, Rule

from .document import Document
from .errors import ExtractionError
from .page_type import page_type_of

if TYPE_CHECKING:
    from .trace import Trace


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
        return Extraction(
            text=text,
            title=doc.title,
            extractor=self.name,
            url=doc.url,
            language=doc.language,
            page_type=page_type_of(doc)[0],
            truncated=doc.truncated,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"
