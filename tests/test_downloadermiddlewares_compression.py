"""Truncated compressed bodies are flagged, never extracted as if whole: ``body_complete``, the middleware in-process, and Scrapy's downloader chain (``webclean_scrapy.downloadermiddlewares.compression``)."""

from __future__ import annotations

import asyncio
import gzip
import zlib

from webclean_scrapy.downloadermiddlewares.compression import CompressedBodyCheckMiddleware, body_complete, is_truncated

# -- truncated compressed bodies ------------------------------------------------------
PAGE = (
    "<html><head><title>Gzip</title></head><body><article>"
    + "".join(f"<p>Paragraph {i} of a long article that arrives compressed, word by word.</p>" for i in range(200))
    + "</article></body></html>"
).encode()


def test_body_complete():
    whole = gzip.compress(PAGE)
    assert body_complete(whole, "gzip") is True
    assert body_complete(whole[: int(len(whole) * 0.6)], "gzip") is False
    assert body_complete(whole + gzip.compress(b"more"), "gzip") is True  # two members
    assert body_complete(PAGE, "gzip") is None  # not gzip at all: Scrapy's business
    assert body_complete(zlib.compress(PAGE), "deflate") is True
    assert body_complete(zlib.compress(PAGE)[:500], "deflate") is False
    assert body_complete(b"abc", "identity") is None


def test_middleware_flags_cut_gzip_in_process():
    from scrapy import Request
    from scrapy.http import Response
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(settings_dict={})
    crawler.stats.open_spider()
    middleware = CompressedBodyCheckMiddleware.from_crawler(crawler)
    whole = gzip.compress(PAGE)
    for body, cut in ((whole, False), (whole[: len(whole) * 6 // 10], True)):
        response = Response("http://127.0.0.1/x", body=body, headers={"Content-Encoding": "gzip"})
        assert is_truncated(middleware.process_response(Request(response.url), response)) is cut
    assert crawler.stats.get_value("webclean/truncated/gzip") == 1


def test_downloader_chain_flags_and_counts_cut_gzip(make_crawler):
    """The check (595), Scrapy's decompression (590) and the extraction (540), in the
    order Scrapy's downloader runs their ``process_response`` (in-process)."""
    from scrapy import Request
    from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
    from scrapy.http import Headers, Response
    from scrapy.utils.misc import build_from_crawler

    from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware
    from webclean_scrapy.items import CleanedPage

    crawler = make_crawler(WEBCLEAN_OFFLOAD="thread")
    chain = [
        build_from_crawler(cls, crawler)
        for cls in (CompressedBodyCheckMiddleware, HttpCompressionMiddleware, WebcleanMiddleware)
    ]
    whole = gzip.compress(PAGE)

    async def download(url: str, body: bytes) -> Response:
        request = Request(url)
        response = Response(
            url,
            body=body,
            request=request,
            headers=Headers({"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"}),
        )
        for middleware in chain:
            response = middleware.process_response(request, response)
            if not isinstance(response, Response):
                response = await response
        return response

    base = "http://127.0.0.1"
    by_path = {
        path: CleanedPage.from_response(asyncio.run(download(base + path, body)))
        for path, body in (("/whole", whole), ("/cut", whole[: len(whole) * 6 // 10]))
    }
    assert by_path["/whole"]["truncated"] is False and "Paragraph 199" in by_path["/whole"]["text"]
    cut = by_path["/cut"]
    assert cut["truncated"] is True and cut["text"]  # what arrived, flagged
    assert "Paragraph 199" not in cut["text"]
    assert crawler.stats.get_value("webclean/truncated/gzip") == 1
    assert crawler.stats.get_value("webclean/pages/truncated") == 1
