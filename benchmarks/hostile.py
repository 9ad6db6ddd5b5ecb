"""Pathological pages: what they cost, and what a crawl that meets one does.

Three measurements (``docs/BENCHMARKS.md``, "Hostile pages"):

``parse``
    Attribute bombs (one ``<div>`` with N attributes, values holding a quoted
    ``>``) of several sizes: libxml2's parse time as they are (each in a
    subprocess, cut off at ``--parse-limit`` seconds), the screen's time
    (:mod:`webclean_scrapy.engine.html.screen`), and parse and whole extraction once
    screened. Also the screen's speed on ordinary pages (the corpus under
    ``--data``, when present).
``crawl``
    The ``news`` spider (this repository's project settings) on a local site
    of ``--articles`` ordinary articles and one 1.9 MB attribute bomb, with
    ``CLOSESPIDER_TIMEOUT=10``: wall time, finish reason, items, and the
    longest reactor stall (a ``LoopingCall`` ticking every 10 ms).
``outline``
    What the ``news`` spider no longer does on the reactor thread per page
    (build the selector tree, read the article signals, the feed links and
    the links with Scrapy's ``LinkExtractor``) against what the extraction
    worker now does instead (:func:`~webclean_scrapy.offload.outline.page_outline`
    on the tree it parsed anyway) and the outline's pickled size, over the
    ``wcxb-dev`` pages.

    python benchmarks/hostile.py                      # all three
    python benchmarks/hostile.py --only crawl
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

PARAGRAPH = (
    "The council met on Tuesday evening to discuss the bridge, the budget and the new "
    "library, and residents spoke for over an hour about traffic on the main road. "
)


def article(title: str, extra: str = "") -> str:
    body = "".join(f"<p>{title}: {PARAGRAPH * 3}</p>" for _ in range(6))
    return (
        f'<html><head><title>{title}</title><meta property="og:type" content="article"></head>'
        f"<body><h1>{title}</h1>{extra}{body}</body></html>"
    )


def attribute_bomb(attributes: int) -> bytes:
    """An article with one element carrying *attributes* distinct attributes."""
    attrs = " ".join(f'data-a{i}=">"' for i in range(attributes))
    return article("Bombed story", extra=f"<div {attrs}>inside</div>").encode()


def _parse_seconds(body_path: str, limit: float) -> float | None:
    """libxml2's parse time for a file, in a subprocess; ``None`` past *limit*."""
    code = (
        "import sys,time; from lxml import etree; b=open(sys.argv[1],'rb').read(); "
        "t=time.perf_counter(); etree.fromstring(b, etree.HTMLParser()); print(time.perf_counter()-t)"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, body_path], capture_output=True, text=True, timeout=limit, check=True
        ).stdout
    except subprocess.TimeoutExpired:
        return None
    return float(out)


