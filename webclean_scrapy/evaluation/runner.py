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

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.metadata import metadata_of
from webclean_scrapy.engine.page_type import page_type_of
from webclean_scrapy.engine.text.encoding import decode_html
from webclean_scrapy.engine.text.language import detect_language
from webclean_scrapy.evaluation.dataset import Page, dataset_name, load_dataset
from webclean_scrapy.evaluation.intervals import (
    LEVEL,
    RESAMPLES,
    Interval,
    bootstrap_interval,
    paired_gap,
    shingle_f1_gap,
    shingle_f1_interval,
)
from webclean_scrapy.evaluation.metrics import (
    MEAN_METRICS,
    METADATA_KEYS,
    Text,
    score_metadata,
    score_page,
    shingle_dataset_prf,
    snippet_hits,
    snippet_prf,
)
from webclean_scrapy.evaluation.peers import load_metadata_peer, load_peer
from webclean_scrapy.fingerprint import site_of
from webclean_scrapy.offload.worker import build_extractor, init_worker, worker_state

#: The keys of one extractor's figures in the JSON report, on every dataset.
REPORT_KEYS = ("shingle_f1", "shingle_precision", "shingle_recall", *MEAN_METRICS, "ms_per_page")

#: Keys added after :data:`REPORT_KEYS` only on datasets whose pages carry
#: ``with`` / ``without`` snippet lists (WCXB): absent, not 0, elsewhere.
#: The two rates are means over the pages that have such snippets; the
#: snippet precision, recall and F1 are pooled over the dataset's snippets
#: (:func:`~webclean_scrapy.evaluation.metrics.snippet_prf`). The
#: ``folded_`` three are the same with both sides' typography folded
#: (:func:`~webclean_scrapy.evaluation.metrics.fold_typography`: curly
#: quotes, dashes, ellipses, zero-width characters), which WCXB's
#: straight-quoted snippets need to be found at all in most pages' text.
SNIPPET_KEYS = (
    "with_rate",
    "without_rate",
    "snippet_precision",
    "snippet_recall",
    "snippet_f1",
    "folded_snippet_precision",
    "folded_snippet_recall",
    "folded_snippet_f1",
)

#: Table columns: (report key, header, format). A column whose key no
#: extractor has (the snippet rates on most datasets) is left out.
COLUMNS = (
    ("shingle_precision", "P", ".3f"),
    ("shingle_recall", "R", ".3f"),
    ("shingle_f1", "F1", ".3f"),
    ("word_precision", "word P", ".3f"),
    ("word_recall", "word R", ".3f"),
    ("word_f1", "word F1", ".3f"),
    ("lcs_f1", "LCS F1", ".3f"),
    ("lcstring_f1", "LCStr F1", ".3f"),
    ("edr", "EDR", ".3f"),
    ("cleaneval_f1", "CE F1", ".3f"),
    ("voc_f1", "voc F1", ".3f"),
    ("occ_f1", "occ F1", ".3f"),
    ("kl", "KL", ".3f"),
    ("cosine", "cos", ".3f"),
    ("euclidean", "eucl", ".3f"),
    ("with_rate", "with", ".3f"),
    ("without_rate", "without", ".3f"),
    ("snippet_f1", "snip F1", ".3f"),
    ("folded_snippet_f1", "snip F1 folded", ".3f"),
    ("ms_per_page", "ms/page", ".1f"),
)

#: Metadata table columns (figures present on datasets with gold metadata, WCXB).
METADATA_COLUMNS = (
    ("title_exact", "title exact"),
    ("title_f1", "title F1"),
    ("author_exact", "author exact"),
    ("date_same_day", "date same day"),
)

#: The figures of one group of pages in the per-language and per-type tables.
GROUP_KEYS = ("pages", "word_precision", "word_recall", "word_f1", "shingle_precision", "shingle_recall", "shingle_f1")


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
class PageScores:
    """Every contestant's figures on one page (what a worker sends back)."""

    page_id: str
    language: str | None
    #: extractor name -> :func:`score_page` output plus ``with_hits`` and
    #: ``without_hits`` (snippets found, snippets; ``(0, 0)`` without any),
    #: ``ms`` and ``failed``.
    scores: dict[str, dict[str, Any]]
    page_type: str | None = None


