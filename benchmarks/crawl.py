"""Crawl throughput and reactor stalls, by ``WEBCLEAN_OFFLOAD`` mode.

A local site of ``--pages`` generated news pages (navigation, article,
sidebar, comments, footer; 30-60 KB each, like the
median page of the evaluation corpora) is served from a separate process;
one Scrapy crawl per mode fetches every page through
:class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware` and yields
:class:`~webclean_scrapy.items.CleanedPage` items; like any crawling spider it
also reads each page's links with ``response.css`` (free when the ``thread``
workers already parsed the page, a second parse on the reactor otherwise).
Each crawl runs in its own process (a Twisted reactor starts once per process).
The components come from the add-on (``ADDONS = {"webclean_scrapy.Addon": 0}``,
with ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES`` since the site is on 127.0.0.1).

Mode ``off`` is the same crawl with the add-on's components switched off
(``WEBCLEAN_ENABLED=False``: no extraction at all, items with empty text):
the baseline that gives the cost of extraction, as throughput lost
(``1 - pages/s(mode) / pages/s(off)``) and as CPU time per page added (the
crawl process and its extraction workers, between spider open and close;
unlike wall time, a busy machine barely inflates it).

Reported per mode: pages/s (items over the time from spider open to close),
and the longest reactor stall: a ``LoopingCall`` ticks every 10 ms and the
largest gap between two ticks is recorded (10 ms means no stall at all), with
the 99th percentile and median gaps (the longest stall includes crawl start-up).

    python benchmarks/crawl.py --pages 1000 --extractor default --extractor baseline
    python benchmarks/crawl.py --pages 1000 --big-every 50   # 2% of pages are 1.5 MB
    python benchmarks/crawl.py --pages 1000 --distributed 2  # also 2 workers sharing one redis-server

The table also gives extraction's share of the crawl's CPU: the CPU time a
page costs beyond the ``off`` crawl's, over the CPU time it costs in all
(the crawl process and its workers).

``--fields NAMES`` (comma-separated, as ``WEBCLEAN_FIELDS`` takes them)
adds, per extractor and mode, a crawl whose items carry those optional
fields only: the metadata readers and the language model run only for what
they name.

``--offload-cost`` measures, without a crawl, what process offload adds to
each page of the site: the bytes pickled to send the page to a worker and
its result back, and the CPU time of pickling and unpickling both (best of
several passes), for the wire format of the complete crawl, of the
``--fields`` crawl, and of the format before the jobs left their default
options out and results pickled as plain tuples (``dataclass state``).

``--repeat R`` runs R rounds over all cells (extractor, mode, crawl
processes), interleaved so that a machine whose speed drifts weighs on all
cells alike; each cell's best run (by pages/s) is reported.

``--distributed N`` adds, per cell, a crawl by N worker processes sharing a
fresh local ``redis-server`` (scrapy-redis scheduler and dupefilter, as
``WEBCLEAN_REDIS_URL`` sets up; see docs/DISTRIBUTED.md). Its pages/s are all
workers' items over the time from the first spider open to the last close,
its CPU ms/page all workers' CPU time over all their items, and its "slower
than off" compares it with the distributed ``off`` crawl.
"""

from __future__ import annotations

import argparse
import copyreg
import io
import json
import multiprocessing
import os
import pickle
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve()
#: ``WEBCLEAN_OFFLOAD`` values, plus ``off``: webclean's components not enabled (no extraction).
MODES = ("off", "none", "thread", "process")

WORDS = """the council river bridge market school station report minister plan city water energy
price worker union court police hospital road village farmer season harvest storm coast museum
library festival budget tax election vote party leader member resident street tunnel railway
airport engineer scientist study research data result figure growth crisis summer winter spring
autumn morning evening week month year history future decision change support concern
""".split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 24))]
    return " ".join(words).capitalize() + rng.choice([".", ".", ".", ", they said.", "?"])