def bench_parse(args: argparse.Namespace) -> dict:
    from lxml import etree

    from webclean_scrapy import extract
    from webclean_scrapy.engine.html.screen import screen_markup

    rows = []
    for count in args.attributes:
        body = attribute_bomb(count)
        with tempfile.NamedTemporaryFile(suffix=".html") as f:
            f.write(body)
            f.flush()
            raw = _parse_seconds(f.name, args.parse_limit) if not args.skip_raw else None
        start = time.perf_counter()
        screened, reasons = screen_markup(body)
        screen_s = time.perf_counter() - start
        start = time.perf_counter()
        etree.fromstring(screened, etree.HTMLParser())
        parse_s = time.perf_counter() - start
        start = time.perf_counter()
        text = extract(body).text
        extract_s = time.perf_counter() - start
        rows.append(
            {
                "attributes": count,
                "bytes": len(body),
                "raw_parse_s": raw,
                "screen_s": screen_s,
                "screened_parse_s": parse_s,
                "extract_s": extract_s,
                "reasons": list(reasons),
                "text_kept": "inside" in text and PARAGRAPH.strip() in text,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    ordinary = {}
    pages = sorted(Path(args.data).glob("*/html/*.html.gz")) if Path(args.data).is_dir() else []
    if pages:
        total_bytes = 0
        seconds = 0.0
        flagged = 0
        for path in pages:
            body = gzip.decompress(path.read_bytes())
            total_bytes += len(body)
            start = time.perf_counter()
            flagged += bool(screen_markup(body)[1])
            seconds += time.perf_counter() - start
        ordinary = {
            "pages": len(pages),
            "megabytes": round(total_bytes / 1e6, 1),
            "seconds": round(seconds, 2),
            "mb_per_s": round(total_bytes / 1e6 / seconds, 1),
            "flagged": flagged,
        }
        print(json.dumps({"ordinary_pages": ordinary}), flush=True)
    return {"bombs": rows, "ordinary_pages": ordinary}


_CRAWL = """
import json, sys, time
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
config = json.loads(sys.argv[1])
settings = get_project_settings()
settings.setdict(config["settings"], priority="cmdline")
process = CrawlerProcess(settings)
crawler = process.create_crawler("news")
gaps, last = [], [None]
def tick():
    now = time.perf_counter()
    if last[0] is not None:
        gaps.append(now - last[0])
    last[0] = now
loops = []
def opened(spider):
    from twisted.internet import task  # after Scrapy installed its reactor
    loops.append(task.LoopingCall(tick))
    loops[0].start(0.01)
def closed(spider):
    if loops and loops[0].running:
        loops[0].stop()
from scrapy import signals
crawler.signals.connect(opened, signal=signals.spider_opened)
crawler.signals.connect(closed, signal=signals.spider_closed)
process.crawl(crawler, start_urls=config["start"], sitemaps="0")
start = time.perf_counter()
process.start()
stats = crawler.stats.get_stats()
print(json.dumps({"wall_s": time.perf_counter() - start, "longest_stall_ms": max(gaps) * 1000 if gaps else None,
                  "finish_reason": stats.get("finish_reason"), "items": stats.get("item_scraped_count", 0),
                  "webclean": {k: v for k, v in stats.items() if k.startswith("webclean/")
                               and ("screened" in k or "errors" in k or "pages" in k)}}, default=str))
"""


def bench_crawl(args: argparse.Namespace) -> dict:
    from webclean_scrapy.demo.server import LocalSite, Route

    day = "/2025/03/07/"
    paths = [f"{day}story-{n:03d}-about-the-town-council.html" for n in range(args.articles)]
    bomb_path = f"{day}bombed-story-about-the-bridge.html"
    bomb = attribute_bomb(args.bomb_attributes)
    routes = {
        p: Route(article(f"Story {i}").encode(), "text/html; charset=utf-8", 200, {}) for i, p in enumerate(paths)
    }
    routes[bomb_path] = Route(bomb, "text/html; charset=utf-8", 200, {})
    links = "".join(f'<a href="{p}">{p}</a> ' for p in [bomb_path, *paths])
    routes["/"] = Route(f"<html><body>{links}</body></html>".encode(), "text/html; charset=utf-8", 200, {})
    routes["/robots.txt"] = Route(b"User-agent: *\nAllow: /\n", "text/plain", 200, {})
    site = LocalSite(routes).start()
    try:
        config = {
            "start": site.base_url + "/",
            "settings": {
                "CLOSESPIDER_TIMEOUT": 10,
                "LOG_LEVEL": "WARNING",
                "AUTOTHROTTLE_ENABLED": False,
                "DOWNLOAD_DELAY": 0,
                "TELNETCONSOLE_ENABLED": False,
                "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
                "WEBCLEAN_OFFLOAD": args.offload,
                "WEBCLEAN_WORKERS": 2,
            },
        }
        proc = subprocess.run(
            [sys.executable, "-c", _CRAWL, json.dumps(config)], cwd=REPO, capture_output=True, text=True, timeout=900
        )
    finally:
        site.stop()
    if proc.returncode != 0 or not proc.stdout.strip():
        raise SystemExit(proc.stderr[-3000:])
    print(proc.stderr[-2000:], file=sys.stderr)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result.update(bomb_bytes=len(bomb), articles=args.articles + 1, offload=args.offload)
    print(json.dumps(result), flush=True)
    return result


def bench_outline(args: argparse.Namespace) -> dict:
    from scrapy.http import HtmlResponse
    from scrapy.linkextractors import LinkExtractor

    from webclean_scrapy.engine.document import Document, built_page
    from webclean_scrapy.engine.extractors import get_extractor
    from webclean_scrapy.engine.page_type.articles import PageSignals
    from webclean_scrapy.offload.outline import FEED_LINKS, page_outline

    pages = sorted((Path(args.data) / "wcxb-dev" / "html").glob("*.html.gz"))[: args.outline_pages]
    if not pages:
        print("no wcxb-dev pages under", args.data)
        return {}
    extractor = get_extractor("default")
    links = LinkExtractor(unique=True)
    reactor, parses, worker, sizes = [], [], [], []
    for i, path in enumerate(pages):
        body = gzip.decompress(path.read_bytes())
        url = f"https://news.example/2025/03/07/page-{i}.html"
        with built_page(lambda: Document.from_html(body, url=url, encoding="text/html")) as doc:
            extraction = extractor.extract(doc)
            start = time.perf_counter()
            outline = page_outline(doc, extraction)
            worker.append(time.perf_counter() - start)
        sizes.append(len(pickle.dumps(outline, protocol=pickle.HIGHEST_PROTOCOL)))
        # What parse_page did on the reactor before: a second parse and three reads.
        response = HtmlResponse(url, body=body, headers={"Content-Type": "text/html"})
        start = time.perf_counter()
        response.selector  # noqa: B018 (the second parse, timed)
        parses.append(time.perf_counter() - start)
        PageSignals.from_selector(response.selector, url, extraction.text, extraction.page_type)
        response.xpath(FEED_LINKS.path).getall()
        [link.url for link in links.extract_links(response) if not link.nofollow]
        reactor.append(time.perf_counter() - start)

    def summary(values: list[float], scale: float = 1000.0) -> dict:
        ordered = sorted(values)
        return {
            "median": round(statistics.median(ordered) * scale, 2),
            "mean": round(statistics.fmean(ordered) * scale, 2),
            "p99": round(ordered[int(len(ordered) * 0.99) - 1] * scale, 2),
            "max": round(ordered[-1] * scale, 2),
        }

    result = {
        "pages": len(pages),
        "reactor_ms_saved": summary(reactor),
        "of_which_parse_ms": summary(parses),
        "worker_ms_added": summary(worker),
        "outline_bytes": summary([float(s) for s in sizes], 1.0),
    }
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("parse", "crawl", "outline"), action="append")
    parser.add_argument("--attributes", type=int, nargs="+", default=[1_000, 10_000, 30_000, 100_000])
    parser.add_argument("--parse-limit", type=float, default=60.0, help="seconds before a raw parse is cut off")
    parser.add_argument("--skip-raw", action="store_true", help="do not time unscreened parses")
    parser.add_argument("--articles", type=int, default=30)
    parser.add_argument("--bomb-attributes", type=int, default=120_000, help="120,000: about 1.9 MB")
    parser.add_argument("--offload", default="process")
    parser.add_argument("--outline-pages", type=int, default=500)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    args = parser.parse_args()
    print(f"# {platform.node()} {platform.processor() or platform.machine()} Python {platform.python_version()}")
    for name in args.only or ("parse", "crawl", "outline"):
        {"parse": bench_parse, "crawl": bench_crawl, "outline": bench_outline}[name](args)


if __name__ == "__main__":
    main()
