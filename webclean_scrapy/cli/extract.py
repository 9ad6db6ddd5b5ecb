"""``webclean extract``: the main text of HTML files and WARC records, as JSON lines, text or Markdown.

A run is a stream of tasks (:class:`Task`: a file, or one HTML record of a
WARC file), extracted in this process or a pool of workers (``-j``), in input
order, with at most a few tasks in flight (:func:`bounded_map`), so a large
WARC file is never held in memory. Each result goes to a :class:`PageWriter`
and is counted in a :class:`~webclean_scrapy.cli.batch.RunSummary`, which
gives the exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from webclean_scrapy.cli.batch import InputListError, RunSummary, check_gzip_name, read_input_list
from webclean_scrapy.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    STDIN,
    UnreadableFileError,
    error,
    open_output,
    parse_options,
    positive_int,
    read_page,
    read_source,
)
from webclean_scrapy.cli.progress import Progress, want_progress
from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extractor, extraction_fields
from webclean_scrapy.engine.fields import FORMAT_FIELDS, check_fields
from webclean_scrapy.engine.formats import NO_MARKUP, Markup
from webclean_scrapy.engine.render import extract_formats
from webclean_scrapy.errors import ExtractionError
from webclean_scrapy.offload.worker import build_extractor, init_worker, worker_state

#: File names picked up when a directory is given to ``webclean extract``
#: (WARC files are recognised by their content, whatever their name).
HTML_SUFFIXES = (".html", ".htm", ".gz", ".warc")

#: Largest decoded body read from a WARC record (``WEBCLEAN_MAX_HTML_BYTES``'s default).
WARC_MAX_BODY = 10 * 1024 * 1024

#: ``--format`` -> (file suffix with ``--output-dir``, formats rendered besides the text).
OUTPUT_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "jsonl": (".json", ()),
    "txt": (".txt", ()),
    "md": (".md", ("markdown",)),
}


def iter_inputs(paths: Sequence[str]) -> Iterator[str]:
    """Files to read: given files as they are, directories walked recursively
    (sorted) for HTML files, ``-`` for standard input. Missing paths are
    yielded too, so they are reported as failures."""
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.lower().endswith(HTML_SUFFIXES):
                        yield os.path.join(folder, name)
        else:
            yield path


@dataclass(frozen=True)
class BatchWorker:
    """What ``extract_record`` works with in a process (:func:`~webclean_scrapy.offload.worker.init_worker`):
    the extractor, the formats rendered besides the text (``--format``),
    their inline markup (``--links``, ``--formatting``, ``--images``) and the
    optional fields computed (``--fields``; ``None``: all)."""

    extractor: Extractor
    formats: tuple[str, ...] = ()
    markup: Markup = NO_MARKUP
    fields: frozenset[str] | None = None

    @classmethod
    def build(
        cls,
        name: str,
        options: dict[str, Any],
        formats: tuple[str, ...] = (),
        markup: Markup = NO_MARKUP,
        fields: frozenset[str] | None = None,
    ) -> BatchWorker:
        return cls(build_extractor(name, options), formats, markup, fields)


def extract_record(
    source: str, data: bytes, url: str | None = None, content_type: str | None = None
) -> tuple[dict[str, Any], int]:
    """One output line for one page's bytes, and the characters of its decoded HTML.

    A page from a WARC file has its *url* (the record's target URI, also in
    the output) and HTTP *content_type* (its charset), and is built exactly
    as the crawl's middleware builds it, so the text is the crawl's text.
    Raises :class:`ExtractionError` for input that is not HTML, or not gzip
    when named ``.gz``.
    """
    worker: BatchWorker = worker_state()
    if url is None:
        check_gzip_name(source, data)
        factory = lambda: Document.from_html(read_page(data))  # noqa: E731
    else:
        factory = lambda: Document.from_html(data, url=url, encoding=content_type)  # noqa: E731
    with built_page(factory) as doc:
        result = extract_formats(worker.extractor, doc, worker.formats, worker.markup, worker.fields)
        chars_in = len(doc.source)
    record: dict[str, Any] = {"source": source}
    if url is not None:
        record["url"] = url
    record["canonical_url"] = result.canonical_url
    record.update(extraction_fields(result, worker.formats, fields=worker.fields))
    return record, chars_in


def _describe(exc: Exception) -> str:
    if isinstance(exc, (ExtractionError, UnreadableFileError)):
        return str(exc)
    return f"extraction failed ({type(exc).__name__}: {exc})"


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of ``webclean extract``: a file (``data`` ``None``: read by the
    worker), a page of a WARC file (``url`` set), a failure found while
    reading (``error``), or the end of a WARC file (``done``, for progress)."""

    source: str
    data: bytes | None = None
    url: str | None = None
    content_type: str | None = None
    error: str = ""
    done: bool = False

    @property
    def label(self) -> str:
        return f"{self.source} {self.url}" if self.url else self.source


