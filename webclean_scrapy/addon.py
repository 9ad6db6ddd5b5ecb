"""The Scrapy add-on: ``ADDONS = {"webclean_scrapy.Addon": 0}`` enables webclean-scrapy.

What :meth:`Addon.update_settings` does, always leaving the project the last
word (Scrapy applies add-ons after the project's ``settings.py`` and the
spider's ``custom_settings`` are loaded, and before any component is built):

* enables :class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware` in
  ``DOWNLOADER_MIDDLEWARES`` at :data:`MIDDLEWARE_ORDER`, and
  :class:`~webclean_scrapy.pipelines.WebcleanPipeline` and
  :class:`~webclean_scrapy.pipelines.MinTextFilterPipeline` and
  :class:`~webclean_scrapy.pipelines.LanguageFilterPipeline` (off while
  ``WEBCLEAN_LANGUAGES`` is empty) in ``ITEM_PIPELINES`` at :data:`PIPELINE_ORDERS`, unless the project already
  lists them (with its own order, or ``None`` to keep one off);
* enables, the same way, :class:`~webclean_scrapy.downloadermiddlewares.guard.AddressGuardMiddleware`
  at :data:`~webclean_scrapy.downloadermiddlewares.guard.GUARD_ORDER` (no requests to private
  addresses unless ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES``; docs/SECURITY.md),
  :class:`~webclean_scrapy.downloadermiddlewares.compression.CompressedBodyCheckMiddleware` at
  :data:`COMPRESSION_CHECK_ORDER` (flags cut gzip bodies ``truncated``),
  :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware` at :data:`CHARSET_ORDER` (a
  response's text is read in the charset its extraction reads it in) and
  :class:`~webclean_scrapy.downloadermiddlewares.warc.WarcRecorder` at :data:`WARC_ORDER` (off until
  ``WEBCLEAN_WARC`` names a file);
* replaces Scrapy's ``RobotsTxtMiddleware`` with
  :class:`webclean_scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware` (Scrapy 2.19's lets
  requests through while robots.txt is still downloading), unless the
  project already lists either;
* sets ``REQUEST_FINGERPRINTER_CLASS`` to
  :class:`~webclean_scrapy.fingerprint.TrackingParamsFingerprinter` at ``"addon"``
  priority, unless the project, a spider or an earlier add-on chose one (an
  add-on placed after this one, such as scrapy-zyte-api's, may wrap it as its
  fallback);
* with ``WEBCLEAN_CONTACT`` set, names the project and that contact in the
  User-Agent (:func:`user_agent`), unless ``USER_AGENT`` was chosen: it
  replaces Scrapy's default and webclean's own contact-less one only;
* lists :class:`~webclean_scrapy.pipelines.item_class.ItemClassPipeline` in ``ITEM_PIPELINES`` at
  :data:`~webclean_scrapy.pipelines.item_class.ITEM_CLASS_ORDER`, after the filters (off unless
  ``WEBCLEAN_ITEM_CLASS`` is set: items then leave as that class, ``zyte_common_items.Article``...);
* with scrapy-poet installed, lists :class:`~webclean_scrapy.contrib.poet.WebcleanProvider` in
  ``SCRAPY_POET_PROVIDERS`` (the page objects of :mod:`webclean_scrapy.contrib.poet`) and has
  scrapy-poet's fingerprinter wrap webclean's (:meth:`Addon._register_poet`); scrapy-poet runs
  when the project also lists ``scrapy_poet.Addon``;
* with ``WEBCLEAN_ITEM_CLASS`` set, unpins a ``FEED_EXPORT_FIELDS`` that lists the ``CleanedPage``
  fields (``PROJECT_SETTINGS``'), so the export writes the chosen class's fields;
* enables the extension :class:`~webclean_scrapy.extensions.shutdown.ForcedShutdownExitCode` (a forced
  shutdown, the second Ctrl-C, makes ``scrapy crawl`` exit 1 instead of 0);
* writes every ``WEBCLEAN_*`` default (:data:`webclean_scrapy.settings.DEFAULTS`)
  at ``"addon"`` priority, so ``crawler.settings`` holds the values in force,
  and any project, spider or ``-s`` value overrides them.

The manual wiring (the same three components in the project's settings) keeps
working without the add-on: the components fall back to the same defaults.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.settings import SETTINGS_PRIORITIES

from webclean_scrapy._version import __version__
from webclean_scrapy.downloadermiddlewares.charset import CharsetMiddleware
from webclean_scrapy.downloadermiddlewares.compression import CompressedBodyCheckMiddleware
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware
from webclean_scrapy.downloadermiddlewares.guard import GUARD_ORDER, AddressGuardMiddleware
from webclean_scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from webclean_scrapy.downloadermiddlewares.warc import WarcRecorder
from webclean_scrapy.extensions.shutdown import ForcedShutdownExitCode
from webclean_scrapy.fingerprint import TrackingParamsFingerprinter
from webclean_scrapy.items import FIELD_ORDER
from webclean_scrapy.pipelines import LanguageFilterPipeline, MinTextFilterPipeline, WebcleanPipeline
from webclean_scrapy.pipelines.item_class import ITEM_CLASS_ORDER, ItemClassPipeline
from webclean_scrapy.settings import WebcleanSettings, default_settings

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Order of the downloader middleware: ``process_response`` runs from high
#: numbers to low, so 540 sees the final page, after redirects (600),
#: decompression (590), meta refresh (580) and retries (550).
MIDDLEWARE_ORDER = 540

#: Before decompression (590): the check must see the compressed stream.
COMPRESSION_CHECK_ORDER = 595
#: After decompression (590), before meta refresh (580) reads the text.
CHARSET_ORDER = 585
#: Before the HTTP cache (900) and decompression: the bytes as received.
WARC_ORDER = 950
#: Where Scrapy's own RobotsTxtMiddleware sits.
ROBOTS_ORDER = 100

#: Downloader middlewares the add-on enables, with their orders.
DOWNLOADER_MIDDLEWARE_ORDERS: dict[type, int] = {
    WebcleanMiddleware: MIDDLEWARE_ORDER,
    AddressGuardMiddleware: GUARD_ORDER,
    CompressedBodyCheckMiddleware: COMPRESSION_CHECK_ORDER,
    CharsetMiddleware: CHARSET_ORDER,
    WarcRecorder: WARC_ORDER,
}

#: Orders of the item pipelines: extraction first, then the length filter, then the
#: language filter (left out while ``WEBCLEAN_LANGUAGES`` is empty), then the
#: conversion to ``WEBCLEAN_ITEM_CLASS`` (left out without it).
#: ``NearDuplicatePipeline`` is not here: it drops items, so a project opts in to it.
PIPELINE_ORDERS: dict[type, int] = {
    WebcleanPipeline: 300,
    MinTextFilterPipeline: 400,
    LanguageFilterPipeline: 410,
    ItemClassPipeline: ITEM_CLASS_ORDER,
}

_ADDON_PRIORITY = SETTINGS_PRIORITIES["addon"]

#: The User-Agent of webclean's own project and spiders (``PROJECT_SETTINGS``)
#: until ``WEBCLEAN_CONTACT`` adds a contact.
DEFAULT_USER_AGENT = f"webclean-scrapy/{__version__}"


def user_agent(contact: str | None = None) -> str:
    """``webclean-scrapy/0.1.0 (+CONTACT)``: the project, and how site owners
    reach whoever runs the crawl (robots.txt etiquette); the bare product
    token without a contact."""
    return f"{DEFAULT_USER_AGENT} (+{contact})" if contact else DEFAULT_USER_AGENT


def _is_poet_fingerprinter(value: Any) -> bool:
    """Whether *value* (a class or its path) is scrapy-poet's fingerprinter, which must not wrap itself."""
    name = (
        value if isinstance(value, str) else f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
    )
    return name.startswith("scrapy_poet.")


