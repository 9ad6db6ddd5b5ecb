"""Speed of the default extractor against trafilatura and against lxml's bare parse.

Usage::

    python benchmarks/speed.py [--data ../shared/data] [--pages 300] [--repeat 3] [--python-walk] [--cold]
                               [--dataset wcxb-dev ...] [--cpu-time] [--instructions] [--cache-sim] [--no-timing]
                               [--no-trafilatura] [--smallest 100] [--fields title,date]

The same pages (an even sample over every dataset under ``--data``), in the
same process, are run through

* ``lxml.html.fromstring(page_bytes)`` -- the floor: parsing alone;
* ``webclean_scrapy.extract(page_bytes)`` -- decode, parse, walk, extract;
* ``trafilatura.extract(page_bytes)`` -- given the same bytes, which it
  decodes itself as ``extract`` does (its default settings), when
  trafilatura is installed;
* ``trafilatura.extract(page_bytes, with_metadata=True)`` -- the same with
  the metadata every :class:`~webclean_scrapy.engine.extraction.Extraction`
  carries (title, author, date, site name, description, tags): the
  like-for-like reference, printed beside the default one. Trafilatura's
  default returns the text alone; ``extract`` also reads the metadata, the
  page type and the language.

The three are timed in turns, chunk by chunk of :data:`CHUNK` pages, over
``--repeat`` rounds (trafilatura, the slow one, in the first round only);
each side keeps its best time per chunk: on a shared machine the minimum is
the least noisy estimate, and interleaving in small chunks keeps a slow
spell from favouring one side. Prints milliseconds per
page and the two ratios the project tracks: trafilatura / webclean (goal
>= 6) and webclean / lxml parse (goal <= 3), the like-for-like ratio
against trafilatura with metadata, and which document walk ran
(the compiled one unless ``--python-walk`` or the extension was not built).
With ``--cold`` every memo keyed by markup words (``clear_keyword_memos``:
the class/id keywords, the structure groups, the markup lexicon's sums,
the page type's class families) is emptied before each page is extracted,
in the timing and in the counts alike: every page is then read as by a
process that never saw a page, the dearest case of a crawl over sites it
meets for the first time, instead of the memos a crawl that keeps meeting
the same sites' (and the same frameworks') markup has. The emptying is
inside what is measured: about a hundredth of a page, freeing what the page
put in the memos, which a long crawl pays as well when a memo reaches its
bound and is emptied.
With ``--cpu-time`` each side is timed by the process's CPU time
(``time.process_time``) instead of the wall clock: on a machine whose
load is several times its CPUs, waiting for a CPU is most of the wall time
and swamps the ratios; the CPU time does not count it.

With ``--instructions`` the same ratios are also given by instruction
counts (valgrind's callgrind), which no load moves: on a shared VM the
CPU-time ratio of one version moves by a third between runs, so only the
counts can tell two versions, or a goal, apart there. Each side (the
extraction, the parse and, unless ``--no-trafilatura``, trafilatura) is
counted in a process of its own, once with :data:`COUNT_PASSES` passes
over the pages and once with none (the imports, the sampling and one
warm-up call); the difference is divided by the pages extracted. The
processes run with ``PYTHONHASHSEED=0`` and one BLAS thread
(:data:`COUNT_ENVIRONMENT`): numpy's idle OpenBLAS threads spin, callgrind
counts them, and their spinning was most of what two processes of one side
differed by. With one thread, three counts of a side on 30 pages stay within 0.04 M
a page of each other. ``--count-runs N`` counts each side N
times and gives the medians (and the ranges). Without ``--cold`` the memos are as
the passes leave them: the first pass meets each site of the sample for the
first time, the second again. ``--no-timing`` leaves the timed
comparison out, ``--no-trafilatura`` trafilatura out of both
(``benchmarks/instructions.sh`` runs the counts alone, without it).
Counting is slow: about fifty times the run, trafilatura's side most of it.

With ``--cache-sim`` the extraction and the parse are also run under
cachegrind's cache and branch simulation (the same processes, passes and
difference as the counts; trafilatura is left out), and the report gives
per page, for each side, the instructions, the simulated L1 instruction-
and data-cache misses and the mispredicted conditional and indirect
branches (:data:`CACHE_EVENTS`), with the ratio of each. The instruction
ratio is the goal's measure by counts; the others are what a CPU spends
cycles on besides instructions, so they show why the CPU-time ratio is
higher (docs/BENCHMARKS.md, "Speed"). The simulated caches are those
valgrind reads from the machine (or its defaults): the counts are a model of
the machine's, not a measurement of it.

With ``--smallest N`` the pages are the N smallest of the shared sets (by
their decoded size in bytes, ties by path) instead of an even sample: the
small pages set, where what every page costs whatever its size (the call,
the decoding, the models' set-up, the metadata readers, the language model)
weighs most. With ``--fields NAMES`` (comma-separated, as
``extract(fields=...)`` takes them) a fourth side,
``webclean_scrapy.extract(page_bytes, fields=NAMES)``, is timed in the same
turns (and counted, with ``--instructions``), and its ratios to the parse
and to trafilatura are printed beside the complete call's: what a caller
that asks for less pays.

Exits 0 with a message when the data is absent; 1 when ``--instructions``
or ``--cache-sim`` is asked for and valgrind is not installed.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import lxml.html

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import webclean_scrapy  # noqa: E402
import webclean_scrapy.engine.document  # noqa: E402
import webclean_scrapy.engine.fields  # noqa: E402
from webclean_scrapy.engine.extractors.webclean import clear_keyword_memos  # noqa: E402


def sample_pages(data: Path, count: int, datasets: list[str] | None = None) -> list[bytes]:
    files = sorted(
        path for path in data.glob("*/html/*.html.gz") if not datasets or path.parent.parent.name in datasets
    )
    step = max(1, len(files) // count) if count else 1
    return [gzip.decompress(path.read_bytes()) for path in files[::step][: count or None]]


def smallest_pages(data: Path, count: int, datasets: list[str] | None = None) -> list[bytes]:
    """The *count* smallest pages of the sets under *data* (decoded size, ties by path),
    smallest first: the pages where the fixed cost of a call is most of its cost."""
    files = sorted(
        path for path in data.glob("*/html/*.html.gz") if not datasets or path.parent.parent.name in datasets
    )
    pages = [(gzip.decompress(path.read_bytes()), str(path)) for path in files]
    pages.sort(key=lambda page: (len(page[0]), page[1]))
    return [body for body, _ in pages[:count]]


#: The clock :func:`chunk_time` reads (``--cpu-time``: the process's CPU time).
clock = time.perf_counter


def chunk_time(function, items) -> float:
    """Seconds for one pass over *items* (a chunk: no collection first)."""
    start = clock()
    for item in items:
        function(item)
    return clock() - start


#: Pages per chunk: the two sides of a chunk are timed within a few tens of
#: milliseconds of each other, so a slow spell of a shared machine hits both.
CHUNK = 25


#: Passes over the pages in the counted run of ``--instructions`` (the
#: first pass after the warm-up call still fills the memos of sites seen
#: once; a second weighs the warm state, as a crawl meets it, equally).
COUNT_PASSES = 2

#: The environment of each counted process, beside the caller's: one hash
#: seed, and one BLAS thread. numpy's OpenBLAS starts a thread per CPU that
#: spins while it waits for work; callgrind counts every thread, and their
#: spinning was most of the spread between two counts of one side. With one thread the BLAS work, if any, runs and is counted
#: in the main thread, and no thread spins.
COUNT_ENVIRONMENT = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

#: What a counted process's output is read into (:func:`_valgrind`).
T = TypeVar("T")

#: What callgrind prints when the program ends: the instructions it ran.
_COLLECTED = re.compile(r"Collected : (\d+)")


def extraction(extractor: str, cold: bool, fields: list[str] | None = None) -> Callable[[bytes], object]:
    """The extraction side's call: with *cold*, the memos emptied first; with
    *fields*, only those asked for (``extract(fields=...)``)."""
    # The complete call is made exactly as a caller makes it, without the keyword.
    asked: dict[str, Any] = {} if fields is None else {"fields": fields}
    if not cold:
        return lambda page: webclean_scrapy.extract(page, extractor=extractor, **asked)

    def first_visit(page: bytes) -> object:
        clear_keyword_memos()
        return webclean_scrapy.extract(page, extractor=extractor, **asked)

    return first_visit


def counted_side(
    side: str, pages: list[bytes], extractor: str, cold: bool = False, fields: list[str] | None = None
) -> tuple[Callable[[Any], object], list]:
    """The function one side of the comparison runs, and the items it
    takes (every side the same bytes, as in the timing);
    ``extract-fields`` is the extraction asked for *fields* only."""
    if side == "extract":
        return extraction(extractor, cold), pages
    if side == "extract-fields" and fields is not None:
        return extraction(extractor, cold, fields), pages
    if side == "parse":
        return lxml.html.fromstring, pages
    if side != "trafilatura":
        raise ValueError(f"no side {side!r}: extract, extract-fields (with --fields), parse or trafilatura")
    import trafilatura

    return trafilatura.extract, pages


def run_counted(
    side: str,
    passes: int,
    pages: list[bytes],
    extractor: str,
    cold: bool = False,
    fields: list[str] | None = None,
    smallest: bool = False,
) -> None:
    """The body of one counted process: one warm-up call (models loaded,
    memos started), then *passes* passes over the pages.

    *smallest*: the pages are the small pages set, smallest first, whose
    first page may be too bare to load the language profiles (its text too
    short): the warm-up is then its largest page, so the 0.37 s of loading
    is not counted as the passes' work."""
    function, items = counted_side(side, pages, extractor, cold, fields)
    function(items[-1] if smallest else items[0])
    for _ in range(passes):
        for item in items:
            function(item)


