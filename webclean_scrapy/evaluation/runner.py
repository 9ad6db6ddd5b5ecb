"""Score extractors (ours and peers) on annotated datasets.

One page at a time: read the raw bytes, run every contestant on them, score
each output against the gold text (tokenized once per page), keep the
numbers. Pages are independent, so ``jobs > 1`` spreads them over a process
pool; the default of one process keeps the reported ms/page honest.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..document import Document, built_page
from ..encoding import decode_html
from ..extractors import get_extractor
from .dataset import Page, dataset_name, load_dataset
from .metrics import MEAN_METRICS, Text, score_page, shingle_dataset_prf
from .peers import load_peer

#: The keys of one extractor's figures in the JSON report, in table order.
REPORT_KEYS = ("shingle_f1", "shingle_precision", "shingle_recall", "lcs_f1", "lcstring_f1", "edr",
               "cleaneval_f1", "voc_f1", "occ_f1", "kl", "cosine", "euclidean", "ms_per_page")

#: Table columns: (report key, header, format).
COLUMNS = (
    ("shingle_precision", "P", ".3f"), ("shingle_recall", "R", ".3f"), ("shingle_f1", "F1", ".3f"),
    ("lcs_f1", "LCS F1", ".3f"), ("lcstring_f1", "LCStr F1", ".3f"), ("edr", "EDR", ".3f"),
    ("cleaneval_f1", "CE F1", ".3f"), ("voc_f1", "voc F1", ".3f"), ("occ_f1", "occ F1", ".3f"),
    ("kl", "KL", ".3f"), ("cosine", "cos", ".3f"), ("euclidean", "eucl", ".3f"),
    ("ms_per_page", "ms/page", ".1f"),
)


@dataclass(frozen=True)
class Contestants:
    """What to run: our extractor names (with options) and peer names.

    Plain data, so it can be shipped to worker processes, which build the
    extractors themselves.
    """

    ours: tuple[str, ...] = ()
    peers: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return self.ours + self.peers


@dataclass
class PageResult:
    page_id: str
    language: str | None
    #: extractor name -> :func:`score_page` output plus ``ms`` and ``failed``.
    scores: dict[str, dict[str, Any]]


@dataclass
class DatasetReport:
    name: str
    pages: int
    #: extractor -> {REPORT_KEYS...}
    summary: dict[str, dict[str, float]]
    #: extractor -> pages on which it raised (scored as empty output).
    failures: dict[str, int]
    #: extractor -> first error message, for the user to look into.
    errors: dict[str, str]
    #: language -> extractor -> {"pages", "shingle_precision", "shingle_recall", "shingle_f1"}
    by_language: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)


class _Runner:
    """Runs every contestant on one page. Built once per process."""

    def __init__(self, contestants: Contestants) -> None:
        options = dict(contestants.options)
        self.ours = [(name, get_extractor(name, **options)) for name in contestants.ours]
        self.peers = [(name, load_peer(name)) for name in contestants.peers]

    def run(self, page: Page) -> PageResult:
        gold = Text(page.gold)
        scores: dict[str, dict[str, Any]] = {}
        language: str | None = None
        raw = page.read()

        for name, extractor in self.ours:
            failed = ""
            start = time.perf_counter()
            try:
                with built_page(lambda: Document.from_html(raw, url=page.url)) as doc:
                    text = extractor.extract_text(doc)
                    language = language or doc.language
            except Exception as exc:  # one bad page never aborts a run
                text, failed = "", f"{type(exc).__name__}: {exc}"
            ms = (time.perf_counter() - start) * 1000
            scores[name] = {**score_page(text, gold), "ms": ms, "failed": failed}

        html: str | None = None
        if self.peers:
            try:
                html = decode_html(raw)[1]
            except Exception:  # binary page: every peer gets nothing
                html = None
            if html is not None and not self.ours:
                language = Document.from_html(html).language
        for name, peer in self.peers:
            failed = ""
            start = time.perf_counter()
            try:
                if html is None:
                    raise ValueError("page is not decodable HTML")
                text = peer(html, language)
            except Exception as exc:
                text, failed = "", f"{type(exc).__name__}: {exc}"
            ms = (time.perf_counter() - start) * 1000
            scores[name] = {**score_page(text or "", gold), "ms": ms, "failed": failed}
        return PageResult(page.id, language, scores)


_worker: _Runner | None = None


def _init_worker(contestants: Contestants) -> None:
    global _worker
    _worker = _Runner(contestants)


def _run_in_worker(page: Page) -> PageResult:
    assert _worker is not None
    return _worker.run(page)


def run_pages(pages: Sequence[Page], contestants: Contestants, jobs: int = 1,
              on_page: Callable[[], None] | None = None) -> list[PageResult]:
    """Every contestant on every page, in page order."""
    results: list[PageResult] = []
    if jobs <= 1 or len(pages) <= 1:
        runner = _Runner(contestants)
        for page in pages:
            results.append(runner.run(page))
            if on_page:
                on_page()
        return results
    # Fail fast in this process on unknown names or missing libraries.
    _Runner(contestants)
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(contestants,)) as pool:
        for result in pool.map(_run_in_worker, pages, chunksize=4):
            results.append(result)
            if on_page:
                on_page()
    return results


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


def summarise(results: Sequence[PageResult], name: str) -> dict[str, float]:
    """One extractor's dataset figures, keyed by :data:`REPORT_KEYS`."""
    scores = [r.scores[name] for r in results if name in r.scores]
    shingles = shingle_dataset_prf(s["shingle_counts"] for s in scores)
    figures = {
        "shingle_f1": shingles.f1,
        "shingle_precision": shingles.precision,
        "shingle_recall": shingles.recall,
        **{key: _mean(s[key] for s in scores) for key in MEAN_METRICS},
        "ms_per_page": _mean(s["ms"] for s in scores),
    }
    return {key: figures[key] for key in REPORT_KEYS}


