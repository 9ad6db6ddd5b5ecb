"""A datatrove pipeline step: webclean's extraction on datatrove's readers and executors.

::

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from webclean_scrapy.contrib.datatrove import WebcleanExtractor, WebcleanWarcReader

    LocalPipelineExecutor(pipeline=[
        WebcleanWarcReader("crawl/", glob_pattern="*.warc.gz"),  # or datatrove's WarcReader
        WebcleanExtractor(),            # or WebcleanExtractor("density", options={"c1": 0.5})
        JsonlWriter("corpus/"),
    ], tasks=8, logging_dir="logs/").run()

Why a datatrove step and not our own runner: datatrove already shards files
over tasks, resumes finished tasks, and runs the same pipeline on one machine
(``LocalPipelineExecutor``), Slurm (``SlurmPipelineExecutor``) or Ray
(``RayPipelineExecutor``); a corpus run needs nothing more from us than the
extraction itself.

The step works on any reader's HTML documents (datatrove's ``WarcReader``
included). :class:`WebcleanWarcReader` picks and decodes the records of a
WARC file as ``webclean extract`` does, so the texts are the same; datatrove's
reader drops or decodes otherwise some pages (measured in docs/CORPUS.md).

What the step does to each document (the ``[datatrove]`` extra):

- ``text``: the HTML the reader put there becomes the extracted main text,
  exactly what ``webclean extract`` gives for the same page. Documents whose
  text comes out empty are dropped, as datatrove's own extractors do.
- ``metadata``: every field of :class:`~webclean_scrapy.engine.extraction.Extraction`
  but ``text`` (title, page_type, language, truncated, extractor, url, and
  whatever fields the class has: the list is read from the dataclass, not
  written here) is added under its own name; with ``fields=``, only the
  core fields and those named, the only ones computed. A key the reader already set to
  another value keeps it, and ours goes under ``webclean_<name>``: with
  :class:`~datatrove.pipeline.readers.WarcReader` that is ``date``, which stays
  the crawl's ``WARC-Date``. A ``None`` of ours never displaces a value.

Like datatrove's extractors, each page is extracted in a child process with
a per-page *timeout* (a page past it is skipped, stat ``timeout``; a child
killed by the OOM killer is replaced, stat ``broken_process``); pages larger
than *max_html_chars* are skipped before parsing (stat ``too_large``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from webclean_scrapy.errors import install_hint

try:
    from datatrove.data import DocumentsPipeline
    from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox
    from datatrove.pipeline.readers.base import BaseDiskReader
    from datatrove.utils.logging import logger
    from datatrove.utils.typeshelper import StatHints
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"{exc}; webclean_scrapy.contrib.datatrove needs datatrove: " + install_hint("datatrove")
    ) from exc

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extraction, Extractor
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.fields import FORMAT_FIELDS, OPTIONAL_FIELDS, check_fields
from webclean_scrapy.engine.text.encoding import decode_html
from webclean_scrapy.errors import ExtractionError
from webclean_scrapy.offload.worker import build_extractor
from webclean_scrapy.warcfiles import html_record, warcio_html_response

#: Largest page (in characters of decoded HTML) that is parsed; as the CLI's WARC limit.
MAX_HTML_CHARS = 10 * 1024 * 1024

#: Prefix of our fields whose name the reader already used for another value.
CLASH_PREFIX = "webclean_"

#: The page each child process extracts once before its first document (datatrove's warm-up).
_WARMUP = ("<html><body><p>Warm-up page.</p></body></html>", None)


def extraction_metadata(extraction: Extraction, fields: frozenset[str] | None = None) -> dict[str, Any]:
    """Every field of *extraction* but ``text``, by the dataclass's own field list; with *fields*
    (:func:`~webclean_scrapy.engine.fields.check_fields`), the optional ones it does not name are left
    out: they were not computed, and an absent field cannot be read as "the page does not say"."""
    return {
        f.name: getattr(extraction, f.name)
        for f in dataclasses.fields(extraction)
        if f.name != "text" and (fields is None or f.name in fields or f.name not in OPTIONAL_FIELDS)
    }


def merge_metadata(metadata: dict[str, Any], fields: dict[str, Any], prefix: str = CLASH_PREFIX) -> None:
    """Add *fields* to a document's *metadata* in place, never overwriting what
    the reader put there (see the module's docstring)."""
    for key, value in fields.items():
        if key not in metadata or metadata[key] == value:
            metadata[key] = value
        elif value is not None:
            metadata[prefix + key] = value


class WebcleanExtractor(BaseExtractor):
    """datatrove step: HTML documents to their main text, with webclean's fields in ``metadata``.

    *extractor* and *options* are those of ``webclean extract -e NAME --option
    KEY=VALUE``, or an :class:`~webclean_scrapy.engine.extraction.Extractor` subclass (checked here, so a typo fails when the pipeline is built, not
    on every document). *timeout* bounds each page, in seconds, including the
    start of a new child process. *fields* (as ``extract(fields=...)``: ``"title"``,
    ``["title", "date"]``, ``"metadata"``) computes only those optional fields besides the core
    ones, and only they go to ``metadata``; ``None``, the default, computes every field.
    """

    name = "🧹 webclean"
    #: Set by datatrove's BaseExtractor (untyped).
    _warned_error: bool

    def __init__(
        self,
        extractor: str | type[Extractor] = "default",
        options: dict[str, Any] | None = None,
        *,
        timeout: float = 5.0,
        max_html_chars: int = MAX_HTML_CHARS,
        fields: str | Iterable[str] | None = None,
    ) -> None:
        super().__init__(timeout)
        self.extractor = extractor
        self.options = dict(options or {})
        self.max_html_chars = max_html_chars
        self.fields = check_fields(fields)  # raises ExtractionError now on an unknown name
        formats = [name for name in FORMAT_FIELDS if self.fields and name in self.fields]
        if formats:
            raise ExtractionError(f"fields: {', '.join(formats)} are not written by the datatrove step (text only)")
        get_extractor(extractor, **self.options)  # raises ExtractionError now on a bad name or option
        # Built in run(), in the task's process: the step itself stays small to pickle for the executors.
        self._extractor: Extractor | None = None

    def _extraction(self, html: str, url: str | None) -> Extraction:
        if self._extractor is None:
            self._extractor = get_extractor(self.extractor, **self.options)
        with built_page(lambda: Document.from_html(html, url=url)) as doc:
            return self._extractor.extract(doc, fields=self.fields)

    def extract(self, text: str) -> str:
        """The main text of the HTML *text* (datatrove's extractor interface; no URL)."""
        return self._extraction(text, None).text

    def _extract_in_child(self, html: str, url: str | None) -> tuple[str, dict[str, Any]] | Exception:
        """Runs in the sandbox's child: an exception is *returned*, so the parent
        counts it and the child lives on (raised, it would end the child)."""
        try:
            extraction = self._extraction(html, url)
        except Exception as exc:  # noqa: BLE001 - one bad page must not end the task
            return exc if isinstance(exc, ExtractionError) else ExtractionError(f"{type(exc).__name__}: {exc}")
        return extraction.text, extraction_metadata(extraction, self.fields)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        """datatrove's extractor loop (same stats names), with the URL passed in
        and our fields passed back; datatrove's own passes only the text."""
        if self._extractor is None:  # warmed up before the child forks: it inherits the loaded models
            self._extractor = build_extractor(self.extractor, self.options)
        with ExtractorSandbox(timeout=self.timeout, warmup_text=_WARMUP) as sandbox:
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    if not isinstance(doc.text, str):
                        self.stat_update("clean_error")
                        continue
                    if len(doc.text) > self.max_html_chars:
                        self.stat_update("too_large")
                        continue
                    try:
                        text, fields = sandbox.process_document(
                            (doc.text, doc.metadata.get("url")), self._extract_in_child
                        )
                        self.stat_update("extracted")
                    except TimeoutError:
                        self.stat_update("timeout")
                        logger.warning(f"⏰ webclean: timeout extracting {doc.id}; skipped")
                        continue
                    except EOFError:
                        self.stat_update("broken_process")
                        logger.warning("webclean: the extraction process died; a new one takes the next document")
                        continue
                    except Exception as exc:  # noqa: BLE001 - as datatrove's extractors
                        self.stat_update("clean_error")
                        if not self._warned_error:
                            logger.warning(
                                f'❌ webclean: "{exc}" extracting {doc.id}; skipped. '
                                "This message appears once per task."
                            )
                            self._warned_error = True
                        continue
                doc.text = text
                merge_metadata(doc.metadata, fields)
                if fields.get("truncated"):
                    self.stat_update("truncated")
                if text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped)