#: The figures :class:`Intervals` are given for, with their table titles, in
#: the report's column order: the article benchmark's shingle F1 (the F1 of
#: two means over the dataset's pages) and WCXB's word F1 (a mean over pages).
INTERVAL_METRICS = {"shingle_f1": "shingle F1", "word_f1": "word F1"}
#: The group of every page, first in :class:`Intervals`.
ALL_PAGES = "all"


@dataclass(frozen=True)
class Intervals:
    """95% bootstrap intervals, sites resampled (:mod:`.intervals`), of each
    contestant's :data:`INTERVAL_METRICS` and of the first contestant's gap
    to each other one on the same pages; per group of pages: all of them,
    then each page type when the report has them."""

    #: group -> metric -> contestant -> its figure and interval.
    scores: dict[str, dict[str, dict[str, Interval]]]
    #: group -> metric -> other contestant -> the first contestant's figure minus the other's, and its interval.
    gaps: dict[str, dict[str, dict[str, Interval]]]
    resamples: int = RESAMPLES
    level: float = LEVEL


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
    #: language -> extractor -> {GROUP_KEYS...}
    by_language: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    #: page type -> extractor -> {GROUP_KEYS...}; None when not asked for.
    by_type: dict[str, dict[str, dict[str, float]]] | None = None
    #: None when not asked for.
    intervals: Intervals | None = None


class _Runner:
    """Runs every contestant on one page. Built once per process
    (:func:`~webclean_scrapy.offload.worker.init_worker` in worker processes)."""

    def __init__(self, contestants: Contestants) -> None:
        options = dict(contestants.options)
        # Warmed up: the first page's ms must not include loading a model.
        self.ours = [(name, build_extractor(name, options)) for name in contestants.ours]
        self.peers = [(name, load_peer(name)) for name in contestants.peers]
        self.metadata_peers = [(name, load_metadata_peer(name)) for name in contestants.peers]

    def run(self, page: Page) -> PageScores:
        gold = Text(page.gold)
        scores: dict[str, dict[str, Any]] = {}
        language: str | None = None
        first_text: str | None = None  # the first contestant's output, to detect the language from
        raw = page.read()

        def score(text: str) -> dict[str, Any]:
            extracted = Text(text)
            return {
                **score_page(extracted, gold),
                "with_hits": snippet_hits(extracted, page.with_snippets),
                "without_hits": snippet_hits(extracted, page.without_snippets),
                "folded_with_hits": snippet_hits(extracted, page.with_snippets, fold=True),
                "folded_without_hits": snippet_hits(extracted, page.without_snippets, fold=True),
            }

        def judge(title: str | None, author: str | None, date: str | None) -> dict[str, float | None]:
            return score_metadata(
                title, author, date, gold_title=page.title, gold_author=page.author, gold_date=page.date
            )

        for name, extractor in self.ours:
            failed = ""
            metadata = None
            start = time.perf_counter()
            try:
                with built_page(lambda: Document.from_html(raw, url=page.url)) as doc:
                    text = extractor.extract_text(doc)
                    ms = (time.perf_counter() - start) * 1000  # the text's cost, as before metadata
                    language = language or doc.language
                    metadata = metadata_of(doc, extractor.reported_page_type(doc, page_type_of(doc)[0]))
            except Exception as exc:  # one bad page never aborts a run
                text, failed = "", f"{type(exc).__name__}: {exc}"
                ms = (time.perf_counter() - start) * 1000
            judged = judge(metadata.title, metadata.author, metadata.date) if metadata else judge(None, None, None)
            scores[name] = {**score(text), **judged, "ms": ms, "failed": failed}
            first_text = text if first_text is None else first_text

        html: str | None = None
        if self.peers:
            try:
                html = decode_html(raw, url=page.url)[1]
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
            scores[name] = {**score(text or ""), "ms": ms, "failed": failed}
            first_text = (text or "") if first_text is None else first_text
        for name, read_metadata in self.metadata_peers:
            if read_metadata is None:
                continue
            try:
                found = read_metadata(html, page.url) if html is not None else {}
            except Exception:  # scored as "found nothing"
                found = {}
            scores[name].update(judge(found.get("title"), found.get("author"), found.get("date")))
        if language is None:  # undeclared: the language the first contestant's text is in
            language = detect_language(first_text)[0]
        return PageScores(page.id, language, scores, page.page_type)


def _run_in_worker(page: Page) -> PageScores:
    runner: _Runner = worker_state()
    return runner.run(page)


