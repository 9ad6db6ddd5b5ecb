"""The long fuzzing run: CI's property-based checks on as many pages as asked.

Usage::

    python benchmarks/fuzz.py [--examples 10000] [--bytes-examples 2000] [--seed N]

Runs the checks of ``tests/_fuzz.py`` (every registered extractor from
``str`` and bytes, the compiled and the Python walk agreeing, the downloader
middleware in-process) on ``--examples`` generated pages, then
``--bytes-examples`` arbitrary byte strings (also through the charset
check of :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware`), with hypothesis (``pip install
-e ".[test]"``). Random, unless ``--seed`` is given; no per-example
deadline. Prints how many examples passed; on a failure, hypothesis'
shrunk counterexample and exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from _fuzz import MARKUP, check_charset, check_extractors, check_markup, check_walks, make_middleware  # noqa: E402


def run(examples: int, bytes_examples: int, chosen_seed: int | None) -> int:
    middleware = make_middleware()
    passed = {"markup": 0, "bytes": 0}
    options = settings(
        max_examples=examples, deadline=None, database=None, derandomize=False, suppress_health_check=list(HealthCheck)
    )

    @options
    @given(markup=MARKUP)
    def pages(markup: str) -> None:
        check_markup(markup, middleware)
        passed["markup"] += 1

    @settings(options, max_examples=bytes_examples)
    @given(data=st.binary(max_size=4000))
    def raw(data: bytes) -> None:
        check_extractors(data)
        check_walks(data.decode("utf-8", "replace"))
        check_charset(data)
        passed["bytes"] += 1

    status = 0
    for name, test in (("markup", pages), ("bytes", raw)):
        if chosen_seed is not None:
            test = seed(chosen_seed)(test)
        start = time.perf_counter()
        try:
            test()
        except Exception as exc:  # hypothesis re-raises the shrunk failure
            print(f"{name}: FAILED after {passed[name]} passing examples: {type(exc).__name__}: {exc}")
            status = 1
        else:
            print(f"{name}: {passed[name]} examples passed in {time.perf_counter() - start:.0f} s")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000, help="generated pages")
    parser.add_argument("--bytes-examples", type=int, default=2_000, help="arbitrary byte strings")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    return run(args.examples, args.bytes_examples, args.seed)


if __name__ == "__main__":
    sys.exit(main())
