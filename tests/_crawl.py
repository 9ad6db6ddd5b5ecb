"""The one harness for end-to-end crawls: the real ``scrapy crawl`` command in a subprocess.

A subprocess per crawl because Twisted's reactor cannot be restarted inside
the pytest process (components are unit-tested in-process instead, with
``scrapy.utils.test.get_crawler``). :func:`start_crawl` runs
``python -m scrapy crawl <spider> -a ... -s ... -O <items>`` from a project
directory (the repository's own project by default: ``scrapy.cfg`` ->
``spiders.settings``), exactly as a user would, with :data:`TEST_SETTINGS`
and *settings* as ``-s``. The crawl's log goes to a file (a long crawl never
blocks on a full pipe) and its final stats to a JSON file, through
:class:`StatsToFile` (``STATS_CLASS``). :func:`run_crawl` starts one and waits
for it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy.statscollectors import MemoryStatsCollector

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent

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


class StatsToFile(MemoryStatsCollector):
    """Scrapy's stats collector, which also writes the final stats to ``TEST_STATS_FILE`` (JSON)."""

    def _persist_stats(self, stats: dict[str, Any]) -> None:
        super()._persist_stats(stats)
        path = self._crawler.settings.get("TEST_STATS_FILE")
        if path:
            Path(path).write_text(json.dumps(stats, default=str), encoding="utf-8")


def _setting(value: Any) -> str:
    """A value as ``scrapy crawl -s`` takes it: dicts as JSON, lists comma-separated."""
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


@dataclass
class CrawlResult:
    items: list[dict[str, Any]]
    stats: dict[str, Any]
    log: str

    def stat(self, key: str, default: Any = 0) -> Any:
        return self.stats.get(key, default)

    def prefixed(self, prefix: str) -> dict[str, Any]:
        return {k: v for k, v in self.stats.items() if k.startswith(prefix)}


class Crawl:
    """A running ``scrapy crawl``: :meth:`finish` waits for it, :meth:`kill_after_items` kills it mid-crawl."""

    def __init__(self, proc: subprocess.Popen[bytes], output: Path, stats: Path, log: Path) -> None:
        self.proc, self.output, self.stats_path, self.log_path = proc, output, stats, log

    @property
    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait(self, timeout: float = 300) -> int:
        """The exit code (whatever it is)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the crawl did not end within {timeout} s:\n{self.log[-3000:]}") from None

    def finish(self, timeout: float = 300) -> CrawlResult:
        """Wait for the crawl; assert it succeeded; its items, stats and log."""
        code = self.wait(timeout)
        log = self.log
        assert code == 0, log[-4000:]
        stats = json.loads(self.stats_path.read_text(encoding="utf-8")) if self.stats_path.exists() else {}
        return CrawlResult(read_items(self.output), stats, log)

    def kill_after_items(self, count: int, timeout: float = 300) -> None:
        """``kill -9`` the crawl as soon as its output holds *count* complete lines (not after a
        sleep: deterministic however loaded the machine). Fails if the crawl ended first."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.output.read_bytes().count(b"\n") if self.output.exists() else 0
            if lines >= count:
                self.proc.send_signal(signal.SIGKILL)
                break
            assert self.proc.poll() is None, f"the crawl ended before writing {count} items:\n{self.log[-3000:]}"
            assert time.monotonic() < deadline, f"no {count} items after {timeout} s:\n{self.log[-3000:]}"
            time.sleep(0.01)
        assert self.proc.wait(timeout=60) == -signal.SIGKILL, "the crawl had already finished when it was killed"


def start_crawl(
    spider: str,
    tmp_path: Path,
    *,
    args: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    output: Path | None = None,
    project: Path = REPO_ROOT,
    env: dict[str, str] | None = None,
    **popen: Any,
) -> Crawl:
    """Start ``scrapy crawl <spider>`` in *project* with :data:`TEST_SETTINGS` and *settings*
    (``-s``), *args* (``-a``), items to *output* (``-O``; ``tmp_path/<spider>-items.jsonl`` by
    default). *env* replaces the environment (``tests/`` is put on its ``PYTHONPATH`` either way,
    for :class:`StatsToFile`); *popen* goes to :class:`subprocess.Popen` (``preexec_fn``...)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    output = output or tmp_path / f"{spider}-items.jsonl"
    stats = tmp_path / f"{output.stem}-stats.json"
    stats.unlink(missing_ok=True)
    log = tmp_path / f"{output.stem}-{time.monotonic_ns()}.log"
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in (args or {}).items():
        command += ["-a", f"{name}={value}"]
    all_settings = {
        **TEST_SETTINGS,
        "STATS_CLASS": "_crawl.StatsToFile",
        "TEST_STATS_FILE": str(stats),
        **(settings or {}),
    }
    for name, value in all_settings.items():
        command += ["-s", f"{name}={_setting(value)}"]
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [*command, "-O", str(output)], cwd=project, env=env, stdout=log_file, stderr=subprocess.STDOUT, **popen
        )
    return Crawl(proc, output, stats, log)


def run_crawl(spider: str, tmp_path: Path, *, timeout: float = 300, **options: Any) -> CrawlResult:
    """Run one crawl to its end (:func:`start_crawl`'s options); assert it succeeded."""
    return start_crawl(spider, tmp_path, **options).finish(timeout)


def refused_crawl(spider: str, tmp_path: Path, *, args: dict[str, Any], message: str) -> str:
    """Run ``scrapy crawl <spider>`` with arguments it must refuse; assert it exits non-zero with
    *message* in its log once and no traceback; the log."""
    crawl = start_crawl(spider, tmp_path, args=args, settings={"LOG_LEVEL": "DEBUG"})
    code = crawl.wait(timeout=120)
    log = crawl.log
    assert code != 0, log[-3000:]
    assert log.count(message) == 1, log[-3000:]
    assert "Traceback" not in log and "Task exception was never retrieved" not in log, log[-3000:]
    assert not crawl.output.exists() or not crawl.output.read_text(encoding="utf-8").strip()
    return log


def read_items(*paths: Path) -> list[dict[str, Any]]:
    """The items of JSON lines files (missing files hold none)."""
    items = []
    for path in paths:
        if path.exists():
            items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items


def webclean_command() -> list[str]:
    script = Path(sys.executable).with_name("webclean")
    if script.exists():
        return [str(script)]
    found = shutil.which("webclean")
    return [found] if found else [sys.executable, "-m", "webclean_scrapy.cli"]


def make_project(root: Path, name: str, settings: str, files: Mapping[str, str]) -> Path:
    """A Scrapy project of a user's own in *root*, outside this repository: ``scrapy.cfg`` naming
    ``<name>.settings``, the package *name* with *settings* as its settings module, and *files* (path in the
    package -> source, dedented; ``spiders/__init__.py`` holds the spiders)."""
    package = root / name
    (package / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text(f"[settings]\ndefault = {name}.settings\n")
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(settings)
    for relative, source in files.items():
        (package / relative).write_text(textwrap.dedent(source))
    return root


def run_project_crawl(
    spider: str, tmp_path: Path, project: Path, *, args: dict[str, Any], settings: dict[str, Any] | None = None
) -> CrawlResult:
    """``scrapy crawl <spider>`` in a project of :func:`make_project`, with only the installed package (no
    ``SCRAPY_*`` variables, no ``PYTHONPATH`` of ours but ``tests/``), as a user would run it; a traceback
    in its log fails the test even when the crawl exits 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_") and k != "PYTHONPATH"}
    result = run_crawl(spider, tmp_path, project=project, env=env, args=args, settings=settings)
    assert "Traceback" not in result.log, result.log[-3000:]
    return result
