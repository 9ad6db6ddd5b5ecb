"""webclean's pages as zyte-common-items: :class:`~zyte_common_items.Article` and
:class:`~zyte_common_items.PageContent` (the ``[zyte]`` extra).

A crawl emits them with ``WEBCLEAN_ITEM_CLASS = "zyte_common_items.Article"``
(or ``"zyte_common_items.PageContent"``, or a subclass of either), through
:class:`~webclean_scrapy.pipelines.item_class.ItemClassPipeline`; code builds
them with :func:`to_article` / :func:`to_page_content` from an
:class:`~webclean_scrapy.Extraction` or from the fields of a
:class:`~webclean_scrapy.items.CleanedPage` (a ``CleanedPage`` item or any
mapping with its field names).

This module lives in ``contrib`` beside the datatrove step because it is an
integration behind its own extra: nothing else in the package imports it
unless the setting or a caller asks for a zyte class, so zyte-common-items
stays optional.

How the fields map:

==================  =============================================================
``headline``        ``title`` (``None`` when empty)
``articleBody``     ``text``, stripped (``PageContent``: ``itemMain``)
``articleBodyHtml`` ``content_html``, the clean HTML of ``WEBCLEAN_FORMATS = ["html"]``;
                    left out otherwise (never rendered here: a crawl asks for it)
``authors``         ``author`` split on ``", "`` (how webclean joins several names),
                    each an :class:`~zyte_common_items.Author` with ``name`` and ``nameRaw``
``datePublished``   ``date`` as ``YYYY-MM-DDThh:mm:ss`` with ``Z`` or ``±hh:mm`` when the
                    page gave a time zone (:func:`zyte_date`), else without one; ``dateModified``
                    when the page has no publication date (zyte's rule)
``dateModified``    ``date_modified``, the same way; the raw values go to ``*Raw``
``inLanguage``      ``language`` (declared), else ``detected_language``
``mainImage``       ``image`` as :class:`~zyte_common_items.Image`
``canonicalUrl``    ``canonical_url``; ``url`` is the page's URL
``metadata``        ``dateDownloaded`` (the item's ``fetched_at``, else now) and ``probability`` 1.0
==================  =============================================================

``PageContent`` takes ``url``, ``canonicalUrl``, ``headline`` and ``title``
(both webclean's title), ``itemMain`` and ``metadata``. webclean's own
fields with no zyte counterpart (``page_type``, ``extractor``, ``sitename``,
``tags``, ``truncated``, ``markdown``, a harvest's ``query`` / ``rank``...)
are not carried: keep the default item, or a class of your own
(``WEBCLEAN_ITEM_CLASS = "myproject.items.MyArticle"``), to export them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta, timezone
from typing import Any

from webclean_scrapy.errors import install_hint

try:
    from zyte_common_items import Article, Author, Image, PageContent
    from zyte_common_items.base import Item as ZyteItem
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"{exc}; webclean_scrapy.contrib.zyte needs zyte-common-items: " + install_hint("zyte")) from exc

from webclean_scrapy.engine.extraction import Extraction

__all__ = [
    "Article",
    "PageContent",
    "ZyteItem",
    "is_zyte_class",
    "to_article",
    "to_page_content",
    "to_zyte_item",
    "zyte_date",
]

#: A date alone (``2025-09-04``), which ``datetime.fromisoformat`` of Python 3.10 reads too.
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def is_zyte_class(cls: Any) -> bool:
    """Whether *cls* is a zyte-common-items item class this module fills (``Article``,
    ``PageContent`` or a subclass)."""
    return isinstance(cls, type) and issubclass(cls, (Article, PageContent))


def zyte_date(value: str | None) -> str | None:
    """An ISO 8601 date of webclean's metadata in zyte-common-items' format.

    ``"2025-09-04T10:30:00+02:00"`` stays as it is (seconds added when
    missing), UTC is written ``Z``, a time without a zone stays without one
    (the zone is unknown: no guess) and a date alone gets midnight
    (``"2025-09-04T00:00:00"``). A value that does not parse gives ``None``.
    """
    if not value:
        return None
    text = value.strip()
    try:
        if _DATE_ONLY.match(text):
            day = date.fromisoformat(text)
            moment = datetime(day.year, day.month, day.day)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    offset = moment.utcoffset()
    stamp = moment.replace(tzinfo=None, microsecond=0).isoformat(timespec="seconds")
    if offset is None:
        return stamp
    if offset == timedelta(0):
        return stamp + "Z"
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{stamp}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _utc_now() -> str:
    """Now, as zyte's ``dateDownloaded`` (``YYYY-MM-DDThh:mm:ssZ``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _fields(source: Extraction | Mapping[str, Any]) -> dict[str, Any]:
    """A mapping of :class:`~webclean_scrapy.items.CleanedPage` field names, from either kind of source."""
    if isinstance(source, Extraction):
        values = dataclasses.asdict(source)
        values["content_html"] = values.pop("html")  # the clean HTML, as in the item
        return values
    return dict(source.items())


