"""web-poet page objects for webclean's cleaned pages, run by scrapy-poet (the ``[poet]`` extra).

::

    ADDONS = {"webclean_scrapy.Addon": 0, "scrapy_poet.Addon": 300}

    class MySpider(scrapy.Spider):
        async def parse(self, response: DummyResponse, page: CleanedWebPage):
            yield await page.to_item()  # a CleanedPage

:class:`CleanedWebPage` gives a :class:`~webclean_scrapy.items.CleanedPage`,
:class:`CleanedArticlePage` a zyte-common-items ``Article`` (the ``[zyte]``
extra too). Neither is bound to URLs (no ``@handle_urls``): a callback
asks for one by its annotation.

Extraction never runs on the reactor thread. scrapy-poet awaits ``to_item``
on it (in the callback, or in its downloader middleware when a callback asks
for the item itself), so ``to_item`` is a coroutine that only converts:

* in a callback, the page was already extracted by
  :class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware`
  (in a worker, under ``WEBCLEAN_PAGE_TIMEOUT``), and ``to_item`` reuses that
  extraction from the request's meta: no second parse;
* otherwise (a callback annotated with the item, whose ``to_item`` runs before
  the middleware; the middleware off or skipping the page), the page is
  extracted through the crawl's :class:`~webclean_scrapy.offload.Offloader`,
  like any page (``WEBCLEAN_OFFLOAD``: a worker process by default). Asking for
  the item in the signature therefore extracts each page twice (once here,
  once in the middleware): ask for the page object and await ``to_item``.

The crawl's side reaches the page object through a page input of its own,
:class:`WebcleanContext`, which :class:`WebcleanProvider` builds; the
webclean add-on lists the provider in ``SCRAPY_POET_PROVIDERS`` when
scrapy-poet is installed. Built by hand (tests, web-poet fixtures), a page
object with ``WebcleanContext()`` extracts in a thread with
:func:`webclean_scrapy.extract`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Set
from typing import TYPE_CHECKING, Any, TypeVar

from webclean_scrapy.errors import install_hint

try:
    import attr
    from scrapy_poet import PageObjectInputProvider
    from web_poet import HttpResponse, WebPage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"{exc}; webclean_scrapy.contrib.poet needs scrapy-poet and web-poet: " + install_hint("poet")
    ) from exc

# Imported at run time: andi reads the provider's annotations to inject them.
from scrapy.crawler import Crawler  # noqa: TC002
from scrapy.http import Response  # noqa: TC002

from webclean_scrapy.downloadermiddlewares.extraction import META_CANONICAL_URL, META_KEY
from webclean_scrapy.engine.api import extract
from webclean_scrapy.errors import ExtractionError
from webclean_scrapy.items import CleanedPage
from webclean_scrapy.offload.offloader import Offloader
from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from zyte_common_items import Article

    from webclean_scrapy.engine.extraction import Extraction

__all__ = ["PROVIDER_ORDER", "CleanedArticlePage", "CleanedWebPage", "WebcleanContext", "WebcleanProvider"]

#: Where the add-on lists :class:`WebcleanProvider` in ``SCRAPY_POET_PROVIDERS``
#: (scrapy-poet's own providers sit at 400 to 1000).
PROVIDER_ORDER = 1100

ItemT = TypeVar("ItemT")


@attr.s(auto_attribs=True)
class WebcleanContext:
    """A page input: how a page object reaches the crawl's extraction.

    *offloader*: the crawl's (``None``: extract in a thread); *meta*: the
    request's meta, where the middleware puts the page's extraction;
    *formats*: ``WEBCLEAN_FORMATS``; *max_html_bytes*: larger pages are not
    extracted (``WEBCLEAN_MAX_HTML_BYTES``); *fields*: ``WEBCLEAN_FIELDS``.
    """

    offloader: Offloader | None = None
    meta: dict[str, Any] = attr.ib(factory=dict)
    formats: tuple[str, ...] = ()
    max_html_bytes: int | None = None
    #: ``WEBCLEAN_FIELDS``: the optional fields computed and carried (``None``: all).
    fields: tuple[str, ...] | None = None

    async def extraction(self, response: HttpResponse) -> Extraction | None:
        """The page's extraction: the middleware's when there is one, else made off the reactor thread.

        ``None`` when the page was not extracted (too large, an error, not HTML).
        """
        if META_KEY in self.meta:
            return self.meta[META_KEY]  # set by WebcleanMiddleware
        body, url = bytes(response.body), str(response.url)
        if self.max_html_bytes is not None and len(body) > self.max_html_bytes:
            return None
        content_type = response.headers.get("Content-Type")
        try:
            if self.offloader is not None:
                return (await self.offloader.extract_markup(body, url, content_type)).extraction
            fields = None if self.fields is None else (*self.fields, *self.formats)
            return await asyncio.to_thread(
                extract, body, url, encoding=content_type, output=("text", *self.formats), fields=fields
            )
        except ExtractionError:
            return None


class WebcleanProvider(PageObjectInputProvider):
    """Provides :class:`WebcleanContext` to scrapy-poet (``SCRAPY_POET_PROVIDERS``; the add-on lists it)."""

    provided_classes = {WebcleanContext}
    name = "webclean"

    def __call__(self, to_provide: Set[Callable[..., Any]], response: Response, crawler: Crawler) -> list[Any]:
        settings = WebcleanSettings.from_crawler(crawler)
        try:
            meta = response.meta
        except AttributeError:  # a response without its request
            meta = {}
        return [
            WebcleanContext(
                offloader=Offloader.for_crawler(crawler, settings),
                meta=meta,
                formats=settings.formats,
                max_html_bytes=settings.max_html_bytes,
                fields=settings.fields,
            )
        ]


@attr.s(auto_attribs=True)
class _WebcleanPage(WebPage[ItemT]):
    """What both page objects share: the response (:class:`~web_poet.WebPage`) and the crawl's extraction."""

    webclean: WebcleanContext

    async def extraction(self) -> Extraction | None:
        """The page's :class:`~webclean_scrapy.Extraction` (``None``: not extracted)."""
        return await self.webclean.extraction(self.response)

    async def cleaned_page(self) -> CleanedPage:
        """The page as :meth:`CleanedPage.from_response <webclean_scrapy.items.CleanedPage.from_response>` builds it."""
        return CleanedPage.from_extraction(
            str(self.response.url),
            await self.extraction(),
            status=self.response.status or 200,
            html_bytes=len(self.response.body),
            formats=self.webclean.formats,
            canonical_url=self.webclean.meta.get(META_CANONICAL_URL),
            fields=self.webclean.fields,
        )


@attr.s(auto_attribs=True)
class CleanedWebPage(_WebcleanPage[CleanedPage]):
    """A web page reduced to its main text: ``await page.to_item()`` is its :class:`~webclean_scrapy.items.CleanedPage`."""

    async def to_item(self) -> CleanedPage:
        return await self.cleaned_page()


@attr.s(auto_attribs=True)
class CleanedArticlePage(_WebcleanPage[Any]):
    """The typed variant: ``await page.to_item()`` is a zyte-common-items ``Article`` (the ``[zyte]`` extra too;
    :func:`webclean_scrapy.contrib.zyte.to_article`)."""

    async def to_item(self) -> Article:
        from webclean_scrapy.contrib.zyte import to_article

        return to_article(await self.cleaned_page())
