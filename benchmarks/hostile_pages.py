"""Peak memory and time of one extraction on pathological pages.

Usage::

    python benchmarks/hostile_pages.py [--page NAME ...] [--extractor default] [--scale 1.0]

Each page is made here (nothing is downloaded) and extracted in a fresh
subprocess, so one page's peak cannot hide behind another's: the child
reads the page, records its resident set size (``ru_maxrss``: the
interpreter, numpy, lxml, the model and the page's bytes), runs
``webclean_scrapy.extract(page_bytes)`` once to warm up on a small page,
then once on the page, and reports the growth of its peak RSS and the
wall time. ``peak / page`` is that growth divided by the page's size. A
page is parsed with at most 250,000 tags (``MAX_TAGS`` in
``webclean_scrapy/engine/html/screen.py``), which bounds the growth to about
60 MB whatever the page's size; the pages of 2 million tags below come out
truncated.

Pages (``--scale`` multiplies their sizes):

``paragraphs``
    a million short paragraphs (``<p>p123456</p>``, 14 MB): the most blocks
    and containers per byte an HTML page can hold.
``divs``
    a million sibling ``<div>`` holding a comma each (``<div>d, 123456</div>``,
    20 MB): the most DIVs ``punctuation`` can be asked to score.
``deep``
    100,000 nested ``<div>`` each holding a word of its own, closed, then a paragraph:
    libxml2 stops at 2,048 levels; the text after must still come out
    (or the extraction says it is truncated).
``font``
    100,000 ``<p><font>`` paragraphs never closed: the ``<font>`` nest
    (the depth limit again, reached by ordinary sloppy markup).
``attributes``
    one element with 20,000 attributes (libxml2 is quadratic in
    attributes per element).
``text_node``
    one 10 MB paragraph of words: the largest single string.
``inline``
    a million ``<span>`` siblings holding a word each, in one paragraph.
``after_html``
    a 1 MB article whose second half follows ``</html>``.

Prints one table row per page; the figures go to ``docs/BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_page(name: str, scale: float = 1.0) -> bytes:
    """The markup of the pathological page *name* (see the module docstring)."""

    def n(count: int) -> int:
        return max(1, int(count * scale))

    head = "<!DOCTYPE html><html><head><title>hostile</title></head><body>"
    if name == "paragraphs":
        body = "".join(f"<p>p{i:06d}</p>" for i in range(n(1_000_000)))
    elif name == "divs":
        body = "".join(f"<div>d, {i:06d}</div>" for i in range(n(1_000_000)))
    elif name == "deep":
        count = n(100_000)
        body = "".join(f"<div>w{i} " for i in range(count)) + "</div>" * count + "<p>after the nest</p>"
    elif name == "font":
        body = "".join(f"<p><font>paragraph {i}." for i in range(n(100_000)))
    elif name == "attributes":
        body = "<div " + " ".join(f'a{i}="{i}"' for i in range(n(20_000))) + ">x</div>"
    elif name == "text_node":
        word = "lorem ipsum dolor sit amet, "
        body = "<p>" + word * n(10_000_000 // len(word)) + "</p>"
    elif name == "inline":
        body = "<p>" + "<span>w</span>" * n(1_000_000) + "</p>"
    elif name == "after_html":
        paragraph = "<p>" + "This sentence is part of a long article about nothing. " * 10 + "</p>\n"
        half = paragraph * n(1_000_000 // len(paragraph) // 2)
        return (head + "<article>" + half + "</article></body></html>\n" + half).encode()
    else:
        raise ValueError(f"unknown page {name!r}")
    return (head + body + "</body></html>").encode()


PAGES = ("paragraphs", "divs", "deep", "font", "attributes", "text_node", "inline", "after_html")

#: Run in the child: warm up, then extract the page once; print JSON.
CHILD = r"""
import json, resource, sys, time
path, extractor = sys.argv[1], sys.argv[2]
import webclean_scrapy
from webclean_scrapy import extract
extract(b"<html><body><p>warm up, loading the model</p></body></html>", extractor=extractor)
page = open(path, "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
result = extract(page, extractor=extractor)
seconds = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"bytes": len(page), "before": before, "peak": after, "seconds": seconds,
                  "text_chars": len(result.text), "lines": result.text.count("\n") + bool(result.text),
                  "truncated": getattr(result, "truncated", None)}))
"""


def measure(page: bytes, extractor: str = "default", timeout: float = 1800) -> dict:
    """Extract *page* in a fresh interpreter; its peak RSS growth and time."""
    with tempfile.NamedTemporaryFile(suffix=".html") as handle:
        handle.write(page)
        handle.flush()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, handle.name, extractor],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    if done.returncode:
        return {"bytes": len(page), "error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", action="append", choices=PAGES, help="page(s) to run (default: all)")
    parser.add_argument("--extractor", default="default")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every page's size")
    parser.add_argument("--json", action="store_true", help="print one JSON object per page instead")
    args = parser.parse_args(argv)
    print(
        f"# {platform.node()} {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()},"
        f" extractor {args.extractor}"
    )
    if not args.json:
        print("| page | size | peak RSS growth | peak / page | time | text chars | lines | truncated |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in args.page or PAGES:
        page = make_page(name, args.scale)
        result = measure(page, args.extractor)
        if args.json:
            print(json.dumps({"page": name, **result}))
        elif "error" in result:
            print(f"| {name} | {len(page) / 1e6:.1f} MB | {result['error']} |")
        else:
            growth = max(0, result["peak"] - result["before"])
            print(
                f"| {name} | {result['bytes'] / 1e6:.1f} MB | {growth / 1e6:.0f} MB | "
                f"{growth / result['bytes']:.0f}x | {result['seconds']:.2f} s | {result['text_chars']:,} | "
                f"{result['lines']:,} | {result['truncated']} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
