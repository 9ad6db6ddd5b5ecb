"""The ``<meta>`` values of a page: OpenGraph and the vocabularies news sites use.

``og:*``, ``article:published_time``, ``author``, Dublin Core ``DC.*`` /
``dcterms.*``, ``parsely-*``, ``sailthru.*``, ``citation_*``... are read by
``name``, ``property`` or ``itemprop``, and ranked per field by how specific
their name is, so ``og:title`` beats a bare ``headline`` whatever their order
in the page.
"""

from __future__ import annotations

from lxml import etree

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


class MetaValues:
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


def read_meta(elements: list[etree._Element]) -> MetaValues:
    """The values of the ``<meta>`` *elements* (``content``, else ``value`` or ``datetime``)."""
    meta = MetaValues()
    for el in elements:
        key = el.get("property") or el.get("name") or el.get("itemprop")
        if key:
            content = el.get("content")
            if content is None:
                content = el.get("value") or el.get("datetime")
            if content:
                meta.add(key, content)
    return meta
