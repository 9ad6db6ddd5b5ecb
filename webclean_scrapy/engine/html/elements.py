"""The elements outside the document model's container table, found once.

The walk (:mod:`webclean_scrapy.engine.document`) keeps containers and blocks;
the page type, the metadata and the canonical link also read ``<meta>``,
``<script>``, ``<link>``, ``<time>``, ``<img>``, microdata and the links'
addresses. One pass over the tree (:func:`~webclean_scrapy.engine.document.survey`)
sorts them by tag, once per document, for all of those readers.
"""

from __future__ import annotations

from typing import TypeVar

from lxml import etree

from webclean_scrapy.engine.document import Document, survey
from webclean_scrapy.engine.memo import MemoKey

_T = TypeVar("_T")

#: What the survey pass found, kept on the document until its tree changes.
TAGGED_ELEMENTS: MemoKey[dict[str, list[etree._Element]]] = MemoKey("tagged_elements", from_tree=True)
ATTRIBUTE_SURVEY: MemoKey[tuple[list[str], list[etree._Element]]] = MemoKey("attribute_survey", from_tree=True)
#: Plain strings, but from the same pass: dropped with the others so all three come from one tree.
LINK_HREFS: MemoKey[list[str | None]] = MemoKey("link_hrefs", from_tree=True)

#: Elements outside the container table, counted by one pass over the tree
#: (:func:`tagged_elements`; of ``a``, only the ``href`` values are kept).
ITER_TAGS: tuple[str, ...] = (
    "a",
    "code",
    "time",
    "img",
    "input",
    "select",
    "script",
    "meta",
    "link",
    "iframe",
    "kbd",
    "video",
    "picture",
    "svg",
)
#: The tags of :data:`ITER_TAGS` whose elements :func:`tagged_elements` returns.
ELEMENT_TAGS: tuple[str, ...] = tuple(tag for tag in ITER_TAGS if tag != "a")


def tagged_elements(doc: Document) -> dict[str, list[etree._Element]]:
    """The page's elements of each :data:`ELEMENT_TAGS` tag (``meta``,
    ``script``, ``time``, ``link``...), in document order: sorted by one
    pass over the tree (:func:`~webclean_scrapy.engine.document.survey`), once
    per document, which also reads what :func:`attribute_survey` and
    :func:`link_hrefs` return. :func:`~webclean_scrapy.engine.page_type.page_signals` counts them;
    :mod:`webclean_scrapy.engine.metadata` reads the same lists."""
    found = doc.memo.get(TAGGED_ELEMENTS)
    if found is None:
        found, values, holders, tag_values = survey(
            doc.root, ELEMENT_TAGS, ("itemtype",), ("itemprop",), (("a", "href"),)
        )
        doc.memo.set(TAGGED_ELEMENTS, found)
        doc.memo.set(ATTRIBUTE_SURVEY, (values[0], holders[0]))
        doc.memo.set(LINK_HREFS, tag_values[0])
    return found


def _surveyed(doc: Document, key: MemoKey[_T]) -> _T:
    """What :func:`tagged_elements`' pass stored under *key* on *doc*,
    the pass run again if it is missing (dropped with the tree's proxies)."""
    found = doc.memo.get(key)
    if found is None:
        doc.memo.discard(TAGGED_ELEMENTS)
        tagged_elements(doc)
        found = doc.memo.get(key)
        assert found is not None  # the pass sets every key of the survey
    return found


def link_hrefs(doc: Document) -> list[str | None]:
    """The ``href`` of each of the page's ``<a>`` elements (``None``
    without one), in document order: found by the same pass as
    :func:`tagged_elements`, which makes no element proxy for them."""
    return _surveyed(doc, LINK_HREFS)


def attribute_survey(doc: Document) -> tuple[list[str], list[etree._Element]]:
    """The page's ``itemtype`` values (microdata types: on any element,
    prices sit on spans) and its elements with an ``itemprop``, in
    document order: found by the same pass as :func:`tagged_elements`."""
    return _surveyed(doc, ATTRIBUTE_SURVEY)
