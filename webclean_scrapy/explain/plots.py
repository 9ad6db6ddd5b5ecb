"""The papers' figures, drawn from a :class:`~webclean_scrapy.engine.trace.Trace` with matplotlib.

* ``ttr`` (Weninger & Hsu): the text-to-tag ratio of every source line,
  its smoothed curve with the threshold (or each line coloured by its
  cluster), and below it the histogram of the smoothed ratios with the
  threshold or the clusters -- or, for CETR's ``prediction``, the smoothed
  ratio against its absolute derivative, the plane CETR clusters in.
* ``density`` (Arias et al.): the length of every string of the page by its
  position, the cutoff, the longest string and the region grown from it.
* any other traced method with scores (``webclean``'s block probabilities,
  ``punctuation``'s DIV scores): the score of every unit in document order
  against the threshold, kept units in green.

Only the trace's own arrays are drawn. matplotlib is an optional
dependency (the ``[plot]`` extra); it is imported on
first use, and used through its object-oriented API (no ``pyplot``, no
global backend or state), so drawing is safe in a crawl's worker threads.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np

from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.errors import install_hint

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

KEPT = "#2e7d32"
DROPPED = "#9e9e9e"
CURVE = "#1565c0"
CUT = "#c62828"
CLUSTER_COLOURS = ("#9e9e9e", "#ef6c00", "#2e7d32")


class PlotUnavailableError(RuntimeError):
    """matplotlib is not installed, or the method has nothing to draw."""


def _figure_class() -> type[Figure]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailableError(f"figures need matplotlib: {install_hint('plot')}") from None
    return Figure


def can_plot(trace: Trace) -> bool:
    """Whether :func:`figure` has something to draw for *trace*."""
    return (
        "smoothed" in trace.series or "lengths" in trace.series or (trace.scores is not None and len(trace.scores) > 0)
    )


def figure(trace: Trace, width: float = 10.0) -> Figure:
    """The method's figure for one page (see the module docstring)."""
    if not can_plot(trace):
        raise PlotUnavailableError(f"the {trace.method or 'given'} method scores nothing on this page to plot")
    Figure = _figure_class()
    if "smoothed" in trace.series:
        fig = Figure(figsize=(width, 6.0), layout="constrained")
        top, bottom = fig.subplots(2, 1, height_ratios=(3, 2))
        _ttr_lines(top, trace)
        if "derivative" in trace.series:
            _ttr_plane(bottom, trace)
        else:
            _ttr_histogram(bottom, trace)
    elif "lengths" in trace.series:
        fig = Figure(figsize=(width, 3.6), layout="constrained")
        _density(fig.subplots(), trace)
    else:
        fig = Figure(figsize=(width, 3.2), layout="constrained")
        _scores(fig.subplots(), trace)
    return fig