class Addon:
    """Enable webclean-scrapy's components and defaults in a Scrapy project.

    ``ADDONS = {"webclean_scrapy.Addon": 0}`` in ``settings.py``; see the module
    docstring for what it sets and why project settings still win.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        for middleware, order in DOWNLOADER_MIDDLEWARE_ORDERS.items():
            settings.setdefault_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", middleware, order)
        self._replace_robots_middleware(settings)
        settings.setdefault_in_component_priority_dict("EXTENSIONS", ForcedShutdownExitCode, 0)
        for pipeline, order in PIPELINE_ORDERS.items():
            settings.setdefault_in_component_priority_dict("ITEM_PIPELINES", pipeline, order)
        # Scrapy's default fingerprinter is set at "default" priority; anything
        # higher was a deliberate choice (a project, a spider, another add-on).
        if (settings.getpriority("REQUEST_FINGERPRINTER_CLASS") or 0) < _ADDON_PRIORITY:
            settings.set("REQUEST_FINGERPRINTER_CLASS", TrackingParamsFingerprinter, "addon")
        self._set_user_agent(settings)
        self._register_poet(settings)
        self._unpin_export_fields(settings)
        for name, value in default_settings().items():
            settings.set(name, value, "addon")

    @staticmethod
    def _set_user_agent(settings: BaseSettings) -> None:
        """``USER_AGENT`` = :func:`user_agent` of ``WEBCLEAN_CONTACT``, when one is set
        and the User-Agent in force is Scrapy's default or :data:`DEFAULT_USER_AGENT`."""
        contact = WebcleanSettings.from_settings(settings).contact
        if not contact:
            return
        priority = settings.getpriority("USER_AGENT") or 0
        if priority <= SETTINGS_PRIORITIES["default"] or settings.get("USER_AGENT") == DEFAULT_USER_AGENT:
            settings.set("USER_AGENT", user_agent(contact), max(priority, _ADDON_PRIORITY))

    @staticmethod
    def _unpin_export_fields(settings: BaseSettings) -> None:
        """With ``WEBCLEAN_ITEM_CLASS`` set, drop a ``FEED_EXPORT_FIELDS`` that pins the
        :class:`~webclean_scrapy.items.CleanedPage` fields (``PROJECT_SETTINGS`` does): an
        ``Article`` has none of them but ``url``, and the export would be empty. The
        exporters then write each item's own fields, in its class's order."""
        if WebcleanSettings.from_settings(settings).item_class is None:
            return
        fields = settings.get("FEED_EXPORT_FIELDS")
        if fields is not None and list(fields) == list(FIELD_ORDER):
            settings.set("FEED_EXPORT_FIELDS", None, settings.getpriority("FEED_EXPORT_FIELDS") or "addon")

    @staticmethod
    def _register_poet(settings: BaseSettings) -> None:
        """With scrapy-poet installed: list :class:`~webclean_scrapy.contrib.poet.WebcleanProvider`
        in ``SCRAPY_POET_PROVIDERS`` (what :class:`~webclean_scrapy.contrib.poet.CleanedWebPage`
        needs), and make webclean's fingerprinter the one scrapy-poet's wraps.

        Only settings: scrapy-poet itself runs when the project lists ``scrapy_poet.Addon`` in
        ``ADDONS`` (an add-on cannot enable another one). Its fingerprinter replaces
        ``REQUEST_FINGERPRINTER_CLASS`` and delegates to
        ``SCRAPY_POET_REQUEST_FINGERPRINTER_BASE_CLASS``, set here to the fingerprinter
        in force (:class:`~webclean_scrapy.fingerprint.TrackingParamsFingerprinter`
        unless the project chose another) unless the project set it.
        """
        if importlib.util.find_spec("scrapy_poet") is None:
            return
        from webclean_scrapy.contrib.poet import PROVIDER_ORDER, WebcleanProvider

        settings.setdefault_in_component_priority_dict("SCRAPY_POET_PROVIDERS", WebcleanProvider, PROVIDER_ORDER)
        if settings.get("SCRAPY_POET_REQUEST_FINGERPRINTER_BASE_CLASS") is None:
            base = settings.get("REQUEST_FINGERPRINTER_CLASS")
            if _is_poet_fingerprinter(base):  # scrapy-poet's add-on ran first
                base = TrackingParamsFingerprinter
            settings.set("SCRAPY_POET_REQUEST_FINGERPRINTER_BASE_CLASS", base, "addon")

    @staticmethod
    def _replace_robots_middleware(settings: BaseSettings) -> None:
        """Swap Scrapy's robots.txt middleware for ours, unless the project listed either."""
        listed = settings.getdict("DOWNLOADER_MIDDLEWARES")
        names = {f"{cls.__module__}.{cls.__qualname__}" for cls in (ScrapyRobotsTxtMiddleware, RobotsTxtMiddleware)}
        if any(key in (ScrapyRobotsTxtMiddleware, RobotsTxtMiddleware) or key in names for key in listed):
            return
        settings.setdefault_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", ScrapyRobotsTxtMiddleware, None)
        settings.setdefault_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, ROBOTS_ORDER)
