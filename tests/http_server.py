"""The tests' HTTP server: the demo's :class:`~webclean_scrapy.demo.server.LocalSite`, plus what crawl tests need.

On top of serving fixed routes on 127.0.0.1, :class:`TestSite` records every
requested path in :attr:`TestSite.hits` (so a test can assert what a crawl
fetched, or never fetched) and injects the faults of real servers, per route:
*delay* seconds of silence before the response (a server that hangs; cut
short when the site stops), a *gate* (an event the test sets) to hold the
response until the test lets it go, and *reset_after*: send the headers (with the full
``Content-Length``) and only that many body bytes, then reset the connection
(TCP RST).
"""

from __future__ import annotations

import socket
import struct
import threading
from dataclasses import asdict, dataclass

from webclean_scrapy.demo.server import LocalSite, Route, SiteHandler

__all__ = ["FaultyRoute", "Route", "TestSite"]


@dataclass
class FaultyRoute(Route):
    """A route that hangs for *delay* seconds first (and until *gate* is set, if given), or resets
    the connection after *reset_after* body bytes."""

    delay: float = 0.0
    #: Held until the test sets it: ordering against another process's progress, not a guess at timing.
    gate: threading.Event | None = None
    reset_after: int | None = None


class _RecordingHandler(SiteHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        site = self.server.site
        assert isinstance(site, TestSite)
        with site.lock:
            site.hits.append(self.path)
        route = site.route(self.path)
        if not isinstance(route, FaultyRoute):
            self.send_route(route)
            return
        if route.delay and site.stopping.wait(route.delay):
            return  # the site is stopping
        while route.gate is not None and not route.gate.wait(0.05):
            if site.stopping.is_set():
                return
        if route.reset_after is None:
            self.send_route(route)
            return
        self.send_head(route)
        self.wfile.write(route.body[: route.reset_after])
        self.wfile.flush()
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True


class TestSite(LocalSite):
    """A :class:`LocalSite` that records the paths it is asked for and can misbehave (see :class:`FaultyRoute`)."""

    __test__ = False  # a helper, not a test class, for pytest's collection
    handler = _RecordingHandler

    def __init__(self, routes: dict[str, Route] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hits: list[str] = []
        self.lock = threading.Lock()
        #: Set by :meth:`stop`: releases handlers waiting out a :attr:`FaultyRoute.delay`.
        self.stopping = threading.Event()
        super().__init__(routes, host=host, port=port)

    def add_fault(
        self,
        path: str,
        body: bytes | str,
        content_type: str | None = "text/html; charset=utf-8",
        *,
        delay: float = 0.0,
        reset_after: int | None = None,
    ) -> None:
        """Serve *body* at *path* as :meth:`add` does, with a fault: *delay* seconds of silence first, or a
        reset after *reset_after* body bytes (see :class:`FaultyRoute`)."""
        self.add(path, body, content_type)
        self.routes[path] = FaultyRoute(**asdict(self.routes[path]), delay=delay, reset_after=reset_after)

    def start(self) -> TestSite:
        super().start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        super().stop()

    def __enter__(self) -> TestSite:
        return self.start()
