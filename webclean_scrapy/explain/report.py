"""The ``webclean explain`` report: one self-contained HTML file.

Everything is inline -- the stylesheet, the figure (SVG whose glyphs are
paths) -- and the page runs no script and fetches nothing: a
Content-Security-Policy of ``default-src 'none'`` forbids it, so a report
opens offline, from a mail attachment or a CI artefact, and the page's own
text (escaped, never its markup) cannot load anything either. The only
interaction, "kept blocks only", is a CSS checkbox.
"""

from __future__ import annotations

from html import escape
from typing import Any

from webclean_scrapy._version import __version__
from webclean_scrapy.explain.model import ExplanationRecord, Unit
from webclean_scrapy.explain.plots import PlotUnavailableError, can_plot, figure, svg

#: Blocks longer than this many characters are shown cut, with the rest
#: behind a ``<details>``.
SHOWN_CHARS = 1200

CSS = """
:root { --kept: #2e7d32; --kept-bg: #e8f5e9; --drop: #757575; --cut: #c62828; --line: #ddd; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #212121;
       background: #fafafa; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 16px; margin: 26px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.url { color: #555; font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; margin: 0; }
.summary { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0 0; padding: 0; list-style: none; }
.summary li { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.summary b { display: block; font-size: 11px; color: #666; font-weight: 600; text-transform: uppercase; }
.columns { display: grid; grid-template-columns: minmax(260px, 1fr) 2fr; gap: 0 24px; }
@media (max-width: 800px) { .columns { grid-template-columns: 1fr; } }
.types { display: grid; grid-template-columns: 110px 1fr 50px; gap: 3px 10px; align-items: center; max-width: 560px; }
.types .bar { height: 10px; background: #90a4ae; border-radius: 2px; }
.types .top { font-weight: 700; } .types .top + .bar-box .bar { background: var(--kept); }
table { border-collapse: collapse; width: 100%; background: #fff; }
td, th { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { width: 32%; font-weight: 600; background: #f5f5f5; }
.figure svg { width: 100%; height: auto; background: #fff; border: 1px solid var(--line); }
.toggle { margin: 6px 0 10px; user-select: none; }
#only-kept:checked ~ ol .unit:not(.kept) { display: none; }
ol.units { list-style: none; margin: 0; padding: 0; }
.unit { border: 1px solid var(--line); border-left: 5px solid #bdbdbd; background: #fff; margin: 0 0 6px;
        padding: 6px 10px; border-radius: 4px; }
.unit.dropped .text { color: var(--drop); }
.unit.kept { border-left-color: var(--kept); background: var(--kept-bg); }
.head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; font-size: 12px; }
.idx { font-family: ui-monospace, monospace; color: #555; min-width: 3.5em; }
.verdict { font-weight: 700; text-transform: uppercase; font-size: 11px; letter-spacing: .04em; min-width: 5.5em; }
.kept .verdict { color: var(--kept); } .dropped .verdict { color: var(--drop); }
.score { display: inline-flex; align-items: center; gap: 6px; font-family: ui-monospace, monospace; }
.meter { position: relative; display: inline-block; width: 90px; height: 9px; background: #eee; border-radius: 2px; }
.meter i { position: absolute; left: 0; top: 0; bottom: 0; background: #90a4ae; border-radius: 2px; }
.kept .meter i { background: var(--kept); }
.meter s { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--cut); }
.reason { color: #37474f; }
.path { font-family: ui-monospace, monospace; font-size: 11px; color: #78909c; overflow: hidden;
        text-overflow: ellipsis; white-space: nowrap; direction: rtl; text-align: left; }
.text { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; }
pre.extracted { background: #fff; border: 1px solid var(--line); padding: 10px; white-space: pre-wrap;
                word-break: break-word; font: 13px/1.5 ui-monospace, monospace; }
.note { color: #666; }
footer { max-width: 1100px; margin: 30px auto; padding: 0 20px; color: #888; font-size: 12px; }
"""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _number(value: float | None) -> str:
    if value is None:
        return "–"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def _summary(report: ExplanationRecord) -> str:
    kept = sum(unit.kept for unit in report.units)
    options = ", ".join(f"{k}={v!r}" for k, v in report.options.items()) or "defaults"
    items = [
        ("extractor", f"{report.extractor} ({options})"),
        ("page type", report.page_type_label),
        ("language", report.extraction.language or "–"),
        (f"kept {report.trace.unit}s", f"{kept} of {len(report.units)}"),
        (
            "kept text",
            f"{report.kept_chars:,} of {report.total_chars:,} characters ({100 * report.kept_share:.0f}%)",
        ),
        ("confidence", _number(report.confidence) if report.confidence is not None else "not scored"),
    ]
    if report.trace.threshold is not None:
        items.append(("threshold", _number(report.trace.threshold)))
    return "<ul class=summary>" + "".join(f"<li><b>{_e(k)}</b>{_e(v)}</li>" for k, v in items) + "</ul>"