def _text(value: Any) -> str | None:
    """*value* stripped; ``None`` for ``None`` or blank."""
    if value is None:
        return None
    return str(value).strip() or None


def _common(values: Mapping[str, Any], url: str | None) -> dict[str, Any]:
    page_url = url or values.get("url")
    if not page_url:
        raise ValueError("a zyte-common-items item needs the page's URL")
    return {
        "url": page_url,
        "canonicalUrl": values.get("canonical_url") or None,
        "headline": _text(values.get("title")),
        "metadata": {"dateDownloaded": values.get("fetched_at") or _utc_now(), "probability": 1.0},
    }


def to_article(
    source: Extraction | Mapping[str, Any], *, url: str | None = None, cls: type[Article] = Article
) -> Article:
    """The :class:`~zyte_common_items.Article` (or subclass *cls*) of a page (see the module docstring).

    *url* is the page's URL (an :class:`~webclean_scrapy.Extraction` made
    without one needs it); constructing the item runs zyte's attrs converters.
    """
    values = _fields(source)
    published_raw, modified_raw = values.get("date") or None, values.get("date_modified") or None
    published, modified = zyte_date(published_raw), zyte_date(modified_raw)
    if published is None and modified is not None:  # zyte's rule: the modification date stands in
        published, published_raw = modified, modified_raw
    author = _text(values.get("author"))
    image = _text(values.get("image"))
    fields: dict[str, Any] = {
        **_common(values, url),
        "articleBody": _text(values.get("text")),
        "authors": [Author(name=name, nameRaw=name) for name in author.split(", ") if name] if author else None,
        "datePublished": published,
        "datePublishedRaw": published_raw,
        "dateModified": modified,
        "dateModifiedRaw": modified_raw,
        "inLanguage": values.get("language") or values.get("detected_language") or None,
        "mainImage": Image(url=image) if image else None,
        "description": _text(values.get("description")),
    }
    if values.get("content_html"):
        fields["articleBodyHtml"] = values["content_html"]
    return cls(**fields)


def to_page_content(
    source: Extraction | Mapping[str, Any], *, url: str | None = None, cls: type[PageContent] = PageContent
) -> PageContent:
    """The :class:`~zyte_common_items.PageContent` (or subclass *cls*) of a page of any kind."""
    values = _fields(source)
    return cls(**_common(values, url), title=_text(values.get("title")), itemMain=_text(values.get("text")))


def to_zyte_item(source: Extraction | Mapping[str, Any], cls: type[ZyteItem], *, url: str | None = None) -> ZyteItem:
    """*source* as *cls*, an ``Article`` or ``PageContent`` class (:func:`is_zyte_class`)."""
    if isinstance(cls, type) and issubclass(cls, Article):
        return to_article(source, url=url, cls=cls)
    if isinstance(cls, type) and issubclass(cls, PageContent):
        return to_page_content(source, url=url, cls=cls)
    raise TypeError(f"webclean fills zyte_common_items.Article and PageContent (or subclasses), not {cls!r}")
