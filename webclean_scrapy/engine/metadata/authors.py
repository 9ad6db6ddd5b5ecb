"""The page's author: who the first source that names anyone names.

Sources in order: JSON-LD, ``citation_author``, the ``<meta>`` author names,
then microdata, the whole tree searched only when all else failed. User ids,
template placeholders and addresses are no author. Whether an organisation
is depends on the page type (:data:`AUTHORED_PAGE_TYPES`), so both readings
are made at once (:class:`Authors`) and the one of the type the page is
finally reported as is chosen without reading the tree again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.metadata.jsonld import JsonLd
from webclean_scrapy.engine.metadata.meta import MetaValues
from webclean_scrapy.engine.metadata.microdata import microdata
from webclean_scrapy.engine.metadata.text import HANDLE, clean, name_key

#: Page types whose author may be an organisation (a newsroom, a company blog).
AUTHORED_PAGE_TYPES = frozenset({"article", "forum"})

#: Author values that name nobody.
_PLACEHOLDERS = frozenset(
    "undefined null none unknown admin administrator anonymous staff author editor guest user webmaster".split()
)
#: A user id, slug or template variable rather than a name: one lower-case
#: token holding a digit, ``-``, ``_`` or ``.`` (``jdoe_42``, ``page.head.author``),
#: or digits only.
_IDENTIFIER = re.compile(r"^(?:\d+|[a-z0-9]*[\d._-][a-z0-9._-]*)$")
_BY = re.compile(r"^(?:by|von|par|por|door|di|da|av|af)\s*[:\-]?\s+", re.I)


def people_only(page_type: str | None) -> bool:
    """Whether an organisation named as author is left out on *page_type*'s pages."""
    return page_type is not None and page_type not in AUTHORED_PAGE_TYPES


class Authors(NamedTuple):
    """A page's author under each rule of :func:`~webclean_scrapy.engine.metadata.extract_metadata`."""

    #: Anyone named, organisations included: articles, forum threads, and
    #: pages read with no page type.
    anyone: str | None
    #: People only: the other page types (products, listings, services...).
    people: str | None

    def of(self, page_type: str | None) -> str | None:
        return self.people if people_only(page_type) else self.anyone


def read_authors(doc: Document, ld: JsonLd, meta: MetaValues, sitename: str | None, host: str) -> Authors:
    """*doc*'s author under both rules.

    The whole tree's microdata is read once at most, whichever rule asks
    first; and each source's people are among its names, so a page with no
    author for anyone has none for people either.
    """
    microdata_author = functools.cache(lambda: microdata(doc, whole_tree=True).get("author"))
    anyone = _author(ld, meta, microdata_author, sitename, host, people_only=False)
    return Authors(anyone, anyone and _author(ld, meta, microdata_author, sitename, host, people_only=True))


def _author(
    ld: JsonLd,
    meta: MetaValues,
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
    not_authors = {name_key(sitename), name_key(host), name_key(host.split(".")[0])} - {""} if people_only else set()
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
            if name and name_key(name) not in not_authors and name.lower() not in (n.lower() for n in names):
                names.append(name)
        if names:
            return ", ".join(names)
    return None


def _author_name(value: str, comma_reversed: bool = False) -> str | None:
    value = clean(value)
    if not value or value.startswith(("http://", "https://", "www.", "/")) or HANDLE.match(value):
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
