"""Every extractor's output on every shared page, as JSON lines: the proof that a change altered none.

Usage::

    python benchmarks/output_snapshot.py before.jsonl            # on the old code
    python benchmarks/output_snapshot.py after.jsonl             # on the new code
    cmp before.jsonl after.jsonl                                 # identical, or the first page that differs

For each page of every dataset under ``--data``: the default extractor's whole
:class:`~webclean_scrapy.Extraction` (text, title, page type, metadata, language, with Markdown
and clean HTML as digests), and a digest of each other method's on one page in five (the same
pages every run). Pages run in ``--jobs`` processes, in a fixed order, so two runs of the same
code write the same bytes. An exception is written as the page's value, not raised. Exits 0
with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webclean_scrapy import extract  # noqa: E402

OTHER_METHODS = ("density", "ttr", "punctuation", "baseline")


def _digest(value: Any) -> str:
    return hashlib.md5(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def page_outputs(task: tuple[str, str, str, str | None]) -> dict[str, Any]:
    data, dataset, page_id, url = task
    body = gzip.decompress((Path(data) / dataset / "html" / f"{page_id}.html.gz").read_bytes())
    out: dict[str, Any] = {"id": f"{dataset}/{page_id}"}
    sampled = int(hashlib.md5(page_id.encode()).hexdigest(), 16) % 5 == 0
    for method in ("webclean", *(OTHER_METHODS if sampled else ())):
        try:
            fields = extract(body, url=url, extractor=method, output=("markdown", "html")).as_dict()
        except Exception as exc:  # a page's failure is part of its output
            out[method] = f"ERROR {type(exc).__name__}: {exc}"
            continue
        if method == "webclean":
            out[method] = {k: _digest(v) if k in ("markdown", "html") else v for k, v in fields.items()}
        else:
            out[method] = _digest(fields)
    return out


def tasks(data: Path) -> list[tuple[str, str, str, str | None]]:
    found = []
    for folder in sorted(p for p in data.iterdir() if (p / "truth.jsonl").is_file()):
        for line in (folder / "truth.jsonl").read_text(encoding="utf-8").split("\n"):
            if line.strip():
                record = json.loads(line)
                found.append((str(data), folder.name, record["id"], record.get("url")))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("output", help="JSON lines file to write")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="folder of datasets")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    data = Path(args.data)
    if not data.is_dir():
        print(f"no data at {data}: nothing to snapshot")
        return 0
    with ProcessPoolExecutor(args.jobs) as pool, open(args.output, "w", encoding="utf-8") as out:
        for record in pool.map(page_outputs, tasks(data), chunksize=20):
            out.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
