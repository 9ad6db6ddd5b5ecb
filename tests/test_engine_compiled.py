"""The list of compiled modules (``engine/compiled.py``) against the ``.pyx`` sources the build compiles."""

from __future__ import annotations

from pathlib import Path

import webclean_scrapy
from webclean_scrapy.engine.compiled import COMPILED_MODULES, compiled_modules

PACKAGE = Path(webclean_scrapy.__file__).resolve().parent


def test_every_pyx_is_listed_once():
    sources = {
        ".".join(("webclean_scrapy", *path.relative_to(PACKAGE).with_suffix("").parts))
        for path in PACKAGE.rglob("_*.pyx")
    }
    assert sources and sources == set(COMPILED_MODULES.values())


def test_this_build_loaded_every_compiled_module():
    # The test environment is built with a C compiler (.ci/run installs one).
    assert compiled_modules() == dict.fromkeys(COMPILED_MODULES, True)
