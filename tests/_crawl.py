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


def scrapy_crawl(spider: str, *options: str, args: dict[str, Any] | None = None,
                 settings: dict[str, Any] | None = None) -> subprocess.Popen[str]:
    """Start ``scrapy crawl <spider>`` (the real command, from the repository root) with
    :data:`TEST_SETTINGS`, *settings* as ``-s`` and *args* as ``-a``; *options* go last (``-O out.jsonl``).

    Its log goes to a temporary file (``proc.log_path``), so a long crawl never blocks on a full pipe.
    """
    import tempfile

    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in (args or {}).items():
        command += ["-a", f"{name}={value}"]
    for name, value in {**TEST_SETTINGS, **(settings or {})}.items():
        value = json.dumps(value) if isinstance(value, (dict, list)) else str(value)
        command += ["-s", f"{name}={value}"]
    log = tempfile.NamedTemporaryFile("w+", prefix=f"{spider}-", suffix=".log", delete=False)
    proc = subprocess.Popen([*command, *options], cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log_path = Path(log.name)  # type: ignore[attr-defined]
    log.close()
    return proc


def log_of(proc: subprocess.Popen[str]) -> str:
    path: Path = proc.log_path  # type: ignore[attr-defined]
    return path.read_text(encoding="utf-8", errors="replace")


def read_items(*paths: Path) -> list[dict[str, Any]]:
    """The items of JSON lines files (missing files hold none)."""
    items = []
    for path in paths:
        if path.exists():
            items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items


def kill_after_items(proc: subprocess.Popen[str], path: Path, count: int, timeout: float = 300) -> None:
    """``kill -9`` *proc* as soon as *path* holds *count* complete lines (not after a sleep:
    deterministic however loaded the machine). Fails if the crawl ended first."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    while True:
        lines = path.read_bytes().count(b"\n") if path.exists() else 0
        if lines >= count:
            proc.send_signal(signal.SIGKILL)
            break
        assert proc.poll() is None, f"the crawl ended before writing {count} items:\n{log_of(proc)[-3000:]}"
        assert time.monotonic() < deadline, f"no {count} items after {timeout} s:\n{log_of(proc)[-3000:]}"
        time.sleep(0.01)
    assert proc.wait(timeout=60) == -signal.SIGKILL, "the crawl had already finished when it was killed"


def finish(proc: subprocess.Popen[str], timeout: float = 300) -> str:
    """Wait for a crawl started with :func:`scrapy_crawl`; assert it succeeded; return its log."""
    code = proc.wait(timeout=timeout)
    log = log_of(proc)
    assert code == 0, log[-4000:]
    return log
