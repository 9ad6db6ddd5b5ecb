"""``webclean demo``: every argument handed to :func:`webclean_scrapy.demo.main` untouched.

The demo parses its own options (``--help``, ``--port``...), so
:func:`webclean_scrapy.cli.main` calls :func:`run` before argparse sees them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from webclean_scrapy.cli.common import EXIT_FAILED, error


def run(argv: Sequence[str]) -> int:
    """Hand every remaining argument to ``webclean_scrapy.demo.main``."""
    try:
        from webclean_scrapy.demo import main as demo_main
    except ImportError as exc:
        if getattr(exc, "name", None) == "webclean_scrapy.demo":
            error("the demo is not available in this installation")
        else:
            error(f"the demo cannot start: {exc}")
        return EXIT_FAILED
    return int(demo_main(list(argv)) or 0)


def _run_parsed(args: argparse.Namespace) -> int:
    return run(args.args)


def add_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``demo`` command, listed in ``webclean --help``; its arguments pass through."""
    demo = commands.add_parser("demo", help="run the demo (arguments are passed through)", add_help=False)
    demo.add_argument("args", nargs=argparse.REMAINDER)
    demo.set_defaults(func=_run_parsed)
