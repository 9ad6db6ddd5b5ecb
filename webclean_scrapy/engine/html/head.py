"""What a page declares about itself: its title, its language, its canonical address.

These are read from a few elements (``<meta>``, ``<title>``, ``<html lang>``,
``<link rel>``) rather than from the walk's tables, which skip ``<head>``. The
document (:class:`~webclean_scrapy.engine.document.Document`) exposes them as its
``title``, ``language`` and ``canonical_url``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

from lxml import etree

from webclean_scrapy.engine.text.language_names import primary_language

#: ``<link rel>`` as the XPath ``//link[contains(concat(' ', translate(normalize-space(@rel),
#: 'CANONICAL', 'canonical'), ' '), ' canonical ')]`` reads it: split at XML
#: whitespace, those letters lower-cased, one word of it ``canonical``.
_XML_SPACE = re.compile(r"[ \t\r\n]+")
_CANONICAL_LETTERS = str.maketrans("CANOIL", "canoil")


def head_elements(root: etree._Element, tag: str) -> Iterable[etree._Element]:
    """``<tag>`` elements of ``<head>`` (the whole page if it has no head).

    The walk skips ``<head>``; these few lookups read it directly instead
    of running ``//``-XPath over the whole tree.
    """
    head = root.find("head")
    return (head if head is not None else root).iter(tag)


def meta_title(root: etree._Element) -> str:
    """The first non-empty og:title (or twitter:title) of ``<head>``, whitespace collapsed; ``""`` without one."""
    for meta in head_elements(root, "meta"):
        if meta.get("property") == "og:title" or meta.get("name") in ("og:title", "twitter:title"):
            value = " ".join((meta.get("content") or "").split())
            if value:
                return value
    return ""


def title_text(root: etree._Element) -> str:
    """The text of the first non-empty ``<title>``, whitespace collapsed; ``""`` without one."""
    for element in head_elements(root, "title"):
        value = " ".join("".join(element.itertext()).split())
        if value:
            return value
    return ""


def declared_language(root: etree._Element) -> str | None:
    """The page's declared language (``<html lang>``, ``content-language``
    or ``og:locale``), lower-cased primary subtag such as ``"en"``."""
    candidates = [root.get("lang"), root.get("xml:lang")]
    if not any(candidates):
        for meta in head_elements(root, "meta"):
            if (meta.get("http-equiv") or "").lower() == "content-language" or meta.get("property") == "og:locale":
                candidates.append(meta.get("content"))
    for value in candidates:
        if value and value.strip():
            return primary_language(value)
    return None


def canonical_link(links: Iterable[etree._Element], base_url: str | None) -> str | None:
    """The first ``<link rel="canonical">`` of *links* (in document order) resolved against
    *base_url*, if it is an http or https address."""
    for link in links:
        rel = link.get("rel")
        if rel is None or "canonical" not in _XML_SPACE.split(rel.translate(_CANONICAL_LETTERS)):
            continue
        href = link.get("href")
        if href is None:
            continue
        href = href.strip()
        if not href:
            continue
        url = urljoin(base_url or "", href)
        if urlsplit(url).scheme in ("http", "https"):
            return url
    return None
