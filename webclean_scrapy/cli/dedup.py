"""``webclean dedup``: a JSON lines corpus without its near-duplicate texts.

This module reads the corpus and writes what is kept; which records are
near-copies, and which of a set of copies is kept, is
:func:`webclean_scrapy.dedup.deduplicate`'s rule, the one the crawl's
:class:`~webclean_scrapy.pipelines.NearDuplicatePipeline` shares.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from webclean_scrapy.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, STDIN, error, open_output, positive_int
from webclean_scrapy.dedup import (
    DEFAULT_NUM_PERM,
    DEFAULT_SHINGLE,
    DEFAULT_THRESHOLD,
    DedupUnavailableError,
    NearDuplicateIndex,
    deduplicate,
    record_key,
)


def read_records(path: str) -> list[tuple[str, str, str]]:
    """``(key, text, line)`` per JSON line of *path* (``-``: stdin); ``ValueError``
    naming the line for anything that is not a JSON object."""
    stream = sys.stdin if path == STDIN else open(path, encoding="utf-8")
    records: list[tuple[str, str, str]] = []
    try:
        for number, line in enumerate(stream, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{number}: not a JSON object")
            text = record.get("text")
            records.append((record_key(record), text if isinstance(text, str) else "", line))
    finally:
        if stream is not sys.stdin:
            stream.close()
    return records


def run(args: argparse.Namespace) -> int:
    """Drop the near-duplicates of ``args.input``; the kept lines go to ``args.output`` unchanged."""
    try:
        index = NearDuplicateIndex(threshold=args.threshold, num_perm=args.num_perm, shingle=args.shingle)
    except (ValueError, DedupUnavailableError) as exc:
        error(str(exc))
        return EXIT_USAGE
    try:
        records = read_records(args.input)
    except UnicodeDecodeError as exc:
        error(f"{args.input}: not UTF-8 ({exc.reason})")
        return EXIT_FAILED
    except OSError as exc:
        error(f"cannot read {args.input}: {exc.strerror or exc}")
        return EXIT_FAILED
    except ValueError as exc:
        error(str(exc))
        return EXIT_FAILED

    result = deduplicate(records, index)
    try:
        out = open_output(args.output)
        try:
            for line in result.kept:
                out.write(line + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
        if args.dropped:
            dropped = sorted(
                json.dumps({"key": key, "near_duplicate_of": of}, ensure_ascii=False) for key, of in result.dropped
            )
            Path(args.dropped).write_text("".join(line + "\n" for line in dropped), encoding="utf-8")
    except OSError as exc:
        error(f"cannot write: {exc.strerror or exc}")
        return EXIT_FAILED
    print(
        f"webclean dedup: {len(records)} records, kept {len(result.kept)}, dropped {len(result.dropped)} "
        f"near-duplicates (threshold {args.threshold})",
        file=sys.stderr,
    )
    return EXIT_OK


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``dedup`` command and its options, added to *commands*."""
    dedup = commands.add_parser(
        "dedup",
        help="drop near-duplicate texts from a JSON lines corpus (needs the [dedup] extra)",
        description="Drop records whose text is a near-copy of another's (MinHash LSH over word shingles; "
        "docs/SCRAPY.md#language-and-near-duplicates). Deterministic: records are considered longest text first (ties: "
        "smaller url/canonical_url/source, then smaller line), each kept unless its text is a "
        "near-copy of one kept before, and the kept lines are written unchanged, sorted by that "
        "key then line, so the same set of lines gives the same output in any order.",
    )
    dedup.add_argument("input", metavar="IN.jsonl", help="JSON lines with a text field (- for stdin)")
    dedup.add_argument("-o", "--output", help="write the kept lines here instead of stdout")
    dedup.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help="estimated Jaccard similarity of word shingles from which texts are near-copies "
        "(%(default)s, as WEBCLEAN_NEAR_DUPLICATE_THRESHOLD)",
    )
    dedup.add_argument(
        "--num-perm", type=positive_int, default=DEFAULT_NUM_PERM, help="MinHash permutations (%(default)s)"
    )
    dedup.add_argument("--shingle", type=positive_int, default=DEFAULT_SHINGLE, help="words per shingle (%(default)s)")
    dedup.add_argument(
        "--dropped", metavar="FILE", help="also write one {key, near_duplicate_of} line per dropped record here"
    )
    dedup.set_defaults(func=run)
