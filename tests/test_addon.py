"""The Scrapy add-on (``ADDONS = {"webclean_scrapy.Addon": 0}``) and the one table of defaults.

In-process: ``scrapy.utils.test.get_crawler`` loads the add-ons and builds the
crawler's settings exactly as ``scrapy crawl`` does; the component managers
are then built from those settings. Real crawls through the add-on are in
``test_outside_project.py``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from scrapy.core.downloader.middleware import DownloaderMiddlewareManager
from scrapy.pipelines import ItemPipelineManager
from scrapy.settings import SETTINGS_PRIORITIES, Settings
from scrapy.utils.request import RequestFingerprinter
from scrapy.utils.test import get_crawler

import webclean_scrapy
from webclean_scrapy.addon import MIDDLEWARE_ORDER, Addon
from webclean_scrapy.downloadermiddlewares.charset import CharsetMiddleware
from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware
from webclean_scrapy.extensions.shutdown import ForcedShutdownExitCode
from webclean_scrapy.fingerprint import TrackingParamsFingerprinter
from webclean_scrapy.pipelines import MinTextFilterPipeline, WebcleanPipeline
from webclean_scrapy.settings import DEFAULTS, WebcleanSettings, default_workers, setting_name
from webclean_scrapy.spiders import PROJECT_SETTINGS, HarvestSpider, NewsSpider

README = Path(__file__).resolve().parent.parent / "README.md"
ADDON = {"ADDONS": {"webclean_scrapy.Addon": 0}}
#: No worker pool in these in-process checks.
INLINE = {"WEBCLEAN_OFFLOAD": "none"}


def middlewares(crawler) -> list[object]:
    return list(DownloaderMiddlewareManager.from_crawler(crawler).middlewares)


def pipelines(crawler) -> list[object]:
    return list(ItemPipelineManager.from_crawler(crawler).middlewares)


def of_type(components: list[object], cls: type) -> list[object]:
    return [c for c in components if isinstance(c, cls)]


def test_package_exports_the_addon():
    assert webclean_scrapy.Addon is Addon
    assert "Addon" in webclean_scrapy.__all__


def test_addon_enables_every_component_and_default():
    crawler = get_crawler(settings_dict={**ADDON, **INLINE})
    assert [type(a) for a in crawler.addons.addons] == [Addon]

    assert len(of_type(middlewares(crawler), WebcleanMiddleware)) == 1
    assert crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES")[WebcleanMiddleware] == MIDDLEWARE_ORDER
    # Responses pass from the end of this list to its start: the charset is set
    # after decompression and before meta refresh and the extraction read the text.
    chain = [type(m).__name__ for m in middlewares(crawler)]
    assert (
        chain.index("WebcleanMiddleware")
        < chain.index("MetaRefreshMiddleware")
        < chain.index(CharsetMiddleware.__name__)
        < chain.index("HttpCompressionMiddleware")
    )
    names = [type(p) for p in pipelines(crawler)]
    assert names.index(WebcleanPipeline) < names.index(MinTextFilterPipeline)  # extract, then filter
    assert isinstance(crawler.request_fingerprinter, TrackingParamsFingerprinter)
    assert ForcedShutdownExitCode in crawler.settings.getwithbase("EXTENSIONS")

    addon = SETTINGS_PRIORITIES["addon"]
    for name, value in DEFAULTS.items():
        if name == "WEBCLEAN_OFFLOAD":
            continue  # set by this test's project settings
        assert crawler.settings.getpriority(name) == addon, name
        assert crawler.settings[name] == value, name
    assert crawler.settings.getpriority("WEBCLEAN_OFFLOAD") == SETTINGS_PRIORITIES["project"]


def test_without_the_addon_nothing_is_enabled():
    crawler = get_crawler(settings_dict=INLINE)
    assert not of_type(middlewares(crawler), WebcleanMiddleware)
    assert not of_type(pipelines(crawler), (WebcleanPipeline, MinTextFilterPipeline))
    assert type(crawler.request_fingerprinter) is RequestFingerprinter
    assert "WEBCLEAN_MIN_TEXT_CHARS" not in crawler.settings  # components fall back to the same defaults


def test_project_settings_win_over_the_addon():
    crawler = get_crawler(
        settings_dict={
            **ADDON,
            **INLINE,
            "WEBCLEAN_MIN_TEXT_CHARS": 7,
            "WEBCLEAN_EXTRACTOR": "baseline",
            "REQUEST_FINGERPRINTER_CLASS": "scrapy.utils.request.RequestFingerprinter",
            "DOWNLOADER_MIDDLEWARES": {"webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware": 777},
            "ITEM_PIPELINES": {"webclean_scrapy.pipelines.MinTextFilterPipeline": None},
        }
    )
    (middleware,) = of_type(middlewares(crawler), WebcleanMiddleware)
    assert middleware.settings.extractor == "baseline"
    assert (
        crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES")[
            "webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware"
        ]
        == 777
    )
    assert WebcleanMiddleware not in crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES")  # not added twice
    enabled = pipelines(crawler)
    assert of_type(enabled, WebcleanPipeline) and not of_type(enabled, MinTextFilterPipeline)
    assert type(crawler.request_fingerprinter) is RequestFingerprinter
    assert WebcleanSettings.from_crawler(crawler).min_text_chars == 7


class OtherFingerprintAddon:
    """Stands for an add-on with its own fingerprinter (scrapy-zyte-api's, say)."""

    def update_settings(self, settings):
        settings.set("REQUEST_FINGERPRINTER_CLASS", "scrapy.utils.request.RequestFingerprinter", "addon")


def test_an_earlier_addons_fingerprinter_is_kept():
    crawler = get_crawler(settings_dict={"ADDONS": {OtherFingerprintAddon: 0, Addon: 10}, **INLINE})
    assert type(crawler.request_fingerprinter) is RequestFingerprinter
    assert of_type(middlewares(crawler), WebcleanMiddleware)


@pytest.mark.parametrize("spidercls", [NewsSpider, HarvestSpider])
def test_spiders_bring_the_addon_unless_the_project_turned_it_off(spidercls):
    crawler = get_crawler(spidercls, settings_dict=INLINE)
    assert [type(a) for a in crawler.addons.addons] == [Addon]
    assert isinstance(crawler.request_fingerprinter, TrackingParamsFingerprinter)

    crawler = get_crawler(spidercls, settings_dict={"ADDONS": {"webclean_scrapy.Addon": None}, **INLINE})
    assert crawler.addons.addons == []
    assert not of_type(middlewares(crawler), WebcleanMiddleware)

    crawler = get_crawler(spidercls, settings_dict={**ADDON, **INLINE})  # listed once, not twice
    assert [type(a) for a in crawler.addons.addons] == [Addon]


def test_project_settings_use_the_addon():
    assert PROJECT_SETTINGS["ADDONS"] == {"webclean_scrapy.Addon": 0}
    for wired_by_the_addon in ("DOWNLOADER_MIDDLEWARES", "ITEM_PIPELINES", "REQUEST_FINGERPRINTER_CLASS"):
        assert wired_by_the_addon not in PROJECT_SETTINGS


# -- the defaults, written once ---------------------------------------------------
def test_defaults_come_from_the_dataclass():
    fields = dataclasses.fields(WebcleanSettings)
    assert list(DEFAULTS) == [setting_name(f.name) for f in fields]
    assert WebcleanSettings.from_settings(Settings()) == WebcleanSettings()
    assert WebcleanSettings.from_settings(Settings(DEFAULTS)) == WebcleanSettings()
    assert WebcleanSettings().workers == default_workers()


def test_settings_are_read_by_field_type():
    read = WebcleanSettings.from_settings(
        Settings(
            {
                "WEBCLEAN_ENABLED": "0",
                "WEBCLEAN_MIN_TEXT_CHARS": "50",
                "WEBCLEAN_WORKERS": "3",
                "WEBCLEAN_EXTRACTOR_OPTIONS": '{"threshold": 0.5}',
                "WEBCLEAN_SEARXNG_URL": "",
                "WEBCLEAN_OFFLOAD": "Thread",
            }
        )
    )
    assert (read.enabled, read.min_text_chars, read.workers) == (False, 50, 3)
    assert read.extractor_options == {"threshold": 0.5}
    assert read.searxng_url is None and read.offload == "thread"
    with pytest.raises(ValueError, match="WEBCLEAN_MIN_TEXT_CHARS"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_MIN_TEXT_CHARS": "many"}))
    with pytest.raises(ValueError, match="WEBCLEAN_KEEP_HTML"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_KEEP_HTML": "perhaps"}))


def test_every_setting_is_in_the_readme_table():
    table = {m.group(1) for m in re.finditer(r"^\| `(WEBCLEAN_[A-Z_]+)` \|", README.read_text(), re.MULTILINE)}
    assert set(DEFAULTS) <= table, set(DEFAULTS) - table