def summarise_by_language(results: Sequence[PageResult], names: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    """Shingle figures per page language (pages without one are left out)."""
    groups: dict[str, list[PageResult]] = {}
    for result in results:
        if result.language:
            groups.setdefault(result.language, []).append(result)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for language in sorted(groups, key=lambda lang: (-len(groups[lang]), lang)):
        pages = groups[language]
        table[language] = {}
        for name in names:
            prf = shingle_dataset_prf(r.scores[name]["shingle_counts"] for r in pages)
            table[language][name] = {"pages": len(pages), "shingle_precision": prf.precision,
                                     "shingle_recall": prf.recall, "shingle_f1": prf.f1}
    return table


def evaluate_dataset(directory: str | Path, contestants: Contestants, *, limit: int | None = None,
                     pages: Sequence[Page] | None = None, jobs: int = 1, by_language: bool = False,
                     on_page: Callable[[], None] | None = None) -> DatasetReport:
    """Load a dataset (unless its *pages* are given), run the contestants and summarise."""
    if pages is None:
        pages = load_dataset(directory, limit=limit)
    results = run_pages(pages, contestants, jobs=jobs, on_page=on_page)
    names = contestants.names
    failures = {name: sum(1 for r in results if r.scores[name]["failed"]) for name in names}
    errors = {}
    for name in names:
        first = next((r for r in results if r.scores[name]["failed"]), None)
        if first is not None:
            errors[name] = f"page {first.page_id}: {first.scores[name]['failed']}"
    return DatasetReport(
        name=dataset_name(directory),
        pages=len(pages),
        summary={name: summarise(results, name) for name in names},
        failures=failures,
        errors=errors,
        by_language=summarise_by_language(results, names) if by_language else {},
    )


def _render(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return "\n".join(lines)


def format_report(report: DatasetReport) -> str:
    """The paper-style table of one dataset (plus per-language tables)."""
    headers = ["extractor", *(header for _, header, _ in COLUMNS)]
    rows = [[name, *(format(figures[key], fmt) for key, _, fmt in COLUMNS)]
            for name, figures in report.summary.items()]
    parts = [f"{report.name} ({report.pages} pages; shingle P/R/F1 = 4-gram shingles, "
             "EDR/KL/cos/eucl: lower is better)", _render(headers, rows)]
    failed = [f"{name}: {count} page(s) failed, scored as empty ({report.errors.get(name, '')})"
              for name, count in report.failures.items() if count]
    parts.extend(failed)
    for language, figures in report.by_language.items():
        pages = next(iter(figures.values()))["pages"] if figures else 0
        rows = [[name, *(format(f[key], ".3f") for key in ("shingle_precision", "shingle_recall", "shingle_f1"))]
                for name, f in figures.items()]
        parts.append("")
        parts.append(f"{report.name} / language {language} ({pages} page{'s' if pages != 1 else ''})")
        parts.append(_render(["extractor", "P", "R", "F1"], rows))
    return "\n".join(parts)
