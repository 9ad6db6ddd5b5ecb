"""What a crawl reads from a page besides its main text, gathered where the page is parsed.

The ``news`` spider needs, for each HTML page, its links, the feeds it
announces and the signals of the article/hub rule (:mod:`webclean_scrapy.engine.page_type.articles`).
Read with ``response.css()`` / ``response.xpath()`` / a ``LinkExtractor``,
they would parse the page a second time, on the reactor thread: in process
offload mode the worker parsed the bytes already, and a page built to stall
the parser (``docs/SECURITY.md``) would stall the whole crawl there. So the
extraction worker, holding the parsed tree, also returns a
:class:`PageOutline`; the middleware puts it at
``response.meta["webclean_outline"]`` (read it with
:func:`~webclean_scrapy.downloadermiddlewares.extraction.outline_of`).

Links follow the rules of Scrapy's default ``LinkExtractor()``: ``href`` of
``<a>`` and ``<area>``, stripped, resolved against ``<base href>`` (looked
for in the first 4,096 characters, as Scrapy does) and made safe with the
page's encoding, ``http``/``https``/``ftp``/``file`` only, no
:data:`~scrapy.linkextractors.IGNORED_EXTENSIONS`, unique; ``rel=nofollow``
links are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlparse

from lxml import etree
from scrapy.linkextractors import IGNORED_EXTENSIONS
from scrapy.utils.misc import rel_has_nofollow
from w3lib.html import get_base_url, strip_html5_whitespace
from w3lib.url import safe_url_string

from webclean_scrapy.engine.page_type.articles import PageSignals

if TYPE_CHECKING:
    from webclean_scrapy.engine.document import Document
    from webclean_scrapy.engine.extraction import Extraction

#: ``<link rel="alternate">`` elements announcing an RSS or Atom feed.
FEED_LINKS = etree.XPath(
    "//link[contains(concat(' ', normalize-space(translate(@rel, 'ALTERNATE', 'alternate')), ' '), ' alternate ')]"
    "[contains(@type, 'rss+xml') or contains(@type, 'atom+xml')]/@href",
    smart_strings=False,
)
_SCHEMES = frozenset({"http", "https", "file", "ftp"})
# Scrapy tests ``path.lower().endswith("." + ext)`` for each of ~90 extensions;
# for extensions without a dot that is the text after the path's last dot.
_DENY_EXTENSIONS = frozenset(ext for ext in IGNORED_EXTENSIONS if "." not in ext)
_DENY_DOTTED = tuple(f".{ext}" for ext in IGNORED_EXTENSIONS if "." in ext)


@dataclass(frozen=True, slots=True)
class PageOutline:
    """A page's links, announced feeds and article signals (absolute URLs)."""

    #: Followable links, in document order, without duplicates.
    links: tuple[str, ...]
    #: Each link's text (of its first occurrence, as Scrapy's ``Link.text``), aligned with :attr:`links`.
    link_texts: tuple[str, ...]
    #: RSS/Atom feeds announced by ``<link rel="alternate">``.
    feeds: tuple[str, ...]
    #: What :func:`~webclean_scrapy.engine.page_type.articles.classify` reads.
    signals: PageSignals


def page_outline(doc: Document, extraction: Extraction) -> PageOutline:
    """The outline of a parsed page, from its tree (no second parse)."""
    url = doc.url or ""
    base = get_base_url(doc.source[:4096], url) if url else ""
    encoding = doc.encoding if doc.encoding and doc.encoding != "unicode" else "utf-8"
    # URL -> followable, decided by its first occurrence (Scrapy's unique=True
    # keeps the first link of a URL, rel=nofollow or not).
    first: dict[str, tuple[bool, str]] = {}
    resolved: dict[str, str | None] = {}  # pages repeat their navigation: resolve each href once
    anchors: list[str] = []  # every <a>'s text, for the article signals: one pass over the anchors
    for element in doc.root.iter("a", "area"):
        text = " ".join(element.itertext())
        if element.tag == "a":
            anchors.append(text)
        href = element.get("href")
        if href is None:
            continue
        link = resolved[href] if href in resolved else resolved.setdefault(href, _absolute(href, base, url, encoding))
        if link is not None and link not in first:
            first[link] = (not rel_has_nofollow(element.get("rel")), text.strip())
    links = [
        (link, text)
        for link, (followable, text) in first.items()
        if followable and link.split("://", 1)[0] in _SCHEMES and not _denied_extension(link)
    ]
    feeds: dict[str, None] = {}
    for href in FEED_LINKS(doc.root):
        link = _absolute(str(href), base, url, encoding)
        if link is not None:
            feeds.setdefault(link, None)
    signals = PageSignals.from_root(doc.root, url, extraction.text, extraction.page_type, anchors=anchors)
    return PageOutline(tuple(link for link, _ in links), tuple(text for _, text in links), tuple(feeds), signals)


def _denied_extension(url: str) -> bool:
    """Scrapy's ``url_has_any_extension(url, IGNORED_EXTENSIONS)``, without its loop."""
    path = urlparse(url).path.lower()
    return path.rpartition(".")[2] in _DENY_EXTENSIONS or path.endswith(_DENY_DOTTED)


def _absolute(href: str | None, base: str, url: str, encoding: str) -> str | None:
    """*href* resolved as Scrapy's link extractor does; ``None`` if bogus."""
    if href is None:
        return None
    try:
        absolute = urljoin(base, strip_html5_whitespace(href))
        return urljoin(url, safe_url_string(absolute, encoding=encoding))
    except ValueError:
        return None
