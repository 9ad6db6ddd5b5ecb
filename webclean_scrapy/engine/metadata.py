"""A page's metadata: title, author, dates, site name, description, tags, image, canonical URL.

Read from the tree the page is already parsed into, in one pass over the few
elements that carry metadata -- the ``<meta>``, ``<script>``, ``<time>`` and
``<link>`` lists :func:`~webclean_scrapy.engine.html.elements.tagged_elements` sorts
once per document (the page-type features count the same lists) -- plus the
URL; the whole tree is searched (for microdata ``itemprop`` elements) only
for an author nothing else gave.

Sources (their order differs per field and was measured: see
:func:`extract_metadata` and docs/EVALUATION.md):

* **JSON-LD** (``<script type="application/ld+json">``): objects, arrays and
  ``@graph`` lists; the *main* object is the first article-like one
  (``Article``, ``NewsArticle``, ``BlogPosting``...), else a ``WebPage``;
  authors may be strings, ``Person`` objects, lists of them or ``@id``
  references into the graph.
* **OpenGraph** and the ``<meta>`` vocabularies news sites use
  (``article:published_time``, ``author``, Dublin Core ``DC.*`` /
  ``dcterms.*``, ``parsely-*``, ``sailthru.*``, ``citation_*``...).
* **Microdata** (``itemprop="author"``, ``datePublished``...): on ``<meta>``,
  ``<time>`` and ``<link>`` elements, and anywhere for the author.
* ``<time datetime>`` elements, and a date in the URL path
  (``/2025/09/04/``, ``/2025-09-04-``).

Every date is returned as ISO 8601: ``YYYY-MM-DD``, or the datetime exactly
as the page gave it when it was already ISO (its local date is the page's
publication day; converting to UTC would move it). Our own sources beat
htmldate on wcxb-dev at a hundredth of its cost, so htmldate is opt-in
(``extract_metadata(doc, use_htmldate=True)``, extra ``dates``): asked only
when none of the sources above gave a date (measured in docs/EVALUATION.md).
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from datetime import date as _date
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

from lxml import etree

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.elements import attribute_survey, tagged_elements
from webclean_scrapy.engine.memo import MemoKey
from webclean_scrapy.engine.page_type import page_type_of


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


# -- <meta> names, lower-cased (name, property or itemprop) ------------------

_META_FIELDS: dict[str, tuple[str, ...]] = {
    "title": (
        "og:title",
        "twitter:title",
        "dc.title",
        "dcterms.title",
        "parsely-title",
        "sailthru.title",
        "citation_title",
        "headline",
    ),
    "author": (
        "author",
        "article:author",
        "og:article:author",
        "book:author",
        "dc.creator",
        "dcterms.creator",
        "parsely-author",
        "sailthru.author",
        "byl",
        "sailthru.byline",
        "byline",
        "article.author",
        "twitter:data1|written by",
        "cxenseparse:author",
        "dc.creator.name",
    ),
    "date": (
        "article:published_time",
        "og:article:published_time",
        "og:published_time",
        "datepublished",
        "article.published",
        "published_time",
        "published-date",
        "publish-date",
        "publish_date",
        "publishdate",
        "publication_date",
        "pubdate",
        "date",
        "dc.date",
        "dc.date.issued",
        "dc.date.created",
        "dcterms.date",
        "dcterms.issued",
        "dcterms.created",
        "parsely-pub-date",
        "sailthru.date",
        "citation_publication_date",
        "citation_date",
        "citation_online_date",
        "date_published",
        "release_date",
        "datecreated",
        "article:published",
        "created",
    ),
    "citation_author": ("citation_author", "dc.creator.personalname"),
    "date_modified": (
        "article:modified_time",
        "og:article:modified_time",
        "og:updated_time",
        "datemodified",
        "dc.date.modified",
        "dcterms.modified",
        "last-modified",
        "article.updated",
        "modified_time",
        "lastmod",
        "revised",
    ),
    "sitename": ("og:site_name", "application-name", "dc.publisher", "dcterms.publisher", "publisher", "twitter:site"),
    "description": (
        "description",
        "og:description",
        "twitter:description",
        "dc.description",
        "dcterms.description",
        "dcterms.abstract",
    ),
    "tags": (
        "article:tag",
        "og:article:tag",
        "keywords",
        "news_keywords",
        "parsely-tags",
        "sailthru.tags",
        "dc.subject",
        "book:tag",
    ),
    "image": (
        "og:image",
        "og:image:url",
        "og:image:secure_url",
        "twitter:image",
        "twitter:image:src",
        "thumbnailurl",
        "image",
    ),
    "url": ("og:url", "twitter:url"),
}
#: Meta name -> (field, rank): the rank orders the names of one field.
_META_INDEX: dict[str, tuple[str, int]] = {
    name: (key, rank) for key, names in _META_FIELDS.items() for rank, name in enumerate(names)
}

#: Page types whose author may be an organisation (a newsroom, a company blog).
AUTHORED_PAGE_TYPES = frozenset({"article", "forum"})

#: JSON-LD types that are the page's main object, in order of preference.
_ARTICLE_TYPES = frozenset(
    """article newsarticle blogposting reportagenewsarticle analysisnewsarticle opinionnewsarticle
    reviewnewsarticle backgroundnewsarticle socialmediaposting liveblogposting techarticle scholarlyarticle
    report review medicalwebpage recipe howto question discussionforumposting posting creativework
    videoobject podcastepisode event product course""".split()
)
_PAGE_TYPES = frozenset(
    "webpage itempage aboutpage collectionpage profilepage faqpage qapage searchresultspage".split()
)
_ORGANISATION_TYPES = frozenset(
    "organization newsmediaorganization corporation localbusiness brand "
    "educationalorganization governmentorganization ngo".split()
)

_ITEMPROPS = frozenset({"author", "creator", "datepublished", "datemodified", "datecreated", "headline", "publisher"})
#: Elements whose ``itemprop`` :func:`_microdata` reads from the tagged lists.
_TAGGED_ITEMPROP = frozenset({"meta", "link", "time"})

_SPACE = re.compile(r"\s+")
_WORD_CHARS = re.compile(r"\w+")
#: Author values that name nobody.
_PLACEHOLDERS = frozenset(
    "undefined null none unknown admin administrator anonymous staff author editor guest user webmaster".split()
)
#: A user id, slug or template variable rather than a name: one lower-case
#: token holding a digit, ``-``, ``_`` or ``.`` (``jdoe_42``, ``page.head.author``),
#: or digits only.
_IDENTIFIER = re.compile(r"^(?:\d+|[a-z0-9]*[\d._-][a-z0-9._-]*)$")
_BY = re.compile(r"^(?:by|von|par|por|door|di|da|av|af)\s*[:\-]?\s+", re.I)
_HANDLE = re.compile(r"^@\w+$")
#: ``/2025/09/04/``, ``/2025-09-04``, ``/20250904/``, ``/2025/09/`` in a URL path.
_URL_DATE = re.compile(
    r"/((?:19|20)\d\d)[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:[/_.-]|$)"
    r"|/((?:19|20)\d\d)/(0[1-9]|1[0-2])/"
)
_ISO = re.compile(
    r"^\s*((?:19|20)\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])"
    r"(?:([T ])([0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d+)?)?)\s*(Z|[+-][0-2]\d:?[0-5]\d)?)?"
)
_ISO_ANYWHERE = re.compile(r"\b((?:19|20)\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b()()()")
#: What every date pattern of :func:`_text_date` holds: a year of 1900-2099
#: (``_ISO_ANYWHERE``, ``_SLASHED``, ``_TEXT_DATES``, ``_NUMERIC_DATE``). A
#: block without one ("5 comments", "10:42") is passed over with one search.
_HAS_YEAR = re.compile(r"(?:19|20)\d\d")
_SLASHED = re.compile(r"\b((?:19|20)\d\d)[/.](0?[1-9]|1[0-2])[/.](0?[1-9]|[12]\d|3[01])\b")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "january jan janvier januar enero gennaio",
            "february feb feb. février februar febrero febbraio",
            "march mar mars märz marzo",
            "april apr avril abril aprile",
            "may mai mayo maggio",
            "june jun juin juni junio giugno",
            "july jul juillet juli julio luglio",
            "august aug août agosto",
            "september sep sept septembre settembre septiembre",
            "october oct octobre oktober octubre ottobre",
            "november nov novembre noviembre",
            "december dec décembre dezember diciembre dicembre",
        ),
        1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_TEXT_DATES = (
    # September 4, 2025 / Sep. 4th 2025
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.I), (3, 1, 2)),
    # 4 September 2025 / 4. September 2025
    (
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+(?:de\s+)?({_MONTH})\.?,?\s+(?:de\s+)?((?:19|20)\d\d)\b", re.I
        ),
        (3, 2, 1),
    ),
)
#: Class / id words of a ``<time>`` or element that holds the publication date.
_PUBLISHED_HINT = re.compile(r"publish|posted|entry-date|post-date|article-date|dateline|byline|date", re.I)
_UPDATED_HINT = re.compile(r"updated|modified|last-?edit", re.I)


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
            found, authors = Metadata(title=doc.title), _Authors(None, None)
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


class _Authors(NamedTuple):
    """A page's author under each rule of :func:`extract_metadata`."""

    #: Anyone named, organisations included: articles, forum threads, and
    #: pages read with no page type.
    anyone: str | None
    #: People only: the other page types (products, listings, services...).
    people: str | None

    def of(self, page_type: str | None) -> str | None:
        return self.people if _people_only(page_type) else self.anyone


