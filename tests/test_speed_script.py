"""``benchmarks/speed.py``'s instruction counts (``--instructions``), on pages
of our own making: what the counted processes run, and one real count by
valgrind's callgrind (skipped where valgrind is not installed; ``.ci/run``
installs it). No timing is asserted: the script measures, the tests check
that it measures what it says."""

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


def test_trafilatura_is_counted_on_the_decoded_text(speed, data):
    """As it is timed: trafilatura is given the text ``extract`` decodes
    itself (the ``[compare]`` extra installs it)."""
    pytest.importorskip("trafilatura")
    pages = speed.sample_pages(data, 3)
    _, items = speed.counted_side("trafilatura", pages, "default")
    assert items == [page.decode() for page in pages]


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
