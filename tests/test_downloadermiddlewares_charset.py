"""A spider's selectors read a page in the charset its extraction reads it in.

Scrapy detects an undeclared charset with charset-normalizer and trusts an
``ISO-8859-1`` label on UTF-8 bytes; the extraction reads as a browser does
(:mod:`webclean_scrapy.engine.text.encoding`). :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware`
makes ``response.text`` agree with the item's text: in process, and in a
real crawl of a local server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.utils.misc import build_from_crawler

from _crawl import make_project, run_project_crawl
from pages import CZECH_PAGE, HEADLINE, LEGACY_PAGES, headline_page, legacy_page
from webclean_scrapy.downloadermiddlewares.charset import CharsetMiddleware, extraction_charset, with_encoding
from webclean_scrapy.engine.text.encoding import decode_html

PORTUGUESE = LEGACY_PAGES["pt"][0]
TURKISH = LEGACY_PAGES["tr"][0]
RUSSIAN = LEGACY_PAGES["ru"][0]
JAPANESE = LEGACY_PAGES["ja"][0]


#: name: (body, Content-Type, what the extraction reads it as, why the middleware acts or None)
PAGES: dict[str, tuple[bytes, str | None, str, str | None]] = {
    # charset-normalizer reads these two as Windows-1250: "Ă" for "ã", "ţ" for "ş"
    "pt-undeclared": (headline_page(PORTUGUESE).encode("cp1252"), "text/html", "cp1252", "detected"),
    "tr-undeclared": (legacy_page(TURKISH).encode("cp1254"), "text/html", "cp1254", "detected"),
    # Apache's default label on UTF-8 bytes: Scrapy reads "CÃ¢mara"
    "utf8-labelled-latin1": (headline_page(PORTUGUESE).encode(), "text/html; charset=ISO-8859-1", "utf-8", "corrected"),
    "meta-utf16-ascii": (
        headline_page("Plain ASCII words, nothing else.", "Plain", '<meta charset="utf-16">').encode(),
        "text/html",
        "utf-8",
        "corrected",
    ),
    # UTF-8 but for one stray Latin-1 byte: charset-normalizer reads it as ISO-8859-16
    "utf8-one-broken-byte": (
        headline_page(PORTUGUESE).encode().replace(b"</article>", b"\xe9 </article>"),
        "text/html",
        "utf-8",
        "detected",
    ),
    # 7-bit, so Scrapy reads it as ASCII
    "iso-2022-jp-undeclared": (legacy_page(JAPANESE).encode("iso2022_jp"), None, "iso2022_jp", "detected"),
    # both read these alike: left untouched
    "utf8-undeclared": (headline_page(PORTUGUESE).encode(), "text/html", "utf-8", None),
    "utf8-declared": (headline_page(PORTUGUESE).encode(), "text/html; charset=utf-8", "utf-8", None),
    "cp1251-declared": (legacy_page(RUSSIAN).encode("cp1251"), "text/html; charset=windows-1251", "cp1251", None),
    "ascii-undeclared": (headline_page("Plain ASCII words.", "Plain").encode(), "text/html", "utf-8", None),
    # an escape byte sends it to the detector, which finds no ISO-2022-JP: UTF-8 (ASCII) stands
    "ascii-with-an-escape": (legacy_page("An escape \x1b in the text.").encode(), "text/html", "utf-8", None),
}


def response_of(body: bytes, content_type: str | None, url: str = "http://example.com/page") -> HtmlResponse:
    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse(url, body=body, headers=headers, request=Request(url))


@pytest.mark.parametrize("name", list(PAGES))
def test_the_extractions_charset_is_found_where_scrapy_reads_otherwise(name):
    body, content_type, encoding, reason = PAGES[name]
    assert decode_html(body, content_type)[0] == encoding  # the extraction's reading
    response = response_of(body, content_type)
    choice = extraction_charset(response)
    assert choice == (None if reason is None else (encoding, reason))
    if reason is None:
        return
    # The premise: Scrapy reads it otherwise, and its text is wrong.
    assert response.encoding != encoding
    fixed = with_encoding(response, encoding)
    assert fixed.text == decode_html(body, content_type)[1]
    assert fixed.text != response.text


@pytest.mark.parametrize("offload", ["none", "thread", "process"])
def test_the_middleware_gives_selectors_the_extractions_text(make_crawler, monkeypatch, offload):
    """The detection runs where pages are extracted (inline, a thread, a worker
    process); the rest on the calling thread."""
    crawler = make_crawler(WEBCLEAN_OFFLOAD=offload, WEBCLEAN_WORKERS=1)
    crawler.stats.open_spider()
    middleware = build_from_crawler(CharsetMiddleware, crawler)

    # A detected charset never runs Scrapy's own detection (charset-normalizer).
    def no_detection(*args, **kwargs):
        raise AssertionError("Scrapy's charset detection ran")

    monkeypatch.setattr("scrapy.http.response.text.from_bytes", no_detection)
    for name, (body, content_type, _, reason) in PAGES.items():
        response = response_of(body, content_type)
        response.flags.append("cached")
        seen = asyncio.run(middleware.process_response(response.request, response))
        assert (seen is response) is (reason is None), name
        assert seen.text == decode_html(body, content_type)[1], name
        # The copy is the same response in all but its charset.
        assert type(seen) is HtmlResponse and seen.request is response.request, name
        assert (seen.url, seen.status, seen.body, seen.flags) == (response.url, 200, body, ["cached"]), name
        assert seen.headers == response.headers, name
    portuguese = response_of(*PAGES["pt-undeclared"][:2])
    headline = asyncio.run(middleware.process_response(Request(portuguese.url), portuguese)).css("h1::text").get()
    assert headline == HEADLINE
    assert crawler.stats.get_value("webclean/charset/detected") == 5
    assert crawler.stats.get_value("webclean/charset/corrected") == 2


def test_a_charset_set_explicitly_is_kept():
    """A project's middleware that chose a response's charset has the last
    word, as in Scrapy; the middleware's own copies pass a second time untouched."""
    body, content_type = PAGES["pt-undeclared"][:2]
    chosen = response_of(body, content_type).replace(encoding="cp1250")
    assert extraction_charset(chosen) is None and chosen.encoding == "cp1250"
    copy = with_encoding(response_of(body, content_type), "cp1252")
    assert extraction_charset(copy) is None and copy.text == decode_html(body, content_type)[1]


