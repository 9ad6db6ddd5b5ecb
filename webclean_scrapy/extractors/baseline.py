"""``baseline``: all visible text, the reference point of every paper."""

from __future__ import annotations

from ..document import Document
from ..extraction import Extractor
from . import register


@register
class BaselineExtractor(Extractor):
    """Every string of the cleaned page (scripts, styles, hidden elements dropped)."""

    name = "baseline"

    def extract_text(self, doc: Document) -> str:
        return doc.block_columns.text()