def make_page(i: int, total: int, big_every: int = 0) -> bytes:
    """A deterministic, realistic news page; every *big_every*-th one carries a
    huge comment thread (about 1.5 MB), the pages that stall an inline extractor."""
    rng = random.Random(i)
    big = bool(big_every) and i % big_every == big_every - 1
    nav = "".join(
        f'<li class="nav-item"><a href="/section/{s}">{w.title()}</a><ul class="mega">'
        + "".join(f'<li><a href="/section/{s}/{k}">{_sentence(rng)[:40]}</a></li>' for k in range(8))
        + "</ul></li>"
        for s, w in enumerate(rng.sample(WORDS, 12))
    )
    paragraphs = "".join(
        f"<p>{' '.join(_sentence(rng) for _ in range(rng.randint(2, 6)))}</p>" for _ in range(rng.randint(8, 24))
    )
    related = "".join(
        f'<li><div class="card"><a href="/page/{rng.randrange(total)}"><span class="kicker">{rng.choice(WORDS)}</span>'
        f'{_sentence(rng)}</a><span class="time">{rng.randrange(59)} min ago</span></div></li>'
        for _ in range(20)
    )
    comments = "".join(
        f'<div class="comment"><span class="author">user{rng.randrange(999)}</span><p>{_sentence(rng)}</p></div>'
        for _ in range(rng.randint(0, 25) + (12000 if big else 0))
    )
    footer = "".join(f'<a href="/about/{k}">{w}</a> ' for k, w in enumerate(rng.sample(WORDS, 40)))
    scripts = "".join(
        "<script>" + "var x = {};".join(str(rng.random()) for _ in range(150)) + "</script>" for _ in range(4)
    )
    title = _sentence(rng)[:70]
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} - Daily Bench</title>
<meta property="og:title" content="{title}"><link rel="canonical" href="/page/{i}">
<style>.nav-item{{display:inline}} .comment{{margin:1em}}</style>{scripts}</head>
<body><div id="wrap"><header><div class="logo"><a href="/">Daily Bench</a></div><nav><ul>{nav}</ul></nav></header>
<div class="content"><main><article><h1>{title}</h1><div class="meta">By Staff Writer, {i % 28 + 1} May</div>
{paragraphs}</article><section class="comments"><h2>Comments</h2>{comments}</section></main>
<aside class="sidebar"><h3>Most read</h3><ul>{related}</ul><div class="ad">Advertisement</div></aside></div>
<footer><div class="links">{footer}</div><p>&copy; Daily Bench. All rights reserved.</p></footer></div>
</body></html>""".encode()


def serve(pages: int, big_every: int, port_queue: multiprocessing.Queue) -> None:
    """Serve the site forever (in its own process, so it shares no GIL with the crawl)."""
    site = {f"/page/{i}": make_page(i, pages, big_every) for i in range(pages)}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            body = site.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_queue.put(server.server_address[1])
    server.serve_forever()


# -- the child: one crawl ------------------------------------------------------------
def run_child(
    base: str,
    pages: int,
    mode: str,
    extractor: str,
    workers: int,
    concurrency: int,
    out: str,
    redis_url: str | None = None,
    fields: list[str] | None = None,
) -> None:
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    from webclean_scrapy.items import CleanedPage

    class StallMeter:
        """Largest gap between 10 ms ticks of the reactor, the crawl's wall time and CPU time."""

        def __init__(self) -> None:
            self.gaps: list[float] = []
            self.last = 0.0
            self.loop = None
            self.opened = self.closed = 0.0
            self.opened_at = self.closed_at = 0.0
            self.cpu_opened = self.cpu_closed = 0.0
            self.crawler = None

        def tick(self) -> None:
            now = time.perf_counter()
            if self.last:
                self.gaps.append(now - self.last)
            self.last = now

        def spider_opened(self) -> None:
            from twisted.internet.task import LoopingCall  # after Scrapy installed its reactor

            self.opened = time.perf_counter()
            self.opened_at = time.time()
            self.cpu_opened = crawl_cpu_seconds(self.crawler)
            self.loop = LoopingCall(self.tick)
            self.loop.start(0.01)

        def spider_closed(self) -> None:
            self.closed = time.perf_counter()
            self.closed_at = time.time()
            self.cpu_closed = crawl_cpu_seconds(self.crawler)  # before the worker pool shuts down
            if self.loop is not None and self.loop.running:
                self.loop.stop()

    class BenchSpider(scrapy.Spider):
        name = "bench"

        async def start(self):
            for i in range(pages):
                yield scrapy.Request(f"{base}/page/{i}")

        def parse(self, response):
            # A crawling spider reads the links of every page: this reuses the tree
            # the "thread" workers parsed, and parses again for the other modes.
            self.crawler.stats.inc_value("bench/links", len(response.css("a::attr(href)").getall()))
            yield CleanedPage.from_response(response)

    from scrapy.settings import Settings

    # Mode off keeps the add-on (same fingerprinter, robots.txt middleware...)
    # with its webclean components off, so the difference is extraction alone.
    webclean = (
        {"WEBCLEAN_ENABLED": False}
        if mode == "off"
        else {
            "WEBCLEAN_OFFLOAD": mode,
            "WEBCLEAN_EXTRACTOR": extractor,
            "WEBCLEAN_WORKERS": workers,
            "WEBCLEAN_FIELDS": fields,
        }
    )
    settings = Settings(
        {
            "LOG_LEVEL": "ERROR",
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            "CONCURRENT_REQUESTS": concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
            "ADDONS": {"webclean_scrapy.Addon": 0},
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,  # the site is on 127.0.0.1
            "WEBCLEAN_REDIS_URL": redis_url,
            **webclean,
        }
    )
    if redis_url:
        from webclean_scrapy.crawlstate.distributed import configure_settings

        configure_settings(settings)
    process = CrawlerProcess(settings)
    meter = StallMeter()
    crawler = process.create_crawler(BenchSpider)
    meter.crawler = crawler
    crawler.signals.connect(meter.spider_opened, signal=signals.spider_opened)
    crawler.signals.connect(meter.spider_closed, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    items = stats.get("item_scraped_count", 0)
    seconds = meter.closed - meter.opened
    gaps = sorted(meter.gaps) or [0.0]
    cpu_seconds = meter.cpu_closed - meter.cpu_opened
    Path(out).write_text(
        json.dumps(
            {
                "mode": mode,
                "extractor": "-" if mode == "off" else extractor,
                "fields": "all" if fields is None or mode == "off" else ",".join(fields),
                "items": items,
                "seconds": seconds,
                "opened_at": meter.opened_at,
                "closed_at": meter.closed_at,
                "pages_per_s": items / seconds if seconds else 0.0,
                "max_stall_ms": max(gaps) * 1000,
                "p99_stall_ms": gaps[int(len(gaps) * 0.99)] * 1000,
                "p50_stall_ms": gaps[len(gaps) // 2] * 1000,
                "extracted": stats.get("webclean/pages/extracted", 0),
                "errors": stats.get("webclean/errors", 0),
                "extraction_seconds": stats.get("webclean/extraction_seconds", 0.0),
                "cpu_seconds": cpu_seconds,
                "cpu_ms_per_page": 1000 * cpu_seconds / items if items else 0.0,
            }
        )
    )


def crawl_cpu_seconds(crawler: object) -> float:
    """CPU time (user + system) of this crawl process and of its extraction worker processes.

    A figure that a busy machine does not inflate the way it inflates wall time.
    The workers of ``WEBCLEAN_OFFLOAD="process"`` are children of the forkserver,
    not of this process, so they are read from ``/proc`` (Linux only; 0 elsewhere).
    """
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    pool = getattr(getattr(crawler, "_webclean_offloader", None), "_processes", None)
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pool.worker_pids() if pool is not None else ():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


# -- the parent: server, one child per mode, table -----------------------------------
def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu}, Python {platform.python_version()}"


def _names(value: str) -> list[str]:
    """A comma-separated list of field names, as ``WEBCLEAN_FIELDS`` takes it on a command line."""
    return [name.strip() for name in value.split(",") if name.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--extractor", action="append", help="repeatable; default: default and baseline")
    parser.add_argument("--mode", action="append", choices=MODES, help="repeatable; default: all")
    parser.add_argument("--workers", type=int, default=None, help="WEBCLEAN_WORKERS (default: CPUs)")
    parser.add_argument("--big-every", type=int, default=0, help="every Nth page is a ~1.5 MB page (0: none)")
    parser.add_argument("--concurrency", type=int, default=16, help="CONCURRENT_REQUESTS")
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds over all cells (interleaved); each cell's best run is reported"
    )
    parser.add_argument(
        "--distributed",
        type=int,
        default=0,
        metavar="N",
        help="also crawl with N workers sharing one local redis-server (0: no)",
    )
    parser.add_argument(
        "--fields",
        type=_names,
        metavar="NAMES",
        help="also crawl with WEBCLEAN_FIELDS=NAMES (comma-separated, e.g. title,date)",
    )
    parser.add_argument(
        "--offload-cost",
        action="store_true",
        help="measure what process offload pickles per page and its CPU time, then exit (no crawl)",
    )
    parser.add_argument("--child", nargs=2, metavar=("BASE", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--child-fields", type=_names, help=argparse.SUPPRESS)
    parser.add_argument("--redis", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    workers = args.workers or len(os.sched_getaffinity(0))
    extractors = args.extractor or ["default", "baseline"]
    modes = args.mode or list(MODES)
    if args.child:
        run_child(
            args.child[0],
            args.pages,
            modes[0],
            extractors[0],
            workers,
            args.concurrency,
            args.child[1],
            args.redis,
            args.child_fields,
        )
        return
    if args.offload_cost:
        report_offload_cost(args.pages, extractors[0], args.fields)
        return

    queue: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(args.pages, args.big_every, queue), daemon=True)
    server.start()
    base = f"http://127.0.0.1:{queue.get(timeout=120)}"
    sample = make_page(0, args.pages)
    print(
        f"site: {args.pages} pages, e.g. {len(sample)} bytes; {machine()}; WEBCLEAN_WORKERS={workers}, "
        f"CONCURRENT_REQUESTS={args.concurrency}, big page every {args.big_every or 'never'}"
    )
    # Every cell (extractor, mode, crawl processes) once per round, rounds repeated:
    # a machine whose speed drifts then weighs on all cells alike. Each cell's best run is kept.
    procs = [1, args.distributed] if args.distributed else [1]
    asked = [None, ",".join(args.fields)] if args.fields is not None else [None]
    cells = [
        (extractor, mode, n, fields)
        for extractor in extractors
        for mode in modes
        for n in procs
        for fields in asked
        if mode != "off" or (extractor == extractors[0] and fields is None)
    ]  # no extractor runs when off: once is enough
    best: dict[tuple[str, str, int, str | None], dict] = {}
    out = Path(f"/tmp/webclean-bench-{os.getpid()}.json")
    try:
        for _ in range(args.repeat):
            for extractor, mode, n, fields in cells:
                child = [
                    sys.executable,
                    str(HERE),
                    "--pages",
                    str(args.pages),
                    "--mode",
                    mode,
                    "--extractor",
                    extractor,
                    "--workers",
                    str(workers),
                    "--concurrency",
                    str(args.concurrency),
                    *(["--child-fields", fields] if fields is not None else []),
                ]
                if n == 1:
                    subprocess.run([*child, "--child", base, str(out)], check=True)
                    result = {**json.loads(out.read_text()), "workers": 1}
                else:
                    result = run_distributed(child, base, n)
                label = "" if n == 1 else f" x{n} workers + Redis"
                label += "" if fields is None else f" fields={fields}"
                print(
                    f"{extractor:>10} {mode:>8}{label}: {result['pages_per_s']:7.1f} pages/s, "
                    f"{result['cpu_ms_per_page']:.1f} CPU ms/page, "
                    f"max stall {result['max_stall_ms']:7.1f} ms (p99 {result['p99_stall_ms']:.1f}, "
                    f"p50 {result['p50_stall_ms']:.1f}), {result['items']} items, {result['errors']} errors",
                    flush=True,
                )
                cell = (extractor, mode, n, fields)
                if cell not in best or result["pages_per_s"] > best[cell]["pages_per_s"]:
                    best[cell] = result
    finally:
        server.terminate()
        out.unlink(missing_ok=True)
    rows = [best[cell] for cell in cells]
    offs = {row["workers"]: row for row in rows if row["mode"] == "off"}  # the baseline per crawl processes
    print()
    print(
        "| extractor | WEBCLEAN_FIELDS | WEBCLEAN_OFFLOAD | crawl processes | pages/s | slower than off | CPU ms/page "
        "| extra CPU ms/page | extraction share of CPU | longest reactor stall (ms) | p99 tick gap (ms) "
        "| median tick gap (ms) | items | extraction s (sum) |"
    )
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        off = offs.get(row["workers"])
        if off is None or row is off:
            cost = extra = share = "-"
        else:
            cost = f"{100 * (1 - row['pages_per_s'] / off['pages_per_s']):.0f}%" if off["pages_per_s"] else "-"
            added = row["cpu_ms_per_page"] - off["cpu_ms_per_page"]
            extra = f"{added:+.1f}"
            share = f"{100 * added / row['cpu_ms_per_page']:.0f}%" if row["cpu_ms_per_page"] else "-"
        mode = "middleware off" if row["mode"] == "off" else row["mode"]
        n = "1" if row["workers"] == 1 else f"{row['workers']} + Redis"
        print(
            f"| {row['extractor']} | {row.get('fields', 'all')} | {mode} | {n} | {row['pages_per_s']:.1f} | {cost} "
            f"| {row['cpu_ms_per_page']:.1f} | {extra} | {share} | {row['max_stall_ms']:.1f} "
            f"| {row['p99_stall_ms']:.1f} | {row['p50_stall_ms']:.1f} | {row['items']} | {row['extraction_seconds']:.1f} |"
        )


class _DataclassStatePickler(pickle.Pickler):
    """Pickles extractions, page results and markup flags as a dataclass's state
    (``__getstate__``, loaded by ``__setstate__``), the wire format before they pickled as tuples."""

    def reducer_override(self, obj: object) -> object:
        from webclean_scrapy.engine.extraction import Extraction
        from webclean_scrapy.engine.formats import Markup
        from webclean_scrapy.offload.jobs import PageResult

        if type(obj) in (Extraction, PageResult, Markup):
            return copyreg.__newobj__, (type(obj),), obj.__getstate__()  # type: ignore[attr-defined]
        return NotImplemented


def _dumps(value: object, state: bool = False) -> bytes:
    """*value* pickled as a worker's pipe pickles it; *state*: the former wire format."""
    if not state:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    buffer = io.BytesIO()
    _DataclassStatePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def wire_cost(messages: list[object], state: bool = False, passes: int = 5) -> tuple[float, float]:
    """Bytes per message, and CPU microseconds per message to pickle and unpickle it
    (the best of *passes* passes: the least disturbed by a busy machine)."""
    blobs = [_dumps(message, state) for message in messages]
    best = float("inf")
    for _ in range(passes):
        start = time.process_time()
        for message in messages:
            pickle.loads(_dumps(message, state))
        best = min(best, time.process_time() - start)
    return sum(map(len, blobs)) / len(blobs), 1e6 * best / len(messages)


def report_offload_cost(pages: int, extractor: str, fields: list[str] | None) -> None:
    """Print what process offload pickles per page of the site, each way, and the CPU
    time of (un)pickling it, for each wire format (module docstring)."""
    from webclean_scrapy.engine.fields import check_fields
    from webclean_scrapy.engine.formats import NO_MARKUP
    from webclean_scrapy.offload.jobs import extract_markup
    from webclean_scrapy.offload.worker import build_extractor, init_worker

    init_worker(build_extractor, extractor, {})
    bodies = [make_page(i, pages) for i in range(pages)]
    urls = [f"http://127.0.0.1:8000/page/{i}" for i in range(pages)]
    content_type = "text/html; charset=utf-8"
    # What Offloader.extract_response submits: the function and its arguments (the pool pickles the pair).
    every_option = (False, None, (), NO_MARKUP)
    wanted = check_fields(fields) if fields is not None else None
    formats = [
        ("complete, dataclass state (before)", every_option, None, True),
        ("complete", (), None, False),
    ]
    if wanted is not None:
        formats.append((f"fields={','.join(fields or [])}", (*every_option, wanted), wanted, False))
    print(f"offload wire cost: {pages} site pages, extractor {extractor}, {machine()}")
    print("| wire format | job bytes/page | result bytes/page | (un)pickling CPU µs/page, job | ..., result |")
    print("|---|---:|---:|---:|---:|")
    for label, options, asked, state in formats:
        jobs = [(extract_markup, (None, body, url, content_type, *options)) for body, url in zip(bodies, urls)]
        results = [
            ("ok", extract_markup(None, body, url, content_type, False, None, (), NO_MARKUP, asked))
            for body, url in zip(bodies, urls)
        ]
        job_bytes, job_us = wire_cost(jobs, state)
        result_bytes, result_us = wire_cost(results, state)
        print(f"| {label} | {job_bytes:,.0f} | {result_bytes:,.0f} | {job_us:.1f} | {result_us:.1f} |")


def run_distributed(child: list[str], base: str, count: int) -> dict:
    """One crawl by *count* workers sharing a fresh redis-server; their figures combined."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("--distributed needs redis-server (Debian package redis-server)")
    with tempfile.TemporaryDirectory(prefix="webclean-bench-redis-") as tmp, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        redis = subprocess.Popen(
            [server, "--bind", "127.0.0.1", "--port", str(port), "--dir", tmp, "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        try:
            import redis as redis_py

            client = redis_py.Redis(port=port)
            for _ in range(600):
                try:
                    client.ping()
                    break
                except redis_py.ConnectionError:
                    time.sleep(0.05)
            outs = [Path(tmp, f"worker{i}.json") for i in range(count)]
            workers = [
                subprocess.Popen([*child, "--redis", f"redis://127.0.0.1:{port}/0", "--child", base, str(out)])
                for out in outs
            ]
            for worker in workers:
                if worker.wait() != 0:
                    raise SystemExit("a distributed worker failed")
            results = [json.loads(out.read_text()) for out in outs]
        finally:
            redis.terminate()
            redis.wait()
    items = sum(r["items"] for r in results)
    seconds = max(r["closed_at"] for r in results) - min(r["opened_at"] for r in results)
    return {
        **results[0],
        "workers": count,
        "items": items,
        "seconds": seconds,
        "pages_per_s": items / seconds if seconds else 0.0,
        "max_stall_ms": max(r["max_stall_ms"] for r in results),
        "p99_stall_ms": max(r["p99_stall_ms"] for r in results),
        "p50_stall_ms": max(r["p50_stall_ms"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "extraction_seconds": sum(r["extraction_seconds"] for r in results),
        "cpu_seconds": sum(r["cpu_seconds"] for r in results),
        "cpu_ms_per_page": 1000 * sum(r["cpu_seconds"] for r in results) / items if items else 0.0,
    }


if __name__ == "__main__":
    main()
