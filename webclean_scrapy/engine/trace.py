"""What an extractor decided on one page, and why: the :class:`Trace` it writes during a normal run.

An extractor's ``extract_text(doc, trace=None)`` takes an optional
:class:`Trace`. Without one (every crawl, every benchmark) nothing is
recorded: the method runs exactly as before, at the cost of a few
``trace is not None`` tests per page. With one, the method writes down the
values it computes anyway -- scores, thresholds, the region or cluster it
chose, the reason each unit was dropped -- from the very arrays its
decision is made of. ``webclean explain`` and ``webclean plot``
(:mod:`webclean_scrapy.explain`) only display what a trace holds: there is
no second implementation of any method for display.

A trace speaks about *units*, in document order: the page's blocks
(:attr:`Document.block_columns <webclean_scrapy.engine.document.Document.block_columns>`,
``unit="block"``) for block methods, or the cleaned source lines of
:func:`~webclean_scrapy.engine.extractors.ttr.tagged_lines`
(``unit="line"``, their texts in :attr:`Trace.texts`) for the
text-to-tag ratio. What each built-in extractor records is listed in its
docstring. A custom extractor opts in by accepting ``trace`` in
``extract_text``; one that does not is still explained, from its output
text alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Trace:
    """A notebook an extractor fills while it extracts one page.

    Per unit (arrays of the same length, document order):

    ``scores``
        The number the method decides on (``score_label`` says what it is:
        a content probability, a string length, a smoothed ratio...).
    ``kept``
        Whether the unit is in the output.
    ``reasons``
        Why it was kept or dropped, in words (``""`` when the method gave
        none). The first reason recorded for a unit wins: a method records
        the most specific cause first (a veto before "below threshold").

    Per page: ``threshold`` (the score a unit must reach, when the method
    has one), ``facts`` (named values as the method computed them: the page
    type's threshold, the vetoes that apply, the region chosen...), with
    ``wording`` (how a report says a fact to someone who does not know the
    method's internals: a plain label and the value in words, see
    :meth:`fact`), ``series``
    (the arrays a figure draws, e.g. ``ttr`` / ``smoothed``), and
    ``confidence`` (how sure the method is that the page has main content
    at all, in ``[0, 1]``, or ``None`` when the method has no such number).
    """

    __slots__ = (
        "unit",
        "texts",
        "scores",
        "score_label",
        "threshold",
        "kept",
        "reasons",
        "facts",
        "wording",
        "series",
        "confidence",
        "method",
    )

    def __init__(self) -> None:
        self.method: str = ""
        self.unit: str = "block"
        self.texts: list[str] | None = None
        self.scores: np.ndarray | None = None
        self.score_label: str = ""
        self.threshold: float | None = None
        self.kept: np.ndarray | None = None
        self.reasons: list[str] | None = None
        self.facts: dict[str, Any] = {}
        self.wording: dict[str, tuple[str, str | None]] = {}
        self.series: dict[str, Any] = {}
        self.confidence: float | None = None

    # -- what extractors call --------------------------------------------
    def units(self, unit: str, count: int, texts: list[str] | None = None) -> None:
        """Declare what the decisions are about: ``count`` blocks or lines.

        Resets the per-unit values: a method that falls back to another
        (``punctuation`` to ``density``) lets the fallback start afresh.
        """
        if unit not in ("block", "line"):
            raise ValueError(f"unit must be 'block' or 'line', got {unit!r}")
        self.unit = unit
        self.texts = texts
        self.scores = None
        self.kept = np.zeros(count, dtype=bool)
        self.reasons = [""] * count

    def score(self, values: Any, label: str, threshold: float | None = None) -> None:
        """The per-unit score the decision is made on, and its cut-off."""
        self.scores = np.asarray(values, dtype=float)
        self.score_label = label
        self.threshold = None if threshold is None else float(threshold)

    def keep(self, which: Any) -> None:
        """The kept units: a boolean mask, a slice or a list of indexes."""
        assert self.kept is not None, "Trace.units() first"
        kept = np.zeros(len(self.kept), dtype=bool)
        kept[which] = True
        self.kept = kept

    def reason(self, which: Any, text: str) -> None:
        """Give *text* as the reason of the units *which* (mask, slice or
        indexes) that have none yet."""
        reasons = self.reasons
        assert reasons is not None, "Trace.units() first"
        indexes = np.arange(len(reasons))[which]
        for i in np.atleast_1d(indexes).tolist():
            if not reasons[i]:
                reasons[i] = text

    def fact(self, name: str, value: Any, label: str | None = None, said: str | None = None) -> None:
        """Record the page-level value *name* (``facts[name] = value``).

        *label* and *said* are how a report puts it to a user: a plain
        label for the value, and the value in words (``None``: the value
        as it is), both in :attr:`wording`; the name and value stay as
        the method computed them, for code and tests."""
        self.facts[name] = value
        if label is not None or said is not None:
            self.wording[name] = (label or name, said)

    # -- what readers use ---------------------------------------------------
    def __len__(self) -> int:
        return 0 if self.kept is None else len(self.kept)

    def __repr__(self) -> str:
        kept = int(self.kept.sum()) if self.kept is not None else 0
        return f"<Trace {self.method or '?'}: {kept}/{len(self)} {self.unit}s kept>"