def run_pages(
    pages: Sequence[Page], contestants: Contestants, jobs: int = 1, on_page: Callable[[], None] | None = None
) -> list[PageScores]:
    """Every contestant on every page, in page order."""
    results: list[PageScores] = []
    if jobs <= 1 or len(pages) <= 1:
        runner = _Runner(contestants)
        for page in pages:
            results.append(runner.run(page))
            if on_page:
                on_page()
        return results
    # Fail fast in this process on unknown names or missing libraries.
    _Runner(contestants)
    with ProcessPoolExecutor(max_workers=jobs, initializer=init_worker, initargs=(_Runner, contestants)) as pool:
        for result in pool.map(_run_in_worker, pages, chunksize=4):
            results.append(result)
            if on_page:
                on_page()
    return results


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


def summarise(results: Sequence[PageScores], name: str) -> dict[str, float]:
    """One extractor's dataset figures, keyed by :data:`REPORT_KEYS`, then
    :data:`SNIPPET_KEYS` where some page has snippets (each rate the mean
    over the pages that have such snippets; precision, recall and F1 pooled
    over every snippet), then the metadata's."""
    scores = [r.scores[name] for r in results if name in r.scores]
    shingles = shingle_dataset_prf(s["shingle_counts"] for s in scores)
    figures = {
        "shingle_f1": shingles.f1,
        "shingle_precision": shingles.precision,
        "shingle_recall": shingles.recall,
        **{key: _mean(s[key] for s in scores) for key in MEAN_METRICS},
        "ms_per_page": _mean(s["ms"] for s in scores),
    }
    summary = {key: figures[key] for key in REPORT_KEYS}
    for key, hits_key in (("with_rate", "with_hits"), ("without_rate", "without_hits")):
        hits = [s[hits_key] for s in scores if s[hits_key][1]]
        if hits:
            summary[key] = _mean(found / total for found, total in hits)
    for prefix in ("", "folded_"):
        (with_found, with_total), (without_found, without_total) = (
            _pooled(scores, f"{prefix}with_hits"),
            _pooled(scores, f"{prefix}without_hits"),
        )
        if with_total or without_total:
            prf = snippet_prf(with_found, with_total, without_found)
            summary.update(
                {
                    f"{prefix}snippet_precision": prf.precision,
                    f"{prefix}snippet_recall": prf.recall,
                    f"{prefix}snippet_f1": prf.f1,
                }
            )
    for key in METADATA_KEYS:
        rates = [s[key] for s in scores if s.get(key) is not None]
        if rates:
            summary[key] = _mean(rates)
            if key == "date_same_day":
                summary["dated_pages"] = len(rates)
    return summary


def _pooled(scores: Sequence[dict[str, Any]], hits_key: str) -> tuple[int, int]:
    """The snippets found and the snippets, summed over the pages' *hits_key*."""
    return sum(s[hits_key][0] for s in scores), sum(s[hits_key][1] for s in scores)


def _group_figures(results: Sequence[PageScores], name: str) -> dict[str, float]:
    """:data:`GROUP_KEYS` of one extractor on a group of pages."""
    scores = [r.scores[name] for r in results]
    shingles = shingle_dataset_prf(s["shingle_counts"] for s in scores)
    figures = {
        "pages": len(scores),
        "shingle_precision": shingles.precision,
        "shingle_recall": shingles.recall,
        "shingle_f1": shingles.f1,
    }
    return {key: figures[key] if key in figures else _mean(s[key] for s in scores) for key in GROUP_KEYS}


def _summarise_groups(
    results: Sequence[PageScores], names: Sequence[str], key: Callable[[PageScores], str | None]
) -> dict[str, dict[str, dict[str, float]]]:
    """Figures per group of pages, largest group first (pages whose *key* is
    None or empty are left out)."""
    groups: dict[str, list[PageScores]] = {}
    for result in results:
        group = key(result)
        if group:
            groups.setdefault(group, []).append(result)
    return {
        group: {name: _group_figures(groups[group], name) for name in names}
        for group in sorted(groups, key=lambda g: (-len(groups[g]), g))
    }


def summarise_by_language(
    results: Sequence[PageScores], names: Sequence[str]
) -> dict[str, dict[str, dict[str, float]]]:
    """Figures per page language: the declared one, else the one detected in
    the first contestant's text (pages with neither are left out)."""
    return _summarise_groups(results, names, lambda r: r.language)


