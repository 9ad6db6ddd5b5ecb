"""See what an extractor kept on a page, and why.

:func:`explain` runs an extractor once on a page with a
:class:`~webclean_scrapy.engine.trace.Trace` and gathers, in an
:class:`Explanation`, everything a person needs to judge the result: each
unit (block, or source line for ``ttr``) in document order with its score,
the container path that holds it, whether it was kept and the reason the
extractor gave; the page type, title and metadata; the extracted text.
Every number comes from the extractor's own run (the trace): nothing here
re-implements a method.

:meth:`Explanation.html` renders the self-contained report
(:mod:`.report`: inline CSS and SVG, no script, nothing fetched);
:meth:`Explanation.figure` draws the method's figure with matplotlib
(:mod:`.plots`, the ``[plot]`` extra). ``webclean explain`` and
``webclean plot`` are the command-line faces of the two, and
``WEBCLEAN_EXPLAIN_DIR`` writes reports during a crawl (:mod:`.crawl`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extraction, Extractor
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.page_type import PAGE_TYPES, page_type_of
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.explain.model import ExplanationRecord, Unit
from webclean_scrapy.explain.plots import figure
from webclean_scrapy.explain.report import render

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Explanation", "Unit", "container_path", "explain", "explain_document"]

#: ``<meta>`` tags shown in a report, at most (a page can carry hundreds).
MAX_META = 40
#: Longest metadata value shown, in characters.
MAX_META_CHARS = 300


class Explanation(ExplanationRecord):
    """One page, one extractor: what was kept and why (see the module docstring)."""

    def html(self) -> str:
        """The self-contained HTML report."""
        return render(self)

    def figure(self) -> Figure:
        """The method's figure (matplotlib: the ``[plot]`` extra)."""
        return figure(self.trace)


def container_path(doc: Document, container: int, memo: dict[int, str] | None = None) -> str:
    """``html > body > div#main.story > p``: the containers from the root
    down to *container* (an index of :attr:`Document.container_columns`),
    each named by tag, id and its first two class names."""
    memo = {} if memo is None else memo
    columns = doc.container_columns
    chain = []
    index = container
    while index >= 0 and index not in memo:
        chain.append(index)
        index = int(columns.parents[index])
    path = memo.get(index, "")
    for index in reversed(chain):
        attributes = columns.attributes[index]
        name = columns.tags[index]
        if attributes.get("id"):
            name += "#" + attributes["id"].strip()
        classes = (attributes.get("class") or "").split()[:2]
        if classes:
            name += "." + ".".join(classes)
        path = f"{path} > {name}" if path else name
        memo[index] = path
    return path


def _metadata(doc: Document) -> list[tuple[str, str]]:
    """The page's ``<meta>`` name/property and content pairs, in order, capped."""
    head = doc.root.find("head")
    found: list[tuple[str, str]] = []
    for meta in (head if head is not None else doc.root).iter("meta"):
        name = meta.get("name") or meta.get("property") or meta.get("http-equiv") or meta.get("itemprop")
        content = meta.get("content")
        if meta.get("charset"):
            name, content = "charset", meta.get("charset")
        if not name or content is None:
            continue
        content = " ".join(content.split())
        if len(content) > MAX_META_CHARS:
            content = content[:MAX_META_CHARS] + "…"
        found.append((name, content))
        if len(found) >= MAX_META:
            break
    return found


def explain_document(doc: Document, extractor: Extractor) -> Explanation:
    """Run *extractor* on *doc* with a trace and gather the explanation."""
    trace = Trace()
    traced = extractor.traceable
    if traced:
        extraction = extractor.extract(doc, trace)
    else:
        extraction = extractor.extract(doc)
        trace_from_output(trace, doc, extraction.text)
        trace.method = extractor.name
    return gather_explanation(doc, extractor, extraction, trace, traced)


def trace_from_output(trace: Trace, doc: Document, text: str) -> None:
    """For an extractor that records nothing: a block is 'kept' when its
    text is a line of the output."""
    lines = set(text.split("\n"))
    trace.units("block", len(doc.block_columns))
    trace.keep(np.array([t in lines for t in doc.block_columns.texts], dtype=bool))
    trace.reason(trace.kept, "its text is in the output (the extractor records no trace)")
    trace.reason(slice(None), "its text is not in the output (the extractor records no trace)")


def gather_explanation(
    doc: Document, extractor: Extractor, extraction: Extraction, trace: Trace, traced: bool
) -> Explanation:
    kind, probabilities = page_type_of(doc)
    blocks = doc.block_columns
    kept = trace.kept if trace.kept is not None else np.zeros(0, dtype=bool)
    reasons = trace.reasons or [""] * len(kept)
    scores = trace.scores.tolist() if trace.scores is not None and len(trace.scores) == len(kept) else None
    units: list[Unit] = []
    if trace.unit == "line":
        texts = trace.texts or []
        for i, text in enumerate(texts):
            units.append(Unit(i, text, bool(kept[i]), scores[i] if scores else None, reasons[i], "", len(text)))
    else:
        memo: dict[int, str] = {}
        holders = blocks.holders.tolist()
        for i, text in enumerate(blocks.texts):
            if i >= len(kept):
                break
            units.append(
                Unit(
                    i,
                    text,
                    bool(kept[i]),
                    scores[i] if scores else None,
                    reasons[i],
                    container_path(doc, holders[i], memo),
                    len(text),
                )
            )
    # Counted as `extract` counts: the characters of its text, and of the page's
    # whole visible text written the same way (every block, one per line).
    texts = blocks.texts
    total = sum(map(len, texts)) + len(texts) - 1 if len(texts) else 0
    facts: dict[str, Any] = {}
    wording: dict[str, tuple[str, str | None]] = {}
    if doc.encoding:
        facts["encoding"] = doc.encoding
        wording["encoding"] = (
            "character encoding",
            "none: the page was given as text" if doc.encoding == "unicode" else None,
        )
    if doc.canonical_url:
        facts["canonical URL"] = doc.canonical_url
    if doc.revealed:
        facts["revealed"] = "under 500 visible characters: <noscript> and hidden subtrees were read too"
        wording["revealed"] = ("hidden text read", None)
    facts.update(trace.facts)
    wording.update(trace.wording)
    return Explanation(
        extraction=extraction,
        trace=trace,
        extractor=extractor.name,
        options=dict(extractor.options),
        units=units,
        page_type=kind,
        page_type_probabilities={name: float(p) for name, p in zip(PAGE_TYPES, probabilities)},
        metadata=_metadata(doc),
        facts=facts,
        wording=wording,
        total_chars=total,
        kept_chars=len(extraction.text),
        traced=traced,
    )


def explain(
    html: bytes | str,
    url: str | None = None,
    extractor: str | type[Extractor] = "default",
    encoding: str | None = None,
    **options: Any,
) -> Explanation:
    """:func:`webclean_scrapy.extract`, explained: the same arguments, an
    :class:`Explanation` instead of an :class:`~webclean_scrapy.Extraction`
    (whose text is identical)."""
    method = get_extractor(extractor, **options)
    with built_page(lambda: Document.from_html(html, url=url, encoding=encoding)) as doc:
        return explain_document(doc, method)
