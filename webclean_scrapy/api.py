"""The one-call entry point: ``extract(html) -> Extraction``."""

from __future__ import annotations

from typing import Any

from .document import Document, built_page
from .extraction import Extraction, Extractor
from .extractors import get_extractor


def extract(html: bytes | str, url: str | None = None, extractor: str | type[Extractor] = "default",
            encoding: str | None = None, **options: Any) -> Extraction:
    """Extract the main text of one page.

    *html* is raw bytes in any encoding or an already-decoded ``str``.
    *encoding* is the charset from the HTTP header (a bare name such as
    ``"latin-1"`` or a whole ``Content-Type`` value); without it the charset
    comes from a byte-order mark, ``<meta>``, then detection.
    *extractor* is a registered name (:func:`available_extractors`),
    ``"default"``, a dotted path to an :class:`Extractor` subclass, or the
    class itself; *options* override that extractor's parameters.

    Raises :class:`~webclean_scrapy.errors.NotHTMLError` (an
    :class:`~webclean_scrapy.errors.ExtractionError`) for binary input;
    empty or broken markup gives an :class:`Extraction` with empty text.
    """
    method = get_extractor(extractor, **options)
    with built_page(lambda: Document.from_html(html, url=url, encoding=encoding)) as doc:
        return method.extract(doc)
