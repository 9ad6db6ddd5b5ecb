"""``webclean explain`` and ``webclean plot``: what an extractor kept on one page, and why.

Both read the page the same way and hand it to :func:`webclean_scrapy.explain.explain`;
``explain`` writes the HTML report, ``plot`` the extractor's figure (the
``[plot]`` extra). See docs/EXPLAIN.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from webclean_scrapy.cli.batch import check_gzip_name
from webclean_scrapy.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    STDIN,
    UnreadableFileError,
    error,
    parse_options,
    positive_int,
    read_page,
    read_source,
)
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.errors import ExtractionError


def _explained(args: argparse.Namespace) -> Any:
    """The :class:`~webclean_scrapy.explain.Explanation` of ``args.page``,
    or an exit status after printing why not."""
    from webclean_scrapy.explain import explain

    try:
        options = parse_options(args.option or [])
        get_extractor(args.extractor, **options)
    except (ValueError, ExtractionError) as exc:
        error(str(exc))
        return EXIT_USAGE
    try:
        data = sys.stdin.buffer.read() if args.page == STDIN else read_source(args.page)
        check_gzip_name(args.page, data)
        return explain(read_page(data), url=args.url, extractor=args.extractor, **options)
    except (ExtractionError, UnreadableFileError) as exc:
        error(f"{args.page}: {exc}")
        return EXIT_FAILED


def run_explain(args: argparse.Namespace) -> int:
    """Write the HTML report of ``args.page`` to ``args.output``."""
    report = _explained(args)
    if isinstance(report, int):
        return report
    try:
        Path(args.output).write_text(report.html(), encoding="utf-8")
    except OSError as exc:
        error(f"cannot write {args.output}: {exc.strerror or exc}")
        return EXIT_FAILED
    kept = sum(unit.kept for unit in report.units)
    print(
        f"{args.output}: {report.extractor}, {report.page_type_label} page, kept {kept} of {len(report.units)} "
        f"{report.trace.unit}s",
        file=sys.stderr,
    )
    return EXIT_OK


def run_plot(args: argparse.Namespace) -> int:
    """Draw the extractor's figure for ``args.page`` to ``args.output``."""
    from webclean_scrapy.explain.plots import PlotUnavailableError, figure

    report = _explained(args)
    if isinstance(report, int):
        return report
    try:
        figure(report.trace).savefig(
            args.output, dpi=args.dpi, metadata={"Software": None} if args.output.lower().endswith(".png") else None
        )
    except PlotUnavailableError as exc:
        error(str(exc))
        return EXIT_FAILED
    except (OSError, ValueError) as exc:
        error(f"cannot write {args.output}: {getattr(exc, 'strerror', None) or exc}")
        return EXIT_FAILED
    return EXIT_OK


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``explain`` and ``plot`` commands and their options, added to *commands*."""
    for name, helptext in (
        ("explain", "write an HTML report of what an extractor kept on a page, and why"),
        ("plot", "draw an extractor's figure for a page (ttr, density, scores)"),
    ):
        sub = commands.add_parser(
            name, help=helptext, description=helptext[0].upper() + helptext[1:] + ". See docs/EXPLAIN.md."
        )
        sub.add_argument("page", metavar="PAGE", help="HTML file (plain or .gz) or - for stdin")
        sub.add_argument("-e", "--extractor", default="default", help="extractor name (%(default)s) or dotted path")
        sub.add_argument("--url", help="the page's URL (the page-type classifier reads it; shown in the report)")
        sub.add_argument(
            "--option",
            action="append",
            metavar="KEY=VALUE",
            help="extractor parameter, repeatable (values parsed as JSON when possible)",
        )
        if name == "explain":
            sub.add_argument("-o", "--output", required=True, help="the HTML report to write")
            sub.set_defaults(func=run_explain)
        else:
            sub.add_argument(
                "-o",
                "--output",
                required=True,
                help="the image to write; the format follows the suffix (.png, .svg, .pdf)",
            )
            sub.add_argument("--dpi", type=positive_int, default=120, help="resolution of raster images (%(default)s)")
            sub.set_defaults(func=run_plot)
