"""What an extractor returns, and the base class every extractor derives from."""

from __future__ import annotations

import copyreg
import inspect
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from webclean_scrapy.engine.document import PRUNE_TREE_ABOVE, RELEASE_TREE_ABOVE, Document
from webclean_scrapy.engine.fields import LANGUAGE_FIELDS, OPTIONAL_FIELDS
from webclean_scrapy.engine.fields import METADATA_FIELDS as OPTIONAL_METADATA_FIELDS
from webclean_scrapy.engine.html.elements import TREE_READS
from webclean_scrapy.engine.metadata import METADATA_FIELDS, Metadata, metadata_of
from webclean_scrapy.engine.options import OptionError, Rule
from webclean_scrapy.engine.page_type import PAGE_TYPES, page_type_of
from webclean_scrapy.engine.text.language import detect_language
from webclean_scrapy.errors import ExtractionError

if TYPE_CHECKING:
    from webclean_scrapy.engine.trace import Trace


#: The :class:`Extraction` metadata fields that items and ``webclean extract``
#: records carry under the same names (``title`` and ``canonical_url`` have
#: their own places), derived from :data:`~webclean_scrapy.engine.metadata.METADATA_FIELDS`.
#: A page whose visible text (every block, a CJK character counting for two)
#: is shorter than this is near-empty ...
NEAR_EMPTY_CHARS = 100
#: ... and gets no page type when the classifier gives its choice less than
#: this: with no text, only the URL, declared types and markup can say what
#: a page is (a script-drawn forum thread under ``/t/`` still says so), and a
#: bare page's choice is a guess (0.4 to 0.8: without an address, "article", the commonest type).
UNNAMED_BELOW = 0.85

ITEM_METADATA_FIELDS: tuple[str, ...] = tuple(
    name for name in METADATA_FIELDS if name not in ("title", "canonical_url")
)


@dataclass(slots=True)
class Extraction:
    """The main content of one page.

    ``text`` holds paragraphs, headings and list items one per line;
    ``title`` and the metadata fields after ``page_type`` are read from the
    page's structured data (:mod:`webclean_scrapy.engine.metadata`: JSON-LD,
    OpenGraph, ``<meta>``, microdata, ``<time>``, the URL), whichever method
    extracted the text; ``page_type`` is the page's kind.
    """

    text: str
    title: str
    extractor: str
    url: str | None = None
    language: str | None = None
    #: The kind of page (:data:`webclean_scrapy.engine.page_type.PAGE_TYPES`): the
    #: page-type classifier's, except that a page it calls a listing or a
    #: collection which the ``webclean`` extractor reads as an article
    #: (:func:`~webclean_scrapy.engine.extractors.webclean.reads_as_article`) is
    #: reported an ``article`` (:meth:`Extractor.reported_page_type`).
    #: ``None`` for a page with next to no visible text that nothing else
    #: (URL, declared types, markup) names: :data:`NEAR_EMPTY_CHARS`,
    #: :data:`UNNAMED_BELOW`.
    page_type: str | None = None
    #: The classifier's probability for :attr:`page_type`, in [0, 1]; low
    #: when the extractor read a hub as an article; ``None`` with no page type.
    page_type_confidence: float | None = None
    #: ``True`` when ``text`` is known to come from part of the page only:
    #: the markup nests past libxml2's limit beyond repair
    #: (:attr:`Document.truncated <webclean_scrapy.engine.document.Document.truncated>`),
    #: or the body was cut in transfer (a compressed stream that does not
    #: end: :class:`~webclean_scrapy.downloadermiddlewares.compression.CompressedBodyCheckMiddleware`).
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
    #: (:mod:`webclean_scrapy.engine.text.language`).
    detected_language: str | None = None
    #: The model's probability for :attr:`detected_language`, in [0, 1].
    language_confidence: float | None = None
    #: The same content as Markdown / as clean HTML, when asked for
    #: (``extract(..., output="markdown")``, ``WEBCLEAN_FORMATS``;
    #: :mod:`webclean_scrapy.engine.render`), else ``None``.
    markdown: str | None = None
    html: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Worker processes send one per page: the values as one tuple pickle
        # and load in half the time of a dataclass's state.
        if type(self) is Extraction:
            return Extraction, _VALUES(self)
        # A subclass may hold more fields: its dataclass state, as pickle makes it by default.
        return copyreg.__newobj__, (type(self),), self.__getstate__()  # type: ignore[attr-defined]


