"""Microdata (``itemprop="author"``, ``datePublished``...): the first element of each property.

The ``<meta>``, ``<time>`` and ``<link>`` elements carrying an ``itemprop``
come from the lists :func:`~webclean_scrapy.engine.html.elements.tagged_elements`
sorts once per document; the whole tree is searched only for an author
nothing else gave, since most pages need no such pass.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.elements import attribute_survey, tagged_elements
from webclean_scrapy.engine.metadata.text import clean

_ITEMPROPS = frozenset({"author", "creator", "datepublished", "datemodified", "datecreated", "headline", "publisher"})
#: Elements whose ``itemprop`` :func:`microdata` reads from the tagged lists.
_TAGGED_ITEMPROP = frozenset({"meta", "link", "time"})


def microdata(doc: Document, whole_tree: bool = False) -> dict[str, Any]:
    """The first ``itemprop`` element of each :data:`_ITEMPROPS` name: its
    date (``datetime`` / ``content``) or its text; authors hold a ``name``.

    Without *whole_tree*, only the ``<meta>``, ``<time>`` and ``<link>``
    elements are read; with it, every element with an ``itemprop`` (found
    by the same pass as they: :func:`~webclean_scrapy.engine.html.elements.attribute_survey`),
    read only for what nothing else gave (the author,
    :func:`~webclean_scrapy.engine.metadata.authors.read_authors`).
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
    return clean("".join(el.itertext()))[:200]
