"""The ``webclean`` command: extract main text from files, evaluate extractors, run the demo.

::

    webclean extract page.html pages/ - -e webclean -o out.jsonl
    webclean extract crawl.warc.gz -o out.jsonl     # re-extract a recorded crawl
    webclean extract --input-list pages.txt --keep-going -j 2 -o out.jsonl
    webclean extract pages/ --format md --output-dir out/   # one Markdown file per page
    webclean eval ../shared/data/readability -e baseline --compare trafilatura --json scores.json
    webclean dedup corpus.jsonl -o deduplicated.jsonl
    webclean explain page.html -e webclean --url https://example.org/a -o report.html
    webclean plot page.html -e ttr -o ttr.png
    webclean demo [demo arguments...]

Bad input never ends in a traceback: each unreadable or binary file is named
on stderr. ``extract`` stops at the first one (``--keep-going``: skips it and
goes on), ends with a summary on stderr, and exits 1 when any input failed
(:mod:`webclean_scrapy.cli.batch`).

Each command is a module of this package (:mod:`~webclean_scrapy.cli.extract`,
:mod:`~webclean_scrapy.cli.eval`, :mod:`~webclean_scrapy.cli.dedup`,
:mod:`~webclean_scrapy.cli.explain` for ``explain`` and ``plot``,
:mod:`~webclean_scrapy.cli.demo`) that adds its sub-parser with
``add_arguments``; this module only assembles them. None imports Scrapy or
Twisted, so the command starts fast and runs where no crawl could.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from webclean_scrapy._version import __version__
from webclean_scrapy.cli import dedup, demo, explain, extract
from webclean_scrapy.cli import eval as evaluate

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The ``webclean`` parser: one sub-command per command module, in ``--help`` order."""
    parser = argparse.ArgumentParser(prog="webclean", description="Keep only the main text of web pages.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (extract, evaluate, dedup, explain, demo):
        command.add_arguments(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        # Straight through: argparse would claim the demo's own options (--help, --port...).
        return demo.run(argv[1:])
    args = build_parser().parse_args(argv)
    return int(args.func(args))
