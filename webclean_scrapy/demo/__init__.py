"""``webclean demo``: crawl a small news site offline and score the result.

The site (``site/``, written for this project: a fictional town paper with
a home page, two sections, pagination, a tag page, eight articles wrapped in
navigation, adverts, cookie banner, related links, comments and footer, a
sitemap index with a news sitemap, an RSS feed, a PDF and a dead link) is
served on ``127.0.0.1`` by :class:`~webclean_scrapy.demo.server.LocalSite`.
The ``news`` spider crawls it through Scrapy with the project's polite
settings (AutoThrottle off: the server is local), writes JSON lines, and the
summary compares each item's text with the hand-written gold text in
``gold.jsonl`` using the 4-gram shingle score of the article-extraction
benchmark.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webclean_scrapy.demo.server import LocalSite

#: Settings on top of :data:`~webclean_scrapy.spiders.PROJECT_SETTINGS` for a local, one-shot crawl.
DEMO_SETTINGS: dict[str, Any] = {
    "AUTOTHROTTLE_ENABLED": False,
    "DOWNLOAD_DELAY": 0,
    "TELNETCONSOLE_ENABLED": False,
    "HTTPCACHE_ENABLED": False,
    "RETRY_ENABLED": False,
    # The demo server listens on 127.0.0.1, which the address guard refuses by default.
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
}


def site_dir() -> Path:
    return Path(str(resources.files(__name__).joinpath("site")))


def load_gold() -> dict[str, str]:
    """Gold main text by URL path."""
    text = resources.files(__name__).joinpath("gold.jsonl").read_text(encoding="utf-8")
    gold = {}
    for line in text.splitlines():
        if line.strip():
            record = json.loads(line)
            gold[record["path"]] = record["text"]
    return gold


@dataclass
class DemoSummary:
    items: int
    articles: int
    html_bytes: int
    text_bytes: int
    precision: float
    recall: float
    f1: float
    missing: list[str]
    stats: dict[str, Any]

    @property
    def space_saving(self) -> float:
        return 1 - self.text_bytes / self.html_bytes if self.html_bytes else 0.0

    def format(self, output: str) -> str:
        news = {k.removeprefix("news/"): v for k, v in sorted(self.stats.items()) if k.startswith("news/")}
        lines = [
            f"webclean demo: crawled the Larkford Ledger demo site with the news spider -> {output}",
            f"  items:          {self.items} (gold articles: {self.articles}"
            + (f"; missing: {', '.join(self.missing)}" if self.missing else "")
            + ")",
            f"  space saving:   {100 * self.space_saving:.1f}% ({self.html_bytes:,} HTML bytes -> "
            f"{self.text_bytes:,} text bytes)",
            f"  shingle F1:     {self.f1:.3f} (precision {self.precision:.3f}, recall {self.recall:.3f}; "
            "4-gram shingles vs gold)",
            "  crawl stats:    " + ", ".join(f"{k}={v}" for k, v in news.items()),
        ]
        return "\n".join(lines)


def summarise(items: list[dict[str, Any]], gold: dict[str, str], stats: dict[str, Any]) -> DemoSummary:
    """Score *items* against *gold* (keyed by URL path); a missing article scores zero recall."""
    from webclean_scrapy.evaluation import shingle_counts, shingle_dataset_prf

    by_path = {urlsplit(item["url"]).path: item for item in items}
    counts = [shingle_counts(by_path[path]["text"] if path in by_path else "", text) for path, text in gold.items()]
    prf = shingle_dataset_prf(counts)
    return DemoSummary(
        items=len(items),
        articles=len(gold),
        html_bytes=sum(item.get("html_bytes") or 0 for item in items),
        text_bytes=sum(len((item.get("text") or "").encode("utf-8")) for item in items),
        precision=prf.precision,
        recall=prf.recall,
        f1=prf.f1,
        missing=sorted(set(gold) - set(by_path)),
        stats=stats,
    )


def crawl(start_url: str, output: Path, *, extractor: str, log_level: str) -> dict[str, Any]:
    """Run the news spider in this process (once: Twisted's reactor cannot restart)."""
    from scrapy.crawler import CrawlerProcess

    from webclean_scrapy.spiders import PROJECT_SETTINGS, NewsSpider

    settings = {
        **PROJECT_SETTINGS,
        **DEMO_SETTINGS,
        "LOG_LEVEL": log_level,
        "WEBCLEAN_EXTRACTOR": extractor,
        "FEEDS": {str(output): {"format": "jsonlines", "overwrite": True}},
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(NewsSpider)
    process.crawl(crawler, start_urls=start_url)
    process.start()
    return dict(crawler.stats.get_stats()) if crawler.stats else {}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webclean demo",
        description="Crawl a bundled news site on 127.0.0.1 with the news spider (no internet needed), "
        "write the cleaned articles as JSON lines and score them against gold texts.",
    )
    parser.add_argument("-o", "--output", default="demo.jsonl", help="JSON lines output (default: %(default)s)")
    parser.add_argument("--extractor", default="default", help="extractor name (default: %(default)s)")
    parser.add_argument("--log-level", default="WARNING", help="Scrapy log level (default: %(default)s)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    output = Path(args.output)
    if output.parent and not output.parent.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
    site = LocalSite()
    site.add_directory(site_dir())
    with site:
        stats = crawl(site.url("/"), output, extractor=args.extractor, log_level=args.log_level)
    items = (
        [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines() if line.strip()]
        if output.exists()
        else []
    )
    summary = summarise(items, load_gold(), stats)
    print(summary.format(str(output)))
    if not items:
        print("webclean demo: the crawl produced no items (see the log above)", file=sys.stderr)
        return 1
    return 0
