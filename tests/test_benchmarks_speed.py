"""``benchmarks/speed.py``'s instruction counts (``--instructions``) and cache
simulation (``--cache-sim``), on pages of our own making: what the counted
processes run, and one real count by valgrind's callgrind and one real
simulation by its cachegrind (skipped where valgrind is not installed;
``.ci/run`` installs it). No timing is asserted: the script measures, the
tests check that it measures what it says."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SPEED = REPO / "benchmarks" / "speed.py"

#: A page of about 90 KB: its parse costs millions of instructions, far
#: above what two runs of the same process differ by (tens of thousands).
PAGE = (
    "<html><head><title>Page {i}</title></head><body><nav><a href='/'>Home</a></nav>"
    + "<p>Paragraph {i} of a page of our own, long enough to be a block of prose for the walk.</p>" * 1000
    + "</body></html>"
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data directory as ``../shared/data`` is laid out: one dataset of three pages."""
    html = tmp_path / "data" / "ours" / "html"
    html.mkdir(parents=True)
    for i in range(3):
        (html / f"{i}.html.gz").write_bytes(gzip.compress(PAGE.format(i=i).encode()))
    return tmp_path / "data"


@pytest.fixture
def speed(monkeypatch):
    """The script as a module (it is a script, not part of the package)."""
    monkeypatch.syspath_prepend(str(SPEED.parent))
    import speed as module

    return module


