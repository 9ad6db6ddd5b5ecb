"""A tiny HTTP server on 127.0.0.1 for the offline demo.

It serves fixed routes (``path -> Route``) from a background thread and
answers 404 for anything else. Files loaded with :meth:`LocalSite.add_directory`
may contain the placeholder ``{{BASE}}``, replaced by the server's own
``http://127.0.0.1:PORT`` so sitemaps, feeds and canonical links can carry
absolute URLs although the port is only known once the server is bound.

The request handler is split into :meth:`SiteHandler.send_head` and
:meth:`SiteHandler.send_route`, and :class:`LocalSite` names its handler
class, so that a richer server (the tests' one, with fault injection) can
build on this one instead of copying it.
"""

from __future__ import annotations

import mimetypes
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
    """One response: body, Content-Type (``None``: none sent), status and extra headers (``Location``...)."""

    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class SiteHandler(BaseHTTPRequestHandler):
    """Answers each GET with the route of its path (or with the path without its query), else 404."""

    server: SiteServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.send_route(self.server.site.route(self.path))

    def send_head(self, route: Route) -> None:
        """The status line and headers, with the full ``Content-Length`` of the route's body."""
        self.send_response(route.status)
        if route.content_type is not None:
            self.send_header("Content-Type", route.content_type)
        self.send_header("Content-Length", str(len(route.body)))
        for name, value in route.headers.items():
            self.send_header(name, value)
        self.end_headers()

    def send_route(self, route: Route) -> None:
        self.send_head(route)
        self.wfile.write(route.body)

    def log_message(self, format: str, *args: object) -> None:  # keep the demo's output clean
        pass


class SiteServer(ThreadingHTTPServer):
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

    #: The request handler class (a subclass may serve routes differently).
    handler: type[SiteHandler] = SiteHandler

    def __init__(self, routes: dict[str, Route] | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self._server = SiteServer((host, port), self.handler)
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

    def route(self, path: str) -> Route:
        """The route serving *path*: its own, else that of the path without its query, else a 404."""
        return self.routes.get(path) or self.routes.get(path.split("?", 1)[0]) or Route(NOT_FOUND, status=404)

    def add(
        self,
        path: str,
        body: bytes | str,
        content_type: str | None = "text/html; charset=utf-8",
        status: int = 200,
        **headers: str,
    ) -> None:
        """Serve *body* at *path*; ``{{BASE}}`` in it becomes :attr:`base_url`."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = Route(data.replace(BASE_PLACEHOLDER, self.base_url.encode()), content_type, status, headers)

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
