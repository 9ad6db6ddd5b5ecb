"""Run one real Scrapy crawl in a subprocess and return its items and stats.

A subprocess per crawl because Twisted's reactor cannot be restarted inside
the pytest process. The crawl runs from the repository root with the
project's own settings (``scrapy.cfg`` -> ``spiders.settings``), plus
*settings* at command-line priority, exactly like ``scrapy crawl -s``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Fast and deterministic enough for local servers.
TEST_SETTINGS: dict[str, Any] = {
    "AUTOTHROTTLE_ENABLED": False,
    "DOWNLOAD_DELAY": 0,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    "HTTPCACHE_ENABLED": False,
    "RETRY_ENABLED": False,
    # The test servers listen on 127.0.0.1, which the address guard refuses by default.
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
}

_SCRIPT = """
import json, sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
config = json.loads(sys.argv[1])
settings = get_project_settings()
settings.setdict(config["settings"], priority="cmdline")
process = CrawlerProcess(settings)
crawler = process.create_crawler(config["spider"])
process.crawl(crawler, **config["args"])
process.start()
with open(config["stats"], "w", encoding="utf-8") as f:
    json.dump(crawler.stats.get_stats(), f, default=str)
"""


@dataclass
class CrawlResult:
    items: list[dict[str, Any]]
    stats: dict[str, Any]
    stderr: str

    def stat(self, key: str, default: Any = 0) -> Any:
        return self.stats.get(key, default)

    def prefixed(self, prefix: str) -> dict[str, Any]:
        return {k: v for k, v in self.stats.items() if k.startswith(prefix)}


def run_crawl(spider: str, tmp_path: Path, *, args: dict[str, Any] | None = None,
              settings: dict[str, Any] | None = None, timeout: float = 120) -> CrawlResult:
    out = tmp_path / f"{spider}-items.jsonl"
    stats = tmp_path / f"{spider}-stats.json"
    config = {
        "spider": spider,
        "args": {k: str(v) for k, v in (args or {}).items()},
        "settings": {**TEST_SETTINGS, "FEEDS": {str(out): {"format": "jsonlines"}}, **(settings or {})},
        "stats": str(stats),
    }
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps(config)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    return CrawlResult(items, json.loads(stats.read_text(encoding="utf-8")), proc.stderr)