def svg(fig: Figure) -> str:
    """*fig* as an inline ``<svg>`` element: glyphs as paths (no font to
    fetch), no XML prolog, no date, stable ids."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "webclean"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


# -- the figures -----------------------------------------------------------------
def _ttr_lines(ax: Axes, trace: Trace) -> None:
    ratios = np.asarray(trace.series["ttr"])
    smoothed = np.asarray(trace.series["smoothed"])
    lines = np.arange(len(ratios))
    kept = trace.kept if trace.kept is not None else np.zeros(len(ratios), dtype=bool)
    ax.bar(lines[kept], ratios[kept], width=1.0, color=KEPT, alpha=0.45, label="TTR, kept line")
    ax.bar(lines[~kept], ratios[~kept], width=1.0, color=DROPPED, alpha=0.45, label="TTR, dropped line")
    if "labels" in trace.series:
        labels = np.asarray(trace.series["labels"])
        ax.plot(lines, smoothed, color=CURVE, linewidth=1.0, label="smoothed")
        for j in range(int(labels.max()) + 1 if len(labels) else 0):
            members = labels == j
            ax.scatter(
                lines[members],
                smoothed[members],
                s=9,
                zorder=3,
                color=CLUSTER_COLOURS[j % len(CLUSTER_COLOURS)],
                label=f"cluster {j + 1}",
            )
    else:
        ax.plot(lines, smoothed, color=CURVE, linewidth=1.2, label="smoothed")
    if trace.threshold is not None:
        name = "deviation σ" if "labels" in trace.series else "threshold"
        ax.axhline(trace.threshold, color=CUT, linestyle="--", linewidth=1, label=f"{name} {trace.threshold:.1f}")
    ax.set_xlim(-1, max(len(ratios), 1))
    ax.set_xlabel("source line")
    ax.set_ylabel("text-to-tag ratio")
    ax.set_title("Text-to-tag ratio per line (green: kept lines)", loc="left", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def _ttr_histogram(ax: Axes, trace: Trace) -> None:
    smoothed = np.asarray(trace.series["smoothed"])
    if "labels" in trace.series:
        labels = np.asarray(trace.series["labels"])
        groups = [smoothed[labels == j] for j in range(int(labels.max()) + 1 if len(labels) else 0)]
        colours = [CLUSTER_COLOURS[j % len(CLUSTER_COLOURS)] for j in range(len(groups))]
        ax.hist(groups, bins=40, stacked=True, color=colours, label=[f"cluster {j + 1}" for j in range(len(groups))])
        for j, centre in enumerate(np.asarray(trace.series.get("centres", []))):
            ax.axvline(centre, color=colours[j], linewidth=1)
    else:
        ax.hist(smoothed, bins=40, color=CURVE, alpha=0.7, label="smoothed TTR")
    if trace.threshold is not None:
        label = "deviation σ: content clusters' means exceed it" if "labels" in trace.series else "threshold"
        ax.axvline(trace.threshold, color=CUT, linestyle="--", linewidth=1, label=label)
    ax.set_xlabel("smoothed text-to-tag ratio")
    ax.set_ylabel("lines")
    ax.set_title("Histogram of the smoothed ratios", loc="left", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def _ttr_plane(ax: Axes, trace: Trace) -> None:
    smoothed = np.asarray(trace.series["smoothed"])
    derivative = np.asarray(trace.series["derivative"])
    kept = trace.kept if trace.kept is not None else np.zeros(len(smoothed), dtype=bool)
    ax.scatter(smoothed[~kept], derivative[~kept], s=9, color=DROPPED, label="origin cluster (non-content)")
    ax.scatter(smoothed[kept], derivative[kept], s=9, color=KEPT, label="content")
    ax.set_xlabel("smoothed text-to-tag ratio")
    ax.set_ylabel("absolute derivative")
    ax.set_title("CETR: lines in the (ratio, derivative) plane", loc="left", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def _density(ax: Axes, trace: Trace) -> None:
    positions = np.asarray(trace.series["positions"])
    lengths = np.asarray(trace.series["lengths"])
    left, right = trace.series["region"]
    inside = np.zeros(len(lengths), dtype=bool)
    inside[left : right + 1] = True
    ax.vlines(positions, 0, lengths, colors=np.where(inside, KEPT, DROPPED).tolist(), linewidth=1.6)
    if len(positions):
        ax.axvspan(positions[left] - 0.5, positions[right] + 0.5, color=KEPT, alpha=0.12, label="chosen region")
        best = trace.series["longest"]
        ax.plot([positions[best]], [lengths[best]], "v", color=KEPT, label="longest string")
    if trace.threshold is not None:
        ax.axhline(trace.threshold, color=CUT, linestyle="--", linewidth=1, label=f"cutoff {trace.threshold:.0f}")
    ax.set_xlabel("string position")
    ax.set_ylabel("string length (chars)")
    ax.set_title("String length by position and the region grown from the longest", loc="left", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def _scores(ax: Axes, trace: Trace) -> None:
    scores = np.asarray(trace.scores)
    units = np.arange(len(scores))
    kept = trace.kept if trace.kept is not None else np.zeros(len(scores), dtype=bool)
    ax.bar(units[kept], scores[kept], width=0.9, color=KEPT, label="kept")
    ax.bar(units[~kept], scores[~kept], width=0.9, color=DROPPED, label="dropped")
    if "model" in trace.series:
        model = np.asarray(trace.series["model"])
        vetoed = model != scores
        if vetoed.any():
            ax.scatter(units[vetoed], model[vetoed], marker="x", s=14, color=CUT, label="model, before a veto")
    if trace.threshold is not None:
        ax.axhline(trace.threshold, color=CUT, linestyle="--", linewidth=1, label=f"threshold {trace.threshold:.2f}")
    if scores.size and scores.max() > 1000 * max(float(np.median(scores[scores > 0])) if (scores > 0).any() else 1, 1):
        ax.set_yscale("symlog")
    ax.set_xlim(-1, max(len(scores), 1))
    ax.set_xlabel(f"{trace.unit} (document order)")
    ax.set_ylabel(trace.score_label.split(" CS")[0])
    ax.set_title(f"{trace.method}: {trace.score_label} per {trace.unit} (green: kept)", loc="left", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
