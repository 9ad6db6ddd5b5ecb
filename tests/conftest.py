"""Shared fixtures: a real HTTP server on 127.0.0.1 serving canned responses.

``local_site`` is a factory: give it ``{path: (status, headers, body)}`` and it
returns the base URL (``http://127.0.0.1:<port>``) of a threaded server that
serves exactly those bytes, and 404 for anything else. Servers stop at the
end of the test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

#: path -> (status, headers, body); ``body`` may be ``str`` (sent as UTF-8).
Routes = Mapping[str, tuple[int, Mapping[str, str], "bytes | str"]]

REPO_ROOT = Path(__file__).resolve().parent.parent


def _handler(routes: Routes) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            path = self.path.split("#", 1)[0]
            status, headers, body = routes.get(path, (404, {"Content-Type": "text/plain"}, b"not found"))
            if isinstance(body, str):
                body = body.encode("utf-8")
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

    return Handler


@contextmanager
def serve(routes: Routes) -> Iterator[str]:
    """Serve *routes* on an ephemeral 127.0.0.1 port; yield the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(routes))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def local_site() -> Iterator[Callable[[Routes], str]]:
    """Factory fixture: ``base_url = local_site({"/": (200, {...}, b"...")})``."""
    with_stack: list = []

    def start(routes: Routes) -> str:
        manager = serve(routes)
        with_stack.append(manager)
        return manager.__enter__()

    yield start
    for manager in reversed(with_stack):
        manager.__exit__(None, None, None)