def _check_metadata_fields() -> None:
    """:class:`Extraction` declares each :class:`~webclean_scrapy.engine.metadata.Metadata`
    field (typed, documented, in its public constructor); the list itself is
    Metadata's, and this check, run at import, keeps the two from drifting:
    same names, types and (but for the required ``title``) defaults."""
    ours = {spec.name: spec for spec in fields(Extraction)}
    for spec in fields(Metadata):
        mine = ours.get(spec.name)
        if (
            mine is None
            or mine.type != spec.type
            or (spec.name != "title" and (mine.default != spec.default or mine.default_factory != spec.default_factory))
        ):
            raise TypeError(f"Extraction.{spec.name} must match Metadata.{spec.name}")


_check_metadata_fields()

#: An extraction's values, in the order of its constructor's arguments.
_VALUES = attrgetter(*(spec.name for spec in fields(Extraction)))
#: What a field not asked for holds (:func:`only_fields`).
_EMPTY_OPTIONAL: dict[str, Any] = {name: "" if name == "title" else None for name in OPTIONAL_FIELDS}


def only_fields(extraction: Extraction, fields: frozenset[str]) -> Extraction:
    """*extraction* with the optional fields (:data:`~webclean_scrapy.engine.fields.OPTIONAL_FIELDS`)
    not in *fields* emptied, in place: what was computed for another caller
    (a report that reads the whole extraction) is never handed on as if asked for."""
    for name, empty in _EMPTY_OPTIONAL.items():
        if name not in fields:
            setattr(extraction, name, [] if name == "tags" else empty)
    return extraction


if OPTIONAL_METADATA_FIELDS != METADATA_FIELDS:  # the settings' list, kept free of lxml, must name the same
    raise TypeError("webclean_scrapy.engine.fields.METADATA_FIELDS must equal the metadata's METADATA_FIELDS")


#: ``WEBCLEAN_FORMATS`` entry -> the item field it fills. The clean HTML is
#: ``content_html``: ``html`` already holds the raw page (``WEBCLEAN_KEEP_HTML``,
#: ``WEBCLEAN_HTML_FIELD``).
FORMAT_FIELDS: dict[str, str] = {"markdown": "markdown", "html": "content_html"}

_EMPTY_FIELDS: dict[str, Any] = {
    "title": "",
    "text": "",
    "extractor": None,
    "language": None,
    "detected_language": None,
    "language_confidence": None,
    "page_type": None,
    "page_type_confidence": None,
    "truncated": None,
    **dict.fromkeys(ITEM_METADATA_FIELDS),
}