def _run(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    """The script in a process of its own, with *path* as its ``PATH``."""
    return subprocess.run(
        [sys.executable, str(SPEED), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PATH": path},
        check=False,
    )


def test_a_counted_process_runs_each_side_over_the_pages(speed, data, monkeypatch):
    """The process callgrind counts calls the side's function once to warm
    up, then once per page and pass: the count's difference between PASSES
    and 0 is exactly the pages' work."""
    calls: list[object] = []
    monkeypatch.setattr(speed.lxml.html, "fromstring", lambda page: calls.append(page))
    assert speed.main(["--data", str(data), "--pages", "3", "--count", "parse", "2"]) == 0
    assert len(calls) == 1 + 2 * 3
    calls.clear()
    assert speed.main(["--data", str(data), "--pages", "3", "--count", "parse", "0"]) == 0
    assert len(calls) == 1
    # The extraction side runs the real extractor (a broken page would raise here).
    assert speed.main(["--data", str(data), "--pages", "3", "--count", "extract", "1"]) == 0


def test_the_counted_sides_take_what_the_timing_takes(speed, data):
    pages = speed.sample_pages(data, 3)
    function, items = speed.counted_side("extract", pages, "default")
    assert items is pages and "Paragraph 0" in function(pages[0]).text
    with pytest.raises(ValueError, match="no side 'lxml'"):
        speed.counted_side("lxml", pages, "default")


def test_trafilatura_is_counted_on_the_same_bytes(speed, data):
    """As it is timed: trafilatura is given the bytes ``extract`` is given,
    and decodes them itself (the ``[compare]`` extra installs it)."""
    pytest.importorskip("trafilatura")
    pages = speed.sample_pages(data, 3)
    function, items = speed.counted_side("trafilatura", pages, "default")
    assert items == pages and all(isinstance(item, bytes) for item in items)
    assert function.__module__.startswith("trafilatura")


def test_instructions_without_valgrind_is_a_clear_error(data, tmp_path):
    """Asked for counts on a machine without valgrind: exit 1 and say what
    to install, before any timing."""
    empty = tmp_path / "bin"
    empty.mkdir()
    done = _run("--data", str(data), "--pages", "3", "--instructions", path=str(empty))
    assert done.returncode == 1
    assert "valgrind is not installed" in done.stdout
    assert "ms/page" not in done.stdout


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_callgrind_counts_the_parse_of_each_page(speed, data):
    """A real count: lxml's parse of a 90 KB page costs millions of
    instructions (about 80 a byte on the web's pages), not nothing (the two
    runs' difference lost in their noise) and not the hundreds of millions
    of an interpreter's start and imports (a difference that failed to
    cancel)."""
    sampling = ["--data", str(data), "--pages", "3"]
    (per_page,) = speed.instructions_per_page("parse", sampling, 3)
    assert 1_000_000 < per_page < 100_000_000


def test_repeated_counts_give_medians_and_their_range(speed, monkeypatch, capsys):
    """``--count-runs N``: each side counted N times (a pair of processes
    each, with and without the passes); the report gives the medians, the
    ratios between medians, and each side's range."""
    passes = speed.COUNT_PASSES
    extract = [1_000 + passes * 3 * 30, 1_000, 1_000 + passes * 3 * 31, 1_000, 1_000 + passes * 3 * 29, 1_000]
    totals = {  # per side: the processes' totals, in the order they run (passes, then none)
        "extract": extract * 2,  # counted here, then again by the report
        "parse": [500 + passes * 3 * 10, 500, 500 + passes * 3 * 12, 500, 500 + passes * 3 * 10, 500],
    }
    calls = []

    def fake_count(side, sampling, passes):
        calls.append((side, passes))
        return totals[side].pop(0)

    monkeypatch.setattr(speed, "collected", fake_count)
    assert speed.instructions_per_page("extract", [], 3, runs=3) == [29, 30, 31]
    assert calls == [("extract", speed.COUNT_PASSES), ("extract", 0)] * 3
    speed.report_instructions([], 3, with_trafilatura=False, runs=3)
    out = capsys.readouterr().out
    assert "(3 counts: 0.00 to 0.00)" in out  # per page, in millions
    assert "3.00x" in out  # median 30 over median 10


def test_count_runs_below_one_is_refused(data):
    done = _run("--data", str(data), "--pages", "3", "--count-runs", "0", path=os.environ["PATH"])
    assert done.returncode == 2
    assert "--count-runs: at least 1" in done.stderr


def test_each_counted_process_has_one_hash_seed_and_one_blas_thread(speed, monkeypatch):
    """callgrind counts every thread: numpy's idle BLAS threads spin, by an
    amount that depends on scheduling, so each counted process runs with
    one BLAS thread (and the hash seed fixed), whatever the caller's
    environment says."""
    seen = []

    def fake_run(command, **kwargs):
        seen.append((command, kwargs["env"]))
        return subprocess.CompletedProcess(command, 0, "", "==1== Collected : 1234\n")

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")
    monkeypatch.setattr(speed.subprocess, "run", fake_run)
    assert speed.collected("parse", ["--pages", "3"], 2) == 1234
    ((command, env),) = seen
    assert command[:2] == ["valgrind", "--tool=callgrind"] and command[-3:] == ["--count", "parse", "2"]
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "1" and env["PYTHONHASHSEED"] == "0"
    assert env["PATH"] == os.environ["PATH"]


def test_cold_counts_read_every_page_as_a_first_visit(speed, data, monkeypatch):
    """``--cold``: the counted extraction empties the markup memos before
    each page (so every page pays for every name it shows), the parse side
    is left alone, and the option reaches the counted processes."""
    events: list[str] = []
    monkeypatch.setattr(speed, "clear_keyword_memos", lambda: events.append("clear"))
    monkeypatch.setattr(speed.webclean_scrapy, "extract", lambda page, extractor: events.append("extract"))
    assert speed.main(["--data", str(data), "--pages", "3", "--cold", "--count", "extract", "2"]) == 0
    assert events == ["clear", "extract"] * (1 + 2 * 3)
    events.clear()
    assert speed.main(["--data", str(data), "--pages", "3", "--count", "extract", "1"]) == 0
    assert events == ["extract"] * (1 + 3)

    seen = []

    def fake_count(side, sampling, passes):
        seen.append(sampling)
        return 1_000 + passes * 3

    monkeypatch.setattr(speed, "collected", fake_count)
    monkeypatch.setattr(speed.shutil, "which", lambda name: "/usr/bin/valgrind")
    argv = ["--data", str(data), "--pages", "3", "--cold", "--instructions", "--no-timing", "--no-trafilatura"]
    assert speed.main(argv) == 0
    assert seen and all("--cold" in sampling for sampling in seen)


#: A cachegrind output file's head and totals line, as valgrind 3.19 writes them.
CACHEGRIND_OUTPUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: python speed.py --count parse 2
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=???
fn=main
1 5 1 1 2 1 1 1 1 1 1 1 1 1
summary: 900 30 3 400 20 2 200 10 1 100 8 50 4
"""


def test_cachegrind_totals_are_read_by_the_event_names(speed):
    """The summary line's columns are named by the events line, so a
    cachegrind that records other events (or in another order) is still
    read right; a file without the two lines is an error, not zeros."""
    totals = speed.cachegrind_totals(CACHEGRIND_OUTPUT)
    assert totals["Ir"] == 900 and totals["I1mr"] == 30 and totals["D1mw"] == 10 and totals["Bim"] == 4
    reordered = CACHEGRIND_OUTPUT.replace("events: Ir I1mr", "events: I1mr Ir")
    assert speed.cachegrind_totals(reordered)["Ir"] == 30
    with pytest.raises(RuntimeError, match="not a cachegrind output file"):
        speed.cachegrind_totals("events: Ir I1mr\nsummary: 1\n")
    with pytest.raises(RuntimeError, match="not a cachegrind output file"):
        speed.cachegrind_totals("")


def test_cache_events_per_page_and_their_ratios(speed, monkeypatch, capsys):
    """``--cache-sim``: each side simulated twice (with the passes and
    without), the difference per page, and each event's ratio of the
    extraction to the parse; an event the parse never has prints no ratio."""
    passes, pages = speed.COUNT_PASSES, 3
    base = dict.fromkeys(speed.CACHE_EVENTS, 1000)
    per_page = {
        "extract": {"Ir": 30, "I1mr": 20, "D1mr": 6, "D1mw": 2, "Bcm": 9, "Bim": 12},
        "parse": {"Ir": 10, "I1mr": 1, "D1mr": 2, "D1mw": 1, "Bcm": 3, "Bim": 0},
    }
    calls = []

    def fake_simulated(side, sampling, passes_run):
        calls.append((side, passes_run))
        return {event: base[event] + passes_run * pages * per_page[side][event] for event in speed.CACHE_EVENTS}

    monkeypatch.setattr(speed, "simulated", fake_simulated)
    assert speed.events_per_page("extract", [], pages) == per_page["extract"]
    assert calls == [("extract", passes), ("extract", 0)]
    speed.report_cache_events([], pages)
    out = capsys.readouterr().out
    assert "3.00x" in out  # instructions, 30 against 10
    assert "20.00x" in out  # instruction-cache misses, 20 against 1
    indirect = next(line for line in out.splitlines() if line.startswith("indirect branches"))
    assert indirect.split()[-1] == "-"


def test_cache_sim_without_valgrind_is_a_clear_error(data, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    done = _run("--data", str(data), "--pages", "3", "--cache-sim", "--no-timing", path=str(empty))
    assert done.returncode == 1
    assert "--cache-sim: valgrind is not installed" in done.stdout


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_cachegrind_simulates_the_parse_of_each_page(speed, data):
    """A real simulation: a 90 KB page's parse costs millions of
    instructions (the difference of the two processes neither lost in
    noise nor left with an interpreter's start), and it misses the L1 data cache (it writes a tree of some 90 KB into a
    32 KB cache) while its few code paths stay in the instruction cache."""
    sampling = ["--data", str(data), "--pages", "3"]
    events = speed.events_per_page("parse", sampling, 3)
    assert 1_000_000 < events["Ir"] < 100_000_000
    assert events["D1mr"] + events["D1mw"] > 1_000
    assert events["I1mr"] < events["D1mr"] + events["D1mw"]


def test_a_failed_valgrind_run_names_its_tool(speed, monkeypatch):
    """A counted process that fails (valgrind, or the script under it) is
    an error naming the tool and the side, with what valgrind printed: a
    count or a simulation of nothing is never reported."""

    def failing_run(command, **kwargs):
        return subprocess.CompletedProcess(command, 1, "", "==1== Fatal error at startup\n")

    monkeypatch.setattr(speed.subprocess, "run", failing_run)
    with pytest.raises(RuntimeError, match=r"cachegrind run of 'extract' failed \(exit 1\): .*Fatal error"):
        speed.simulated("extract", ["--pages", "3"], 2)
    with pytest.raises(RuntimeError, match=r"callgrind run of 'parse' failed \(exit 1\)"):
        speed.collected("parse", ["--pages", "3"], 2)


def test_the_small_pages_set_is_the_smallest_pages_of_every_set(speed, data):
    """``--smallest N``: the N smallest pages over every dataset, smallest first, not a sample."""
    small = data / "other" / "html"
    small.mkdir(parents=True)
    for i, size in enumerate((40, 10, 25)):
        page = f"<html><body><p>{'x' * size}</p></body></html>"
        (small / f"{i}.html.gz").write_bytes(gzip.compress(page.encode()))
    pages = speed.smallest_pages(data, 2)
    assert [len(page) for page in pages] == [len("<html><body><p></p></body></html>") + n for n in (10, 25)]
    assert len(speed.smallest_pages(data, 100)) == 6  # all there are
    assert speed.smallest_pages(data, 2, ["ours"]) == speed.sample_pages(data, 2, ["ours"])[:2]


def test_a_reduced_call_is_timed_beside_the_complete_one(speed, data, capsys):
    """``--fields``: the side asks for those fields only (the language model
    does not run: no detected language), and its ratios are printed beside
    the complete call's; a name ``extract`` does not know is refused."""
    page = speed.sample_pages(data, 1)[0]
    reduced = speed.extraction("default", False, ["title"])(page)
    complete = speed.extraction("default", False)(page)
    assert reduced.title == complete.title == "Page 0" and complete.detected_language == "en"
    assert reduced.text == complete.text and reduced.detected_language is None
    argv = ["--data", str(data), "--smallest", "2", "--repeat", "1", "--no-trafilatura", "--fields", "title,date"]
    assert speed.main(argv) == 0
    out = capsys.readouterr().out
    assert "pages: the 2 smallest" in out
    assert "cost vs lxml bare parse, fields=title,date:" in out and "fields=title,date / complete call:" in out
    with pytest.raises(SystemExit) as refused:
        speed.main(["--data", str(data), "--fields", "autor"])
    assert refused.value.code == 2 and "--fields: unknown field(s) 'autor'" in capsys.readouterr().err


def test_the_reduced_call_is_counted_as_a_side_of_its_own(speed, data, monkeypatch, capsys):
    """``--fields`` with ``--instructions``: the counted processes are told the
    fields (in the options that pick the pages) and run the reduced call."""
    pages = speed.sample_pages(data, 1)
    function, items = speed.counted_side("extract-fields", pages, "default", fields=["title"])
    assert items is pages and function(pages[0]).detected_language is None
    with pytest.raises(ValueError, match="no side 'extract-fields'"):  # without fields it is no side
        speed.counted_side("extract-fields", pages, "default")
    per_page = {"extract": 30, "extract-fields": 24, "parse": 10}
    seen = []

    def fake_count(side, sampling, passes):
        seen.append((side, sampling))
        return 1_000 + passes * 3 * per_page[side]

    monkeypatch.setattr(speed, "collected", fake_count)
    monkeypatch.setattr(speed.shutil, "which", lambda name: "/usr/bin/valgrind")
    argv = ["--data", str(data), "--pages", "3", "--instructions", "--no-timing", "--no-trafilatura"]
    assert speed.main([*argv, "--fields", "title"]) == 0
    assert {side for side, _ in seen} == {"extract", "extract-fields", "parse"}
    assert all(sampling[-2:] == ["--fields", "title"] for _, sampling in seen)
    assert "cost vs lxml bare parse, fields=title, by instructions:  2.40x" in capsys.readouterr().out


def test_the_small_pages_set_warms_up_on_its_largest_page(speed, data, monkeypatch):
    """The smallest page may be too bare to load what extraction loads lazily:
    the counted process of the small pages set warms up on its largest page."""
    small = data / "other" / "html"
    small.mkdir(parents=True)
    (small / "bare.html.gz").write_bytes(gzip.compress(b"<html><title>ERROR</title></html>"))
    calls: list[bytes] = []
    monkeypatch.setattr(speed.lxml.html, "fromstring", lambda page: calls.append(page))
    assert speed.main(["--data", str(data), "--smallest", "2", "--count", "parse", "1"]) == 0
    pages = speed.smallest_pages(data, 2)
    assert calls == [pages[-1], *pages] and b"ERROR" in pages[0]
