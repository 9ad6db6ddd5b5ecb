"""The ``webclean`` command: extract main text from files, evaluate extractors, run the demo.

::

    webclean extract page.html pages/ - -e webclean -o out.jsonl
    webclean extract crawl.warc.gz -o out.jsonl     # re-extract a recorded crawl
    webclean extract --input-list pages.txt --keep-going -j 2 -o out.jsonl
    webclean extract pages/ --format md --output-dir out/   # one Markdown file per page
    webclean eval ../shared/data/readability -e baseline --compare trafilatura --json scores.json
    webclean dedup corpus.jsonl -o deduplicated.jsonl
    webclean explain page.html -e webclean --url https://example.org/a -o report.html
    webclean plot page.html -e ttr -o ttr.png
    webclean demo [demo arguments...]

Bad input never ends in a traceback: each unreadable or binary file is named
on stderr. ``extract`` stops at the first one (``--keep-going``: skips it and
goes on), ends with a summary on stderr, and exits 1 when any input failed
(:mod:`webclean_scrapy.cli.batch`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from webclean_scrapy._version import __version__
from webclean_scrapy.cli.batch import InputListError, RunSummary, check_gzip_name, read_input_list
from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extractor, extraction_fields
from webclean_scrapy.engine.extractors import available_extractors, get_extractor
from webclean_scrapy.engine.render import extract_formats
from webclean_scrapy.errors import ExtractionError, install_hint
from webclean_scrapy.offload.worker import build_extractor, init_worker, worker_state

#: File names picked up when a directory is given to ``webclean extract``
#: (WARC files are recognised by their content, whatever their name).
HTML_SUFFIXES = (".html", ".htm", ".gz", ".warc")

#: Largest decoded body read from a WARC record (``WEBCLEAN_MAX_HTML_BYTES``'s default).
WARC_MAX_BODY = 10 * 1024 * 1024

#: Show a progress bar (on a terminal) from this many files on.
PROGRESS_THRESHOLD = 20

STDIN = "-"

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Progress:
    """A one-line progress bar on stderr; a no-op when disabled."""

    def __init__(self, total: int, enabled: bool, stream: IO[str] | None = None, width: int = 30) -> None:
        self.total = total
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self._drawn = 0.0
        self._line = ""

    def advance(self, step: int = 1) -> None:
        self.done += step
        if not self.enabled:
            return
        now = time.monotonic()
        if self.done < self.total and now - self._drawn < 0.1:
            return
        self._drawn = now
        filled = self.width * self.done // self.total
        self._line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {100 * self.done // self.total}%"
        )
        self.stream.write("\r" + self._line)
        self.stream.flush()

    def message(self, text: str) -> None:
        """Print a line on stderr above the bar."""
        if self._line:
            self.stream.write("\r" + " " * len(self._line) + "\r")
        print(text, file=self.stream)
        if self._line:
            self.stream.write(self._line)
        self.stream.flush()

    def close(self) -> None:
        if self._line:
            self.stream.write("\n")
            self.stream.flush()
            self._line = ""


def _error(message: str) -> None:
    print(f"webclean: {message}", file=sys.stderr)


def _want_progress(total: int, forced: bool) -> bool:
    return forced or (total > PROGRESS_THRESHOLD and sys.stderr.isatty())


def _parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are JSON when they parse as JSON (numbers,
    booleans, lists), plain strings otherwise."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options


# -- extract -------------------------------------------------------------
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


def read_page(data: bytes) -> bytes:
    """Gunzip when the bytes are gzip (whatever the file is called)."""
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ExtractionError(f"not a valid gzip file ({exc})") from exc
    return data


@dataclass(frozen=True)
class BatchWorker:
    """What ``extract_record`` works with in a process (:func:`~webclean_scrapy.offload.worker.init_worker`):
    the extractor and the formats rendered besides the text (``--format``)."""

    extractor: Extractor
    formats: tuple[str, ...] = ()

    @classmethod
    def build(cls, name: str, options: dict[str, Any], formats: tuple[str, ...] = ()) -> BatchWorker:
        return cls(build_extractor(name, options), formats)


class UnreadableFileError(OSError):
    """An input file could not be read; the message is the short reason."""


def read_source(source: str) -> bytes:
    """The bytes of one input file; :class:`UnreadableFileError` otherwise."""
    try:
        return Path(source).read_bytes()
    except IsADirectoryError:
        raise UnreadableFileError("is a directory") from None
    except FileNotFoundError:
        raise UnreadableFileError("no such file") from None
    except OSError as exc:
        raise UnreadableFileError(exc.strerror or str(exc)) from None


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
        result = extract_formats(worker.extractor, doc, worker.formats)
        chars_in = len(doc.source)
    record: dict[str, Any] = {"source": source}
    if url is not None:
        record["url"] = url
    record["canonical_url"] = result.canonical_url
    record.update(extraction_fields(result, worker.formats))
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


def _open_output(path: str | None) -> IO[str]:
    if path is None:
        stream = sys.stdout
        if (getattr(stream, "encoding", "utf-8") or "").lower().replace("-", "") != "utf8" and hasattr(
            stream, "reconfigure"
        ):
            stream.reconfigure(encoding="utf-8")
        return stream
    return open(path, "w", encoding="utf-8")


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
        _error(line)
    if summary.failed:
        _error(f"{summary.failed} of {summary.pages} {'page(s)' if warc_pages else 'file(s)'} failed")


#: ``--format`` -> (file suffix with ``--output-dir``, formats rendered besides the text).
OUTPUT_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "jsonl": (".json", ()),
    "txt": (".txt", ()),
    "md": (".md", ("markdown",)),
}


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


def cmd_extract(args: argparse.Namespace) -> int:
    formats = OUTPUT_FORMATS[args.format][1]
    try:
        options = _parse_options(args.option or [])
        init_worker(BatchWorker.build, args.extractor, options, formats)
        paths = _listed_paths(args)
    except (ValueError, ExtractionError) as exc:  # InputListError is a ValueError
        _error(str(exc))
        return EXIT_USAGE
    if not paths:
        _error("no input: give PATHs or --input-list FILE")
        return EXIT_USAGE
    sources = list(iter_inputs(paths))
    if not sources:
        _error("no HTML files found in " + ", ".join(paths))
        return EXIT_FAILED
    if sources.count(STDIN) > 1:
        _error("standard input ('-') can be read only once")
        return EXIT_USAGE

    files = [s for s in sources if s != STDIN]
    progress = Progress(len(sources), _want_progress(len(sources), args.progress))
    summary = RunSummary()
    try:
        out = _open_output(args.output)
    except OSError as exc:
        _error(f"cannot write {args.output}: {exc.strerror or exc}")
        return EXIT_USAGE
    try:
        writer = PageWriter(args.format, out, args.output_dir)
    except OSError as exc:
        _error(f"cannot write to {args.output_dir}: {exc.strerror or exc}")
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
                initargs=(BatchWorker.build, args.extractor, options, formats),
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


# -- eval ----------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    from webclean_scrapy.evaluation import (  # lazy: numpy and the peers are not needed by `extract`
        Contestants,
        DatasetError,
        PeerUnavailableError,
        evaluate_dataset,
        format_report,
        intervals_as_json,
        load_dataset,
        load_peer,
    )

    ours = tuple(dict.fromkeys(args.extractors or available_extractors()))
    peers = tuple(dict.fromkeys(args.compare or ()))
    try:
        for name in ours:
            get_extractor(name)
        for name in peers:
            load_peer(name)
    except (ExtractionError, PeerUnavailableError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    contestants = Contestants(ours=ours, peers=peers)

    results: dict[str, Any] = {}
    by_language: dict[str, Any] = {}
    by_type: dict[str, Any] = {}
    intervals: dict[str, Any] = {}
    status = EXIT_OK
    for directory in args.datasets:
        progress: Progress | None = None
        try:
            pages = load_dataset(directory, limit=args.limit)
            progress = Progress(len(pages), _want_progress(len(pages), args.progress))
            report = evaluate_dataset(
                directory,
                contestants,
                pages=pages,
                jobs=args.jobs,
                by_language=args.by_language,
                by_type=args.by_type,
                intervals=args.intervals,
                on_page=progress.advance,
            )
        except DatasetError as exc:
            _error(str(exc))
            status = EXIT_FAILED
            continue
        finally:
            if progress is not None:
                progress.close()
        name = report.name if report.name not in results else str(directory)
        results[name] = report.summary
        if args.by_language:
            by_language[name] = report.by_language
        if args.by_type:
            by_type[name] = report.by_type
        if report.intervals is not None:
            intervals[name] = intervals_as_json(report.intervals)
        print(format_report(report), end="\n\n", flush=True)

    if args.json and results:
        document: dict[str, Any] = dict(results)
        if args.by_language:
            document["by_language"] = by_language
        if args.by_type:
            document["by_type"] = by_type
        if args.intervals:
            document["intervals"] = intervals
        try:
            Path(args.json).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            _error(f"cannot write {args.json}: {exc.strerror or exc}")
            return EXIT_FAILED
    return status if results else EXIT_FAILED


# -- dedup ---------------------------------------------------------------
#: ``webclean dedup --threshold``'s default, ``WEBCLEAN_NEAR_DUPLICATE_THRESHOLD``'s (measured: docs/BENCHMARKS.md).
DEDUP_DEFAULT_THRESHOLD = 0.6
#: Fields naming a record in ``webclean dedup`` (the first present one).
DEDUP_KEY_FIELDS = ("url", "canonical_url", "source")


def _dedup_records(path: str) -> list[tuple[str, str, str]]:
    """``(key, text, line)`` per JSON line of *path* (``-``: stdin); ``ValueError``
    naming the line for anything that is not a JSON object."""
    stream = sys.stdin if path == STDIN else open(path, encoding="utf-8")
    records: list[tuple[str, str, str]] = []
    try:
        for number, line in enumerate(stream, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{number}: not a JSON object")
            key = next((str(record[f]) for f in DEDUP_KEY_FIELDS if record.get(f)), "")
            text = record.get("text")
            records.append((key, text if isinstance(text, str) else "", line))
    finally:
        if stream is not sys.stdin:
            stream.close()
    return records


def cmd_dedup(args: argparse.Namespace) -> int:
    """Drop the near-duplicates of a JSON lines corpus, deterministically.

    The rule: records are considered longest text first (ties: smaller key,
    then smaller line), each kept unless its text is a near-copy of one kept
    before; the kept records are written sorted by key, then line. So the
    output depends on the set of input lines only, not on their order.
    """
    from webclean_scrapy.dedup import DedupUnavailableError, NearDuplicateIndex

    try:
        index = NearDuplicateIndex(threshold=args.threshold, num_perm=args.num_perm, shingle=args.shingle)
    except (ValueError, DedupUnavailableError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    try:
        records = _dedup_records(args.input)
    except UnicodeDecodeError as exc:
        _error(f"{args.input}: not UTF-8 ({exc.reason})")
        return EXIT_FAILED
    except OSError as exc:
        _error(f"cannot read {args.input}: {exc.strerror or exc}")
        return EXIT_FAILED
    except ValueError as exc:
        _error(str(exc))
        return EXIT_FAILED

    kept: list[tuple[str, str]] = []
    dropped: list[str] = []
    for number, (key, text, line) in enumerate(sorted(records, key=lambda r: (-len(r[1]), r[0], r[2]))):
        match = index.check((key, number), text)
        if match is None:
            kept.append((key, line))
        else:
            of_key = match.of[0] if isinstance(match.of, tuple) else match.of
            dropped.append(
                json.dumps({"key": key, "near_duplicate_of": of_key}, ensure_ascii=False) if args.dropped else ""
            )
    try:
        out = _open_output(args.output)
        try:
            for _, line in sorted(kept):
                out.write(line + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
        if args.dropped:
            Path(args.dropped).write_text("".join(line + "\n" for line in sorted(dropped)), encoding="utf-8")
    except OSError as exc:
        _error(f"cannot write: {exc.strerror or exc}")
        return EXIT_FAILED
    print(
        f"webclean dedup: {len(records)} records, kept {len(kept)}, dropped {len(dropped)} near-duplicates "
        f"(threshold {args.threshold})",
        file=sys.stderr,
    )
    return EXIT_OK


# -- explain / plot ---------------------------------------------------------
def _explained(args: argparse.Namespace) -> Any:
    """The :class:`~webclean_scrapy.explain.Explanation` of ``args.page``,
    or an exit status after printing why not."""
    from webclean_scrapy.explain import explain

    try:
        options = _parse_options(args.option or [])
        get_extractor(args.extractor, **options)
    except (ValueError, ExtractionError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    try:
        data = sys.stdin.buffer.read() if args.page == STDIN else read_source(args.page)
        check_gzip_name(args.page, data)
        return explain(read_page(data), url=args.url, extractor=args.extractor, **options)
    except (ExtractionError, UnreadableFileError) as exc:
        _error(f"{args.page}: {exc}")
        return EXIT_FAILED


def cmd_explain(args: argparse.Namespace) -> int:
    report = _explained(args)
    if isinstance(report, int):
        return report
    try:
        Path(args.output).write_text(report.html(), encoding="utf-8")
    except OSError as exc:
        _error(f"cannot write {args.output}: {exc.strerror or exc}")
        return EXIT_FAILED
    kept = sum(unit.kept for unit in report.units)
    print(
        f"{args.output}: {report.extractor}, {report.page_type_label} page, kept {kept} of {len(report.units)} "
        f"{report.trace.unit}s",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from webclean_scrapy.explain.plots import PlotUnavailableError, figure

    report = _explained(args)
    if isinstance(report, int):
        return report
    try:
        figure(report.trace).savefig(
            args.output, dpi=args.dpi, metadata={"Software": None} if args.output.lower().endswith(".png") else None
        )
    except PlotUnavailableError as exc:
        _error(str(exc))
        return EXIT_FAILED
    except (OSError, ValueError) as exc:
        _error(f"cannot write {args.output}: {getattr(exc, 'strerror', None) or exc}")
        return EXIT_FAILED
    return EXIT_OK


# -- demo ----------------------------------------------------------------
def cmd_demo(argv: Sequence[str]) -> int:
    """Hand every remaining argument to ``webclean_scrapy.demo.main``."""
    try:
        from webclean_scrapy.demo import main as demo_main
    except ImportError as exc:
        if getattr(exc, "name", None) == "webclean_scrapy.demo":
            _error("the demo is not available in this installation")
        else:
            _error(f"the demo cannot start: {exc}")
        return EXIT_FAILED
    return int(demo_main(list(argv)) or 0)


# -- parser --------------------------------------------------------------
def _positive_int(value: str) -> int:
    """argparse type: its message names the option (``argument -j/--jobs: expected
    a positive integer, got 'abc'``), not this function."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


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


