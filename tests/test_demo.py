"""``webclean demo``: the bundled site, crawled offline end to end, and its summary."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from _crawl import webclean_command
from webclean_scrapy.demo import load_gold, site_dir, summarise
from webclean_scrapy.demo.server import LocalSite

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "tmp" / "demo.jsonl"
    proc = subprocess.run(
        [*webclean_command(), "demo", "-o", str(out)],
        cwd=tmp_path_factory.getbasetemp(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return proc.stdout, items


def test_demo_items_are_the_articles(demo_run):
    _, items = demo_run
    gold = load_gold()
    assert sorted(urlsplit(item["url"]).path for item in items) == sorted(gold)
    for item in items:
        path = urlsplit(item["url"]).path
        first_paragraph = gold[path].splitlines()[2]
        assert first_paragraph in item["text"], path
        assert "<p>" not in item["text"] and "cookie-banner" not in item["text"]
        assert item["canonical_url"].startswith("http://127.0.0.1:")
        assert item["text_chars"] < item["html_bytes"]


def test_demo_summary(demo_run):
    stdout, items = demo_run
    assert "items:          8 (gold articles: 8)" in stdout
    saving = float(re.search(r"space saving:\s+([\d.]+)%", stdout).group(1))
    f1 = float(re.search(r"shingle F1:\s+([\d.]+)", stdout).group(1))
    html = sum(i["html_bytes"] for i in items)
    text = sum(len(i["text"].encode()) for i in items)
    assert saving == pytest.approx(100 * (1 - text / html), abs=0.05)
    assert 0.7 < f1 <= 1.0
    # The crawl met every kind of page the site has.
    for stat in ("hubs=7", "items=8", "errors/http_404=1", "feeds=1", "sitemaps=3", "duplicates=1"):
        assert stat in stdout


def test_summarise_scores_missing_articles_as_zero_recall():
    gold = {"/a/": "one two three four five six", "/b/": "seven eight nine ten eleven twelve"}
    items = [{"url": "http://h/a/", "text": "one two three four five six", "html_bytes": 100}]
    summary = summarise(items, gold, {})
    assert summary.missing == ["/b/"]
    assert summary.precision == 1.0 and summary.recall == 0.5
    assert summary.space_saving == pytest.approx(1 - 27 / 100)


def test_demo_site_is_served_with_absolute_urls():
    site = LocalSite()
    site.add_directory(site_dir())
    assert site.routes["/"].body == site.routes["/index.html"].body
    assert b"{{BASE}}" not in site.routes["/sitemap_index.xml"].body
    assert site.routes["/files/annual-report-2024.pdf"].content_type == "application/pdf"
    assert site.routes["/files/annual-report-2024.pdf"].body.startswith(b"%PDF-1.4")
    site.stop()


def test_python_m_demo_help():
    proc = subprocess.run(
        [sys.executable, "-m", "webclean_scrapy.demo", "--help"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=True,
    )
    assert "--output" in proc.stdout


def test_demo_pages_classify_as_intended():
    """The rule set on the demo's realistic pages, with the gold text standing in for the extraction."""
    from parsel import Selector

    from webclean_scrapy.engine.page_type.articles import PageSignals, classify

    root = site_dir()
    gold = load_gold()
    for path, text in gold.items():
        html = (root / path.strip("/") / "index.html").read_text(encoding="utf-8")
        verdict = classify(PageSignals.from_selector(Selector(text=html), "http://h" + path, text))
        assert verdict.is_article, (path, verdict)
    for path in ("/", "/town/", "/town/page/2/", "/science/", "/tag/transport/", "/about/", "/privacy/"):
        html = (root / path.strip("/") / "index.html").read_text(encoding="utf-8")
        teasers = " ".join(Selector(text=html).css("main ::text").getall())  # generous: all of <main>
        verdict = classify(PageSignals.from_selector(Selector(text=html), "http://h" + path, teasers))
        assert not verdict.is_article, (path, verdict)


def demo_site_furniture() -> set[str]:
    """The demo site's advert lines (the label and each advert's text) and
    share bars, read from its pages as a browser shows them."""
    from lxml import html as lxml_html

    lines: set[str] = set()
    for page in site_dir().rglob("*.html"):
        root = lxml_html.fromstring(page.read_bytes())
        for box in root.xpath('//*[contains(concat(" ", @class, " "), " advert ")]'):
            lines.update(" ".join(t.split()) for t in box.xpath(".//text()") if t.strip())
        for bar in root.xpath('//*[contains(concat(" ", @class, " "), " share ")]'):
            lines.add(" ".join(bar.text_content().split()))
    return lines


def test_demo_items_are_free_of_adverts_and_share_bars(demo_run):
    _, items = demo_run
    furniture = demo_site_furniture()
    assert "Advertisement" in furniture and "Share: Post Email" in furniture
    assert any(line.startswith("Spring service offer") for line in furniture)
    for item in items:
        kept = set(item["text"].splitlines())
        assert not kept & furniture, (item["url"], sorted(kept & furniture))
        assert item["title"] not in kept, item["url"]
