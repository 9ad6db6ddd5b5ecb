"""The User-Agent names the project and the contact the user sets (``WEBCLEAN_CONTACT``); the
fields the items carry (``WEBCLEAN_FIELDS``) are checked at start-up."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from webclean_scrapy import __version__
from webclean_scrapy.engine.fields import METADATA_FIELDS
from webclean_scrapy.settings import WebcleanSettings
from webclean_scrapy.spiders import PROJECT_SETTINGS, USER_AGENT

SCRAPY_DEFAULT_UA = get_crawler().settings["USER_AGENT"]


def crawler_ua(settings: dict) -> str:
    return get_crawler(settings_dict={"ADDONS": {"webclean_scrapy.Addon": 0}, **settings}).settings["USER_AGENT"]


def test_project_user_agent_names_the_project_and_no_invented_address():
    assert USER_AGENT == PROJECT_SETTINGS["USER_AGENT"] == f"webclean-scrapy/{__version__}"
    assert crawler_ua(PROJECT_SETTINGS) == f"webclean-scrapy/{__version__}"


def test_contact_goes_into_the_project_user_agent():
    settings = {**PROJECT_SETTINGS, "WEBCLEAN_CONTACT": "https://crawler.example/about"}
    assert crawler_ua(settings) == f"webclean-scrapy/{__version__} (+https://crawler.example/about)"


def test_contact_replaces_scrapys_default_user_agent():
    assert SCRAPY_DEFAULT_UA.startswith("Scrapy/")
    assert (
        crawler_ua({"WEBCLEAN_CONTACT": "mailto:ops@crawler.example"})
        == f"webclean-scrapy/{__version__} (+mailto:ops@crawler.example)"
    )
    assert crawler_ua({}) == SCRAPY_DEFAULT_UA  # no contact: a project's crawl keeps Scrapy's


def test_a_user_agent_of_the_users_own_is_left_alone():
    assert (
        crawler_ua({"USER_AGENT": "mybot/2 (+https://me.example)", "WEBCLEAN_CONTACT": "https://crawler.example/about"})
        == "mybot/2 (+https://me.example)"
    )


@pytest.mark.parametrize("contact", ["two words", "x (y)", 'say "hi"', " "])
def test_a_contact_that_would_break_the_header_fails_at_start_up(contact):
    with pytest.raises(ValueError, match="WEBCLEAN_CONTACT"):
        WebcleanSettings(contact=contact, enabled=False)


# -- WEBCLEAN_FIELDS: the optional fields the items carry -----------------------------
def test_fields_are_read_expanded_and_checked_at_start_up():
    def read(**values: object) -> WebcleanSettings:
        return WebcleanSettings.from_settings(Settings(values))

    assert read().fields is None and read().wanted_fields is None  # the complete extraction
    # In the fields' own order, a group expanded, core names dropped (always there), from a command line's text.
    assert read(WEBCLEAN_FIELDS="detected_language,date,text").fields == ("date", "detected_language")
    assert read(WEBCLEAN_FIELDS=["metadata"]).fields == METADATA_FIELDS
    assert read(WEBCLEAN_FIELDS=[]).fields == ()
    both = read(WEBCLEAN_FIELDS=["title"], WEBCLEAN_FORMATS=["markdown"])
    assert both.wanted_fields == frozenset({"title", "markdown"})  # what the extraction is asked for
    with pytest.raises(ValueError, match=r"WEBCLEAN_FIELDS: unknown field\(s\) 'autor'"):
        read(WEBCLEAN_FIELDS=["autor"])
    with pytest.raises(ValueError, match="WEBCLEAN_FIELDS: markdown are asked for with WEBCLEAN_FORMATS"):
        read(WEBCLEAN_FIELDS=["title", "markdown"])
    # The language filter reads detected_language: a crawl that filters must compute it.
    with pytest.raises(ValueError, match="WEBCLEAN_LANGUAGES filters on detected_language"):
        read(WEBCLEAN_FIELDS=["title"], WEBCLEAN_LANGUAGES=["en"])
    assert read(WEBCLEAN_FIELDS=["detected_language"], WEBCLEAN_LANGUAGES=["en"]).languages == ["en"]
