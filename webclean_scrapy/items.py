"""The item webclean spiders yield: one cleaned page.

Field order is part of the contract. Scrapy's feed exporters write an item's
fields in the order they were *set* (``Item.keys()``), and
:meth:`CleanedPage.from_response` always sets them in :data:`FIELD_ORDER`, so
every exported line has the same column order. To pin the order regardless
of how an item was filled, set ``FEED_EXPORT_FIELDS = list(FIELD_ORDER)``
(this also writes absent fields as empty).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import scrapy
from itemadapter import ItemAdapter
from scrapy.utils.misc import load_object

from webclean_scrapy.downloadermiddlewares.extraction import (
    META_CANONICAL_URL,
    META_FIELDS,
    META_FORMATS,
    META_KEEP_HTML,
    META_KEY,
)
from webclean_scrapy.engine.extraction import extraction_fields
from webclean_scrapy.errors import install_hint

if TYPE_CHECKING:
    from scrapy.http import Response

    from webclean_scrapy.engine.extraction import Extraction

_MISSING: Any = object()


def utc_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 UTC to the second, e.g. ``"2026-11-21T23:07:28Z"``."""
    moment = moment or datetime.now(timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class CleanedPage(scrapy.Item):
    """One crawled page reduced to its main text.

    Fields, in export order:

    ``url``
        The URL of the response (after redirects).
    ``canonical_url``
        The page's ``<link rel="canonical">`` resolved against ``url``, else ``url``.
    ``status``
        HTTP status code.
    ``fetched_at``
        When the item was built, ISO 8601 UTC (``"2026-11-21T23:07:28Z"``).
    ``title``
        The page's own title: JSON-LD headline, og:title and the like, else
        the first ``<h1>``, else ``<title>``; ``""`` if none.
    ``text``
        The main text, one paragraph/heading/list item per line; ``""`` when the
        response was not HTML, too large, or extraction failed.
    ``extractor``
        Name of the extractor that produced ``text``; ``None`` if none ran.
    ``language``
        Declared page language (primary subtag, ``"en"``) or ``None``.
    ``detected_language``, ``language_confidence``
        The language of ``text`` as py3langid reads it (ISO 639-1) and its
        probability in [0, 1]; ``None`` for text too short to tell or without
        the ``[lang]`` extra (:mod:`webclean_scrapy.engine.text.language`).
    ``page_type``
        The kind of page, one of ``article``, ``forum``, ``product``,
        ``collection``, ``listing``, ``documentation``, ``service``
        (:mod:`webclean_scrapy.engine.page_type`; :attr:`Extraction.page_type
        <webclean_scrapy.engine.extraction.Extraction.page_type>`, which reports a
        predicted hub the extractor reads as an article an ``article``);
        ``None`` if no extraction ran, or for a near-empty page nothing names.
    ``page_type_confidence``
        The classifier's probability for ``page_type``, in [0, 1]; ``None``
        with no page type.
    ``truncated``
        ``True`` when ``text`` comes from part of the page only: the body was
        cut in transfer (Scrapy's ``dataloss`` flag, or a compressed body
        whose stream does not end) or the markup nests past libxml2's limit
        beyond repair; ``False`` otherwise (``None`` if no extraction ran).
    ``author``, ``date``, ``date_modified``, ``sitename``, ``description``, ``tags``, ``image``
        The page's metadata (:mod:`webclean_scrapy.engine.metadata`): author name(s)
        joined with ``", "``; publication and modification dates in ISO 8601
        (``"2025-09-04"`` or a datetime as the page gave it); site name;
        description; tags (a list); lead image URL. ``None`` (``[]`` for
        ``tags``) when the page does not say, or no extraction ran. These,
        ``title`` and the detected language are left out of the item when
        ``WEBCLEAN_FIELDS`` does not name them: they were not computed
        (:mod:`webclean_scrapy.engine.fields`).
    ``html_bytes``
        Size of the raw response body in bytes.
    ``text_chars``
        ``len(text)``.
    ``html``
        The raw HTML (decoded), present only when ``WEBCLEAN_KEEP_HTML`` is true.
    ``markdown``, ``content_html``
        The main content as Markdown / as clean HTML (the same blocks as
        ``text``, with their headings, lists, tables, code and quotes:
        :mod:`webclean_scrapy.engine.render`), present only when
        ``WEBCLEAN_FORMATS`` names ``"markdown"`` / ``"html"``; ``""`` when
        ``text`` is empty for want of an extraction.
    ``query``, ``rank``
        Set only by the ``harvest`` spider: the search query that found the
        page and the page's 1-based position in the results.
    """

    url = scrapy.Field()
    canonical_url = scrapy.Field()
    status = scrapy.Field()
    fetched_at = scrapy.Field()
    title = scrapy.Field()
    text = scrapy.Field()
    extractor = scrapy.Field()
    language = scrapy.Field()
    detected_language = scrapy.Field()
    language_confidence = scrapy.Field()
    page_type = scrapy.Field()
    page_type_confidence = scrapy.Field()
    truncated = scrapy.Field()
    author = scrapy.Field()
    date = scrapy.Field()
    date_modified = scrapy.Field()
    sitename = scrapy.Field()
    description = scrapy.Field()
    tags = scrapy.Field()
    image = scrapy.Field()
    html_bytes = scrapy.Field()
    text_chars = scrapy.Field()
    html = scrapy.Field()
    markdown = scrapy.Field()
    content_html = scrapy.Field()
    query = scrapy.Field()
    rank = scrapy.Field()

    @classmethod
    def from_response(
        cls,
        response: Response,
        extraction: Extraction | None = _MISSING,
        *,
        keep_html: bool | None = None,
        **extra: Any,
    ) -> CleanedPage:
        """Build the item for *response*.

        *extraction* defaults to what the middleware attached
        (:func:`~webclean_scrapy.downloadermiddlewares.extraction.extraction_of`); ``None`` gives an
        item with empty text. *keep_html* defaults to the middleware's
        ``WEBCLEAN_KEEP_HTML``. *extra* sets further declared fields (``query``,
        ``rank``) after the standard ones.
        """
        meta = _meta(response)
        if extraction is _MISSING:
            extraction = meta.get(META_KEY)
        if keep_html is None:
            keep_html = bool(meta.get(META_KEEP_HTML, False))
        return cls.from_extraction(
            response.url,
            extraction,
            status=response.status,
            html_bytes=len(response.body),
            formats=meta.get(META_FORMATS, ()),
            fields=meta.get(META_FIELDS),
            canonical_url=meta.get(META_CANONICAL_URL),
            html=getattr(response, "text", None) if keep_html else _MISSING,
            **extra,
        )

    @classmethod
    def from_extraction(
        cls,
        url: str,
        extraction: Extraction | None,
        *,
        status: int,
        html_bytes: int,
        formats: Iterable[str] = (),
        canonical_url: str | None = None,
        html: str | None = _MISSING,
        fields: Iterable[str] | None = None,
        **extra: Any,
    ) -> CleanedPage:
        """Build the item of the page at *url* from its *extraction* (``None``: empty text).

        What :meth:`from_response` does with a Scrapy response, for callers holding
        the parts (the page objects of :mod:`webclean_scrapy.contrib.poet`).
        *canonical_url* defaults to the extraction's, then *url*; *html* (the
        raw page) is set only when given; *formats* are ``WEBCLEAN_FORMATS``;
        *fields* (``WEBCLEAN_FIELDS``, ``None``: all) the optional fields the
        item carries, the others left out, as they were not computed.
        """
        wanted = None if fields is None else frozenset(fields)
        values: dict[str, Any] = {
            "url": url,
            "canonical_url": (canonical_url or (extraction.canonical_url if extraction is not None else None) or url),
            "status": status,
            "fetched_at": utc_timestamp(),
            **extraction_fields(extraction, formats, html_bytes=html_bytes, fields=wanted),
        }
        if html is not _MISSING:
            values["html"] = html
        item = cls()
        for key in FIELD_ORDER:  # set in export order (see the module docstring)
            if key in values:
                item[key] = values[key]
        for key, value in extra.items():
            item[key] = value
        return item


#: The export order of :class:`CleanedPage` fields (use as ``FEED_EXPORT_FIELDS``).
# In declaration order: Scrapy keeps ``Item.fields`` so since 2.14 (it sorted them by name before).
FIELD_ORDER: tuple[str, ...] = tuple(CleanedPage.fields)


def _meta(response: Response) -> dict[str, Any]:
    """``response.meta`` without raising for responses built outside a crawl."""
    try:
        return response.meta
    except AttributeError:
        return {}


#: ``WEBCLEAN_ITEM_CLASS`` values (besides ``None``) that keep every item as its
#: component made it: :class:`CleanedPage` from the spiders, the item's own
#: class from :class:`~webclean_scrapy.pipelines.WebcleanPipeline`.
KEEP_ITEM_CLASS = ("", "default")


def _is_zyte(cls: type) -> bool:
    """A zyte-common-items class (or a subclass), recognised without importing the library."""
    return any(base.__module__.split(".")[0] == "zyte_common_items" for base in cls.__mro__)


def load_item_class(value: str | type | None) -> type | None:
    """The class ``WEBCLEAN_ITEM_CLASS`` names: ``None`` to keep items as they are
    (``None``, ``""``, ``"default"``), ``dict``, or the class at a dotted path (or
    the class itself): ``"zyte_common_items.Article"``, ``"myproject.items.Page"``.

    Raises :class:`ValueError` for a path that names no item class, and
    :class:`ImportError` with the ``[zyte]`` install hint for a
    zyte-common-items class without the library.
    """
    if value is None or (isinstance(value, str) and value.strip().lower() in KEEP_ITEM_CLASS):
        return None
    if isinstance(value, str):
        path = value.strip()
        if path == "dict":
            return dict
        try:
            cls = load_object(path)
        except ImportError as exc:
            if path.split(".")[0] == "zyte_common_items":
                raise ImportError(
                    f"WEBCLEAN_ITEM_CLASS={path!r} needs zyte-common-items: {install_hint('zyte')}"
                ) from exc
            raise ValueError(f"WEBCLEAN_ITEM_CLASS={path!r}: {exc}") from exc
        except (NameError, ValueError) as exc:
            raise ValueError(f"WEBCLEAN_ITEM_CLASS={path!r}: {exc}") from exc
    else:
        cls = value
    if cls is dict:
        return dict
    if not isinstance(cls, type) or (not _is_zyte(cls) and ItemAdapter.get_field_names_from_class(cls) is None):
        raise ValueError(
            f"WEBCLEAN_ITEM_CLASS={value!r} is not an item class (dict, scrapy.Item, dataclass, attrs or pydantic)"
        )
    if _is_zyte(cls):
        from webclean_scrapy.contrib.zyte import is_zyte_class

        if not is_zyte_class(cls):
            raise ValueError(
                f"WEBCLEAN_ITEM_CLASS={value!r}: of zyte-common-items, webclean fills Article and PageContent"
            )
    return cls


def convert_item(item: Mapping[str, Any], cls: type) -> Any:
    """A cleaned page (a :class:`CleanedPage`, or a mapping with its field names) as an item of *cls*.

    ``dict``: a plain dict of the same fields. zyte-common-items ``Article``
    and ``PageContent`` (and subclasses): built by :mod:`webclean_scrapy.contrib.zyte`.
    Any other item class: built from the fields of the page it declares, by
    keyword (fields the page lacks keep the class's defaults).
    """
    if cls is dict:
        return dict(item)
    if _is_zyte(cls):
        from webclean_scrapy.contrib.zyte import to_zyte_item

        return to_zyte_item(item, cls)
    declared = ItemAdapter.get_field_names_from_class(cls) or ()
    return cls(**{name: item[name] for name in declared if name in item})
