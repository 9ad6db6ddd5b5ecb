"""Reading WARC files (``webclean_scrapy.warcfiles``): content decoding is bounded and explicit, and reading needs neither Scrapy nor Twisted."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest


def test_content_decoding_is_bounded_and_explicit():
    import zlib

    from webclean_scrapy.errors import ExtractionError
    from webclean_scrapy.warcfiles import _decoded, html_record

    page = b"<html><body><p>" + b"words " * 2000 + b"</p></body></html>"
    assert _decoded(gzip.compress(page), ["gzip"], 1 << 20) == page
    assert _decoded(zlib.compress(page), ["deflate"], 1 << 20) == page
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    assert _decoded(raw_deflate.compress(page) + raw_deflate.flush(), ["deflate"], 1 << 20) == page
    assert _decoded(page, ["identity"], 1 << 20) == page
    brotli = pytest.importorskip("brotli")
    assert _decoded(brotli.compress(page), ["br"], 1 << 20) == page
    assert _decoded(gzip.compress(brotli.compress(page)), ["br", "gzip"], 1 << 20) == page
    with pytest.raises(ExtractionError, match="over 1000 bytes"):
        _decoded(gzip.compress(b"\0" * 10_000_000), ["gzip"], 1000)  # a decompression bomb stays small
    with pytest.raises(ExtractionError, match="unsupported Content-Encoding 'compress'"):
        _decoded(page, ["compress"], 1 << 20)
    broken = html_record("http://x/", "text/html", b"\x1f\x8bnot gzip", "gzip", 0, 1 << 20)
    assert broken.body == b"" and broken.error.startswith("cannot decode the body")


def test_reading_warc_files_does_not_import_scrapy():
    code = (
        "import sys, webclean_scrapy.cli, webclean_scrapy.warcfiles; "
        "sys.exit('scrapy' in sys.modules or 'twisted' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