def summarise_by_type(results: Sequence[PageScores], names: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    """Figures per page type of ``truth.jsonl`` (pages without one are left out)."""
    return _summarise_groups(results, names, lambda r: r.page_type)


def site_clusters(pages: Sequence[Page]) -> list[str]:
    """The resampling unit of each page: its site (:func:`~webclean_scrapy.fingerprint.site_of`),
    the page itself when it has no URL with a host."""
    return [(site_of(page.url) if page.url else "") or f"page:{page.id}" for page in pages]


def summarise_intervals(
    pages: Sequence[Page], results: Sequence[PageScores], names: Sequence[str], by_type: bool = False
) -> Intervals:
    """:class:`Intervals` of the contestants *names* on *pages* (their
    *results* in the same order): all pages, then each page type, largest
    first, when *by_type*."""
    sites = site_clusters(pages)
    groups: dict[str, list[int]] = {ALL_PAGES: list(range(len(results)))}
    if by_type:
        kinds: dict[str, list[int]] = {}
        for i, result in enumerate(results):
            if result.page_type:
                kinds.setdefault(result.page_type, []).append(i)
        groups.update(sorted(kinds.items(), key=lambda item: (-len(item[1]), item[0])))
    first, others = names[0], names[1:]
    scores: dict[str, dict[str, dict[str, Interval]]] = {}
    gaps: dict[str, dict[str, dict[str, Interval]]] = {}
    for group, members in groups.items():
        clusters = [sites[i] for i in members]
        counts = {name: [results[i].scores[name]["shingle_counts"] for i in members] for name in names}
        words = {name: [results[i].scores[name]["word_f1"] for i in members] for name in names}
        scores[group] = {
            "shingle_f1": {name: shingle_f1_interval(counts[name], clusters) for name in names},
            "word_f1": {name: bootstrap_interval(words[name], clusters) for name in names},
        }
        gaps[group] = {
            "shingle_f1": {name: shingle_f1_gap(counts[first], counts[name], clusters) for name in others},
            "word_f1": {name: paired_gap(words[first], words[name], clusters) for name in others},
        }
    return Intervals(scores, gaps)


def evaluate_dataset(
    directory: str | Path,
    contestants: Contestants,
    *,
    limit: int | None = None,
    pages: Sequence[Page] | None = None,
    jobs: int = 1,
    by_language: bool = False,
    by_type: bool = False,
    intervals: bool = False,
    on_page: Callable[[], None] | None = None,
) -> DatasetReport:
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
        by_type=summarise_by_type(results, names) if by_type else None,
        intervals=summarise_intervals(pages, results, names, by_type) if intervals else None,
    )


