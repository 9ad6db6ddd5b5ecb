"""The one-call entry point: ``extract(html) -> Extraction``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extraction, Extractor
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.fields import FORMAT_FIELDS, check_fields
from webclean_scrapy.engine.formats import Markup, check_formats
from webclean_scrapy.engine.render import extract_formats


def extract(
    html: bytes | str,
    url: str | None = None,
    extractor: str | type[Extractor] = "default",
    encoding: str | None = None,
    output: str | Iterable[str] = "text",
    *,
    links: bool = False,
    formatting: bool = False,
    images: bool = False,
    fields: str | Iterable[str] | None = None,
    **options: Any,
) -> Extraction:
    """Extract the main text of one page.

    *html* is raw bytes in any encoding or an already-decoded ``str``.
    *encoding* is the charset from the HTTP header (a bare name such as
    ``"latin-1"`` or a whole ``Content-Type`` value); without it the charset
    comes from a byte-order mark, ``<meta>``, then detection.
    *extractor* is a registered name (:func:`~webclean_scrapy.engine.extractors.available_extractors`),
    ``"default"``, a dotted path to an :class:`Extractor` subclass, or the
    class itself; *options* override that extractor's parameters.

    *output* names the formats wanted besides the plain ``text`` (always
    filled): ``"markdown"`` fills :attr:`Extraction.markdown`, ``"html"``
    :attr:`Extraction.html` (clean HTML), a list asks for several. Both
    render the blocks the extractor kept (:mod:`webclean_scrapy.engine.render`).
    *links*, *formatting* and *images* (trafilatura's ``include_links``,
    ``include_formatting``, ``include_images``) keep those inline elements
    in both: ``[text](absolute url)``, ``*em*``/``**strong**``/`` `code` ``,
    ``![alt](absolute src)`` (:class:`~webclean_scrapy.engine.formats.Markup`);
    off, the outputs are the block structure alone. They are not extractor
    options: an extractor parameter of one of these names cannot be given here.

    *fields* names the fields wanted besides the core ones every call fills
    (``text``, ``extractor``, ``url``, ``language``, ``page_type``,
    ``page_type_confidence``, ``truncated``): metadata fields (``title``,
    ``author``, ``date``... or ``"metadata"`` for all of them),
    ``detected_language``, ``language_confidence``, ``markdown``, ``html``
    (:mod:`webclean_scrapy.engine.fields`). What no wanted field needs is
    not done -- the metadata readers, the language identification, the
    rendering -- and a field not wanted keeps its empty value (``None``,
    ``""`` for ``title``, ``[]`` for ``tags``); a wanted one is what the
    complete call gives. ``"markdown"`` and ``"html"`` here add to *output*.
    ``None`` (the default) fills every field.

    Raises :class:`~webclean_scrapy.errors.NotHTMLError` (an
    :class:`~webclean_scrapy.errors.ExtractionError`) for binary input;
    empty or broken markup gives an :class:`Extraction` with empty text.
    """
    formats = check_formats(output)
    wanted = check_fields(fields)
    if wanted is not None:
        formats = (*formats, *(name for name in FORMAT_FIELDS if name in wanted and name not in formats))
    method = get_extractor(extractor, **options)
    with built_page(lambda: Document.from_html(html, url=url, encoding=encoding)) as doc:
        return extract_formats(method, doc, formats, Markup(links, formatting, images), wanted)