def _page_types(report: ExplanationRecord) -> str:
    rows = []
    for name, probability in sorted(report.page_type_probabilities.items(), key=lambda item: -item[1]):
        top = " class=top" if name == report.page_type else ""
        rows.append(
            f"<span{top}>{_e(name)}</span><span class=bar-box><div class=bar "
            f'style="width:{max(probability, 0.005) * 100:.1f}%"></div></span>'
            f"<span>{probability:.3f}</span>"
        )
    return "<div class=types>" + "".join(rows) + "</div>"


def _decisions(report: ExplanationRecord) -> str:
    """The "How ... decided" table: each fact in the words the extractor gave it for users."""
    if not report.facts:
        return "<p class=note>No page-level values recorded.</p>"
    rows = []
    for name, value in report.facts.items():
        label, said = report.wording.get(name, (name, None))
        rows.append((label, value if said is None else said))
    return _table(rows)


def _table(rows: list[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_fact(v))}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _fact(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return _number(value)
    return str(value)


def _unit(unit: Unit, scale: float, threshold: float | None, unit_name: str) -> str:
    state = "kept" if unit.kept else "dropped"
    score = ""
    if unit.score is not None:
        width = min(max(unit.score / scale, 0.0), 1.0) * 100 if scale > 0 else 0
        mark = (
            f'<s style="left:{min(max(threshold / scale, 0), 1) * 100:.1f}%"></s>'
            if threshold is not None and scale > 0
            else ""
        )
        score = (
            f'<span class=score title="score"><span class=meter><i style="width:{width:.1f}%"></i>{mark}'
            f"</span>{_e(_number(unit.score))}</span>"
        )
    text = unit.text
    if len(text) > SHOWN_CHARS:
        shown = (
            f"{_e(text[:SHOWN_CHARS])}<details><summary>{len(text) - SHOWN_CHARS:,} more characters"
            f"</summary>{_e(text[SHOWN_CHARS:])}</details>"
        )
    else:
        shown = _e(text) if text else "<span class=note>(no text)</span>"
    path = f'<div class=path title="{_e(unit.path)}"><bdi>{_e(unit.path)}</bdi></div>' if unit.path else ""
    return (
        f'<li class="unit {state}" id="{unit_name}-{unit.index}" data-index="{unit.index}">'
        f"<div class=head><span class=idx>#{unit.index}</span><span class=verdict>{state}</span>{score}"
        f"<span class=reason>{_e(unit.reason)}</span></div>{path}<p class=text>{shown}</p></li>"
    )


def _figure(report: ExplanationRecord) -> str:
    if not can_plot(report.trace):
        return ""
    try:
        drawing = svg(figure(report.trace))
    except PlotUnavailableError as exc:
        return f"<h2>Figure</h2><p class=note>{_e(exc)}</p>"
    return f"<h2>Figure</h2><div class=figure>{drawing}</div>"


def render(report: ExplanationRecord) -> str:
    """The report's HTML (a ``str``; write it as UTF-8)."""
    extraction = report.extraction
    title = extraction.title or "(no title)"
    trace = report.trace
    scores = [unit.score for unit in report.units if unit.score is not None]
    scale = max([*scores, trace.threshold or 0.0, 0.0])
    if trace.score_label == "content probability":
        scale = 1.0
    units = "".join(_unit(unit, scale, trace.threshold, trace.unit) for unit in report.units)
    untraced = (
        ""
        if report.traced
        else "<p class=note>This extractor records no trace: a block is marked kept "
        "when its text is a line of the output.</p>"
    )
    what = f"{trace.unit}s" + (" (lines of the cleaned source)" if trace.unit == "line" else "")
    score_note = f"Score: {_e(trace.score_label)}" if trace.score_label else "No per-unit score."
    if trace.threshold is not None:
        score_note += f"; the red mark is the threshold, {_e(_number(trace.threshold))}."
    metadata = _table(report.metadata) if report.metadata else "<p class=note>No &lt;meta&gt; tags.</p>"
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="webclean-scrapy {_e(__version__)}">
<title>webclean explain: {_e(title)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>{_e(title)}</h1>
<p class=url>{_e(extraction.url or "(no URL given)")}</p>
{_summary(report)}
<p class=note>Kept text: the characters of the text as extracted (what <code>webclean extract</code> outputs),
of the page's visible text written the same way, one block per line.</p>
</header>
<main>
<div class=columns>
<section><h2>Page type</h2>
{_page_types(report)}</section>
<section><h2>How {_e(report.extractor)} decided</h2>
{_decisions(report)}
</section>
</div>
{_figure(report)}
<h2 id="blocks">The page's {_e(what)}, in document order</h2>
<p class=note>{score_note} Green: kept. Grey: dropped, with the extractor's reason.</p>
{untraced}
<input type="checkbox" id="only-kept"><label class=toggle for="only-kept"> show kept {_e(trace.unit)}s only</label>
<ol class=units>{units}</ol>
<h2 id="text">The text as extracted</h2>
<pre class=extracted>{_e(extraction.text) or "<span class=note>(empty)</span>"}</pre>
<h2>Metadata</h2>
{metadata}
</main>
<footer>webclean-scrapy {_e(__version__)} · webclean explain · self-contained: no script, nothing fetched</footer>
</body>
</html>
"""
