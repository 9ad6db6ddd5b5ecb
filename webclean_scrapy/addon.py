"""The Scrapy add-on: ``ADDONS = {"webclean_scrapy.Addon": 0}`` enables webclean-scrapy.

What :meth:`Addon.update_settings` does, always leaving the project the last
word (Scrapy applies add-ons after the project's ``settings.py`` and the
spider's ``custom_settings`` are loaded, and before any component is built):

* enables :class:`~webclean_scrapy.middleware.WebcleanMiddleware` in
  ``DOWNLOADER_MIDDLEWARES`` at :data:`MIDDLEWARE_ORDER`, and
  :class:`~webclean_scrapy.pipelines.WebcleanPipeline` and
  :class:`~webclean_scrapy.pipelines.MinTextFilterPipeline` in
  ``ITEM_PIPELINES`` at :data:`PIPELINE_ORDERS`, unless the project already
  lists them (with its own order, or ``None`` to keep one off);
* sets ``REQUEST_FINGERPRINTER_CLASS`` to
  :class:`~webclean_scrapy.urls.TrackingParamsFingerprinter` at ``"addon"``
  priority, unless the project, a spider or an earlier add-on chose one (an
  add-on placed after this one, such as scrapy-zyte-api's, may wrap it as its
  fallback);
* writes every ``WEBCLEAN_*`` default (:data:`webclean_scrapy.settings.DEFAULTS`)
  at ``"addon"`` priority, so ``crawler.settings`` holds the values in force,
  and any project, spider or ``-s`` value overrides them.

The manual wiring (the same three components in the project's settings) keeps
working without the add-on: the components fall back to the same defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.settings import SETTINGS_PRIORITIES

from .middleware import WebcleanMiddleware
from .pipelines import MinTextFilterPipeline, WebcleanPipeline
from .settings import default_settings
from .urls import TrackingParamsFingerprinter

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Order of the downloader middleware: ``process_response`` runs from high
#: numbers to low, so 540 sees the final page, after redirects (600),
#: decompression (590), meta refresh (580) and retries (550).
MIDDLEWARE_ORDER = 540

#: Orders of the item pipelines: extraction first, then the length filter.
PIPELINE_ORDERS: dict[type, int] = {WebcleanPipeline: 300, MinTextFilterPipeline: 400}

_ADDON_PRIORITY = SETTINGS_PRIORITIES["addon"]


class Addon:
    """Enable webclean-scrapy's components and defaults in a Scrapy project.

    ``ADDONS = {"webclean_scrapy.Addon": 0}`` in ``settings.py``; see the module
    docstring for what it sets and why project settings still win.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", WebcleanMiddleware, MIDDLEWARE_ORDER)
        for pipeline, order in PIPELINE_ORDERS.items():
            settings.setdefault_in_component_priority_dict("ITEM_PIPELINES", pipeline, order)
        # Scrapy's default fingerprinter is set at "default" priority; anything
        # higher was a deliberate choice (a project, a spider, another add-on).
        if (settings.getpriority("REQUEST_FINGERPRINTER_CLASS") or 0) < _ADDON_PRIORITY:
            settings.set("REQUEST_FINGERPRINTER_CLASS", TrackingParamsFingerprinter, "addon")
        for name, value in default_settings().items():
            settings.set(name, value, "addon")
