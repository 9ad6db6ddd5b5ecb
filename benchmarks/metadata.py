"""What reading a page's metadata adds to its extraction.

Usage::

    python benchmarks/metadata.py [--data ../shared/data/wcxb-dev] [--pages 1497] [--repeat 3]

The same pages, in the same process, each parsed once (``Document.from_html``
with the page URL, as in a crawl), then timed in turns:

* **extraction**: the default extractor's ``extract_text`` on a fresh
  document (decode, parse, walk, page type, text) and its canonical link
  (which the crawl's offload reads for every page) -- what a page cost
  before metadata existed;
* **metadata**: :func:`webclean_scrapy.engine.metadata.extract_metadata` on that
  same document afterwards (its page type and element lists already made by
  the extraction, as in :meth:`Extractor.extract`).

Each side keeps its best time per page over ``--repeat`` rounds (the least
noisy estimate on a shared machine). Prints the mean milliseconds per page
of both, the metadata's share, and the slowest pages' metadata time (goal:
metadata adds at most 0.3 ms per page on average). Exits 0 with a message
when the data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.metadata import extract_metadata
from webclean_scrapy.engine.page_type import page_type_of
from webclean_scrapy.evaluation.dataset import load_dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[1] / "../shared/data/wcxb-dev"))
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if not (Path(args.data) / "truth.jsonl").is_file():
        print(f"no dataset at {args.data}: nothing to measure")
        return 0
    pages = [(page.read(), page.url) for page in load_dataset(args.data, limit=args.pages)]
    extractor = get_extractor("default")
    best_text = [float("inf")] * len(pages)
    best_meta = [float("inf")] * len(pages)
    for _ in range(args.repeat):
        for i, (raw, url) in enumerate(pages):
            start = time.perf_counter()
            doc = Document.from_html(raw, url=url)
            extractor.extract_text(doc)
            page_type = page_type_of(doc)[0]
            doc.canonical_url  # noqa: B018 (timed:) the crawl's offload reads it for every page, metadata or not
            middle = time.perf_counter()
            extract_metadata(doc, page_type=page_type)
            end = time.perf_counter()
            best_text[i] = min(best_text[i], middle - start)
            best_meta[i] = min(best_meta[i], end - middle)
            doc.release()
    n = len(pages)
    text_ms = sum(best_text) / n * 1000
    meta_ms = sum(best_meta) / n * 1000
    slowest = sorted(best_meta)[-max(n // 100, 1) :]
    print(f"{n} pages, best of {args.repeat}")
    print(f"extraction without metadata: {text_ms:.2f} ms/page")
    print(f"metadata:                    {meta_ms:.3f} ms/page ({meta_ms / text_ms:.1%} of the extraction)")
    print(f"metadata, slowest 1% of pages: {min(slowest) * 1000:.2f}-{max(slowest) * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
