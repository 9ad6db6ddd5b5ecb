"""``baseline``: all visible text, the reference point of every paper."""

from __future__ import annotations

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import register
from webclean_scrapy.engine.trace import Trace


@register
class BaselineExtractor(Extractor):
    """Every string of the cleaned page (scripts, styles, hidden elements dropped).

    Trace: every block kept, no score.
    """

    name = "baseline"

    def extract_text(self, doc: Document, trace: Trace | None = None) -> str:
        if trace is not None:
            trace.units("block", len(doc.block_columns))
            trace.keep(slice(None))
            trace.reason(slice(None), "baseline: all visible text is kept")
        return doc.block_columns.text()