def extraction_fields(
    extraction: Extraction | None,
    formats: Iterable[str] = (),
    *,
    html_bytes: int | None = None,
    fields: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The fields an extraction fills, the one mapping from :class:`Extraction`
    to output: :class:`~webclean_scrapy.items.CleanedPage` items, the
    pipeline's items and ``webclean extract`` records.

    In export order: ``title``, ``text``, ``extractor``, the languages,
    ``page_type``, ``truncated``, the metadata (:data:`ITEM_METADATA_FIELDS`);
    then, when *html_bytes* (the raw body's size) is given, ``html_bytes``
    and ``text_chars``; then the fields of *formats* (``WEBCLEAN_FORMATS``,
    :data:`FORMAT_FIELDS`), ``""`` when there is nothing to render.
    *extraction* ``None`` (nothing extracted) gives the empty values.
    *fields* (``WEBCLEAN_FIELDS``, :func:`~webclean_scrapy.engine.fields.check_fields`)
    leaves out the metadata and detected-language fields it does not name:
    they were not computed, and an absent field cannot be read as "the page
    does not say".
    """
    names: Iterable[str] = _EMPTY_FIELDS
    if fields is not None:
        names = [name for name in _EMPTY_FIELDS if name in fields or name not in OPTIONAL_FIELDS]
    if extraction is None:
        values = {name: [] if name == "tags" else _EMPTY_FIELDS[name] for name in names}
    else:
        values = {name: getattr(extraction, name) for name in names}
    if html_bytes is not None:
        values["html_bytes"] = html_bytes
        values["text_chars"] = len(values["text"])
    for name in formats:
        if name in FORMAT_FIELDS:
            values[FORMAT_FIELDS[name]] = (getattr(extraction, name, None) if extraction is not None else None) or ""
    return values


class Extractor:
    """Base class: turns a :class:`Document` into an :class:`Extraction`.

    Subclasses set :attr:`name`, declare their tunable parameters with their
    published defaults in :attr:`defaults`, the values each accepts in
    :attr:`rules` (:mod:`webclean_scrapy.engine.options`), and implement
    :meth:`extract_text`. Options passed to the constructor override the
    defaults; unknown option names and values a rule refuses are an
    :class:`ExtractionError`, so a typo never silently runs the paper's
    defaults and a bad value fails at configuration, not on every page.

    ``extract_text`` may accept a keyword ``trace``: a
    :class:`~webclean_scrapy.engine.trace.Trace` (``None`` on the normal path) in
    which the method records the values its decision is made of, for
    ``webclean explain`` (:mod:`webclean_scrapy.engine.trace`). Every built-in does.
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
                raise ExtractionError(
                    f"extractor {self.name!r}: option {key} {exc}, got {self.options[key]!r}"
                ) from None

    def extract_text(self, doc: Document) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def reported_page_type(self, doc: Document, predicted: str) -> str:
        """The page type the :class:`Extraction` reports, asked after
        :meth:`extract_text`: the classifier's *predicted* one, unless the
        method read the page as another kind (the ``webclean`` extractor's
        hubs that read as articles), which is what a caller sorting pages
        by kind -- the ``news`` spider telling stories from hubs -- wants."""
        return predicted

    @property
    def traceable(self) -> bool:
        """Whether :meth:`extract_text` accepts a ``trace`` (records its decisions)."""
        return "trace" in inspect.signature(self.extract_text).parameters

    def extract(self, doc: Document, trace: Trace | None = None, fields: frozenset[str] | None = None) -> Extraction:
        """The page's :class:`Extraction`; *trace*, if given, is handed to
        :meth:`extract_text` (which must then accept it).

        *fields*: the optional fields wanted (:func:`~webclean_scrapy.engine.fields.check_fields`);
        ``None``, every one. The metadata is not read unless one of its
        fields is wanted, nor the text's language identified unless
        ``detected_language`` or ``language_confidence`` is; a field not
        wanted keeps its empty value (``None``, ``""`` for ``title``, ``[]``
        for ``tags``), so that no caller can take it for what the page says."""
        read_metadata = fields is None or not fields.isdisjoint(METADATA_FIELDS)
        detect = fields is None or not fields.isdisjoint(LANGUAGE_FIELDS)
        # What is read from the tree first: a large page then drops its tree
        # before the method runs (the methods read the walk's columns).
        if len(doc.container_columns) > PRUNE_TREE_ABOVE:
            doc.prune_tree(*TREE_READS, larger_than=RELEASE_TREE_ABOVE)
        try:
            if read_metadata:
                metadata_of(doc)  # read now, while the tree is there; asked again below for the reported type
            page_type, probabilities = page_type_of(doc)
            language = doc.language
        finally:
            doc.release_tree(larger_than=RELEASE_TREE_ABOVE)
        if trace is None:
            text = self.extract_text(doc)
        else:
            trace.method = self.name
            text = self.extract_text(doc, trace=trace)  # type: ignore[call-arg]
        page_type = self.reported_page_type(doc, page_type)
        reported: str | None = page_type
        probability = round(float(probabilities[PAGE_TYPES.index(page_type)]), 4)
        type_confidence: float | None = probability
        if probability < UNNAMED_BELOW and int(doc.block_columns.lengths.sum()) < NEAR_EMPTY_CHARS:
            reported, type_confidence = None, None
        # Its author rule follows the reported type (memoised: no tree).
        meta = metadata_of(doc, reported) if read_metadata else Metadata()
        detected, confidence = detect_language(text) if detect else (None, None)
        # Every Metadata field (tags copied: the Metadata may be cached with the document).
        values: dict[str, Any] = {
            name: list(value) if isinstance(value, list) else value
            for name in METADATA_FIELDS
            for value in (getattr(meta, name),)
        }
        extraction = Extraction(
            text=text,
            extractor=self.name,
            url=doc.url,
            language=language,
            page_type=reported,
            page_type_confidence=type_confidence,
            truncated=doc.truncated,
            detected_language=detected,
            language_confidence=confidence,
            **values,
        )
        return extraction if fields is None else only_fields(extraction, fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"
