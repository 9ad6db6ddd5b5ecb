"""The elements outside the document model's container table, found once.

The walk (:mod:`webclean_scrapy.engine.document`) keeps containers and blocks;
the page type, the metadata and the canonical link also read ``<meta>``,
``<script>``, ``<link>``, ``<time>``, ``<img>``, microdata and the links'
addresses. One pass over the tree (:func:`survey`) sorts them by tag, once
per document, for all of those readers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol, TypeVar

from lxml import etree

from webclean_scrapy.engine.html.compiled import compiled_walk, reads_natively
from webclean_scrapy.engine.memo import MemoKey, PageMemo

_T = TypeVar("_T")


@lru_cache(maxsize=8)
def _attribute_xpaths(name: str) -> tuple[etree.XPath, etree.XPath]:
    return etree.XPath(f"//*/@{name}", smart_strings=False), etree.XPath(f"//*[@{name}]")


#: What :func:`survey` returns: elements by tag, attribute values, attribute
#: holders, and attribute values per tag.
SurveyResult = tuple[
    dict[str, list[etree._Element]], list[list[str]], list[list[etree._Element]], list[list[str | None]]
]


def survey(
    root: etree._Element,
    tags: tuple[str, ...],
    values: tuple[str, ...] = (),
    holders: tuple[str, ...] = (),
    tag_values: tuple[tuple[str, str], ...] = (),
    *,
    compiled: bool = True,
) -> SurveyResult:
    """What is looked up outside the walk's tables, in one pass over the tree:

    * *root*'s elements of each tag of *tags*, by tag (``root.iter(*tags)``);
    * for each attribute name of *values*, its values on every element of
      the document (``//*/@name``);
    * for each attribute name of *holders*, the elements that have it
      (``//*[@name]``);
    * for each ``(tag, attribute)`` pair of *tag_values* (a tag not in
      *tags*), the attribute's value on each of *root*'s elements of that
      tag, ``None`` where it has none: ``[el.get(attribute) for el in
      root.iter(tag)]``;

    each in document order. The compiled walk's module does it in one pass
    over libxml2's nodes, making element proxies only for the elements
    returned (about a third of the time of three searches), and none for
    *tag_values*' elements (a page's links, its most numerous elements,
    are read for their addresses alone); lxml's own ``iter``, ``get`` and
    XPath are the fallback, with the same results (and run when *compiled*
    is false). A tag in both *tags* and *tag_values* is refused
    (``ValueError``): the compiled pass reads each element one way.
    """
    if any(tag in tags for tag, _ in tag_values):
        raise ValueError("a tag of tag_values is also in tags")
    if reads_natively(root, compiled):
        found: SurveyResult = compiled_walk.survey(
            root,
            tags,
            tuple(name.encode() for name in values),
            tuple(name.encode() for name in holders),
            tuple((tag, attribute.encode()) for tag, attribute in tag_values),
        )
        return found
    by_tag: dict[str, list[etree._Element]] = {tag: [] for tag in tags}
    keep = {tag: elements.append for tag, elements in by_tag.items()}
    for element in root.iter(*tags):
        keep[element.tag](element)
    return (
        by_tag,
        [_attribute_xpaths(name)[0](root) for name in values],
        [_attribute_xpaths(name)[1](root) for name in holders],
        [[element.get(attribute) for element in root.iter(tag)] for tag, attribute in tag_values],
    )


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

#: What the readers of a page's tree after its walk look at (the tags of
#: :func:`tagged_elements`, ``<head>`` and ``<title>``; microdata): a large
#: page's tree is cut down to these before they run
#: (:meth:`~webclean_scrapy.engine.document.Document.prune_tree`, or its walk,
#: which frees the rest as it reads it). A reader of anything else must add it here.
TREE_READS: tuple[tuple[str, ...], tuple[str, ...]] = ((*ITER_TAGS, "head", "title"), ("itemprop", "itemtype"))


class SurveyedPage(Protocol):
    """What the survey reads of a page (a :class:`~webclean_scrapy.engine.document.Document`):
    its tree, whether the compiled passes read it, and the memo its lists are kept in."""

    @property
    def root(self) -> etree._Element: ...

    @property
    def compiled_walk(self) -> bool: ...

    @property
    def memo(self) -> PageMemo: ...


def tagged_elements(doc: SurveyedPage) -> dict[str, list[etree._Element]]:
    """The page's elements of each :data:`ELEMENT_TAGS` tag (``meta``,
    ``script``, ``time``, ``link``...), in document order: sorted by one
    pass over the tree (:func:`survey`), once
    per document, which also reads what :func:`attribute_survey` and
    :func:`link_hrefs` return. :func:`~webclean_scrapy.engine.page_type.page_signals` counts them;
    :mod:`webclean_scrapy.engine.metadata` reads the same lists."""
    found = doc.memo.get(TAGGED_ELEMENTS)
    if found is None:
        found, values, holders, tag_values = survey(
            doc.root, ELEMENT_TAGS, ("itemtype",), ("itemprop",), (("a", "href"),), compiled=doc.compiled_walk
        )
        doc.memo.set(TAGGED_ELEMENTS, found)
        doc.memo.set(ATTRIBUTE_SURVEY, (values[0], holders[0]))
        doc.memo.set(LINK_HREFS, tag_values[0])
    return found


def _surveyed(doc: SurveyedPage, key: MemoKey[_T]) -> _T:
    """What :func:`tagged_elements`' pass stored under *key* on *doc*,
    the pass run again if it is missing (dropped with the tree's proxies)."""
    found = doc.memo.get(key)
    if found is None:
        doc.memo.discard(TAGGED_ELEMENTS)
        tagged_elements(doc)
        found = doc.memo.get(key)
        assert found is not None  # the pass sets every key of the survey
    return found


def link_hrefs(doc: SurveyedPage) -> list[str | None]:
    """The ``href`` of each of the page's ``<a>`` elements (``None``
    without one), in document order: found by the same pass as
    :func:`tagged_elements`, which makes no element proxy for them."""
    return _surveyed(doc, LINK_HREFS)


def attribute_survey(doc: SurveyedPage) -> tuple[list[str], list[etree._Element]]:
    """The page's ``itemtype`` values (microdata types: on any element,
    prices sit on spans) and its elements with an ``itemprop``, in
    document order: found by the same pass as :func:`tagged_elements`."""
    return _surveyed(doc, ATTRIBUTE_SURVEY)