def test_the_extraction_reads_a_charset_set_explicitly_on_both_paths():
    """A project that tells Scrapy a page's charset (Scrapy reads it before any
    rule) gets the same reading in the extraction, in threads and in worker
    processes: here a Czech page in Windows-1250 that detection, without the
    hint of a .cz address, takes for ISO-8859-2 ("Š" for "©")."""
    from webclean_scrapy.engine.extractors import get_extractor
    from webclean_scrapy.offload import extract_markup, extract_response, response_content_type

    footer = "© 2024 Example Media ·"
    body = CZECH_PAGE.encode("cp1250")
    assert decode_html(body)[0] == "iso8859-2"
    method = get_extractor("baseline")
    plain = response_of(body, "text/html")
    assert footer not in extract_response(method, plain).extraction.text
    told = plain.replace(encoding="cp1250")
    assert response_content_type(told) == "text/html; charset=cp1250"
    assert response_content_type(plain) == "text/html"
    labelled = response_of(body, "application/xhtml+xml; charset=iso-8859-2").replace(encoding="cp1250")
    assert response_content_type(labelled) == "application/xhtml+xml; charset=cp1250"
    threaded = extract_response(method, told).extraction.text
    processed = extract_markup(method, body, told.url, response_content_type(told)).extraction.text
    assert footer in threaded and threaded == processed
    # UTF-8 bytes stay UTF-8 whatever a response is told (the encoding module's rule).
    utf8 = response_of(headline_page(PORTUGUESE).encode(), "text/html").replace(encoding="cp1252")
    assert PORTUGUESE in extract_markup(method, utf8.body, utf8.url, response_content_type(utf8)).extraction.text


