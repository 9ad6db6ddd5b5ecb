"""Make docs/EXPLAIN.md's pictures from the demo site (run from the repository root).

    python docs/explain_screenshots.py

Serves the bundled demo site on 127.0.0.1 (as ``webclean demo`` does), fetches
one article over HTTP, writes its ``webclean explain`` report and photographs
it in headless Chromium (tests/_chromium.py), then writes ``webclean plot``'s
ttr figure. The PNGs are reduced to a small palette to stay light.
"""

from __future__ import annotations

import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from PIL import Image  # noqa: E402  (matplotlib's dependency)

from _chromium import Chromium  # noqa: E402
from webclean_scrapy.demo import site_dir  # noqa: E402
from webclean_scrapy.demo.server import LocalSite  # noqa: E402
from webclean_scrapy.explain import explain  # noqa: E402

ARTICLE = "/2025/03/08/river-lark-water-quality-report/"


def shrink(path: Path, colours: int = 64) -> None:
    image = Image.open(path).convert("RGB")
    image.quantize(colours, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main() -> None:
    site = LocalSite()
    site.add_directory(site_dir())
    with site:
        url = site.url(ARTICLE)
        html = urllib.request.urlopen(url, timeout=30).read()
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as work:
        for name in ("webclean", "ttr"):
            report = Path(work) / f"{name}.html"
            report.write_text(explain(html, url=url, extractor=name).html(), encoding="utf-8")
            with Chromium(width=1100, height=1500) as browser:
                browser.open(report)
                assert browser.problems() == [], browser.problems()
                if name == "webclean":
                    browser.screenshot(out / "explain-report.png")
                    # The blocks around the kept ones.
                    top = browser.evaluate(
                        "document.querySelector('li.unit.kept').getBoundingClientRect().top + window.scrollY - 240"
                    )
                    browser.call("Page.captureScreenshot", in_target=True)  # settle
                    browser.evaluate(f"window.scrollTo(0, {int(top)})")
                    browser.screenshot(out / "explain-blocks.png")
                else:
                    browser.screenshot(out / "explain-ttr.png")
    for name in ("explain-report.png", "explain-blocks.png", "explain-ttr.png"):
        shrink(out / name)
        print(out / name, (out / name).stat().st_size // 1024, "KB")


if __name__ == "__main__":
    main()
