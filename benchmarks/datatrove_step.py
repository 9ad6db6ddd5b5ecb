"""The datatrove step against ``webclean extract`` on the same WARC files: speed and agreement.

Usage::

    python benchmarks/datatrove_step.py [--data ../shared/data] [--pages 1500] [--files 4] [--jobs 2]

Writes ``--files`` ``.warc.gz`` files in a temporary directory from real pages
(every ``html/*.html.gz`` under ``--data``, in name order), with the crawl's
writer (:class:`webclean_scrapy.downloadermiddlewares.warc.WarcFile`); the Content-Type carries no
charset, so each reader finds the encoding its own way. Then runs, each in
its own process and timed from the outside (imports and start-up included):

* ``webclean extract FILES -j JOBS --keep-going -o cli.jsonl``;
* datatrove's ``LocalPipelineExecutor`` (``--files`` tasks on ``--jobs``
  workers): reader -> ``WebcleanExtractor`` -> ``JsonlWriter``, once with
  datatrove's ``WarcReader`` and once with ``WebcleanWarcReader``.

Prints pages per second of each, and how many pages have the same text in
both (the rest: pages whose encoding datatrove's reader guesses otherwise,
pages libmagic does not call HTML, empty texts that the step drops).
Exits 0 with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from webclean_scrapy.downloadermiddlewares.warc import WarcFile, _Exchange

PIPELINE = """
import sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter
from webclean_scrapy.contrib.datatrove import WebcleanExtractor, WebcleanWarcReader
folder, out, logs, tasks, workers, reader = sys.argv[1:]
Reader = WebcleanWarcReader if reader == "webclean" else WarcReader
LocalPipelineExecutor(pipeline=[Reader(folder, glob_pattern="*.warc.gz"), WebcleanExtractor(),
                                JsonlWriter(out, compression=None)],
                      tasks=int(tasks), workers=int(workers), logging_dir=logs).run()
"""


def page_exchange(n: int, body: bytes) -> _Exchange:
    return _Exchange(
        url=f"https://example.com/page/{n}",
        date="2026-11-23T04:00:00.000000Z",
        request_line=f"GET /page/{n} HTTP/1.1",
        request_headers=[("Host", "example.com")],
        request_body=b"",
        status_line="200 OK",
        protocol="HTTP/1.1",
        response_headers=[("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
        body=body,
        ip_address="192.0.2.1",
        truncated=False,
    )


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--pages", type=int, default=1500)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    sources = sorted(args.data.glob("*/html/*.html.gz"))[: args.pages]
    if not sources:
        print(f"no pages under {args.data}; nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warcs = [WarcFile(root / "warc" / f"part-{i}.warc.gz") for i in range(args.files)]
        for n, source in enumerate(sources):
            warcs[n % args.files].write_exchange(page_exchange(n, gzip.decompress(source.read_bytes())))
        for warc in warcs:
            warc.close()
        files = sorted(str(p) for p in (root / "warc").glob("*.warc.gz"))
        print(f"{len(sources)} pages in {args.files} WARC files, {args.jobs} processes")

        cli_seconds = timed(
            [
                sys.executable,
                "-m",
                "webclean_scrapy.cli",
                "extract",
                *files,
                "-j",
                str(args.jobs),
                "--keep-going",
                "-o",
                str(root / "cli.jsonl"),
            ]
        )
        cli = {r["url"]: r["text"] for r in map(json.loads, (root / "cli.jsonl").read_text("utf-8").splitlines())}
        print(
            f"webclean extract -j {args.jobs}: {cli_seconds:.1f} s, {len(cli) / cli_seconds:.1f} pages/s, "
            f"{len(cli)} pages ({sum(1 for t in cli.values() if t)} with text)"
        )
        for reader in ("datatrove", "webclean"):
            out = root / f"out-{reader}"
            seconds = timed(
                [
                    sys.executable,
                    "-c",
                    PIPELINE,
                    str(root / "warc"),
                    str(out),
                    str(root / f"logs-{reader}"),
                    str(args.files),
                    str(args.jobs),
                    reader,
                ]
            )
            step = {}
            for part in out.glob("*.jsonl"):
                for line in part.read_text("utf-8").splitlines():
                    doc = json.loads(line)
                    step[doc["metadata"]["url"]] = doc["text"]
            same = sum(1 for url, text in step.items() if cli.get(url) == text)
            print(
                f"datatrove step, {reader} reader, {args.jobs} workers: {seconds:.1f} s, "
                f"{len(step) / seconds:.1f} pages/s, {len(step)} documents, same text as the CLI: {same}, "
                f"pages with text missing: {sum(1 for url, t in cli.items() if t and url not in step)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
