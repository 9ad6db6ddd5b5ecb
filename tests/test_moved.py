"""The flat layout's import paths: still importable for one release, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from webclean_scrapy._moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_warns_and_serves_the_new_objects(old):
    name = f"webclean_scrapy.{old}"
    sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match=rf"{name} is deprecated"):
        module = importlib.import_module(name)
    new = importlib.import_module(f"webclean_scrapy.{MOVED[old][0]}")
    public = [attribute for attribute in dir(new) if not attribute.startswith("_")]
    assert public, new
    for attribute in public:
        assert getattr(module, attribute) is getattr(new, attribute)


def test_settings_naming_old_classes_still_load():
    from scrapy.utils.misc import load_object

    from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware
    from webclean_scrapy.warcfiles import iter_html_records

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert load_object("webclean_scrapy.middleware.WebcleanMiddleware") is WebcleanMiddleware
        # A module split in two serves the names of both.
        assert load_object("webclean_scrapy.warc.iter_html_records") is iter_html_records
        with pytest.raises(NameError, match="'Nothing'"):
            load_object("webclean_scrapy.middleware.Nothing")


def test_new_paths_do_not_warn():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning); import webclean_scrapy; "
        "import webclean_scrapy.engine.document, webclean_scrapy.downloadermiddlewares.extraction, "
        "webclean_scrapy.pipelines, webclean_scrapy.spiders, webclean_scrapy.cli"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_an_unknown_module_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("webclean_scrapy.no_such_module")
