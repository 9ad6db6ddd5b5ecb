"""A page's metadata: title, author, dates, site name, description, tags, image, canonical URL.

Read from the tree the page is already parsed into, in one pass over the few
elements that carry metadata -- the ``<meta>``, ``<script>``, ``<time>`` and
``<link>`` lists :func:`~webclean_scrapy.engine.html.elements.tagged_elements` sorts
once per document (the page-type features count the same lists) -- plus the
URL; the whole tree is searched (for microdata ``itemprop`` elements) only
for an author nothing else gave.

Each source has its reader, each field read from several sources its
module; this module only assembles them into :class:`Metadata`, once per
document (:func:`metadata_of`). Imports go one way, down:

* :mod:`~webclean_scrapy.engine.metadata.text`: cleaning and comparing values;
* the sources: :mod:`~webclean_scrapy.engine.metadata.jsonld` (JSON-LD),
  :mod:`~webclean_scrapy.engine.metadata.meta` (OpenGraph and the ``<meta>``
  vocabularies news sites use), :mod:`~webclean_scrapy.engine.metadata.microdata`;
* the fields read from several of them:
  :mod:`~webclean_scrapy.engine.metadata.titles` (title and site name),
  :mod:`~webclean_scrapy.engine.metadata.authors`,
  :mod:`~webclean_scrapy.engine.metadata.dates` (ISO 8601; htmldate opt-in:
  ``extract_metadata(doc, use_htmldate=True)``, extra ``dates``).

Their order differs per field and was measured: see :func:`extract_metadata`
and docs/EVALUATION.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.elements import tagged_elements
from webclean_scrapy.engine.memo import MemoKey
from webclean_scrapy.engine.metadata.authors import AUTHORED_PAGE_TYPES, Authors, read_authors
from webclean_scrapy.engine.metadata.dates import modification_date, publication_date
from webclean_scrapy.engine.metadata.jsonld import JsonLd
from webclean_scrapy.engine.metadata.meta import read_meta
from webclean_scrapy.engine.metadata.microdata import microdata
from webclean_scrapy.engine.metadata.text import clean
from webclean_scrapy.engine.metadata.titles import sitename, title
from webclean_scrapy.engine.page_type import page_type_of

__all__ = ["AUTHORED_PAGE_TYPES", "METADATA_FIELDS", "Metadata", "extract_metadata", "metadata_of"]


@dataclass(slots=True)
class Metadata:
    """What a page says about itself (every field empty when it says nothing)."""

    title: str = ""
    #: Author name(s), several joined with ``", "``; ``None`` when unknown.
    author: str | None = None
    #: Publication date, ISO 8601 (``"2025-09-04"`` or ``"2025-09-04T10:00:00+02:00"``).
    date: str | None = None
    #: Last modification date, ISO 8601, when the page gives one.
    date_modified: str | None = None
    sitename: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    #: The page's lead image (og:image...), an absolute URL.
    image: str | None = None
    #: ``<link rel=canonical>``, else ``og:url``, resolved against the page URL.
    canonical_url: str | None = None


#: The fields :class:`Metadata` holds, in output order (``title`` first): the
#: one list of them (:class:`~webclean_scrapy.Extraction` carries the same).
METADATA_FIELDS: tuple[str, ...] = tuple(spec.name for spec in fields(Metadata))

#: Both rules' readings of a page, made by its first :func:`metadata_of`.
_METADATA: MemoKey[tuple[Metadata, Authors]] = MemoKey("metadata")


def metadata_of(doc: Document, page_type: str | None = None) -> Metadata:
    """:func:`extract_metadata` of *doc* with its page type
    (:func:`~webclean_scrapy.engine.page_type.page_type_of`, itself computed once),
    computed once per document.

    *page_type*: the type the page is reported as
    (:meth:`~webclean_scrapy.engine.extraction.Extractor.reported_page_type`; the
    ``webclean`` extractor reads some predicted hubs as articles), whose
    rule the author follows; default: the classifier's. It is taken from
    what the first call read, both rules' authors, not from the tree,
    which a large page has released by the time its text is extracted."""
    memo = doc.memo.get(_METADATA)
    if memo is None:
        try:
            found, authors = _read_metadata(doc, page_type_of(doc)[0])
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError):
            # Markup no rule foresaw must never cost the page its text: the
            # metadata is then only the document's own title.
            found, authors = Metadata(title=doc.title), Authors(None, None)
        memo = doc.memo.set(_METADATA, (found, authors))
    found, authors = memo
    if page_type is not None:
        author = authors.of(page_type)
        if author != found.author:
            found = replace(found, author=author)
    return found


def extract_metadata(doc: Document, *, page_type: str | None = None, use_htmldate: bool = False) -> Metadata:
    """The metadata of a walked page (never raises on odd markup: a field
    nothing supports stays empty).

    *page_type* (:data:`~webclean_scrapy.engine.page_type.PAGE_TYPES`): on pages
    that are not articles or forum threads -- products, listings, services,
    documentation -- an organisation named as author is the brand or the
    site, not who wrote the text, so only people are reported there.

    *use_htmldate*: ask htmldate (the ``[dates]`` extra)
    for the publication date when no source here gave one: a few more dated
    pages, at many times the cost (docs/EVALUATION.md).
    """
    return _read_metadata(doc, page_type, use_htmldate)[0]


def _read_metadata(doc: Document, page_type: str | None, use_htmldate: bool = False) -> tuple[Metadata, Authors]:
    """:func:`extract_metadata`, with the author under both rules."""
    meta = read_meta(tagged_elements(doc)["meta"])
    ld = JsonLd(tagged_elements(doc)["script"])
    micro = microdata(doc)

    md = Metadata()
    base = doc.url or ""

    # Title: the JSON-LD headline, og:title... else the document's own
    # (og:title, first h1, <title>); the site name trailing it is cut.
    md.sitename = sitename(ld, meta)
    md.title = title(doc, ld, meta, micro, md.sitename)

    host = (urlsplit(base).hostname or "").removeprefix("www.")
    # Both rules' authors, so that the one of the type the page is reported
    # as is there without the tree (metadata_of).
    authors = read_authors(doc, ld, meta, md.sitename, host)
    md.author = authors.of(page_type)
    md.date = publication_date(doc, ld, meta, micro, use_htmldate)
    md.date_modified = modification_date(ld, meta, micro)
    md.description = clean(ld.description or meta.first("description") or "") or None
    md.tags = _tags(ld.keywords, meta.values("tags"))
    image = ld.image or meta.first("image")
    md.image = _absolute(base, image)
    md.canonical_url = doc.canonical_url or _absolute(base, meta.first("url"))
    return md, authors


def _tags(keywords: Any, values: list[str]) -> list[str]:
    """The JSON-LD *keywords*, then the tag ``<meta>`` *values*, split at commas:
    each tag once whatever its case, at most 50, since some pages list hundreds."""
    tags: list[str] = []
    seen: set[str] = set()
    raw: list[str] = []
    for item in keywords if isinstance(keywords, list) else [keywords]:
        if isinstance(item, str):
            raw.extend(item.split(","))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            raw.append(item["name"])
    for value in values:
        raw.extend(value.split(","))
    for tag in raw:
        tag = clean(tag)
        if tag and len(tag) <= 100 and tag.lower() not in seen:
            seen.add(tag.lower())
            tags.append(tag)
    return tags[:50]


def _absolute(base: str, href: str | None) -> str | None:
    """*href* resolved against *base*; ``None`` unless it is a web address."""
    if not href or not href.strip():
        return None
    url = urljoin(base, href.strip())
    return url if urlsplit(url).scheme in ("http", "https") else None
