"""What an explanation holds: the units of a page as the report shows them, and the page's facts.

The gathering (:mod:`webclean_scrapy.explain`) fills it and the report
(:mod:`webclean_scrapy.explain.report`) reads it; kept apart from both so that neither
imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webclean_scrapy.engine.extraction import Extraction
from webclean_scrapy.engine.trace import Trace


@dataclass(slots=True)
class Unit:
    """One block (or source line) as the report shows it."""

    index: int
    text: str
    kept: bool
    score: float | None
    reason: str
    #: The containers from the root to the one holding the block
    #: (``tag#id.class``), ``""`` for source lines.
    path: str
    #: The characters of its text (``len(text)``, as ``webclean extract`` counts them).
    chars: int


@dataclass
class ExplanationRecord:
    """One page, one extractor: what was kept and why, as the report and the figure read it
    (:class:`~webclean_scrapy.explain.Explanation` adds the two renderings)."""

    extraction: Extraction
    trace: Trace
    extractor: str
    options: dict[str, Any]
    units: list[Unit]
    #: The page-type classifier's type and probabilities (the extraction may
    #: report another: :attr:`page_type_label`).
    page_type: str | None
    page_type_probabilities: dict[str, float]
    metadata: list[tuple[str, str]]
    facts: dict[str, Any] = field(default_factory=dict)
    #: How the report says a fact to a user, by fact name: a plain label and the
    #: value in words (``None``: the value as it is); see
    #: :meth:`Trace.fact <webclean_scrapy.engine.trace.Trace.fact>`.
    wording: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    #: The characters of the page's visible text, all of its blocks one per line
    #: (as :meth:`BlockColumns.text <webclean_scrapy.engine.columns.BlockColumns.text>`
    #: writes them), and of the extracted text (``len(extraction.text)``): counted
    #: as ``webclean extract`` counts, whitespace and line breaks included.
    total_chars: int = 0
    kept_chars: int = 0
    #: ``False`` when the extractor records no trace (a custom one): the
    #: units' ``kept`` then says whether their text is in the output.
    traced: bool = True

    @property
    def confidence(self) -> float | None:
        """The extractor's confidence that the page has main content
        (:attr:`Trace.confidence <webclean_scrapy.engine.trace.Trace.confidence>`:
        the highest block probability for ``webclean``), or ``None``."""
        return self.trace.confidence

    @property
    def page_type_label(self) -> str:
        """The page type the extraction reports, with the classifier's
        (:attr:`page_type`) beside it when the extractor read the page as
        another kind: ``"article (predicted listing)"`` for a hub read as
        an article."""
        reported = self.extraction.page_type
        if reported and self.page_type and reported != self.page_type:
            return f"{reported} (predicted {self.page_type})"
        return reported or self.page_type or "–"

    @property
    def kept_share(self) -> float:
        """The extracted text's characters over those of the page's visible text."""
        return self.kept_chars / self.total_chars if self.total_chars else 0.0
