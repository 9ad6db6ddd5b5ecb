"""JSON-LD (``<script type="application/ld+json">``): the page's main object and what it points to.

Objects, arrays and ``@graph`` lists are read; the *main* object is the
first article-like one (``Article``, ``NewsArticle``, ``BlogPosting``...),
else a ``WebPage``; authors may be strings, ``Person`` objects, lists of
them or ``@id`` references into the graph. Pages get JSON-LD wrong often
(trailing commas, control characters), so a script is read leniently
before it is given up.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lxml import etree

from webclean_scrapy.engine.metadata.text import value_text

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


class JsonLd:
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
        return value_text(self._get("headline", self.main)) or value_text(self._get("name", self.main))

    @property
    def date(self) -> str | None:
        return value_text(self._get("datePublished", self.main, self.page)) or value_text(
            self._get("dateCreated", self.main, self.page)
        )

    @property
    def date_modified(self) -> str | None:
        return value_text(self._get("dateModified", self.main, self.page))

    @property
    def description(self) -> str | None:
        return value_text(self._get("description", self.main, self.page))

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
        if isinstance(publisher, dict) and value_text(publisher.get("name")):
            return value_text(publisher.get("name"))
        return value_text(self._get("name", self.website))

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
