"""A tiny HTTP server on 127.0.0.1 for the offline demo and the spider tests.

It serves fixed routes (``path -> Route``) from a background thread, records
every requested path in :attr:`LocalSite.hits`, and answers 404 for anything
else. Files loaded with :meth:`LocalSite.add_directory` may contain the
placeholder ``{{BASE}}``, replaced by the server's own ``http://127.0.0.1:PORT``
so sitemaps, feeds and canonical links can carry absolute URLs although the
port is only known once the server is bound.
"""

from __future__ import annotations

import mimetypes
import socket
import struct
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType

BASE_PLACEHOLDER = b"{{BASE}}"
NOT_FOUND = b"<!DOCTYPE html><html><head><title>Not found</title></head><body><h1>404 Not found</h1></body></html>"

#: Content types by file extension (the ``mimetypes`` table varies across systems).
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".rss": "application/rss+xml",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".gz": "application/gzip",
    ".css": "text/css",
    ".jsonl": "application/jsonl",
}


@dataclass
class Route:
    """One response: body, Content-Type (``None``: none sent), status and extra headers (``Location``...).

    Two faults for crawl tests: *delay* seconds of silence before the
    response (a server that hangs; cut short when the site stops), and
    *reset_after*: send the headers (with the full ``Content-Length``) and
    only that many body bytes, then reset the connection (TCP RST).
    """

    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reset_after: int | None = None

    @classmethod
    def redirect(cls, location: str, status: int = 301) -> Route:
        return cls(b"", "text/html", status, {"Location": location})


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        site = self.server.site
        with site.lock:
            site.hits.append(self.path)
        route = site.routes.get(self.path) or site.routes.get(self.path.split("?", 1)[0])
        if route is None:
            route = Route(NOT_FOUND, status=404)
        if route.delay and site.stopping.wait(route.delay):
            return  # the site is stopping
        self.send_response(route.status)
        if route.content_type is not None:
            self.send_header("Content-Type", route.content_type)
        self.send_header("Content-Length", str(len(route.body)))
        for name, value in route.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if route.reset_after is None:
            self.wfile.write(route.body)
            return
        self.wfile.write(route.body[: route.reset_after])
        self.wfile.flush()
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:  # keep test and demo output clean
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    site: LocalSite

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a crawler cancelling a download) is not a server error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class LocalSite:
    """Serve *routes* on ``127.0.0.1`` (a free port unless *port* is given).

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(self, routes: dict[str, Route] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.hits: list[str] = []
        self.lock = threading.Lock()
        #: Set by :meth:`stop`: releases handlers waiting out a :attr:`Route.delay`.
        self.stopping = threading.Event()
        self._server = _Server((host, port), _Handler)
        self._server.site = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        host = self._server.server_address[0]
        assert isinstance(host, str)  # an AF_INET server's address: (host, port)
        return f"http://{host}:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def add(
        self,
        path: str,
        body: bytes | str,
        content_type: str | None = "text/html; charset=utf-8",
        status: int = 200,
        *,
        delay: float = 0.0,
        reset_after: int | None = None,
        **headers: str,
    ) -> None:
        """Serve *body* at *path*; ``{{BASE}}`` in it becomes :attr:`base_url`.

        *delay* and *reset_after* inject faults (see :class:`Route`).
        """
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = Route(
            data.replace(BASE_PLACEHOLDER, self.base_url.encode()), content_type, status, headers, delay, reset_after
        )

    def add_directory(self, root: str | Path) -> None:
        """Serve every file below *root*; ``dir/index.html`` is also served as ``dir/``."""
        root = Path(root)
        for file in sorted(root.rglob("*")):
            if not file.is_file():
                continue
            relative = file.relative_to(root).as_posix()
            content_type = (
                CONTENT_TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            )
            body = file.read_bytes()
            self.add("/" + relative, body, content_type)
            if file.name == "index.html":
                self.add("/" + relative[: -len("index.html")], body, content_type)

    def start(self) -> LocalSite:
        self._thread = threading.Thread(target=self._server.serve_forever, name="webclean-local-site", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> LocalSite:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
