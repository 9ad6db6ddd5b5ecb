"""``benchmarks/crawl.py``'s extraction share of a crawl's CPU, its ``--fields``
crawls and its measure of the process-offload wire (``--offload-cost``): what
each reports comes from what it says it measures. A real crawl of the script's
own local site; no timing is asserted."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CRAWL = REPO / "benchmarks" / "crawl.py"


@pytest.fixture
def crawl(monkeypatch):
    """The script as a module (it is a script, not part of the package)."""
    monkeypatch.syspath_prepend(str(CRAWL.parent))
    import crawl as module

    return module


def test_the_former_wire_format_loads_the_same_values(crawl):
    """The ``dataclass state`` row pickles as the dataclasses did (their state, set
    field by field on load), the current format as tuples: both load back equal,
    the tuples smaller."""
    from webclean_scrapy.engine.formats import NO_MARKUP
    from webclean_scrapy.offload.jobs import extract_markup
    from webclean_scrapy.offload.worker import build_extractor, init_worker

    init_worker(build_extractor, "baseline", {})
    page = crawl.make_page(0, 10)
    result = extract_markup(None, page, "http://127.0.0.1/page/0", "text/html; charset=utf-8")
    job = (extract_markup, (None, page, "http://127.0.0.1/page/0", None, False, None, (), NO_MARKUP))
    for message in (result, job):
        state, tuples = crawl._dumps(message, state=True), crawl._dumps(message)
        assert pickle.loads(state) == pickle.loads(tuples) == message
        assert len(tuples) < len(state)
    size, micros = crawl.wire_cost([result, result], passes=1)
    assert size == len(crawl._dumps(result)) and micros > 0


def test_offload_cost_reports_each_wire_format(crawl, capsys):
    """Asked for fields, the result a worker sends back lacks what was not computed."""
    crawl.report_offload_cost(3, "baseline", ["text"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    assert [row.split(" | ")[0] for row in rows[1:]] == [
        "| complete, dataclass state (before)",
        "| complete",
        "| fields=text",
    ]
    job_bytes = [float(row.split(" | ")[1].replace(",", "")) for row in rows[1:]]
    result_bytes = [float(row.split(" | ")[2].replace(",", "")) for row in rows[1:]]
    assert job_bytes[1] < min(job_bytes[0], job_bytes[2])  # the defaults left out; the fields sent
    assert result_bytes[2] < result_bytes[1] < result_bytes[0]


def test_a_crawl_with_fewer_fields_is_a_row_of_its_own(tmp_path):
    """A real crawl per cell (the middleware off, process offload with all
    fields and with ``--fields``): each row names its fields, and extraction's
    share of the CPU is given beside the CPU it adds."""
    done = subprocess.run(
        [sys.executable, str(CRAWL), "--pages", "12", "--extractor", "baseline", "--mode", "off", "--mode", "process"]
        + ["--workers", "1", "--fields", "title,date"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith(("| baseline", "| - |"))]
    cells = {(row[1], row[2]): row for row in rows}
    assert set(cells) == {("all", "middleware off"), ("all", "process"), ("title,date", "process")}
    for fields in ("all", "title,date"):
        row = cells[fields, "process"]
        assert row[12] == "12"  # items
        assert row[8].endswith("%") and row[7].startswith(("+", "-"))  # share of CPU, extra CPU