#: Both rules' readings of a page, made by its first :func:`metadata_of`.
_METADATA: MemoKey[tuple[Metadata, _Authors]] = MemoKey("metadata")


def _people_only(page_type: str | None) -> bool:
    """Whether an organisation named as author is left out on *page_type*'s pages."""
    return page_type is not None and page_type not in AUTHORED_PAGE_TYPES


def _read_metadata(doc: Document, page_type: str | None, use_htmldate: bool = False) -> tuple[Metadata, _Authors]:
    """:func:`extract_metadata`, with the author under both rules."""
    meta = _MetaValues()
    for el in tagged_elements(doc)["meta"]:
        key = el.get("property") or el.get("name") or el.get("itemprop")
        if key:
            content = el.get("content")
            if content is None:
                content = el.get("value") or el.get("datetime")
            if content:
                meta.add(key, content)
    ld = _JsonLd(tagged_elements(doc)["script"])
    micro = _microdata(doc)

    md = Metadata()
    base = doc.url or ""

    # Title: the JSON-LD headline, og:title... else the document's own
    # (og:title, first h1, <title>); the site name trailing it is cut.
    md.sitename = _clean(ld.sitename or meta.first("sitename") or "") or None
    if md.sitename and _HANDLE.match(md.sitename):
        md.sitename = md.sitename[1:]
    md.title = _title(doc, ld, meta, micro, md.sitename)

    host = (urlsplit(base).hostname or "").removeprefix("www.")
    # Both rules' authors, so that the one of the type the page is reported
    # as is there without the tree (metadata_of). The whole tree's microdata
    # is read once at most, whichever rule asks first; and each source's
    # people are among its names, so a page with no author for anyone has
    # none for people either.
    microdata_author = functools.cache(lambda: _microdata(doc, whole_tree=True).get("author"))
    anyone = _author(ld, meta, microdata_author, md.sitename, host, people_only=False)
    authors = _Authors(anyone, anyone and _author(ld, meta, microdata_author, md.sitename, host, people_only=True))
    md.author = authors.of(page_type)
    # Most precise first (measured on wcxb-dev, docs/EVALUATION.md): a day
    # in the URL path, the explicit <meta> names, JSON-LD, <time>, microdata,
    # then a date printed next to the heading.
    md.date = (
        _url_date(doc.url or doc.canonical_url or "")
        or _first_date(meta.values("date"))
        or _iso_date(ld.date)
        or _time_date(tagged_elements(doc)["time"])
        or _iso_date(micro.get("datepublished"))
        or _iso_date(micro.get("datecreated"))
        or _text_date(doc)
    )
    if md.date is None and use_htmldate:
        md.date = _htmldate(doc)
    md.date_modified = (
        _iso_date(ld.date_modified) or _first_date(meta.values("date_modified")) or _iso_date(micro.get("datemodified"))
    )
    md.description = _clean(ld.description or meta.first("description") or "") or None
    md.tags = _tags(ld.keywords, meta.values("tags"))
    image = ld.image or meta.first("image")
    md.image = _absolute(base, image)
    md.canonical_url = doc.canonical_url or _absolute(base, meta.first("url"))
    return md, authors