def _valgrind(
    tool: str, options: list[str], side: str, sampling: list[str], passes: int, read: Callable[[str, Path], T]
) -> T:
    """One process of this script running *side* for *passes* passes over
    the pages *sampling* picks, under valgrind's *tool* (``callgrind``,
    ``cachegrind``) with *options*: *read* is given what valgrind printed
    and the path of the tool's output file, while the file still exists."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{tool}.out"
        command = [
            "valgrind",
            f"--tool={tool}",
            *options,
            f"--{tool}-out-file={out}",
            sys.executable,
            str(Path(__file__).resolve()),
            *sampling,
            "--count",
            side,
            str(passes),
        ]
        done = subprocess.run(
            command, capture_output=True, text=True, env={**os.environ, **COUNT_ENVIRONMENT}, check=False
        )
        if done.returncode:
            raise RuntimeError(f"{tool} run of {side!r} failed (exit {done.returncode}): {done.stderr[-2000:]}")
        return read(done.stderr, out)


def collected(side: str, sampling: list[str], passes: int) -> int:
    """The instructions callgrind counts in one process of this script
    running *side* for *passes* passes over the pages *sampling* picks."""
    printed = _valgrind("callgrind", [], side, sampling, passes, lambda printed, _: printed)
    found = _COLLECTED.search(printed)
    if found is None:
        raise RuntimeError(f"callgrind run of {side!r} printed no count: {printed[-2000:]}")
    return int(found.group(1))


#: What ``--cache-sim`` reports, as cachegrind names its events, with the
#: words the report prints for them.
CACHE_EVENTS = {
    "Ir": "instructions",
    "I1mr": "L1 instruction-cache misses",
    "D1mr": "L1 data-cache read misses",
    "D1mw": "L1 data-cache write misses",
    "Bcm": "conditional branches mispredicted",
    "Bim": "indirect branches mispredicted",
}


def cachegrind_totals(output: str) -> dict[str, int]:
    """The whole-program totals of a cachegrind output file: its ``events:``
    line names the columns of its ``summary:`` line."""
    names = totals = None
    for line in output.splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:"):
            totals = [int(value) for value in line.split()[1:]]
    if names is None or totals is None or len(names) != len(totals):
        raise RuntimeError("not a cachegrind output file: no events and summary lines that match")
    return dict(zip(names, totals))


def simulated(side: str, sampling: list[str], passes: int) -> dict[str, int]:
    """The :data:`CACHE_EVENTS` cachegrind's cache and branch simulation
    counts in one process of this script (as :func:`collected`)."""
    options = ["--cache-sim=yes", "--branch-sim=yes"]
    output = _valgrind("cachegrind", options, side, sampling, passes, lambda _, out: out.read_text())
    totals = cachegrind_totals(output)
    return {event: totals[event] for event in CACHE_EVENTS}


def events_per_page(side: str, sampling: list[str], pages: int) -> dict[str, float]:
    """Each of :data:`CACHE_EVENTS` per page on *side*: two simulated
    processes, with :data:`COUNT_PASSES` passes and with none, their
    difference divided by the pages extracted (as
    :func:`instructions_per_page`)."""
    with_passes, without = simulated(side, sampling, COUNT_PASSES), simulated(side, sampling, 0)
    return {event: (with_passes[event] - without[event]) / (COUNT_PASSES * pages) for event in CACHE_EVENTS}


def report_cache_events(sampling: list[str], pages: int) -> None:
    """Print what a page costs the parse and the extraction in simulated
    cache misses and branch mispredictions, beside their instructions, and
    the ratio of each: where CPU time and instruction counts part."""
    ours, parse = events_per_page("extract", sampling, pages), events_per_page("parse", sampling, pages)
    memos = "emptied before each page" if "--cold" in sampling else "as the passes leave them"
    print(
        f"cache and branch simulation (cachegrind, {COUNT_PASSES} passes over {pages} pages, PYTHONHASHSEED=0, "
        f"one BLAS thread; markup memos {memos}), per page:"
    )
    print(f"{'':36} {'parse':>12} {'extract':>12} {'ratio':>7}")
    for event, words in CACHE_EVENTS.items():
        ratio = f"{ours[event] / parse[event]:6.2f}x" if parse[event] > 0 else "      -"
        print(f"{words:36} {parse[event]:12,.0f} {ours[event]:12,.0f} {ratio}")


def instructions_per_page(side: str, sampling: list[str], pages: int, runs: int = 1) -> list[float]:
    """Instructions one page costs on *side* (``extract``, ``parse`` or
    ``trafilatura``), counted *runs* times: each count is two counted
    processes of this script, with :data:`COUNT_PASSES` passes and with
    none, their difference divided by the pages extracted. *sampling*
    repeats the options that pick the pages. Sorted, so the middle one is
    the median."""
    return sorted(
        (collected(side, sampling, COUNT_PASSES) - collected(side, sampling, 0)) / (COUNT_PASSES * pages)
        for _ in range(runs)
    )


def _counted(counts: list[float]) -> str:
    """One side's counts as a line of the report: the median, and the
    range when there are several."""
    text = f"{statistics.median(counts) / 1e6:8.2f} M/page"
    if len(counts) > 1:
        text += f"  ({len(counts)} counts: {counts[0] / 1e6:.2f} to {counts[-1] / 1e6:.2f})"
    return text


def report_instructions(
    sampling: list[str], pages: int, with_trafilatura: bool, runs: int = 1, fields: list[str] | None = None
) -> None:
    """Print the instruction counts per page (medians of *runs* counts)
    and the project's two ratios by them; with *fields* (which *sampling*
    names too), the same for the extraction asked for those fields only."""
    ours_counts = instructions_per_page("extract", sampling, pages, runs)
    parse_counts = instructions_per_page("parse", sampling, pages, runs)
    ours, parse = statistics.median(ours_counts), statistics.median(parse_counts)
    memos = "emptied before each page" if "--cold" in sampling else "as the passes leave them"
    print(
        f"instructions (callgrind, {COUNT_PASSES} passes over {pages} pages, PYTHONHASHSEED=0, one BLAS thread; "
        f"markup memos {memos}):"
    )
    print(f"lxml.html.fromstring(bytes):    {_counted(parse_counts)}")
    print(f"webclean_scrapy.extract(bytes): {_counted(ours_counts)}")
    theirs = None
    if with_trafilatura:
        theirs_counts = instructions_per_page("trafilatura", sampling, pages, runs)
        theirs = statistics.median(theirs_counts)
        print(f"trafilatura.extract(bytes):     {_counted(theirs_counts)}")
        print(f"speed-up vs trafilatura, by instructions: {theirs / ours:5.2f}x  (goal >= 6)")
    print(f"cost vs lxml bare parse, by instructions: {ours / parse:5.2f}x  (goal <= 3)")
    if fields is not None:
        names = ",".join(fields)
        asked_counts = instructions_per_page("extract-fields", sampling, pages, runs)
        asked = statistics.median(asked_counts)
        print(f"webclean_scrapy.extract(bytes, fields={names}): {_counted(asked_counts)}")
        if theirs is not None:
            print(f"speed-up vs trafilatura, fields={names}, by instructions: {theirs / asked:5.2f}x")
        print(f"cost vs lxml bare parse, fields={names}, by instructions: {asked / parse:5.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--pages", type=int, default=300, help="pages sampled (0: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--extractor", default="default")
    parser.add_argument(
        "--python-walk", action="store_true", help="time the pure-Python document walk instead of the compiled one"
    )
    parser.add_argument(
        "--cold", action="store_true", help="empty the markup memos before each page (every page a first visit)"
    )
    parser.add_argument(
        "--dataset",
        action="append",
        metavar="NAME",
        help="only this dataset's pages (repeatable; default: every dataset)",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time by the process's CPU time instead of the wall clock (a loaded machine)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also give the ratios by instruction counts (valgrind's callgrind; slow)",
    )
    parser.add_argument(
        "--cache-sim",
        action="store_true",
        help="also give each side's simulated cache misses and branch mispredictions per page "
        "(valgrind's cachegrind; slow): why CPU time and instruction counts disagree",
    )
    parser.add_argument(
        "--count-runs",
        type=int,
        default=1,
        metavar="N",
        help="with --instructions: count each side N times and give the medians (default 1)",
    )
    parser.add_argument(
        "--smallest",
        type=int,
        default=0,
        metavar="N",
        help="the N smallest pages of the sets instead of an even sample (the small pages set: 100)",
    )
    parser.add_argument(
        "--fields",
        type=lambda value: [name.strip() for name in value.split(",") if name.strip()],
        metavar="NAMES",
        help="also time extract(fields=NAMES), comma-separated (e.g. title,date; text alone: text)",
    )
    parser.add_argument("--no-timing", action="store_true", help="leave the timed comparison out")
    parser.add_argument("--no-trafilatura", action="store_true", help="leave trafilatura out")
    # One side of --instructions, in the process callgrind counts: SIDE PASSES.
    parser.add_argument("--count", nargs=2, metavar=("SIDE", "PASSES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.count_runs < 1:
        parser.error("--count-runs: at least 1")
    global clock
    clock = time.process_time if args.cpu_time else time.perf_counter
    if not args.data.is_dir():
        print(f"no pages at {args.data}; nothing to time")
        return 0
    if args.python_walk:
        webclean_scrapy.engine.document.COMPILED_WALK = False
    if args.fields is not None:
        try:
            webclean_scrapy.engine.fields.check_fields(args.fields)
        except webclean_scrapy.ExtractionError as exc:
            parser.error(f"--fields: {exc}")
    if args.smallest:
        pages = smallest_pages(args.data, args.smallest, args.dataset)
    else:
        pages = sample_pages(args.data, args.pages, args.dataset)
    if not pages:
        print(f"no pages of {args.dataset} at {args.data}; nothing to time")
        return 0
    if args.count:
        side, passes = args.count
        run_counted(side, int(passes), pages, args.extractor, args.cold, args.fields, bool(args.smallest))
        return 0
    if (args.instructions or args.cache_sim) and shutil.which("valgrind") is None:
        asked = "--instructions" if args.instructions else "--cache-sim"
        print(f"{asked}: valgrind is not installed (Debian: apt-get install valgrind)")
        return 1
    trafilatura = None
    if not args.no_trafilatura:
        try:
            import trafilatura
        except ImportError:
            pass
    if not args.no_timing:
        time_sides(args, pages, trafilatura)
    sampling = ["--data", str(args.data), "--pages", str(args.pages), "--extractor", args.extractor]
    sampling += [option for name in args.dataset or () for option in ("--dataset", name)]
    sampling += ["--python-walk"] if args.python_walk else []
    sampling += ["--cold"] if args.cold else []
    sampling += ["--smallest", str(args.smallest)] if args.smallest else []
    sampling += ["--fields", ",".join(args.fields)] if args.fields is not None else []
    if args.instructions:
        report_instructions(sampling, len(pages), trafilatura is not None, args.count_runs, args.fields)
    if args.cache_sim:
        report_cache_events(sampling, len(pages))
    return 0


def time_sides(args: argparse.Namespace, pages: list[bytes], trafilatura) -> None:
    """The timed comparison: the three sides in turns, chunk by chunk (module docstring)."""
    webclean_scrapy.extract(pages[0], extractor=args.extractor)  # load the model outside the timing

    extract = extraction(args.extractor, args.cold)
    asked = None if args.fields is None else extraction(args.extractor, args.cold, args.fields)

    chunks = [slice(i, i + CHUNK) for i in range(0, len(pages), CHUNK)]
    best_parse = [float("inf")] * len(chunks)
    best_ours = [float("inf")] * len(chunks)
    best_asked = [float("inf")] * len(chunks)
    theirs = theirs_with_metadata = 0.0

    def extract_with_metadata(page: bytes) -> None:
        trafilatura.extract(page, with_metadata=True)

    for round_ in range(args.repeat):
        gc.collect()
        for k, chunk in enumerate(chunks):
            best_parse[k] = min(best_parse[k], chunk_time(lxml.html.fromstring, pages[chunk]))
            best_ours[k] = min(best_ours[k], chunk_time(extract, pages[chunk]))
            if asked is not None:
                best_asked[k] = min(best_asked[k], chunk_time(asked, pages[chunk]))
            if trafilatura is not None and round_ == 0:
                theirs += chunk_time(trafilatura.extract, pages[chunk])
                theirs_with_metadata += chunk_time(extract_with_metadata, pages[chunk])
    parse = sum(best_parse) / len(pages)
    ours = sum(best_ours) / len(pages)
    theirs /= len(pages)
    theirs_with_metadata /= len(pages)
    walk = "compiled" if webclean_scrapy.engine.document.COMPILED_WALK else "pure Python"
    memos = "emptied before each page" if args.cold else "warm"
    timed = "CPU time" if args.cpu_time else "wall clock"
    chosen = f"the {len(pages)} smallest" if args.smallest else f"{len(pages)}"
    sizes = sorted(len(page) for page in pages)
    print(
        f"pages: {chosen} (best of {args.repeat} rounds, per chunk of {CHUNK} pages, "
        f"interleaved, {timed}); document walk: {walk}; keyword memos: {memos}"
    )
    print(f"page sizes: {sizes[0]} to {sizes[-1]} bytes, median {sizes[len(sizes) // 2]}")
    print(f"lxml.html.fromstring(bytes):    {parse * 1000:7.2f} ms/page")
    print(f"webclean_scrapy.extract(bytes): {ours * 1000:7.2f} ms/page  [{args.extractor}]")
    if trafilatura is not None:
        print(f"trafilatura.extract(bytes):     {theirs * 1000:7.2f} ms/page")
        print(f"trafilatura.extract(bytes, with_metadata=True): {theirs_with_metadata * 1000:7.2f} ms/page")
        print(f"speed-up vs trafilatura: {theirs / ours:5.2f}x  (goal >= 6)")
        print(f"speed-up vs trafilatura with metadata (like for like): {theirs_with_metadata / ours:5.2f}x")
    print(f"cost vs lxml bare parse: {ours / parse:5.2f}x  (goal <= 3)")
    if asked is not None:
        reduced = sum(best_asked) / len(pages)
        names = ",".join(args.fields)
        print(f"webclean_scrapy.extract(bytes, fields={names}): {reduced * 1000:7.2f} ms/page")
        if trafilatura is not None:
            print(f"speed-up vs trafilatura, fields={names}: {theirs / reduced:5.2f}x")
        print(f"cost vs lxml bare parse, fields={names}: {reduced / parse:5.2f}x")
        print(f"fields={names} / complete call: {reduced / ours:5.2f}")


if __name__ == "__main__":
    sys.exit(main())
