"""WARC: writing cost of the recorder, and FastWARC against warcio as the reader of ``webclean extract``.

Usage::

    python benchmarks/warc.py [--data ../shared/data] [--pages 1500] [--repeat 3]

Builds one ``.warc.gz`` in a temporary directory from real pages (every
``html/*.html.gz`` under ``--data``, half of them stored gzip-encoded as a
server would send them), written exactly as :class:`webclean_scrapy.downloadermiddlewares.warc.WarcRecorder`
writes (:class:`~webclean_scrapy.downloadermiddlewares.warc.WarcFile`, a response and a request
record per page). Prints

* the write time per page (compression and digests: what the recorder's
  writer thread spends, off the reactor) at warcio's gzip level 9 and ours;
* the read time per page of :func:`webclean_scrapy.warcfiles.iter_html_records`
  with each reader (records parsed, bodies decoded, no extraction), best of
  ``--repeat``;
* the extraction time per page of the default extractor, for scale.

Exits 0 with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from webclean_scrapy.downloadermiddlewares.warc import GZIP_LEVEL, WarcFile, _Exchange
from webclean_scrapy.warcfiles import iter_html_records


def load_pages(data: Path, limit: int) -> list[bytes]:
    pages = []
    for file in sorted(data.glob("*/html/*.html.gz")):
        pages.append(gzip.decompress(file.read_bytes()))
        if len(pages) >= limit:
            break
    return pages


def exchange(n: int, body: bytes, encoded: bool) -> _Exchange:
    headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
    if encoded:
        headers.append(("Content-Encoding", "gzip"))
    return _Exchange(
        url=f"https://example.com/page/{n}",
        date=datetime.now(tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        request_line=f"GET /page/{n} HTTP/1.1",
        request_headers=[("Host", "example.com"), ("User-Agent", "bench")],
        request_body=b"",
        status_line="200 OK",
        protocol="HTTP/1.1",
        response_headers=headers,
        body=body,
        ip_address="192.0.2.1",
        truncated=False,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--pages", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pages = load_pages(args.data, args.pages)
    if not pages:
        print(f"no pages under {args.data}; nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.warc.gz"
        exchanges = [exchange(n, gzip.compress(body) if n % 2 else body, bool(n % 2)) for n, body in enumerate(pages)]
        raw = sum(len(item.body) for item in exchanges)
        print(f"{len(pages)} pages, {raw / 1e6:.1f} MB of bodies as sent")
        for level in (9, GZIP_LEVEL):  # warcio's own level, and ours
            best, size = float("inf"), 0
            for _ in range(args.repeat):
                path.unlink(missing_ok=True)
                warc = WarcFile(path, level=level)
                start = time.perf_counter()
                for item in exchanges:
                    warc.write_exchange(item)
                best = min(best, time.perf_counter() - start)
                warc.close()
                size = path.stat().st_size
            print(
                f"write, gzip level {level} + SHA-1 digests: {1000 * best / len(pages):.2f} ms/page, "
                f"{size / 1e6:.1f} MB WARC"
            )
        for reader in ("fastwarc", "warcio"):
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                count = sum(1 for _ in iter_html_records(str(path), reader=reader))
                best = min(best, time.perf_counter() - start)
            assert count == len(pages), (reader, count)
            print(f"read with {reader}: {1000 * best / len(pages):.3f} ms/page ({len(pages) / best:.0f} pages/s)")
        import webclean_scrapy

        sample = pages[:300]
        start = time.perf_counter()
        for body in sample:
            webclean_scrapy.extract(body)
        print(
            f"extraction (default extractor), for scale: {1000 * (time.perf_counter() - start) / len(sample):.2f} ms/page"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