class _MetaValues:
    """``<meta>`` contents by field, ranked by how specific their name is."""

    __slots__ = ("fields",)

    def __init__(self) -> None:
        self.fields: dict[str, list[tuple[int, int, str]]] = {}

    def add(self, key: str, content: str) -> None:
        key = key.strip().lower()
        hit = _META_INDEX.get(key)
        if hit is None:
            if " " in key:  # property="og:title twitter:title"
                for part in key.split():
                    self.add(part, content)
            return
        name, rank = hit
        values = self.fields.setdefault(name, [])
        values.append((rank, len(values), content))

    def values(self, name: str) -> list[str]:
        return [content for _, _, content in sorted(self.fields.get(name, ()))]

    def first(self, name: str) -> str | None:
        values = self.fields.get(name)
        return min(values)[2] if values else None


class _JsonLd:
    """The JSON-LD of a page, read for its main object and what it points to."""

    __slots__ = ("nodes", "ids", "main", "page", "website")

    def __init__(self, scripts: list[etree._Element]) -> None:
        self.nodes: list[dict[str, Any]] = []
        for el in scripts:
            kind = el.get("type")
            if not kind or "ld+json" not in kind.lower():
                continue
            text = el.text
            if not text or not text.strip():
                continue
            try:
                data = json.loads(text)
            except RecursionError:  # nesting deeper than Python's stack: no data
                continue
            except ValueError:
                try:  # a stray control character or trailing comma is common
                    data = json.loads(re.sub(r",\s*([}\]])", r"\1", text.strip().rstrip(";")), strict=False)
                except (ValueError, RecursionError):
                    continue
            self._collect(data, 0)
        self.ids = {node["@id"]: node for node in self.nodes if isinstance(node.get("@id"), str)}
        self.main = self.page = self.website = None
        for node in self.nodes:
            types = _types(node)
            if self.main is None and types & _ARTICLE_TYPES:
                self.main = node
            elif self.page is None and types & _PAGE_TYPES:
                self.page = node
            elif self.website is None and "website" in types:
                self.website = node

    def _collect(self, data: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(data, list):
            for item in data:
                self._collect(item, depth + 1)
        elif isinstance(data, dict):
            if "@type" in data:
                self.nodes.append(data)
            graph = data.get("@graph")
            if graph is not None:
                self._collect(graph, depth + 1)
            main = data.get("mainEntity")
            if isinstance(main, dict):
                self._collect(main, depth + 1)

    def resolve(self, value: Any) -> Any:
        if isinstance(value, dict) and set(value) <= {"@id", "@type"} and value.get("@id") in self.ids:
            return self.ids[value["@id"]]
        return value

    def _get(self, key: str, *nodes: dict[str, Any] | None) -> Any:
        for node in nodes:
            if node is not None:
                value = node.get(key)
                if value:
                    return value
        return None

    @property
    def headline(self) -> str | None:
        return _text(self._get("headline", self.main)) or _text(self._get("name", self.main))

    @property
    def date(self) -> str | None:
        return _text(self._get("datePublished", self.main, self.page)) or _text(
            self._get("dateCreated", self.main, self.page)
        )

    @property
    def date_modified(self) -> str | None:
        return _text(self._get("dateModified", self.main, self.page))

    @property
    def description(self) -> str | None:
        return _text(self._get("description", self.main, self.page))

    @property
    def keywords(self) -> Any:
        return self._get("keywords", self.main, self.page)

    @property
    def image(self) -> str | None:
        value = self._get("image", self.main, self.page) or self._get("thumbnailUrl", self.main, self.page)
        value = self.resolve(value[0] if isinstance(value, list) and value else value)
        if isinstance(value, dict):
            value = value.get("url") or value.get("contentUrl")
        return value if isinstance(value, str) else None

    @property
    def sitename(self) -> str | None:
        publisher = self.resolve(self._get("publisher", self.main, self.page))
        if isinstance(publisher, list) and publisher:
            publisher = self.resolve(publisher[0])
        if isinstance(publisher, dict) and _text(publisher.get("name")):
            return _text(publisher.get("name"))
        return _text(self._get("name", self.website))

    def authors(self, people_only: bool = False) -> list[str]:
        value = self._get("author", self.main) or self._get("creator", self.main)
        if value is None and self.main is None:
            value = self._get("author", self.page)
        names: list[str] = []
        for item in value if isinstance(value, list) else [value]:
            item = self.resolve(item)
            if isinstance(item, dict):
                if people_only and _types(item) & _ORGANISATION_TYPES:
                    continue
                name = item.get("name")
                if isinstance(name, list):
                    name = name[0] if name else None
                if not isinstance(name, str) and (item.get("givenName") or item.get("familyName")):
                    name = f"{item.get('givenName') or ''} {item.get('familyName') or ''}"
                item = name
            if isinstance(item, str):
                names.append(item)
        return names


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    if isinstance(kind, str):
        return {kind.rsplit("/", 1)[-1].lower()}
    if isinstance(kind, list):
        return {k.rsplit("/", 1)[-1].lower() for k in kind if isinstance(k, str)}
    return set()


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value") or value.get("name")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = _clean(str(value))
        return value or None
    return None


def _clean(text: str) -> str:
    """Whitespace collapsed, and the HTML entities some pages leave in their
    attributes and JSON (``&amp;``, ``&#8217;``) decoded."""
    if "&" in text:
        text = html.unescape(text)
    return _SPACE.sub(" ", text).strip()


#: A separator between a title and the site's name: `` | ``, `` - ``, `` – ``, `` — ``, `` :: ``, `` » ``...
_TITLE_SEPARATOR = re.compile(r"\s+(?:[|»·•~]|::|--?|[–—])\s+")


def _without_site(title: str, sitename: str | None, host: str) -> str:
    """*title* without a leading or trailing segment that names the site
    ("Defer, Panic, and Recover - The Go Programming Language")."""
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    names = {_key(sitename), _key(host), _key(host.rsplit(".", 1)[0]), _key(host.split(".")[0])} - {""}

    def names_site(part: str) -> bool:
        part = _key(part)
        return bool(part) and any(name in part or (len(part) >= 4 and part in name) for name in names)

    first, last = 0, len(parts)
    while last - first > 1 and names_site(parts[last - 1]):
        last -= 1
    while last - first > 1 and names_site(parts[first]):
        first += 1
    if (first, last) == (0, len(parts)):
        return title
    start = title.find(parts[first])
    end = title.rfind(parts[last - 1]) + len(parts[last - 1])
    return title[start:end].strip() if 0 <= start < end else title


def _microdata(doc: Document, whole_tree: bool = False) -> dict[str, Any]:
    """The first ``itemprop`` element of each :data:`_ITEMPROPS` name: its
    date (``datetime`` / ``content``) or its text; authors hold a ``name``.

    Without *whole_tree*, only the ``<meta>``, ``<time>`` and ``<link>``
    elements are read; with it, every element with an ``itemprop`` (found
    by the same pass as they: :func:`~webclean_scrapy.engine.html.elements.attribute_survey`),
    read only for what nothing else gave (the author, :func:`_author`).
    """
    found: dict[str, Any] = {}
    elements = tagged_elements(doc)
    for el in (*elements["meta"], *elements["time"], *elements["link"]):
        prop = el.get("itemprop")
        if prop:
            _microdata_value(el, prop, found)
    if whole_tree:
        for el in attribute_survey(doc)[1]:
            if el.tag not in _TAGGED_ITEMPROP:
                _microdata_value(el, el.get("itemprop", ""), found)
    return found


def _microdata_value(el: etree._Element, prop: str, found: dict[str, Any]) -> None:
    for name in prop.lower().split():
        if name not in _ITEMPROPS or name in found:
            continue
        if name.startswith("date"):
            value = el.get("datetime") or el.get("content") or _element_text(el)
        elif name in ("author", "creator") and el.get("itemscope") is not None:
            named = el.xpath(".//*[@itemprop='name']")
            value = named[0].get("content") or _element_text(named[0]) if named else None
        else:
            value = el.get("content") or el.get("href") or _element_text(el)
        if value:
            found[name] = value


def _element_text(el: etree._Element) -> str:
    return _clean("".join(el.itertext()))[:200]


def _title(doc: Document, ld: _JsonLd, meta: _MetaValues, micro: dict[str, Any], sitename: str | None) -> str:
    title = _clean(ld.headline or meta.first("title") or _text(micro.get("headline")) or doc.title or "")
    return _without_site(title, sitename, (urlsplit(doc.url or "").hostname or "").removeprefix("www."))


def _author(
    ld: _JsonLd,
    meta: _MetaValues,
    microdata_author: Callable[[], Any],
    sitename: str | None,
    host: str,
    people_only: bool,
) -> str | None:
    """The first source's author names (JSON-LD, ``citation_author``, the
    ``<meta>`` names, then microdata, *microdata_author* searching the whole
    tree, asked only when all else failed).
    User ids, template placeholders and addresses are no author; with
    *people_only*, neither is an organisation (the site itself, a JSON-LD
    ``Organization``)."""
    not_authors = {_key(sitename), _key(host), _key(host.split(".")[0])} - {""} if people_only else set()
    sources = (
        lambda: ld.authors(people_only),
        lambda: meta.values("citation_author"),
        lambda: meta.values("author")[:1],
        lambda: [value] if (value := microdata_author()) else [],
    )
    for number, source in enumerate(sources):
        names: list[str] = []
        for candidate in source():
            name = _author_name(candidate, comma_reversed=number == 1)
            if name and _key(name) not in not_authors and name.lower() not in (n.lower() for n in names):
                names.append(name)
        if names:
            return ", ".join(names)
    return None


def _key(text: str | None) -> str:
    """*text* without case, spaces or punctuation, to compare names with hosts."""
    return "".join(_WORD_CHARS.findall(text.lower())) if text else ""


def _author_name(value: str, comma_reversed: bool = False) -> str | None:
    value = _clean(value)
    if not value or value.startswith(("http://", "https://", "www.", "/")) or _HANDLE.match(value):
        return None
    value = _BY.sub("", value).strip()
    if (
        len(value) > 100
        or "@" in value
        and "." in value.split("@")[-1]
        or value.lower() in _PLACEHOLDERS
        or _IDENTIFIER.match(value)
    ):
        return None
    if comma_reversed and value.count(",") == 1:  # citation_author: "Roy, Aniruddha"
        last, first = (part.strip() for part in value.split(","))
        value = f"{first} {last}".strip()
    return value or None


def _iso_date(value: Any, search: bool = False) -> str | None:
    """*value* as an ISO 8601 date or datetime string, or ``None``; with
    *search*, a date anywhere in the text (ISO, ``YYYY/MM/DD`` or with a
    month name), else only one the value starts with (any of those forms)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 1e8:
        from datetime import datetime, timezone

        try:
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, timezone.utc).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    match = (_ISO_ANYWHERE.search if search else _ISO.match)(value)
    if match:
        year, month, day, sep, clock, zone = match.groups()
        day_iso = _valid(year, month, day)
        if day_iso is None:
            return None
        if clock:
            zone = zone or ""
            if zone and zone != "Z" and ":" not in zone:
                zone = f"{zone[:3]}:{zone[3:]}"
            return f"{day_iso}T{clock}{zone}"
        return day_iso
    match = _SLASHED.search(value)
    if match:
        return _valid(*match.groups())
    for pattern, (y, m, d) in _TEXT_DATES:
        match = pattern.search(value)
        if match:
            groups = match.groups()
            month = _MONTHS.get(groups[m - 1].lower().rstrip("."))
            if month:
                return _valid(groups[y - 1], str(month), groups[d - 1])
    return None


def _valid(year: str, month: str, day: str) -> str | None:
    try:
        found = _date(int(year), int(month), int(day))
    except ValueError:
        return None
    if found.year < 1995 or found > _date.today().replace(year=_date.today().year + 1):
        return None
    return found.isoformat()


def _first_date(values: list[str]) -> str | None:
    for value in values:
        found = _iso_date(value)
        if found:
            return found
    return None


def _time_date(times: list[etree._Element]) -> str | None:
    """The publication date a ``<time datetime>`` gives: one marked as such
    (``pubdate``, ``itemprop``, a class saying published), else the first
    one not marked as an update."""
    first = None
    for el in times:
        value = el.get("datetime")
        if not value:
            continue
        hints = " ".join(
            filter(
                None,
                (
                    el.get("class"),
                    el.get("itemprop"),
                    el.getparent().get("class") if el.getparent() is not None else None,
                ),
            )
        )
        if _UPDATED_HINT.search(hints):
            continue
        if el.get("pubdate") is not None or _PUBLISHED_HINT.search(hints):
            found = _iso_date(value)
            if found:
                return found
        if first is None:
            first = value
    return _iso_date(first) if first else None


#: How many blocks around the page's heading are read for a visible date
#: (a byline sits just above or below it).
_TEXT_DATE_BEFORE, _TEXT_DATE_AFTER = 8, 40
#: Longer blocks are prose, whose dates are what the text is about.
_TEXT_DATE_BLOCK_CHARS = 160
_NUMERIC_DATE = re.compile(r"\b(0?[1-9]|[12]\d|3[01])[/.](0?[1-9]|[12]\d|3[01])[/.]((?:19|20)\d\d)\b")


def _text_date(doc: Document) -> str | None:
    """A date printed in a short block next to the page's first ``<h1>``
    (or at the top of the page when it has none): the byline's."""
    columns = doc.container_columns
    try:
        h1 = columns.tags.index("h1")
        start = max(int(columns.first_blocks[h1]), 0)
    except ValueError:
        start = 0
    texts = doc.block_columns.texts[max(start - _TEXT_DATE_BEFORE, 0) : start + _TEXT_DATE_AFTER]
    for text in texts:
        if len(text) > _TEXT_DATE_BLOCK_CHARS or not _HAS_YEAR.search(text):
            continue
        found = _iso_date(text, search=True)
        if found is None:
            match = _NUMERIC_DATE.search(text)
            if match:
                first, second, year = match.groups()
                found = _valid(year, first, second) if int(first) <= 12 else _valid(year, second, first)
        if found:
            return found
    return None


def _url_date(url: str) -> str | None:
    match = _URL_DATE.search(urlsplit(url).path) if url else None
    if match is None:
        return None
    year, month, day, year2, month2 = match.groups()
    if year:
        return _valid(year, month, day)
    return None  # a month without a day is no publication day


def _htmldate(doc: Document) -> str | None:
    """htmldate's publication date (its own parse of the page: ~100x the
    cost of everything else here, hence opt-in)."""
    from htmldate import find_date  # ImportError: the "dates" extra is not installed

    try:
        return find_date(doc.source, url=doc.url, original_date=True, extensive_search=True)
    except Exception:  # htmldate reads any markup; a failure is no date
        return None


def _tags(keywords: Any, values: list[str]) -> list[str]:
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
        tag = _clean(tag)
        if tag and len(tag) <= 100 and tag.lower() not in seen:
            seen.add(tag.lower())
            tags.append(tag)
    return tags[:50]


def _absolute(base: str, href: str | None) -> str | None:
    if not href or not href.strip():
        return None
    url = urljoin(base, href.strip())
    return url if urlsplit(url).scheme in ("http", "https") else None
