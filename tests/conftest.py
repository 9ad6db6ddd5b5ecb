"""Shared fixtures and markers.

``local_site`` is a factory: give it ``{path: (status, headers, body)}`` and it
returns the base URL (``http://127.0.0.1:<port>``) of a threaded server
(:class:`http_server.TestSite`, the demo's server plus what crawl tests need) that
serves exactly those bytes, and 404 for anything else. Servers stop at the
end of the test.

``make_crawler`` builds crawlers for in-process component tests;
``register_extractor`` registers extractors for one test only; ``redis_url``
starts a real ``redis-server``, ``redis_server`` gives one the test kills, restarts
and pauses (:class:`RedisProcess`). End-to-end crawls go through ``_crawl.py``.

Markers ``compiled_walk`` and ``compiled_trees``: the test needs the compiled
document walk (``webclean_scrapy.engine.html._walk``) or tree evaluator
(``webclean_scrapy.engine._trees``), which an install without a C compiler lacks;
there it is skipped, with that reason.
"""

from __future__ import annotations

import importlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from scrapy.crawler import Crawler
from scrapy.utils.test import get_crawler

from http_server import Route, TestSite
from pages import build_news_site, build_search_site

#: marker -> (extension module, what it is), for the tests that need one.
COMPILED = {
    "compiled_walk": ("webclean_scrapy.engine.html._walk", "the compiled document walk"),
    "compiled_trees": ("webclean_scrapy.engine._trees", "the compiled tree evaluator"),
}


def built(module: str) -> bool:
    """Whether the optional extension *module* was built (setup.py skips it without a C compiler)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def pytest_configure(config: pytest.Config) -> None:
    for marker, (module, what) in COMPILED.items():
        config.addinivalue_line("markers", f"{marker}: needs {what} ({module}); skipped where it was not built")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, (module, what) in COMPILED.items():
        if item.get_closest_marker(marker) and not built(module):
            pytest.skip(f"{what} ({module}) was not built: no C compiler at install")


#: path -> (status, headers, body); ``body`` may be ``str`` (sent as UTF-8).
Routes = Mapping[str, tuple[int, Mapping[str, str], "bytes | str"]]

REPO_ROOT = Path(__file__).resolve().parent.parent


def _route(status: int, headers: Mapping[str, str], body: bytes | str) -> Route:
    others = {name: value for name, value in headers.items() if name.lower() != "content-type"}
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    return Route(body.encode("utf-8") if isinstance(body, str) else body, content_type, status, others)


@pytest.fixture
def local_site() -> Iterator[Callable[[Routes], str]]:
    """Factory fixture: ``base_url = local_site({"/": (200, {...}, b"...")})``."""
    sites: list[TestSite] = []

    def start(routes: Routes) -> str:
        site = TestSite({path: _route(*response) for path, response in routes.items()}).start()
        sites.append(site)
        return site.base_url

    yield start
    for site in reversed(sites):
        site.stop()


class RedisProcess:
    """A real ``redis-server`` on its own port of 127.0.0.1 and its own directory, which a test can
    kill (``kill -9``), restart on the same port (with its append-only file, if *appendonly*), and
    pause (``SIGSTOP``) and resume (``SIGCONT``)."""

    def __init__(self, binary: str, data: Path, *, appendonly: bool = False) -> None:
        import redis

        self.redis = redis
        self.binary, self.data, self.appendonly = binary, data, appendonly
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisProcess:
        command = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data)]
        command += ["--save", "", "--appendonly", "yes" if self.appendonly else "no", "--protected-mode", "no"]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = self.redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 60
        while True:
            try:
                client.ping()  # also fails while an append-only file is still loading
                break
            except self.redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    pytest.fail(f"redis-server did not start on port {self.port}")
                time.sleep(0.05)
        client.close()
        return self

    def kill(self) -> None:
        """``kill -9``: nothing is saved but what the append-only file already holds."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)  # a paused server cannot terminate
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


def _redis_process(tmp_path: Path, *, appendonly: bool) -> RedisProcess:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (Debian package redis-server; .ci/run installs it)")
    pytest.importorskip("redis")
    data = tmp_path / "redis"
    data.mkdir()
    return RedisProcess(binary, data, appendonly=appendonly)


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    """A real ``redis-server`` for this test only: its own port on 127.0.0.1 and its own directory."""
    server = _redis_process(tmp_path, appendonly=False).start()
    yield server.url
    server.stop()


@pytest.fixture
def redis_server(tmp_path) -> Iterator[RedisProcess]:
    """A :class:`RedisProcess` with an append-only file (``--appendonly yes``), not started: the test
    starts, kills, restarts, pauses it."""
    server = _redis_process(tmp_path, appendonly=True)
    yield server
    server.stop()


@pytest.fixture
def make_crawler() -> Iterator[Callable[..., Crawler]]:
    """Factory fixture: ``crawler = make_crawler(WEBCLEAN_OFFLOAD="thread")`` is
    :func:`scrapy.utils.test.get_crawler` with those settings (``spidercls=`` for a
    spider class), to build components from with ``build_from_crawler``, as
    Scrapy's own tests do. At the end of the test the worker pools the
    components of each crawler share (``Offloader.for_crawler``) shut down, as
    they do on ``spider_closed`` at the end of a crawl."""
    crawlers: list[Crawler] = []

    def make(spidercls: Any = None, **settings: Any) -> Crawler:
        crawler = get_crawler(spidercls, settings_dict=settings)
        crawlers.append(crawler)
        return crawler

    yield make
    for crawler in crawlers:
        offloader = getattr(crawler, "_webclean_offloader", None)
        if offloader is not None:
            offloader.close()


@pytest.fixture
def register_extractor(monkeypatch: pytest.MonkeyPatch) -> Callable[[type], type]:
    """:func:`webclean_scrapy.register` for this test only: what it registers
    is gone again after the test (the registry is restored as it was)."""
    from webclean_scrapy import register
    from webclean_scrapy.engine import extractors

    extractors.available_extractors()  # the built-ins are in the registry before it is copied
    monkeypatch.setattr(extractors, "_REGISTRY", dict(extractors._REGISTRY))
    return register


@pytest.fixture(scope="module")
def news_site() -> Iterator[TestSite]:
    """The local news site of :func:`pages.build_news_site`, one server for all the tests of a module (they only read it)."""
    site = TestSite()
    build_news_site(site)
    with site:
        yield site


@pytest.fixture
def search_site() -> Iterator[TestSite]:
    """A fake SearXNG API and its results (:func:`pages.build_search_site`); per test, as tests count its hits."""
    site = TestSite()
    build_search_site(site)
    with site:
        yield site