def _render(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return "\n".join(lines)


#: Columns of the per-language and per-type tables.
GROUP_COLUMNS = (
    ("word_precision", "word P"),
    ("word_recall", "word R"),
    ("word_f1", "word F1"),
    ("shingle_precision", "P"),
    ("shingle_recall", "R"),
    ("shingle_f1", "F1"),
)


def _format_groups(name: str, kind: str, groups: dict[str, dict[str, dict[str, float]]]) -> list[str]:
    parts: list[str] = []
    for group, figures in groups.items():
        pages = next(iter(figures.values()))["pages"] if figures else 0
        rows = [[extractor, *(format(f[key], ".3f") for key, _ in GROUP_COLUMNS)] for extractor, f in figures.items()]
        parts.append("")
        parts.append(f"{name} / {kind} {group} ({pages} page{'s' if pages != 1 else ''})")
        parts.append(_render(["extractor", *(header for _, header in GROUP_COLUMNS)], rows))
    return parts


def _format_type_overview(report: DatasetReport) -> list[str]:
    """Word F1 at a glance: one line per page type (and one for all pages),
    one column per extractor."""
    assert report.by_type
    names = list(report.summary)
    rows = [
        [group, str(next(iter(figures.values()))["pages"]), *(f"{figures[n]['word_f1']:.3f}" for n in names)]
        for group, figures in report.by_type.items()
    ]
    rows.append(["all", str(report.pages), *(f"{report.summary[n]['word_f1']:.3f}" for n in names)])
    return ["", f"{report.name}: word F1 by page type", _render(["page type", "pages", *names], rows)]


def _format_metadata(report: DatasetReport) -> list[str]:
    """The metadata table: one row per contestant that reads metadata, on
    datasets with gold metadata (nothing otherwise)."""
    named = {name: f for name, f in report.summary.items() if any(key in f for key, _ in METADATA_COLUMNS)}
    if not named:
        return []
    rows = [
        [name, *(format(f[key], ".3f") if key in f else "-" for key, _ in METADATA_COLUMNS)]
        for name, f in named.items()
    ]
    dated = max((int(f.get("dated_pages", 0)) for f in named.values()), default=0)
    return [
        "",
        f"{report.name}: metadata (title: normalised exact match, token F1; author: normalised exact, "
        f"null gold needs an empty answer; date: same day, on the {dated} dated pages)",
        _render(["extractor", *(header for _, header in METADATA_COLUMNS)], rows),
    ]


def _format_interval(interval: Interval, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{interval.value:{sign}.3f} [{interval.low:{sign}.3f}, {interval.high:{sign}.3f}]"


def _format_intervals(report: DatasetReport) -> list[str]:
    """Per figure of :data:`INTERVAL_METRICS`, one row per group of pages:
    its pages and sites, each contestant's figure and interval, then the
    first contestant's gap to each other one."""
    intervals = report.intervals
    assert intervals is not None
    names = list(report.summary)
    headers = ["page type", "pages", "sites", *names, *(f"{names[0]} - {name}" for name in names[1:])]
    parts: list[str] = []
    for metric, title in INTERVAL_METRICS.items():
        rows = []
        for group, by_metric in intervals.scores.items():
            scores, gaps = by_metric[metric], intervals.gaps[group][metric]
            rows.append(
                [
                    group,
                    str(scores[names[0]].pages),
                    str(scores[names[0]].clusters),
                    *(_format_interval(scores[name]) for name in names),
                    *(_format_interval(gaps[name], signed=True) for name in names[1:]),
                ]
            )
        parts.append("")
        parts.append(
            f"{report.name}: {title} with {intervals.level:.0%} intervals ({intervals.resamples:,} resamples "
            "of the sites; a gap whose interval holds 0 is not a gap at this level)"
        )
        parts.append(_render(headers, rows))
    return parts


def intervals_as_json(intervals: Intervals) -> dict[str, Any]:
    """*intervals* as the JSON report holds them: the level, the resamples,
    and per group of pages each figure of :data:`INTERVAL_METRICS` per
    contestant, and under ``gap`` the same for the first contestant's gap to
    each other one, each ``{value, low, high, pages, clusters}``."""
    return {
        "level": intervals.level,
        "resamples": intervals.resamples,
        "groups": {
            group: {
                **{
                    metric: {name: interval._asdict() for name, interval in by_name.items()}
                    for metric, by_name in by_metric.items()
                },
                "gap": {
                    metric: {name: interval._asdict() for name, interval in by_name.items()}
                    for metric, by_name in intervals.gaps[group].items()
                },
            }
            for group, by_metric in intervals.scores.items()
        },
    }


def format_report(report: DatasetReport) -> str:
    """The paper-style table of one dataset (plus per-language and per-type tables)."""
    columns = [c for c in COLUMNS if any(c[0] in figures for figures in report.summary.values())]
    headers = ["extractor", *(header for _, header, _ in columns)]
    rows = [
        [name, *(format(figures[key], fmt) if key in figures else "-" for key, _, fmt in columns)]
        for name, figures in report.summary.items()
    ]
    legend = "shingle P/R/F1 = 4-gram shingles, word P/R/F1 = WCXB's bags of words, "
    legend += "EDR/KL/cos/eucl" + ("/without" if any("without_rate" in f for f in report.summary.values()) else "")
    parts = [f"{report.name} ({report.pages} pages; {legend}: lower is better)", _render(headers, rows)]
    failed = [
        f"{name}: {count} page(s) failed, scored as empty ({report.errors.get(name, '')})"
        for name, count in report.failures.items()
        if count
    ]
    parts.extend(failed)
    parts.extend(_format_metadata(report))
    parts.extend(_format_groups(report.name, "language", report.by_language))
    if report.by_type is not None:
        if report.by_type:
            parts.extend(_format_type_overview(report))
            parts.extend(_format_groups(report.name, "type", report.by_type))
        else:
            parts.append(f"{report.name}: no page has a page_type in truth.jsonl (--by-type)")
    if report.intervals is not None:
        parts.extend(_format_intervals(report))
    return "\n".join(parts)
