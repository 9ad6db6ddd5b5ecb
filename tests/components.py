"""In-process component tests' plumbing: the responses Scrapy's HTTP handler would build, fed to the middleware.

As Scrapy's own tests do, the components are built from a crawler of
``scrapy.utils.test.get_crawler`` (the ``make_crawler`` fixture) and given
responses made here, with the response class Scrapy would pick, each tied to
its request; no reactor and no server.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import scrapy
from scrapy.exporters import JsonLinesItemExporter
from scrapy.http import Headers, Response
from scrapy.responsetypes import responsetypes
from scrapy.utils.misc import build_from_crawler

from pages import ARTICLE_P1, ARTICLE_P2, ARTICLE_P3, FRENCH, GERMAN, chrome_page, deep_page, gazette_article
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"

PDF = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"

HTML = {"Content-Type": "text/html; charset=utf-8"}

ROUTES: dict[str, tuple[int, dict[str, str], bytes | str]] = {
    "/article": (200, HTML, gazette_article()),
    "/image.png": (200, {"Content-Type": "image/png"}, PNG),
    "/paper.pdf": (200, {"Content-Type": "application/pdf"}, PDF),
    "/binary-as-html": (200, HTML, PNG + b"\x00" * 64),
    "/empty": (200, HTML, b""),
    # cp1252 bytes announced as UTF-8: invalid bytes become U+FFFD, never an error.
    "/wrong-charset": (200, HTML, gazette_article("Caf\xe9 cr\xe8me prices soar", "fr").encode("cp1252")),
    # No charset at all, UTF-8 body: found by <meta>.
    "/no-charset": (200, {"Content-Type": "text/html"}, gazette_article("Na\xefve caf\xe9 review")),
    "/deep": (200, HTML, deep_page()),
    "/huge": (200, HTML, gazette_article() + "<p>" + "filler words " * 30000 + "</p>"),
    "/skipped": (200, HTML, gazette_article()),
}

MAX_HTML_BYTES = 200_000

SKIP = {"/skipped"}


# -- in-process: responses as Scrapy's HTTP handler builds them ---------------------
def response_for(base: str, path: str, *, skip: bool = False, routes=ROUTES) -> Response:
    """The response Scrapy's downloader would hand to the middleware for *path* of *routes*:
    the response class picked from the headers, URL and body (``responsetypes``), tied to its request."""
    status, headers, body = routes[path]
    raw = body.encode("utf-8") if isinstance(body, str) else body
    request = scrapy.Request(base + path, meta={"webclean_skip": True} if skip else {})
    headers = Headers(headers)
    cls = responsetypes.from_args(headers=headers, url=request.url, body=raw)
    return cls(request.url, status=status, headers=headers, body=raw, request=request)


def request_of(response: Response) -> scrapy.Request:
    """The request a downloaded *response* answers (always set by :func:`response_for`)."""
    assert response.request is not None
    return response.request


def through_middleware(crawler, base: str, paths=tuple(ROUTES), routes=ROUTES) -> dict[str, Response]:
    """Every response of *paths* through :class:`WebcleanMiddleware`, concurrently as in a crawl."""
    middleware = build_from_crawler(WebcleanMiddleware, crawler)
    responses = [response_for(base, path, skip=path in SKIP, routes=routes) for path in paths]

    async def run() -> list[Response]:
        return await asyncio.gather(*(middleware.process_response(request_of(r), r) for r in responses))

    returned = asyncio.run(run())
    assert all(out is response for out, response in zip(returned, responses))  # never replaced, never lost
    return dict(zip(paths, responses))


BASE = "http://site.example"


def exported(item: Any) -> dict[str, Any]:
    """*item* as a JSON lines feed holds it (Scrapy's exporter: its field order, its JSON)."""
    out = io.BytesIO()
    exporter = JsonLinesItemExporter(out)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return json.loads(out.getvalue())


def webclean_stats(crawler) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("webclean/")}


EXTRACTOR = "baseline"

#: The plumbing is under test, not extraction quality: the simplest method.
PLUMBING = {"WEBCLEAN_EXTRACTOR": EXTRACTOR, "WEBCLEAN_WORKERS": 1}


LANGUAGE_ROUTES = {
    "/en": (200, HTML, gazette_article()),
    "/de": (200, HTML, chrome_page(GERMAN, lang="de", title="Brücke")),
    "/fr-declared-en": (200, HTML, chrome_page(FRENCH, lang="en", title="Pont")),
    # The English story syndicated under another site's boilerplate, and the same page under another URL.
    "/syndicated": (
        200,
        HTML,
        chrome_page(
            "\n".join((ARTICLE_P1, ARTICLE_P2, ARTICLE_P3)),
            chrome="Hill Courier",
            title="Old bridge to close for repairs",
        ),
    ),
    "/en?utm_source=feed": (200, HTML, gazette_article()),
}
