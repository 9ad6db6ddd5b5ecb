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


#: Run in a fresh interpreter, as a user's process imports the package: every name a module
#: imports at module level from a compiled module inside ``try`` (the fallback being the Python reference)
#: must be bound to the compiled object. An import circle makes such an import fail silently.
_CHECK_BINDINGS = r"""
import ast, importlib, json, pathlib, sys
import webclean_scrapy
from webclean_scrapy.engine.compiled import COMPILED_MODULES
compiled = set(COMPILED_MODULES.values())
root = pathlib.Path(webclean_scrapy.__file__).parent
found, wrong = 0, []
for path in sorted(root.rglob("*.py")):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:  # module level: a function's own import is checked where it runs
        if not isinstance(node, ast.Try):
            continue
        for stmt in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(stmt, ast.Import):
                pairs = [(alias.name, alias.asname or alias.name, True) for alias in stmt.names]
            elif isinstance(stmt, ast.ImportFrom) and stmt.module:
                pairs = [(f"{stmt.module}.{alias.name}", alias.asname or alias.name, False) for alias in stmt.names]
                pairs = [(full if full in compiled else stmt.module, bound, full in compiled) for full, bound, _ in pairs]
            else:
                continue
            for source, bound_name, is_module in pairs:
                if source not in compiled:
                    continue
                name = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
                bound = getattr(importlib.import_module(name), bound_name, None)
                origin = getattr(bound, "__name__" if is_module else "__module__", None)
                found += 1
                if origin != source:
                    wrong.append(f"{name}: {bound_name} is {bound!r}, not from {source}")
print(json.dumps({"found": found, "wrong": wrong}))
"""


def test_every_fallback_site_runs_the_compiled_module():
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _CHECK_BINDINGS], capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(out.stdout)
    assert result["wrong"] == []
    assert result["found"] >= len(COMPILED_MODULES)
