"""Does the Markdown output keep the plain text? And what does it cost?

Usage::

    python benchmarks/markdown_fidelity.py [--data ../shared/data] [--dataset NAME ...]
                                           [--extractor default] [--limit N]

For every page of every dataset under ``--data`` the extractor runs twice
in this process: text only (``extract_formats(..., ())``) and with Markdown
(``("markdown",)``), each on its own freshly built :class:`Document` (the
parse and walk are in both timings), in alternating order. The Markdown is read back with
markdown-it-py (:mod:`webclean_scrapy.evaluation.markdown`) and its text
compared with the plain text by the evaluation suite's 4-gram shingles
(:func:`~webclean_scrapy.evaluation.metrics.shingle_counts`, the plain text
as "gold"): per dataset, the mean shingle recall (goal >= 0.99), the pages
below 0.99, the tables found and those whose rows do not all have the
header's column count (goal 0), and the cost: total time with Markdown /
total time text only. Needs the ``test`` extra (markdown-it-py). Exits 0
with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.render import extract_formats
from webclean_scrapy.evaluation.dataset import load_dataset
from webclean_scrapy.evaluation.markdown import markdown_text, table_shapes
from webclean_scrapy.evaluation.metrics import _recall, shingle_counts


def run(directory: Path, extractor_name: str, limit: int | None) -> dict[str, float]:
    extractor = get_extractor(extractor_name)
    recalls: list[float] = []
    low: list[tuple[float, str]] = []
    tables = bad_tables = 0
    text_seconds = markdown_seconds = 0.0
    pages = load_dataset(directory, limit)
    with built_page(lambda: Document.from_html(pages[0].read())) as doc:  # warm-up, untimed
        extract_formats(extractor, doc, ("markdown",))
    for number, page in enumerate(pages):
        data = page.read()
        # Each page twice, on its own Document each time; which goes first
        # alternates, so warm caches favour neither.
        for formats in ((), ("markdown",)) if number % 2 else (("markdown",), ()):
            start = time.perf_counter()
            with built_page(lambda: Document.from_html(data, url=page.url)) as doc:
                result = extract_formats(extractor, doc, formats)
            seconds = time.perf_counter() - start
            if formats:
                extraction, markdown_seconds = result, markdown_seconds + seconds
            else:
                plain, text_seconds = result.text, text_seconds + seconds
        assert extraction.text == plain, page.id
        recall = _recall(*shingle_counts(markdown_text(extraction.markdown or ""), plain))
        recalls.append(recall)
        if recall < 0.99:
            low.append((recall, page.id))
        for shape in table_shapes(extraction.markdown or ""):
            tables += 1
            bad_tables += any(cells != shape[0] for cells in shape)
    for recall, page_id in sorted(low)[:5]:
        print(f"    low: {page_id} {recall:.3f}", file=sys.stderr)
    return {
        "pages": len(recalls),
        "recall": sum(recalls) / len(recalls),
        "below": len(low),
        "min": min(recalls),
        "tables": tables,
        "bad_tables": bad_tables,
        "text_ms": 1000 * text_seconds / len(recalls),
        "markdown_ms": 1000 * markdown_seconds / len(recalls),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--dataset", action="append", help="only these datasets (repeatable)")
    parser.add_argument("--extractor", default="default")
    parser.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    args = parser.parse_args(argv)
    root = Path(args.data)
    if not root.is_dir():
        print(f"no data at {root}: nothing to measure")
        return 0
    names = args.dataset or sorted(p.name for p in root.iterdir() if (p / "truth.jsonl").is_file())
    print(f"extractor {args.extractor}")
    print(
        f"{'dataset':<16} {'pages':>5} {'recall':>7} {'min':>6} {'<0.99':>6} {'tables':>6} {'bad':>4} "
        f"{'text ms':>8} {'md ms':>7} {'ratio':>6}"
    )
    total_text = total_md = 0.0
    for name in names:
        r = run(root / name, args.extractor, args.limit)
        total_text += r["text_ms"] * r["pages"]
        total_md += r["markdown_ms"] * r["pages"]
        print(
            f"{name:<16} {r['pages']:>5} {r['recall']:>7.4f} {r['min']:>6.3f} {r['below']:>6} {r['tables']:>6} "
            f"{r['bad_tables']:>4} {r['text_ms']:>8.2f} {r['markdown_ms']:>7.2f} "
            f"{r['markdown_ms'] / r['text_ms']:>6.2f}",
            flush=True,
        )
    print(f"all: markdown / text time = {total_md / total_text:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
