"""What a ``JOBDIR`` crawl killed with ``kill -9`` fetches again when resumed.

A local site of ``--pages`` generated articles (``benchmarks/crawl.py``'s
pages), listed 50 a page by hub pages the home page links, is served by a
thread of this process, which records every path asked for. ``scrapy crawl
news -s JOBDIR=...`` (the repository's project) runs in a subprocess and is
killed with ``SIGKILL`` once its output holds ``--kill-after`` items, then run
again with the same ``JOBDIR`` until it finishes. Reported: pages fetched by
each run, pages fetched by both (fetched again), the resumed run's
``webclean/resume/refetched``, and the items of both outputs (each article
must come out once). ``--scheduler scrapy`` runs the same with Scrapy's own
scheduler (its queue is set aside after a crash: the whole site is fetched again).

    python benchmarks/resume.py --pages 2000 --kill-after 600
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from crawl import machine, make_page  # noqa: E402  -- the sibling benchmark's pages
from webclean_scrapy.demo.server import LocalSite, Route, SiteHandler  # noqa: E402

PER_HUB = 50


def article_path(i: int) -> str:
    return f"/2024/05/story-{i}-council-river-bridge/"


def build_site(pages: int) -> dict[str, bytes]:
    site = {}
    for i in range(pages):
        body = make_page(i, pages).replace(f'href="/page/{i}">'.encode(), f'href="{article_path(i)}">'.encode(), 1)
        site[article_path(i)] = body
    hubs = [f"/archive/{n + 1}/" for n in range((pages + PER_HUB - 1) // PER_HUB)]
    for n, hub in enumerate(hubs):
        listed = range(n * PER_HUB, min(pages, (n + 1) * PER_HUB))
        links = "".join(f'<li><a href="{article_path(i)}">Story {i} of the archive</a></li>' for i in listed)
        site[hub] = f"<html><head><title>Archive {n + 1}</title></head><body><ul>{links}</ul></body></html>".encode()
    links = "".join(f'<li><a href="{hub}">Archive page {n + 1}</a></li>' for n, hub in enumerate(hubs))
    site["/"] = f"<html><head><title>Daily Bench</title></head><body><ul>{links}</ul></body></html>".encode()
    return site


class RecordingHandler(SiteHandler):
    """The demo server's handler, recording each path asked for."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.server.site.hits.append(self.path)  # type: ignore[attr-defined]
        super().do_GET()


class RecordingSite(LocalSite):
    handler = RecordingHandler

    def __init__(self, site: dict[str, bytes]) -> None:
        super().__init__({path: Route(body) for path, body in site.items()})
        self.hits: list[str] = []


def crawl(base: str, job: Path, output: Path, log: Path, scheduler: str, kill_after: int | None) -> str:
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-a", f"start_urls={base}/", "-a", "max_depth=2"]
    command += ["-a", "sitemaps=0", "-a", "feeds=0", "-s", f"JOBDIR={job}", "-s", "LOG_LEVEL=INFO"]
    command += ["-s", "AUTOTHROTTLE_ENABLED=0", "-s", "DOWNLOAD_DELAY=0", "-s", "TELNETCONSOLE_ENABLED=0"]
    command += ["-s", "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES=1", "-s", "CONCURRENT_REQUESTS=16"]
    if scheduler == "scrapy":
        command += ["-s", "SCHEDULER=scrapy.core.scheduler.Scheduler"]
    with log.open("wb") as log_file:
        proc = subprocess.Popen([*command, "-o", str(output)], cwd=REPO, stdout=log_file, stderr=subprocess.STDOUT)
    if kill_after is None:
        proc.wait()
    else:
        while (output.read_bytes().count(b"\n") if output.exists() else 0) < kill_after:
            if proc.poll() is not None:
                raise SystemExit(f"the crawl ended before {kill_after} items; see {log}")
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return log.read_text(errors="replace")


def stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--kill-after", type=int, default=600, help="items written before the kill")
    parser.add_argument("--scheduler", choices=("webclean", "scrapy"), default="webclean")
    args = parser.parse_args()
    site = build_site(args.pages)
    server = RecordingSite(site)
    server.start()
    hits, base = server.hits, server.base_url
    print(f"{args.pages} articles, {len(site)} pages; {machine()}; scheduler {args.scheduler}")
    with tempfile.TemporaryDirectory(prefix="webclean-resume-") as tmp:
        job, output = Path(tmp, "job"), Path(tmp, "out.jsonl")
        started = time.perf_counter()
        crawl(base, job, output, Path(tmp, "1.log"), args.scheduler, args.kill_after)
        killed_at = time.perf_counter() - started
        first = list(hits)
        written = output.read_bytes().count(b"\n")
        started = time.perf_counter()
        log = crawl(base, job, output, Path(tmp, "2.log"), args.scheduler, None)
        resumed_in = time.perf_counter() - started
        second = hits[len(first) :]
        urls = Counter(json.loads(line)["url"] for line in output.read_text().splitlines() if line.strip())
    server.shutdown()
    again = set(first) & set(second) - {"/robots.txt"}
    print(
        f"killed after {killed_at:.1f} s with {written} items and {len(set(first))} pages fetched; resumed run: "
        f"{resumed_in:.1f} s, {len(set(second))} pages fetched, {len(again)} of them fetched before the kill; "
        f"webclean/resume/refetched = {stat(log, 'webclean/resume/refetched')}; "
        f"items {sum(urls.values())} ({len(urls)} distinct of {args.pages} articles, "
        f"{sum(urls.values()) - len(urls)} twice); pid {os.getpid()}"
    )


if __name__ == "__main__":
    main()
