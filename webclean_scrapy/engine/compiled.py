"""The compiled accelerators, named once: the build compiles each ``.pyx`` it finds, this lists what should load.

Every compiled module has a pure-Python reference beside it with the same output, so a machine
without a C compiler still works, only several times slower; :func:`compiled_modules` tells which
loaded, for the crawl's start-up line.
"""

from __future__ import annotations

import importlib

#: Short name -> module, one line per compiled module (tests/test_engine_compiled.py checks that
#: every ``.pyx`` of the package is listed here and nothing else).
COMPILED_MODULES: dict[str, str] = {
    "walk": "webclean_scrapy.engine.html._walk",
    "screen": "webclean_scrapy.engine.html._screen",
    "langid": "webclean_scrapy.engine.text._langid",
    "charset": "webclean_scrapy.engine.text._charset",
    "trees": "webclean_scrapy.engine._trees",
    "signals": "webclean_scrapy.engine._signals",
    "features": "webclean_scrapy.engine._features",
    "continuity": "webclean_scrapy.engine.extractors.webclean._continuity",
    "convention": "webclean_scrapy.engine.extractors.webclean._convention",
}


def compiled_modules() -> dict[str, bool]:
    """Each compiled module's short name, and whether it loaded (``False``: its Python reference runs)."""
    loaded = {}
    for name, module in COMPILED_MODULES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            loaded[name] = False
        else:
            loaded[name] = True
    return loaded