def _extract_safely(task: Task) -> tuple[Task, dict[str, Any] | None, str, int]:
    """``(task, record, "", chars_in)`` or ``(task, None, reason, 0)``; never
    raises, so one bad page never prints a traceback."""
    if task.error or task.done:
        return task, None, task.error, 0
    try:
        data = read_source(task.source) if task.data is None else task.data
        record, chars_in = extract_record(task.source, data, task.url, task.content_type)
        return task, record, "", chars_in
    except Exception as exc:
        return task, None, _describe(exc), 0


def warc_tasks(path: str) -> Iterator[Task]:
    """A task per HTML response record of the WARC file *path*; a damaged
    file ends with an error task after its intact records."""
    from webclean_scrapy.warcfiles import iter_html_records

    found = 0
    try:
        for record in iter_html_records(path, limit=WARC_MAX_BODY):
            found += 1
            yield Task(path, record.body, record.url, record.content_type, record.error)
    except ExtractionError as exc:  # malformed, truncated, or no WARC reader installed
        yield Task(path, error=f"{exc} (after {found} HTML record(s))" if found else str(exc))
    else:
        if not found:
            yield Task(path, error="no HTML response records in this WARC file")
    yield Task(path, done=True)


def iter_tasks(files: Iterable[str]) -> Iterator[Task]:
    """Files as tasks, WARC files (recognised by content) expanded to their HTML records."""
    from webclean_scrapy.warcfiles import is_warc

    for source in files:
        if is_warc(source):
            yield from warc_tasks(source)
        else:
            yield Task(source)


def bounded_map(pool: Executor, func: Callable[[Task], Any], tasks: Iterable[Task], window: int) -> Iterator[Any]:
    """``pool.map`` in order, with at most *window* tasks in flight (``Executor.map``
    would read a whole WARC file into memory first)."""
    pending: deque[Future[Any]] = deque()
    for task in tasks:
        pending.append(pool.submit(func, task))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _listed_paths(args: argparse.Namespace) -> list[str]:
    """The positional paths, then those of every ``--input-list`` in order.
    Raises :class:`InputListError` (a usage error)."""
    lists = args.input_list or []
    if lists.count(STDIN) > 1 or (STDIN in lists and STDIN in args.paths):
        raise InputListError("standard input ('-') can be read only once")
    paths = list(args.paths)
    for name in lists:
        paths.extend(read_input_list(name))
    return paths


def _report_summary(summary: RunSummary, warc_pages: bool) -> None:
    """The end-of-run lines on stderr (the last one names the failures)."""
    for line in summary.lines():
        error(line)
    if summary.failed:
        error(f"{summary.failed} of {summary.pages} {'page(s)' if warc_pages else 'file(s)'} failed")


class PageWriter:
    """Where ``webclean extract`` puts each page's record.

    ``jsonl`` writes the record as a JSON line, ``txt`` its text, ``md`` its
    Markdown, to *stream* one after the other (a blank line between two
    pages of text or Markdown) or, with *directory*, to one file per page
    there, named after the source file (``pages/a.html.gz`` -> ``a.md``) or,
    for a WARC record, after its URL; a name already written gets ``-2``,
    ``-3``... so no page overwrites another.
    """

    def __init__(self, output_format: str, stream: IO[str], directory: str | None = None) -> None:
        self.format = output_format
        self.suffix = OUTPUT_FORMATS[output_format][0]
        self.stream = stream
        self.directory = Path(directory) if directory else None
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        self._names: set[str] = set()
        self._written = 0

    def content(self, record: dict[str, Any]) -> str:
        if self.format == "txt":
            return record["text"]
        if self.format == "md":
            return record.get("markdown") or ""
        return json.dumps(record, ensure_ascii=False)

    def name_for(self, record: dict[str, Any]) -> str:
        """A file name of its own for the page of *record*."""
        if record.get("url"):
            stem = re.sub(r"^[a-z][a-z0-9+.-]*://", "", record["url"], flags=re.I)
        else:
            stem = Path(record["source"]).name
            for suffix in (".gz", ".html", ".htm", ".xhtml"):
                stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
        stem = re.sub(r"[^\w.-]+", "_", stem).strip("._")[:150] or "page"
        name, n = stem + self.suffix, 1
        while name in self._names:
            n += 1
            name = f"{stem}-{n}{self.suffix}"
        self._names.add(name)
        return name

    def write(self, record: dict[str, Any]) -> None:
        content = self.content(record)
        if self.directory is not None:
            (self.directory / self.name_for(record)).write_text(content + "\n", encoding="utf-8")
        elif self.format == "jsonl":
            self.stream.write(content + "\n")
        else:
            self.stream.write(("\n" if self._written else "") + content + "\n")
        self._written += 1


