"""Feeds and sitemaps read where pages are extracted, never on the reactor thread.

A feed or sitemap can be megabytes of XML listing hundreds of thousands of
URLs: parsed in a spider callback, it freezes every download of the crawl
for seconds. The ``news`` spider hands the raw bytes to
:meth:`Offloader.run <webclean_scrapy.offload.Offloader.run>` with
:func:`read_feed` or :func:`read_sitemap` (module-level, picklable: they run
in a worker process by default), which return at most *max_links* URLs,
cleaned and keyed (:func:`~webclean_scrapy.fingerprint.canonical_key`), and
how many more the listing held (``WEBCLEAN_MAX_FEED_LINKS``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from urllib.parse import urljoin

from lxml import etree
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap

from webclean_scrapy.fingerprint import canonical_key, strip_tracking

_XML_PARSER = etree.XMLParser(
    recover=True, resolve_entities=False, no_network=True, remove_comments=True, remove_pis=True
)


def worker_name() -> str:
    """``<pid>/<thread name>``: where a listing was read (the spider tells the reactor thread apart by it)."""
    return f"{os.getpid()}/{threading.current_thread().name}"


@dataclass(frozen=True, slots=True)
class Listing:
    """What a feed or sitemap lists: *kind* (``"rss"``, ``"atom"``, ``"urlset"``, ``"sitemapindex"``;
    ``None``: not a listing), up to *max_links* ``(url, canonical key)`` pairs in document order,
    the number of entries left out past the cap, and where it was read (:func:`worker_name`)."""

    kind: str | None
    links: tuple[tuple[str, str], ...] = ()
    truncated: int = 0
    worker: str = ""


def _bounded(urls: Iterable[str], base: str, max_links: int, kind: str) -> Listing:
    """The first *max_links* non-empty URLs, absolute and without tracking parameters; the rest only counted."""
    found = (u for u in (str(url).strip() for url in urls) if u)
    links = []
    for url in islice(found, max_links):
        url = strip_tracking(urljoin(base, url))
        links.append((url, canonical_key(url)))
    truncated = sum(1 for _ in found)
    return Listing(kind, tuple(links), truncated, worker_name())


def feed_urls(root: etree._Element, kind: str) -> Iterator[str]:
    """The item links of a parsed feed (:func:`feed_root`), lazily: the cap stops before the rest is collected."""
    if kind == "rss":
        for item in root.iter("{*}item"):
            for child in item:
                if isinstance(child.tag, str) and etree.QName(child).localname == "link" and child.text:
                    yield child.text
    else:
        for entry in root.iter("{*}entry"):
            for child in entry:
                if (
                    isinstance(child.tag, str)
                    and etree.QName(child).localname == "link"
                    and child.get("rel") in (None, "alternate")
                    and child.get("href") is not None
                ):
                    yield child.get("href")


def feed_root(body: bytes) -> tuple[etree._Element, str] | None:
    """The parsed root of an RSS 0.9x/1.0/2.0 (``"rss"``) or Atom (``"atom"``) feed; ``None`` if not a feed.

    Parsed with entity resolution and network access off (no XXE, no
    billion laughs), in recover mode so one bad entry does not lose the rest.
    """
    if not body.strip():
        return None
    try:
        root = etree.fromstring(body, parser=_XML_PARSER)
    except etree.XMLSyntaxError:
        return None
    if root is None or not isinstance(root.tag, str):
        return None
    name = etree.QName(root).localname.lower()
    kind = "rss" if name in ("rss", "rdf") else "atom" if name == "feed" else None
    return None if kind is None else (root, kind)


def read_feed(body: bytes, url: str, max_links: int) -> Listing:
    """The item links of a feed (at most *max_links*), resolved against *url*."""
    parsed = feed_root(body)
    if parsed is None:
        return Listing(None, worker=worker_name())
    root, kind = parsed
    return _bounded(feed_urls(root, kind), url, max_links, kind)


def sitemap_body(body: bytes, max_size: int) -> bytes | None:
    """A sitemap's XML, gunzipped (at most *max_size* bytes inflated, 0: no limit); ``None`` for
    corrupt gzip and for an HTML page (a soft 404)."""
    if body[:2] == b"\x1f\x8b":
        try:
            body = gunzip(body, max_size=max_size)
        except Exception:  # truncated, corrupt or too large once inflated
            return None
    head = body[:512].lstrip().lower()
    return body if head.startswith(b"<") and not head.startswith((b"<!doctype html", b"<html")) else None


def read_sitemap(body: bytes, url: str, max_links: int, max_size: int) -> Listing | None:
    """The ``<loc>`` URLs of a sitemap or sitemap index (at most *max_links*), by Scrapy's own
    :class:`~scrapy.utils.sitemap.Sitemap` reader; ``None`` when *body* is no XML at all."""
    xml = sitemap_body(body, max_size)
    if xml is None:
        return None
    try:
        sitemap = Sitemap(xml)
        kind = sitemap.type
        if kind not in ("sitemapindex", "urlset"):
            return Listing(None, worker=worker_name())
        return _bounded((entry["loc"] for entry in sitemap if entry.get("loc")), url, max_links, kind)
    except Exception:  # lxml gives up on some garbage even with recover=True
        return Listing(None, worker=worker_name())