class WebcleanWarcReader(BaseDiskReader):
    """datatrove reader: the HTML responses of WARC files, chosen and decoded as ``webclean extract`` does.

    datatrove's :class:`~datatrove.pipeline.readers.WarcReader` keeps every
    ``response`` record that libmagic calls HTML, whatever its status, and
    decodes bytes that are not UTF-8 with cchardet's guess, ignoring the
    HTTP and ``<meta>`` charsets; a page that is UTF-8 but for a stray byte
    is dropped: pages lost or decoded otherwise (measured in docs/CORPUS.md,
    ``benchmarks/datatrove_step.py``). This reader keeps the crawl's choice: 2xx
    responses whose Content-Type mentions ``html``, Content-Encoding undone
    (at most *limit* bytes), the charset of the Content-Type, then ``<meta>``,
    then detection, invalid bytes replaced; so the step's text is
    ``webclean extract``'s. Files are opened through datatrove's data folder
    (local, S3, the Hub...), read with warcio. Document ``id`` is the
    ``WARC-Record-ID``; ``metadata`` has ``url``, ``date`` (``WARC-Date``) and
    ``content_type``. Stats: ``not_html`` (binary bodies), ``undecodable``
    (bad Content-Encoding, over *limit*).

    The other arguments are those of datatrove's readers (``glob_pattern``,
    ``paths_file``, ``limit``, ``skip``, ``default_metadata``...).
    """

    name = "🕷 Warc (webclean)"
    _requires_dependencies = ["warcio"]

    def __init__(
        self,
        data_folder: Any,
        *args: Any,
        compression: str | None = "infer",
        max_body_bytes: int = MAX_HTML_CHARS,
        **kwargs: Any,
    ) -> None:
        super().__init__(data_folder, *args, **kwargs)
        self.compression = compression
        self.max_body_bytes = max_body_bytes

    def read_file(self, filepath: str) -> DocumentsPipeline:
        from warcio.archiveiterator import ArchiveIterator

        with self.data_folder.open(filepath, "rb", compression=self.compression) as stream:
            for index, record in enumerate(ArchiveIterator(stream)):
                with self.track_time():
                    data = self._record_data(record)
                    if data is None:
                        continue
                    document = self.get_document_from_dict(data, filepath, index)
                if document:
                    yield document

    def _record_data(self, record: Any) -> dict[str, Any] | None:
        response = warcio_html_response(record)
        if response is None:
            return None
        url, content_type = response
        # warcio undoes chunking and Content-Encoding as it streams; limit + 1 bounds a bomb.
        page = html_record(
            url, content_type, record.content_stream().read(self.max_body_bytes + 1), None, 0, self.max_body_bytes
        )
        if page.error:
            self.stat_update("undecodable")
            return None
        try:
            _, text = decode_html(page.body, content_type, url)
        except ExtractionError:  # binary under an HTML Content-Type
            self.stat_update("not_html")
            return None
        return {
            "text": text,
            "id": record.rec_headers.get_header("WARC-Record-ID"),
            "url": url,
            "date": record.rec_headers.get_header("WARC-Date"),
            "content_type": content_type,
        }