def record_fields(names: str | None) -> frozenset[str] | None:
    """``--fields`` (comma-separated) as the extraction takes it; ``None``: every field. The
    formats stay with ``--format``, as ``WEBCLEAN_FIELDS``'s stay with ``WEBCLEAN_FORMATS``."""
    if names is None:
        return None
    wanted = check_fields([name.strip() for name in names.split(",") if name.strip()])
    formats = [name for name in FORMAT_FIELDS if wanted and name in wanted]
    if formats:
        raise ExtractionError(f"--fields: {', '.join(formats)} come with --format md")
    return wanted


def run(args: argparse.Namespace) -> int:
    """Extract every input of *args*; the exit status of :mod:`webclean_scrapy.cli.batch`."""
    formats = OUTPUT_FORMATS[args.format][1]
    markup = Markup(args.links, args.formatting, args.images)
    if markup and not formats:
        error("--links, --formatting and --images shape the Markdown: use them with --format md")
        return EXIT_USAGE
    try:
        options = parse_options(args.option or [])
        fields = record_fields(args.fields)
        init_worker(BatchWorker.build, args.extractor, options, formats, markup, fields)
        paths = _listed_paths(args)
    except (ValueError, ExtractionError) as exc:  # InputListError is a ValueError
        error(str(exc))
        return EXIT_USAGE
    if not paths:
        error("no input: give PATHs or --input-list FILE")
        return EXIT_USAGE
    sources = list(iter_inputs(paths))
    if not sources:
        error("no HTML files found in " + ", ".join(paths))
        return EXIT_FAILED
    if sources.count(STDIN) > 1:
        error("standard input ('-') can be read only once")
        return EXIT_USAGE

    files = [s for s in sources if s != STDIN]
    progress = Progress(len(sources), want_progress(len(sources), args.progress))
    summary = RunSummary()
    try:
        out = open_output(args.output)
    except OSError as exc:
        error(f"cannot write {args.output}: {exc.strerror or exc}")
        return EXIT_USAGE
    try:
        writer = PageWriter(args.format, out, args.output_dir)
    except OSError as exc:
        error(f"cannot write to {args.output_dir}: {exc.strerror or exc}")
        return EXIT_USAGE

    warc_pages = False

    def emit(task: Task, record: dict[str, Any] | None, message: str, chars_in: int) -> bool:
        """Write or report one result; ``False`` when the run must stop."""
        nonlocal warc_pages
        warc_pages = warc_pages or task.url is not None
        if task.done:  # end of a WARC file: its records are in
            progress.advance()
            return True
        if record is None:
            summary.failure()
            progress.message(f"webclean: {'skipped' if args.keep_going else 'failed'} {task.label}: {message}")
        else:
            summary.extracted(record, chars_in)
            writer.write(record)
        if task.url is None:
            progress.advance()
        summary.stopped = record is None and not args.keep_going
        return not summary.stopped

    try:
        going = True
        if STDIN in sources:
            going = emit(*_extract_safely(Task("<stdin>", sys.stdin.buffer.read())))
        tasks = iter_tasks(files)
        if going and args.jobs > 1:
            with ProcessPoolExecutor(
                max_workers=args.jobs,
                initializer=init_worker,
                initargs=(BatchWorker.build, args.extractor, options, formats, markup, fields),
            ) as pool:
                for result in bounded_map(pool, _extract_safely, tasks, window=8 * args.jobs):
                    if not emit(*result):
                        pool.shutdown(cancel_futures=True)
                        break
        elif going:
            for task in tasks:
                if not emit(*_extract_safely(task)):
                    break
        out.flush()
    except BrokenPipeError:  # `webclean extract ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    finally:
        progress.close()
        if out is not sys.stdout:
            out.close()

    _report_summary(summary, warc_pages)
    return EXIT_FAILED if summary.failed else EXIT_OK