def test_a_page_the_middleware_detected_is_not_detected_again(make_crawler, monkeypatch):
    """The extraction reads the middleware's choice: the detector runs once a page."""
    from webclean_scrapy.engine.text import encoding
    from webclean_scrapy.offload import extract_response

    crawler = make_crawler(WEBCLEAN_OFFLOAD="none")
    crawler.stats.open_spider()
    middleware = build_from_crawler(CharsetMiddleware, crawler)
    calls = []
    detect = encoding.legacy_encoding
    monkeypatch.setattr(encoding, "legacy_encoding", lambda *args: calls.append(args) or detect(*args))
    legacy = response_of(*PAGES["tr-undeclared"][:2])
    seen = asyncio.run(middleware.process_response(legacy.request, legacy))
    assert len(calls) == 1 and seen.encoding == "cp1254"
    text = extract_response(middleware.offloader.extractor, seen).extraction.text
    assert TURKISH in text and len(calls) == 1


def test_what_is_not_an_html_page_passes_untouched(make_crawler):
    crawler = make_crawler(WEBCLEAN_OFFLOAD="none", WEBCLEAN_MAX_HTML_BYTES=10_000)
    crawler.stats.open_spider()
    middleware = build_from_crawler(CharsetMiddleware, crawler)
    legacy = PAGES["pt-undeclared"][0]
    url = "http://example.com/x"
    untouched = [
        Response(url, body=legacy),  # not text
        TextResponse(url, body=legacy, headers={"Content-Type": "text/plain"}),  # text, not HTML
        HtmlResponse(url, body=b""),
        HtmlResponse(url, body=b"\x89PNG\r\n\x1a\n" + legacy),  # binary
        HtmlResponse(url, body=legacy + b"<p>\xe3</p>" * 2_000),  # over WEBCLEAN_MAX_HTML_BYTES
    ]
    for response in untouched:
        assert asyncio.run(middleware.process_response(Request(url), response)) is response
    assert asyncio.run(middleware.process_response(Request(url), HtmlResponse(url, body=legacy))) is not None
    assert crawler.stats.get_value("webclean/charset/detected") == 1


def test_a_failed_detection_leaves_scrapys_reading(make_crawler, monkeypatch):
    """A worker that times out or crashes on the detection: the response goes
    on as Scrapy reads it, counted; nothing is lost."""
    crawler = make_crawler(WEBCLEAN_OFFLOAD="none")
    crawler.stats.open_spider()
    middleware = build_from_crawler(CharsetMiddleware, crawler)

    async def fails(*args, **kwargs):
        raise TimeoutError("over WEBCLEAN_PAGE_TIMEOUT")

    monkeypatch.setattr(middleware.offloader, "run", fails)
    legacy = response_of(*PAGES["pt-undeclared"][:2])
    assert asyncio.run(middleware.process_response(legacy.request, legacy)) is legacy
    assert crawler.stats.get_value("webclean/charset/failed") == 1
    # What needs no detection does not go there.
    labelled = response_of(*PAGES["utf8-labelled-latin1"][:2])
    assert asyncio.run(middleware.process_response(labelled.request, labelled)).encoding == "utf-8"


SETTINGS = """
BOT_NAME = "charsets"
SPIDER_MODULES = ["charsets.spiders"]
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
ADDONS = {"webclean_scrapy.Addon": 0}
WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True
WEBCLEAN_OFFLOAD = "thread"
WEBCLEAN_MIN_TEXT_CHARS = 0
"""

