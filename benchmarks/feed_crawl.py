"""The ``news`` spider with and without a huge feed: feeds must not stall the crawl.

A local site of ``--pages`` generated news pages (``benchmarks/crawl.py``'s
pages) is served from a separate process; its home page links every page.
The crawl runs twice, each in its own process: once as is, once with the
home page announcing an RSS feed of ``--feed-mb`` megabytes whose items all
point at the site's own pages (each URL with its own fragment, so every
item is a distinct string and nothing more is fetched). Reported per crawl:
wall time from spider open to close, pages/s, and the reactor's longest
stall (a ``LoopingCall`` ticking every 10 ms, as in ``crawl.py``). The feed is
parsed in the extraction workers (``webclean_scrapy.offload.listings``) and
capped by ``WEBCLEAN_MAX_FEED_LINKS``; the goal is a crawl with the feed
within twice the time of the crawl without it.

    python benchmarks/feed_crawl.py --pages 300 --feed-mb 10
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

from crawl import machine, make_page  # noqa: E402  -- the sibling benchmark's pages


def story_path(i: int) -> str:
    return f"/2024/05/story-{i}-council-river-bridge/"


def build_site(pages: int, feed_mb: float, base: str) -> dict[str, bytes]:
    site = {}
    for i in range(pages):
        body = make_page(i, pages).replace(f'href="/page/{i}">'.encode(), f'href="{story_path(i)}">'.encode(), 1)
        site[story_path(i)] = body
    feed = b'<link rel="alternate" type="application/rss+xml" href="/feed.xml">' if feed_mb else b""
    links = "".join(f'<li><a href="{story_path(i)}">Story number {i} of the day</a></li>' for i in range(pages))
    site["/"] = (
        f"<!DOCTYPE html><html><head><title>Daily Bench</title>{feed.decode()}</head>"
        f"<body><h1>Daily Bench</h1><ul>{links}</ul></body></html>"
    ).encode()
    if feed_mb:
        items, size, n = [], 0, 0
        while size < feed_mb * 1_000_000:
            item = f"<item><title>Item {n}</title><link>{base}{story_path(n % pages)}#e{n}</link></item>"
            items.append(item)
            size += len(item)
            n += 1
        site["/feed.xml"] = (
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Daily Bench</title>{"".join(items)}'
            "</channel></rss>"
        ).encode()
    return site


def serve(pages: int, feed_mb: float, port_queue: multiprocessing.Queue) -> None:
    """Serve the site forever, in its own process."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    site = build_site(pages, feed_mb, f"http://127.0.0.1:{server.server_address[1]}")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            body = site.get(self.path)
            self.send_response(200 if body else 404)
            kind = "application/rss+xml" if self.path.endswith(".xml") else "text/html; charset=utf-8"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server.RequestHandlerClass = Handler
    server.daemon_threads = True
    port_queue.put((server.server_address[1], len(site.get("/feed.xml", b""))))
    server.serve_forever()


def run_child(base: str, out: str, workers: int) -> None:
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.settings import Settings

    from webclean_scrapy.spiders.news import NewsSpider

    ticks: list[float] = []
    times: dict[str, float] = {}
    loops: list = []

    def tick() -> None:
        ticks.append(time.perf_counter())

    def opened() -> None:
        from twisted.internet.task import LoopingCall

        times["opened"] = time.perf_counter()
        loops.append(LoopingCall(tick))
        loops[0].start(0.01)

    def closed() -> None:
        times["closed"] = time.perf_counter()
        if loops and loops[0].running:
            loops[0].stop()

    settings = Settings(
        {
            "LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "ERROR"),
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            "AUTOTHROTTLE_ENABLED": False,
            "DOWNLOAD_DELAY": 0,
            "CONCURRENT_REQUESTS": 16,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
            "ADDONS": {"webclean_scrapy.Addon": 0},
            "WEBCLEAN_WORKERS": workers,
        }
    )
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(NewsSpider)
    crawler.signals.connect(opened, signal=signals.spider_opened)
    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler, start_urls=base + "/", sitemaps="0", max_depth="1")
    process.start()
    stats = crawler.stats.get_stats()
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:])) or [0.0]
    seconds = times["closed"] - times["opened"]
    items = stats.get("item_scraped_count", 0)
    Path(out).write_text(
        json.dumps(
            {
                "items": items,
                "seconds": seconds,
                "pages_per_s": items / seconds if seconds else 0.0,
                "max_stall_ms": gaps[-1] * 1000,
                "p99_stall_ms": gaps[int(len(gaps) * 0.99)] * 1000,
                "feed_urls": stats.get("news/feed_urls", 0),
                "truncated": stats.get("news/feeds/truncated", 0),
                "off_reactor": stats.get("news/listings/off_reactor", 0),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--feed-mb", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--child", nargs=2, metavar=("BASE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(args.child[0], args.child[1], args.workers)
        return
    print(f"{args.pages} pages; {machine()}; WEBCLEAN_WORKERS={args.workers}")
    out = Path(tempfile.gettempdir()) / f"webclean-feed-bench-{os.getpid()}.json"
    results = {}
    try:
        for feed_mb in (0.0, args.feed_mb):
            queue: multiprocessing.Queue = multiprocessing.Queue()
            server = multiprocessing.Process(target=serve, args=(args.pages, feed_mb, queue), daemon=True)
            server.start()
            port, feed_bytes = queue.get(timeout=300)
            try:
                command = [sys.executable, str(HERE), "--workers", str(args.workers)]
                subprocess.run([*command, "--child", f"http://127.0.0.1:{port}", str(out)], check=True)
            finally:
                server.terminate()
            result = json.loads(out.read_text())
            results[feed_mb] = result
            label = f"with a {feed_bytes / 1e6:.1f} MB feed" if feed_mb else "without a feed"
            print(
                f"{label:>24}: {result['seconds']:.2f} s, {result['pages_per_s']:.1f} pages/s, {result['items']} items, "
                f"longest stall {result['max_stall_ms']:.0f} ms (p99 {result['p99_stall_ms']:.0f}), "
                f"feed URLs {result['feed_urls']} (+{result['truncated']} cut), "
                f"listings read off the reactor {result['off_reactor']}",
                flush=True,
            )
    finally:
        out.unlink(missing_ok=True)
    ratio = results[args.feed_mb]["seconds"] / results[0.0]["seconds"]
    print(f"crawl time with the feed / without: {ratio:.2f}x (goal: at most 2x)")


if __name__ == "__main__":
    main()