def build_parser() -> argparse.ArgumentParser:
    from webclean_scrapy.evaluation.peers import PEERS

    parser = argparse.ArgumentParser(prog="webclean", description="Keep only the main text of web pages.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
        "--output-dir",
        metavar="DIR",
        help="write one file per page in DIR (created if needed), named after the source file "
        "or, for WARC records, the URL: NAME.json, NAME.txt or NAME.md",
    )
    extract.add_argument("-j", "--jobs", type=_positive_int, default=1, help="worker processes (%(default)s)")
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
    extract.set_defaults(func=cmd_extract)

    evaluate = commands.add_parser(
        "eval",
        help="score extractors on annotated datasets",
        description="Score extractors on datasets laid out as DIR/html/<id>.html.gz + DIR/truth.jsonl. "
        "Metrics are described in docs/EVALUATION.md.",
    )
    evaluate.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    evaluate.add_argument(
        "-e",
        "--extractor",
        dest="extractors",
        action="extend",
        nargs="+",
        metavar="NAME",
        help=f"our extractors to score (default: all registered: {', '.join(available_extractors())})",
    )
    evaluate.add_argument(
        "--compare",
        action="extend",
        nargs="+",
        metavar="PEER",
        choices=sorted(PEERS),
        help=f"peer libraries to score too: {', '.join(PEERS)} ({install_hint('compare')})",
    )
    evaluate.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    evaluate.add_argument("--limit", type=_positive_int, help="only the first N pages of each dataset")
    evaluate.add_argument(
        "--by-language", action="store_true", help="also report word and shingle scores per page language"
    )
    evaluate.add_argument(
        "--by-type",
        action="store_true",
        help="also report word and shingle scores per page type (page_type of truth.jsonl, as in WCXB)",
    )
    evaluate.add_argument(
        "--intervals",
        action="store_true",
        help="also report 95%% bootstrap intervals (sites resampled) of each shingle F1 and word F1, and of the "
        "first extractor's gap to each other one (per page type too with --by-type)",
    )
    evaluate.add_argument(
        "-j",
        "--jobs",
        type=_positive_int,
        default=1,
        help="worker processes (%(default)s; more makes ms/page less reliable)",
    )
    evaluate.add_argument(
        "--progress", action="store_true", help="show a progress bar even when stderr is not a terminal"
    )
    evaluate.set_defaults(func=cmd_eval)

    dedup = commands.add_parser(
        "dedup",
        help="drop near-duplicate texts from a JSON lines corpus (needs the [dedup] extra)",
        description="Drop records whose text is a near-copy of another's (MinHash LSH over word shingles; "
        "docs/SCRAPY.md#language-and-near-duplicates). Deterministic: records are considered longest text first (ties: "
        "smaller url/canonical_url/source, then smaller line), each kept unless its text is a "
        "near-copy of one kept before, and the kept lines are written unchanged, sorted by that "
        "key then line, so the same set of lines gives the same output in any order.",
    )
    dedup.add_argument("input", metavar="IN.jsonl", help="JSON lines with a text field (- for stdin)")
    dedup.add_argument("-o", "--output", help="write the kept lines here instead of stdout")
    dedup.add_argument(
        "--threshold",
        type=float,
        default=DEDUP_DEFAULT_THRESHOLD,
        help="estimated Jaccard similarity of word shingles from which texts are near-copies "
        "(%(default)s, as WEBCLEAN_NEAR_DUPLICATE_THRESHOLD)",
    )
    dedup.add_argument("--num-perm", type=_positive_int, default=128, help="MinHash permutations (%(default)s)")
    dedup.add_argument("--shingle", type=_positive_int, default=5, help="words per shingle (%(default)s)")
    dedup.add_argument(
        "--dropped", metavar="FILE", help="also write one {key, near_duplicate_of} line per dropped record here"
    )
    dedup.set_defaults(func=cmd_dedup)

    for name, helptext in (
        ("explain", "write an HTML report of what an extractor kept on a page, and why"),
        ("plot", "draw an extractor's figure for a page (ttr, density, scores)"),
    ):
        sub = commands.add_parser(
            name, help=helptext, description=helptext[0].upper() + helptext[1:] + ". See docs/EXPLAIN.md."
        )
        sub.add_argument("page", metavar="PAGE", help="HTML file (plain or .gz) or - for stdin")
        sub.add_argument("-e", "--extractor", default="default", help="extractor name (%(default)s) or dotted path")
        sub.add_argument("--url", help="the page's URL (the page-type classifier reads it; shown in the report)")
        sub.add_argument(
            "--option",
            action="append",
            metavar="KEY=VALUE",
            help="extractor parameter, repeatable (values parsed as JSON when possible)",
        )
        if name == "explain":
            sub.add_argument("-o", "--output", required=True, help="the HTML report to write")
            sub.set_defaults(func=cmd_explain)
        else:
            sub.add_argument(
                "-o",
                "--output",
                required=True,
                help="the image to write; the format follows the suffix (.png, .svg, .pdf)",
            )
            sub.add_argument("--dpi", type=_positive_int, default=120, help="resolution of raster images (%(default)s)")
            sub.set_defaults(func=cmd_plot)

    demo = commands.add_parser("demo", help="run the demo (arguments are passed through)", add_help=False)
    demo.add_argument("args", nargs=argparse.REMAINDER)
    demo.set_defaults(func=lambda args: cmd_demo(args.args))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        # Straight through: argparse would claim the demo's own options (--help, --port...).
        return cmd_demo(argv[1:])
    args = build_parser().parse_args(argv)
    return int(args.func(args))