SPIDER = '''
import scrapy

from webclean_scrapy.downloadermiddlewares.extraction import extraction_of


class SelectorsSpider(scrapy.Spider):
    """Reads each page with its own selectors, beside what the middleware extracted."""

    name = "selectors"

    async def start(self):
        for path in self.paths.split(","):
            yield scrapy.Request(self.base + path)

    def parse(self, response):
        extraction = extraction_of(response)
        yield {
            "url": response.url,
            "encoding": response.encoding,
            "h1": response.css("h1::text").get(),
            "p": response.css("p::text").get(),
            "text": extraction.text if extraction else None,
        }
'''


def test_a_crawls_selectors_read_what_its_items_hold(tmp_path, local_site):
    """Real ``scrapy crawl`` of a local server, with the add-on; then without the
    middleware, where Scrapy's reading shows through (the premise)."""
    served = ("pt-undeclared", "tr-undeclared", "utf8-labelled-latin1", "utf8-declared")
    base = local_site({f"/{name}": (200, {"Content-Type": PAGES[name][1]}, PAGES[name][0]) for name in served})
    project = make_project(tmp_path / "project", "charsets", SETTINGS, {"spiders/__init__.py": SPIDER})
    args = {"base": base, "paths": ",".join(f"/{name}" for name in served)}

    def crawl(out: str, **settings):
        result = run_project_crawl("selectors", tmp_path / out, project, args=args, settings=settings)
        return {item["url"].rsplit("/", 1)[1]: item for item in result.items}, result

    items, result = crawl("with", WEBCLEAN_OFFLOAD="process")  # the detection in a worker process
    assert set(items) == set(served)
    for name in served:
        item = items[name]
        expected = TURKISH if name == "tr-undeclared" else PORTUGUESE
        assert item["encoding"] == PAGES[name][2], name
        assert item["p"] == expected and expected in item["text"], name
        assert item["h1"] == ("News" if name == "tr-undeclared" else HEADLINE), name
    assert result.stat("webclean/charset/detected") == 2
    assert result.stat("webclean/charset/corrected") == 1

    # Without it (threads: the extraction reuses Scrapy's text where the charsets agree).
    items, result = crawl(
        "without", DOWNLOADER_MIDDLEWARES={"webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware": None}
    )
    assert result.stat("webclean/charset/detected") == 0
    for name in ("pt-undeclared", "tr-undeclared", "utf8-labelled-latin1"):
        expected = TURKISH if name == "tr-undeclared" else PORTUGUESE
        assert items[name]["p"] != expected, name  # Scrapy's reading: mojibake
        assert expected in items[name]["text"], name  # the extraction decoded the bytes itself
    assert items["utf8-declared"]["p"] == PORTUGUESE


def test_the_benchmark_counts_where_scrapy_and_the_extraction_differ(tmp_path):
    """``benchmarks/charset_detection.py`` on a data directory of our own making:
    it finds the undeclared pages, and tells the ones Scrapy reads otherwise."""
    import gzip
    import subprocess
    import sys

    html = tmp_path / "ours" / "html"
    html.mkdir(parents=True)
    pages = {
        "pt": PAGES["pt-undeclared"][0],  # undeclared, Windows-1252: Scrapy reads Windows-1250
        "ru": legacy_page(RUSSIAN).encode("cp1251"),  # undeclared, Windows-1251: both agree
        "utf8": PAGES["utf8-undeclared"][0],  # undeclared, UTF-8
        "declared": PAGES["utf8-declared"][0].replace(b"<head>", b'<head><meta charset="utf-8">'),
    }
    for name, body in pages.items():
        (html / f"{name}.html.gz").write_bytes(gzip.compress(body))
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "charset_detection.py"
    done = subprocess.run(
        [sys.executable, str(script), "--data", str(tmp_path), "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "3 pages declare no charset; 2 of them are not UTF-8" in done.stdout
    assert "Scrapy's choice differs from the extraction's on 1 (their text on 1)" in done.stdout
    assert "ms/page" in done.stdout
    for language in ("Portuguese", "Russian", "Japanese"):
        assert f"generated {language} page in" in done.stdout
    done = subprocess.run(
        [sys.executable, str(script), "--data", str(tmp_path / "absent")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "nothing to measure" in done.stdout, done.stderr
