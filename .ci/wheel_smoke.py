"""Smoke check of an installed webclean-scrapy wheel (run by .ci/wheel_check, outside the clone).

Usage: python -P wheel_smoke.py VENV_DIR. Checks that the package is imported
from VENV_DIR (not from a source tree), that the compiled modules, the model
and the demo files are in the wheel, that extraction and the ``webclean``
command work, and runs ``webclean demo``: a real crawl of the packaged demo
site through the add-on, the middleware, the pipelines and worker processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

venv = Path(sys.argv[1]).resolve()

import webclean_scrapy  # noqa: E402
from webclean_scrapy import extract  # noqa: E402

package = Path(webclean_scrapy.__file__).resolve().parent
assert venv in package.parents, f"imported from {package}, not from the wheel in {venv}"
# Compiled: the build machine has a C compiler.
import webclean_scrapy.engine._trees  # noqa: E402,F401
import webclean_scrapy.engine.extractors.webclean._continuity  # noqa: E402,F401
import webclean_scrapy.engine.extractors.webclean._convention  # noqa: E402,F401
import webclean_scrapy.engine.html._walk  # noqa: E402,F401

assert (package / "data" / "webclean_model.json").is_file() and (package / "py.typed").is_file()
assert (package / "demo" / "gold.jsonl").is_file() and any((package / "demo" / "site").rglob("*.html"))
assert not list(package.rglob("*.c")), "generated C sources in the wheel"

page = (
    "<html><head><title>Bridge</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>Old bridge to close for repairs</h1>"
    + "<p>The old bridge over the river will close for three months of repairs, the council said.</p>" * 4
    + "</article><footer>Copyright</footer></body></html>"
)
result = extract(page)
assert "The old bridge over the river" in result.text and "Copyright" not in result.text, result.text

bin_dir = venv / "bin"
Path("page.html").write_text(page, encoding="utf-8")
out = subprocess.run([str(bin_dir / "webclean"), "extract", "page.html"], capture_output=True, text=True, check=True)
record = json.loads(out.stdout)
assert record["text"] == result.text and record["source"] == "page.html", record

demo = subprocess.run(
    [str(bin_dir / "webclean"), "demo", "-o", "demo.jsonl"], capture_output=True, text=True, timeout=900
)
assert demo.returncode == 0, demo.stdout + demo.stderr
items = [json.loads(line) for line in Path("demo.jsonl").read_text(encoding="utf-8").splitlines()]
assert items and all(item["text"] for item in items), "the demo crawl kept no text"
print(f"wheel smoke check: OK ({package}; demo crawl: {len(items)} items)")
