"""One page's extraction as the workers run it: from a response or raw markup to a :class:`PageResult`."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import only_fields
from webclean_scrapy.engine.formats import NO_MARKUP, Markup
from webclean_scrapy.engine.html.screen import screen_markup
from webclean_scrapy.engine.render import add_formats, extract_formats
from webclean_scrapy.engine.text.encoding import decoded_alike, double_encoded
from webclean_scrapy.offload.outline import PageOutline, page_outline
from webclean_scrapy.offload.worker import worker_state

if TYPE_CHECKING:
    from scrapy.http import TextResponse

    from webclean_scrapy.engine.extraction import Extraction, Extractor
    from webclean_scrapy.explain.crawl import ExplainPolicy

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PageResult:
    """What a worker sends back: the extraction, the canonical URL, the time spent,
    the page's outline (when asked for), the screen's reasons (if any), and the
    path of the page's ``WEBCLEAN_EXPLAIN_DIR`` report if one was written
    (``report_failed`` if writing it failed)."""

    extraction: Extraction
    canonical_url: str | None
    seconds: float
    outline: PageOutline | None = None
    screened: tuple[str, ...] = ()
    report: str | None = None
    report_failed: bool = False

    def __reduce__(self) -> tuple[type[PageResult], tuple[Any, ...]]:
        # Every page's result crosses the process boundary: its values as one
        # tuple pickle in half the time of a dataclass's state (benchmarks/crawl.py --offload-cost).
        return PageResult, (
            self.extraction,
            self.canonical_url,
            self.seconds,
            self.outline,
            self.screened,
            self.report,
            self.report_failed,
        )


def _run(
    extractor: Extractor,
    doc_factory: Callable[[], Document],
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
    markup: Markup = NO_MARKUP,
    fields: frozenset[str] | None = None,
) -> PageResult:
    start = time.perf_counter()
    report, failed = None, False
    with built_page(doc_factory) as doc:
        if explain is None:
            extraction = extract_formats(extractor, doc, formats, markup, fields)
        else:  # the report reads the whole extraction; the item gets the fields asked for
            extraction, trace = explain.extract(extractor, doc)
            add_formats(extraction, doc, formats, trace, markup)
        canonical = doc.canonical_url
        page = page_outline(doc, extraction) if outline else None
        screened = doc.screened
        seconds = time.perf_counter() - start
        if explain is not None:
            try:
                report = explain.report(extractor, doc, extraction, trace)
            except Exception as exc:  # a report must never cost the page
                logger.warning(
                    "webclean: could not write the explain report of %s: %s",
                    doc.url,
                    exc,
                    exc_info=not isinstance(exc, OSError),
                )
                failed = True
    if explain is not None and fields is not None:
        extraction = only_fields(extraction, fields)
    return PageResult(extraction, canonical, seconds, page, screened, report, failed)


def explicit_encoding(response: TextResponse) -> str | None:
    """The charset *response* was made with (its ``encoding`` argument: set by
    :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware`, or by a middleware
    of the project's with ``response.replace(encoding=...)``), if any.
    Scrapy keeps it in ``_encoding`` and has no public accessor:
    ``response.encoding`` would run the detection when there is none."""
    return getattr(response, "_encoding", None)


def response_content_type(response: TextResponse) -> str | None:
    """The Content-Type the extraction decodes *response*'s bytes under: the
    HTTP header's, its charset replaced by the one the response was made with
    (:func:`explicit_encoding`), which Scrapy reads before any rule too. The
    :mod:`~webclean_scrapy.engine.text.encoding` rules still apply to it (UTF-8 bytes
    stay UTF-8), and a page whose charset the middleware detected is not
    detected a second time."""
    content_type = response.headers.get(b"Content-Type")
    header = content_type.decode("latin-1") if content_type else None
    explicit = explicit_encoding(response)
    if not explicit:
        return header
    media_type = header.split(";", 1)[0].strip() if header else ""
    return f"{media_type or 'text/html'}; charset={explicit}"


def extract_response(
    extractor: Extractor,
    response: TextResponse,
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
    markup: Markup = NO_MARKUP,
    fields: frozenset[str] | None = None,
) -> PageResult:
    """Extract from a response, reusing Scrapy's parsed tree (parsed here if not yet).

    The bytes are decoded and parsed afresh instead when Scrapy chose another
    charset than :func:`~webclean_scrapy.engine.text.encoding.decode_html` would
    (``<meta charset="utf-16">``, a BOM-less UTF-16 body, undeclared legacy
    bytes; :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware`, when enabled,
    has already given such a response the same charset), so thread and
    process offload give the same text for the same bytes; when the body
    holds UTF-8 decoded twice, which
    :meth:`Document.from_html <webclean_scrapy.engine.document.Document.from_html>`
    reads back (:func:`~webclean_scrapy.engine.text.encoding.undo_double_encoding`); and
    when the screen would change the page
    (:mod:`webclean_scrapy.engine.html.screen`): its raw markup must never reach libxml2.
    """
    header = response_content_type(response)
    if (
        screen_markup(response.body)[1]
        or not decoded_alike(response.body, header, response.encoding, response.url)
        or double_encoded(response.body)
    ):
        return extract_markup(extractor, response.body, response.url, header, outline, explain, formats, markup, fields)
    return _run(
        extractor,
        lambda: Document(response.selector.root, url=response.url, source=response.text),
        outline,
        explain,
        formats,
        markup,
        fields,
    )


def extract_markup(
    extractor: Extractor | None,
    html: bytes | str,
    url: str | None,
    content_type: str | None,
    outline: bool = False,
    explain: ExplainPolicy | None = None,
    formats: tuple[str, ...] = (),
    markup: Markup = NO_MARKUP,
    fields: frozenset[str] | None = None,
) -> PageResult:
    """Extract from raw bytes (decoded with *content_type*'s charset) or a str;
    *formats* (``WEBCLEAN_FORMATS``) are rendered here too, in the worker,
    with their inline *markup* (``WEBCLEAN_MARKDOWN_LINKS`` and the others);
    *fields* (``WEBCLEAN_FIELDS``) are the optional fields computed (``None``: all).

    *extractor* ``None`` means this worker process's extractor
    (:func:`~webclean_scrapy.offload.worker.worker_state`). Raises
    :class:`~webclean_scrapy.errors.NotHTMLError` for binary bytes.
    """
    method = extractor if extractor is not None else worker_state()
    return _run(
        method,
        lambda: Document.from_html(html, url=url, encoding=content_type),
        outline,
        explain,
        formats,
        markup,
        fields,
    )
