"""What the shipped models alone cost, as a multiple of lxml's parse of the same pages.

Usage::

    python benchmarks/model_cost.py [--data ../shared/data] [--smallest 100 | --pages 150]
                                    [--dataset NAME ...] [--repeat 20] [--rounds 3]

Why: ``extract()``'s speed goal is a multiple of the bare parse
(docs/BENCHMARKS.md, "Speed"). Three models run on every page, whatever
else is made faster: the language detector (py3langid) on the first
characters of the text, the page-type tree ensemble on the page's row, and
the block ensemble on its blocks. Their output is the extraction's output,
so their cost is a floor under ``extract()``'s that no change to the
other stages can lower without changing what ``extract()`` returns.

Each page is extracted once, at its defaults, to record what the models
were given (the detector's text; each ensemble's rows). Then, in each of
``--rounds`` rounds and by CPU time, every page's parse
(``lxml.html.fromstring``), its detection and its ensembles are timed
*hot*: each call repeated ``--repeat`` times in a row, so the models'
tables are in the cache as far as they fit, which is the best case for
the models. Inside a crawl they are colder and cost more. Two figures for
the models: as ``extract()`` calls them
(:func:`~webclean_scrapy.engine.text.language.detect_language`,
:meth:`~webclean_scrapy.engine.trees.TreeEnsemble.probabilities`), and
their compiled kernels alone (the language automaton's walk with the
gather of its table rows, ``_langid.sparse_rows``, and the ensembles'
leaf sums, :meth:`~webclean_scrapy.engine.trees.TreeEnsemble.raw`). Each
figure is the best round's, in milliseconds per page and as a multiple of
the parse. ``extract()`` parses the page itself, so it costs at least the
parse plus the models.

Exits 0 with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import lxml.html
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import webclean_scrapy  # noqa: E402
import webclean_scrapy.engine.extraction as extraction  # noqa: E402
from speed import sample_pages, smallest_pages  # noqa: E402
from webclean_scrapy.engine.text import language  # noqa: E402
from webclean_scrapy.engine.trees import TreeEnsemble  # noqa: E402


class ModelInputs:
    """What the models were given while pages were extracted: the detector's
    texts, and each ensemble call's ensemble and rows."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.ensembles: list[tuple[TreeEnsemble, np.ndarray]] = []


@contextmanager
def recorded(inputs: ModelInputs) -> Iterator[None]:
    """Record into *inputs* what ``extract()`` gives its models, which run as they do."""
    detect = extraction.detect_language
    probabilities = TreeEnsemble.probabilities

    def detect_and_record(text: str | None, *args: Any, **kwargs: Any) -> Any:
        if text:
            inputs.texts.append(text)
        return detect(text, *args, **kwargs)

    def evaluate_and_record(ensemble: TreeEnsemble, rows: np.ndarray) -> np.ndarray:
        inputs.ensembles.append((ensemble, np.array(rows, dtype=float)))
        return probabilities(ensemble, rows)

    with (
        mock.patch.object(extraction, "detect_language", detect_and_record),
        mock.patch.object(TreeEnsemble, "probabilities", evaluate_and_record),
    ):
        yield


def model_inputs(pages: Sequence[bytes]) -> ModelInputs:
    """Each page extracted once at its defaults; what its models were given."""
    inputs = ModelInputs()
    with recorded(inputs):
        for page in pages:
            webclean_scrapy.extract(page)
    return inputs


def hot_time(call: Callable[[Any], object], items: Sequence[Any], repeat: int) -> float:
    """CPU seconds of *call* over *items*, each item's call repeated *repeat* times in a row, per repetition."""
    start = time.process_time()
    for item in items:
        for _ in range(repeat):
            call(item)
    return (time.process_time() - start) / repeat


def language_kernel() -> Callable[[str], object] | None:
    """The detector's compiled walk and row gather on a text's sample (as
    ``_raw_score`` runs it), or ``None`` when the compiled module or
    py3langid is missing."""
    try:
        import webclean_scrapy.engine.text._langid as compiled
    except ImportError:
        return None
    identifier = language._load()
    tables = getattr(identifier, "_tables", None)
    if identifier is None or tables is None:
        return None
    table = identifier.nb_ptc.view(np.uint16)
    widen = language._half_to_single()

    def walk_and_gather(text: str) -> object:
        return compiled.sparse_rows(*tables, identifier._encode(text[: language.SAMPLE_CHARS]), table, widen)

    return walk_and_gather


def measure(pages: Sequence[bytes], repeat: int, rounds: int) -> dict[str, float]:
    """Best-of-*rounds* CPU seconds per page of each side (see the module docstring)."""
    inputs = model_inputs(pages)
    kernel = language_kernel()
    sides: dict[str, tuple[Callable[[Any], object], Sequence[Any]]] = {
        "parse": (lxml.html.fromstring, pages),
        "language": (language.detect_language, inputs.texts),
        "trees": (lambda call: call[0].probabilities(call[1]), inputs.ensembles),
    }
    if kernel is not None:  # the kernels are reported as a pair, so timed as one
        sides["language_kernel"] = (kernel, inputs.texts)
        sides["trees_kernel"] = (lambda call: call[0].raw(call[1]), inputs.ensembles)
    best: dict[str, float] = {}
    for _ in range(rounds):
        for side, (call, items) in sides.items():
            spent = hot_time(call, items, repeat) / len(pages)
            best[side] = min(best.get(side, spent), spent)
    return best


def report(best: dict[str, float], label: str, repeat: int) -> list[str]:
    """The report's lines: each figure in ms per page and as a multiple of the parse."""
    parse = best["parse"]
    models = best["language"] + best["trees"]
    lines = [f"{label}, CPU time, each call repeated {repeat} times in a row (hot)"]

    def line(name: str, seconds: float) -> str:
        return f"  {name:<44} {1000 * seconds:7.4f} ms/page  {seconds / parse:5.2f}x the parse"

    lines.append(line("lxml parse", parse))
    lines.append(line("language detection", best["language"]))
    lines.append(line("tree ensembles (page type, blocks)", best["trees"]))
    lines.append(line("the models, as extract() calls them", models))
    if "language_kernel" in best:
        kernels = best["language_kernel"] + best["trees_kernel"]
        lines.append(line("their compiled kernels alone", kernels))
    else:
        lines.append("  their compiled kernels alone: the compiled language module is not built")
    lines.append(f"  extract() costs at least the parse and the models: {1 + models / parse:.2f}x the parse")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--smallest", type=int, default=0, help="the N smallest pages instead of a sample")
    parser.add_argument("--pages", type=int, default=150, help="pages sampled (0: all)")
    parser.add_argument("--dataset", action="append", help="only these datasets (repeatable)")
    parser.add_argument("--repeat", type=int, default=20, help="each call repeated this many times in a row")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each figure is the best round's")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no evaluation data at {args.data}; nothing to measure")
        return 0
    if args.smallest:
        pages = smallest_pages(args.data, args.smallest, args.dataset)
        label = f"the {len(pages)} smallest pages"
    else:
        pages = sample_pages(args.data, args.pages, args.dataset)
        label = f"{len(pages)} pages of {', '.join(args.dataset) if args.dataset else 'every set'}"
    if not pages:
        print(f"no pages under {args.data}; nothing to measure")
        return 0
    if not language.language_detection_available():
        print("py3langid (the [lang] extra) is not installed: no language model to measure")
        return 0
    print("\n".join(report(measure(pages, args.repeat, args.rounds), label, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
