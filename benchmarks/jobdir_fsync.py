"""JOBDIR feeds: time the exporting thread (the reactor) spends per item.

Usage::

    python benchmarks/jobdir_fsync.py [--items 2000] [--bytes 3000] [--dir .]

Writes the same JSON lines twice into a temporary directory under ``--dir``
(put it on the disk the crawl's outputs go to: tmpfs makes ``fsync`` free):
once as the durable storage did before, ``write``, ``flush`` and ``fsync``
per item in the calling thread, once through
:class:`webclean_scrapy.crawlstate.jobdir._DurableFile` (``write`` and ``flush`` per item,
``fsync`` in its own thread). Prints the calling thread's time per item and
the final ``close`` (which waits for the last ``fsync``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webclean_scrapy.crawlstate.jobdir import _DurableFile  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--bytes", type=int, default=3000, help="size of one item line")
    parser.add_argument("--dir", default=".", help="where the temporary files go (the output disk)")
    args = parser.parse_args()
    line = b'{"text": "' + b"x" * max(0, args.bytes - 12) + b'"}\n'
    directory = tempfile.mkdtemp(dir=args.dir)
    try:
        with open(os.path.join(directory, "per-item.jsonl"), "wb") as f:
            start = time.perf_counter()
            for _ in range(args.items):
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            per_item = time.perf_counter() - start
        durable = _DurableFile(open(os.path.join(directory, "durable.jsonl"), "wb"))
        start = time.perf_counter()
        for _ in range(args.items):
            durable.write(line)
        batched = time.perf_counter() - start
        start = time.perf_counter()
        durable.close()
        closing = time.perf_counter() - start
    finally:
        shutil.rmtree(directory)
    print(f"{args.items} items of {len(line)} bytes in {os.path.abspath(args.dir)}")
    print(f"fsync per item, in the exporting thread: {per_item * 1e6 / args.items:8.0f} us/item")
    print(
        f"flush per item, fsync in its own thread: {batched * 1e6 / args.items:8.0f} us/item "
        f"(close, the last fsync: {closing * 1e3:.1f} ms)"
    )


if __name__ == "__main__":
    main()