class _ParagraphFormatter(argparse.HelpFormatter):
    """Wraps a description or epilog paragraph by paragraph (blank-line separated)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            super(_ParagraphFormatter, self)._fill_text(part, width, indent) for part in text.split("\n\n")
        )


def _add_batch_arguments(extract: argparse.ArgumentParser) -> None:
    """``extract``'s options for batch runs, and what its exit status means."""
    extract.add_argument(
        "--input-list",
        action="append",
        metavar="FILE",
        help="read more PATHs from FILE, one per line (blank lines and lines starting with # "
        "skipped; relative to the current directory; - for stdin); repeatable",
    )
    extract.add_argument(
        "-k", "--keep-going", action="store_true", help="skip inputs that fail and go on (the exit status is still 1)"
    )
    extract.formatter_class = _ParagraphFormatter
    extract.epilog = (
        "A summary ends every run on stderr: pages, empty ones, failed ones, characters in and out, and "
        "the count of each page type.\n\n"
        "Exit status, as make and make -k: 0 when every input was extracted (empty text included); "
        "1 when an input failed (unreadable, not HTML, not gzip though named .gz, a damaged WARC file): "
        "the run stops at the first failure, or with --keep-going skips it, goes on, and still exits 1; "
        "2 for a usage error (bad option, unknown extractor, unreadable input list)."
    )


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``extract`` command and its options, added to *commands*."""
    extract = commands.add_parser(
        "extract",
        help="extract the main text of HTML files or WARC files as JSON lines",
        description="Extract the main text of HTML files (plain or .gz) as JSON lines "
        "{source, canonical_url, then the crawl items' fields: title, text, extractor, language, "
        "detected_language, language_confidence, page_type, truncated, author, date, date_modified, "
        "sitename, description, tags, image}, and of the HTML responses recorded in "
        "WARC files (plain or .warc.gz; needs the [warc] extra) with the record's url after source.",
    )
    extract.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="HTML or WARC file, directory (searched recursively for *.html, *.htm, *.gz, *.warc) or - for stdin",
    )
    extract.add_argument(
        "-e",
        "--extractor",
        default="default",
        help="extractor name (%(default)s; see `webclean eval --help`) or dotted path",
    )
    extract.add_argument("-o", "--output", help="write JSON lines here instead of stdout")
    extract.add_argument(
        "--format",
        choices=sorted(OUTPUT_FORMATS),
        default="jsonl",
        help="jsonl (%(default)s): a JSON record per page; txt: the text; md: the text as Markdown "
        "(headings, lists, tables, code, quotes). Without --output-dir, pages follow each "
        "other on stdout (or -o), text and Markdown pages separated by a blank line",
    )
    extract.add_argument(
        "--fields",
        metavar="NAMES",
        help="compute only these optional fields, comma-separated (title, author, date, ..., metadata, "
        "detected_language, language_confidence): the others are left out of the records and their work "
        "is not done; text, page type and the declared language are always there",
    )
    extract.add_argument(
        "--links",
        action="store_true",
        help="with --format md: keep links as [text](url), the URL made absolute (page URL or <base href>)",
    )
    extract.add_argument(
        "--formatting", action="store_true", help="with --format md: keep *emphasis*, **strong** and `inline code`"
    )
    extract.add_argument(
        "--images", action="store_true", help="with --format md: keep images as ![alt](url), the URL made absolute"
    )
    extract.add_argument(
        "--output-dir",
        metavar="DIR",
        help="write one file per page in DIR (created if needed), named after the source file "
        "or, for WARC records, the URL: NAME.json, NAME.txt or NAME.md",
    )
    extract.add_argument("-j", "--jobs", type=positive_int, default=1, help="worker processes (%(default)s)")
    extract.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="extractor parameter, repeatable (values parsed as JSON when possible)",
    )
    extract.add_argument(
        "--progress", action="store_true", help="show a progress bar even when stderr is not a terminal"
    )
    _add_batch_arguments(extract)
    extract.set_defaults(func=run)
