"""``webclean eval``: score extractors, ours and peer libraries, on annotated datasets.

The scoring lives in :mod:`webclean_scrapy.evaluation`, imported only when
the command runs: numpy and the peers are not needed by the other commands.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from webclean_scrapy.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error, positive_int
from webclean_scrapy.cli.progress import Progress, want_progress
from webclean_scrapy.engine.extractors import available_extractors, get_extractor
from webclean_scrapy.errors import ExtractionError, install_hint


def run(args: argparse.Namespace) -> int:
    """Score every dataset of *args*; 1 when none could be scored or the JSON not written."""
    from webclean_scrapy.evaluation import (  # lazy: numpy and the peers are not needed by `extract`
        Contestants,
        DatasetError,
        PeerUnavailableError,
        evaluate_dataset,
        format_report,
        intervals_as_json,
        load_dataset,
        load_peer,
    )
    from webclean_scrapy.evaluation.metrics import require_distances

    try:
        require_distances()  # every page is scored by every metric: say so before the first page
    except ImportError as exc:
        error(str(exc))
        return EXIT_USAGE
    ours = tuple(dict.fromkeys(args.extractors or available_extractors()))
    peers = tuple(dict.fromkeys(args.compare or ()))
    try:
        for name in ours:
            get_extractor(name)
        for name in peers:
            load_peer(name)
    except (ExtractionError, PeerUnavailableError) as exc:
        error(str(exc))
        return EXIT_USAGE
    contestants = Contestants(ours=ours, peers=peers)

    results: dict[str, Any] = {}
    by_language: dict[str, Any] = {}
    by_type: dict[str, Any] = {}
    intervals: dict[str, Any] = {}
    status = EXIT_OK
    for directory in args.datasets:
        progress: Progress | None = None
        try:
            pages = load_dataset(directory, limit=args.limit)
            progress = Progress(len(pages), want_progress(len(pages), args.progress))
            report = evaluate_dataset(
                directory,
                contestants,
                pages=pages,
                jobs=args.jobs,
                by_language=args.by_language,
                by_type=args.by_type,
                intervals=args.intervals,
                on_page=progress.advance,
            )
        except DatasetError as exc:
            error(str(exc))
            status = EXIT_FAILED
            continue
        finally:
            if progress is not None:
                progress.close()
        name = report.name if report.name not in results else str(directory)
        results[name] = report.summary
        if args.by_language:
            by_language[name] = report.by_language
        if args.by_type:
            by_type[name] = report.by_type
        if report.intervals is not None:
            intervals[name] = intervals_as_json(report.intervals)
        print(format_report(report), end="\n\n", flush=True)

    if args.json and results:
        document: dict[str, Any] = dict(results)
        if args.by_language:
            document["by_language"] = by_language
        if args.by_type:
            document["by_type"] = by_type
        if args.intervals:
            document["intervals"] = intervals
        try:
            Path(args.json).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            error(f"cannot write {args.json}: {exc.strerror or exc}")
            return EXIT_FAILED
    return status if results else EXIT_FAILED


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``eval`` command and its options, added to *commands*."""
    from webclean_scrapy.evaluation.peers import PEERS

    evaluate = commands.add_parser(
        "eval",
        help="score extractors on annotated datasets",
        description="Score extractors on datasets laid out as DIR/html/<id>.html.gz + DIR/truth.jsonl. "
        "Metrics are described in docs/EVALUATION.md.",
    )
    evaluate.add_argument("datasets", nargs="+", metavar="DATASET_DIR")
    evaluate.add_argument(
        "-e",
        "--extractor",
        dest="extractors",
        action="extend",
        nargs="+",
        metavar="NAME",
        help=f"our extractors to score (default: all registered: {', '.join(available_extractors())})",
    )
    evaluate.add_argument(
        "--compare",
        action="extend",
        nargs="+",
        metavar="PEER",
        choices=sorted(PEERS),
        help=f"peer libraries to score too: {', '.join(PEERS)} ({install_hint('compare')})",
    )
    evaluate.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    evaluate.add_argument("--limit", type=positive_int, help="only the first N pages of each dataset")
    evaluate.add_argument(
        "--by-language", action="store_true", help="also report word and shingle scores per page language"
    )
    evaluate.add_argument(
        "--by-type",
        action="store_true",
        help="also report word and shingle scores per page type (page_type of truth.jsonl, as in WCXB)",
    )
    evaluate.add_argument(
        "--intervals",
        action="store_true",
        help="also report 95%% bootstrap intervals (sites resampled) of each shingle F1 and word F1, and of the "
        "first extractor's gap to each other one (per page type too with --by-type)",
    )
    evaluate.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=1,
        help="worker processes (%(default)s; more makes ms/page less reliable)",
    )
    evaluate.add_argument(
        "--progress", action="store_true", help="show a progress bar even when stderr is not a terminal"
    )
    evaluate.set_defaults(func=run)
