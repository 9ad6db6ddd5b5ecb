"""The page's title and its site's name.

Read together because each needs the other: the site name is cut from the
title it trails or leads ("Defer, Panic, and Recover - The Go Programming
Language"), which pages' ``<title>`` and ``og:title`` carry as often as not.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.metadata.jsonld import JsonLd
from webclean_scrapy.engine.metadata.meta import MetaValues
from webclean_scrapy.engine.metadata.text import HANDLE, clean, name_key, value_text

#: A separator between a title and the site's name: `` | ``, `` - ``, `` – ``, `` — ``, `` :: ``, `` » ``...
_TITLE_SEPARATOR = re.compile(r"\s+(?:[|»·•~]|::|--?|[–—])\s+")


def sitename(ld: JsonLd, meta: MetaValues) -> str | None:
    """The JSON-LD publisher's or website's name, else ``og:site_name``...
    (a handle, ``@gazette``, without its ``@``)."""
    name = clean(ld.sitename or meta.first("sitename") or "") or None
    if name and HANDLE.match(name):
        name = name[1:]
    return name


def title(doc: Document, ld: JsonLd, meta: MetaValues, micro: dict[str, Any], site: str | None) -> str:
    """The JSON-LD headline, ``og:title``... else the document's own (``og:title``,
    first ``<h1>``, ``<title>``), without the name of the *site* trailing it."""
    found = clean(ld.headline or meta.first("title") or value_text(micro.get("headline")) or doc.title or "")
    return _without_site(found, site, (urlsplit(doc.url or "").hostname or "").removeprefix("www."))


def _without_site(title: str, sitename: str | None, host: str) -> str:
    """*title* without a leading or trailing segment that names the site
    ("Defer, Panic, and Recover - The Go Programming Language")."""
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    names = {name_key(sitename), name_key(host), name_key(host.rsplit(".", 1)[0]), name_key(host.split(".")[0])} - {""}

    def names_site(part: str) -> bool:
        part = name_key(part)
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
