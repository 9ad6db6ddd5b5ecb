"""``webclean explain`` / ``webclean plot``, the extractors' traces, WEBCLEAN_EXPLAIN_DIR,
and the report as a person sees it in headless Chromium."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lxml import html as lxml_html

from _chromium import CHROMIUM, Chromium
from _crawl import webclean_command
from components import BASE, through_middleware
from pages import gazette_article, sample_page
from webclean_scrapy import Document, extract, get_extractor
from webclean_scrapy.demo import site_dir
from webclean_scrapy.downloadermiddlewares.extraction import extraction_of
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.explain import explain
from webclean_scrapy.explain.crawl import ExplainPolicy, report_name

DEMO_BASE = "http://127.0.0.1:8000"
DEMO_ARTICLES = sorted(site_dir().glob("2025/03/*/*/index.html"))

#: Every extractor, and the ttr clusterings (each records its own values).
METHODS = [
    ("webclean", {}),
    ("density", {}),
    ("density", {"unit": "strings"}),
    ("punctuation", {}),
    ("baseline", {}),
    ("ttr", {}),
    ("ttr", {"clustering": "kmeans"}),
    ("ttr", {"clustering": "em"}),
    ("ttr", {"clustering": "farthest_first"}),
    ("ttr", {"clustering": "prediction"}),
    ("ttr", {"lines": "structural"}),
    ("webclean", {"comments": True}),
    ("webclean", {"threshold": 0.9}),
]

COMMENTED_ARTICLE = sample_page("explain-commented-article.html")


def demo_page(path: Path) -> tuple[bytes, str]:
    """A demo article as the demo server serves it, and its URL."""
    relative = path.parent.relative_to(site_dir()).as_posix()
    return path.read_bytes().replace(b"{{BASE}}", DEMO_BASE.encode()), f"{DEMO_BASE}/{relative}/"


PAGES = [demo_page(path) for path in DEMO_ARTICLES[:3]] + [
    (COMMENTED_ARTICLE.encode(), "https://gazette.test/2025/harbour-wall"),
    (b"<html><body><div><p>No commas here at all</p><p>None</p></div></body></html>", None),
    (b"", None),
]


# -- the trace is the method's own decision --------------------------------------
@pytest.mark.parametrize("name,options", METHODS, ids=lambda v: str(v))
def test_trace_records_what_extract_outputs(name, options):
    extractor = get_extractor(name, **options)
    for html, url in PAGES:
        plain = extractor.extract(Document.from_html(html, url=url))
        trace = Trace()
        traced = extractor.extract(Document.from_html(html, url=url), trace)
        assert traced.text == plain.text  # tracing changes nothing
        assert trace.method == name and trace.kept is not None and trace.reasons is not None
        assert all(trace.reasons), "every unit has a reason"
        doc = Document.from_html(html, url=url)
        kept = np.flatnonzero(trace.kept).tolist()
        if trace.unit == "line":
            assert "\n".join(trace.texts[i] for i in kept) == plain.text
        else:
            assert len(trace) == len(doc.block_columns)
            assert doc.block_columns.text(kept) == plain.text
        if trace.scores is not None:
            assert len(trace.scores) == len(trace)


def test_webclean_reasons_and_confidence():
    trace = Trace()
    extraction = get_extractor("webclean").extract(
        Document.from_html(COMMENTED_ARTICLE.encode(), url="https://gazette.test/2025/harbour-wall"), trace
    )
    doc = Document.from_html(COMMENTED_ARTICLE.encode(), url="https://gazette.test/2025/harbour-wall")
    reasons = dict(zip(doc.block_columns.texts, trace.reasons))
    assert "harbour wall, breached" in extraction.text
    assert (
        reasons[
            "Great news for the fishing fleet, which has waited all winter for this, and for the sailing "
            "club, whose boats have been stuck on the hard since February."
        ]
        == "veto: comment_area"
    )
    assert trace.facts["page type"] == "article"
    assert "comment_area" in trace.facts["vetoes applied on article pages"]
    assert trace.threshold == trace.facts["threshold for article pages"]
    assert trace.facts["repeats dropped on article pages"] == "under 100 characters"
    assert trace.confidence == pytest.approx(float(trace.scores.max()))
    assert (trace.series["model"] >= trace.scores).all()  # vetoes only lower a probability
    for i in np.flatnonzero(trace.kept):
        assert trace.scores[i] >= trace.threshold
        assert trace.reasons[i] == "probability at or above the threshold"
    # The repeated short "Share this story": kept once at most, the repeat says why.
    shares = [i for i, text in enumerate(doc.block_columns.texts) if text == "Share this story"]
    kept_shares = [i for i in shares if trace.kept[i]]
    assert len(kept_shares) <= 1
    if kept_shares:
        later = [i for i in shares if i > kept_shares[0] and trace.scores[i] >= trace.threshold]
        assert all(trace.reasons[i] == "a repeat of a kept block's text" for i in later)


def test_density_trace_is_the_region():
    html, url = PAGES[0]
    trace = Trace()
    get_extractor("density").extract(Document.from_html(html, url=url), trace)
    lengths = trace.series["lengths"]
    left, right = trace.series["region"]
    assert lengths[trace.series["longest"]] == max(lengths)
    assert trace.threshold == pytest.approx(0.333 * max(lengths))
    assert left <= trace.series["longest"] <= right
    assert {trace.reasons[i] for i in np.flatnonzero(trace.kept)} <= {
        "inside the densest region",
        "the longest string: the region starts here",
    }
    assert sum(trace.kept) > 0 and any(r.startswith("before the region") for r in trace.reasons)


def test_punctuation_fallback_trace_is_the_fallbacks():
    trace = Trace()
    html = b"<html><body><div><p>No commas here at all</p><p>None</p></div></body></html>"
    get_extractor("punctuation").extract(Document.from_html(html), trace)
    assert trace.method == "punctuation" and "density fallback" in trace.facts["punctuation"]
    assert "lengths" in trace.series  # density's own record


@pytest.mark.parametrize("name", ["webclean", "density", "ttr", "baseline"])
def test_report_counts_the_kept_text_as_extract_does(name):
    html, url = demo_page(DEMO_ARTICLES[1])
    report = explain(html, url=url, extractor=name)
    text = extract(html, url=url, extractor=name).text
    # The page's visible text written the same way: what the baseline extractor outputs.
    everything = extract(html, url=url, extractor="baseline").text
    assert report.kept_chars == len(text) > 0 and report.total_chars == len(everything) > 0
    assert len(text) != len(text) - text.count(" ") - text.count("\n")  # whitespace counts
    summary = lxml_html.fromstring(report.html()).xpath("string(//ul[@class='summary'])")
    assert f"{len(text):,} of {len(everything):,} characters" in summary


def _decisions(report) -> dict[str, str]:
    """The "How ... decided" table of a rendered report, label -> value."""
    tree = lxml_html.fromstring(report.html())
    table = tree.xpath("//section[h2[starts-with(., 'How')]]//table")[0]
    return {row.xpath("string(th)"): row.xpath("string(td)") for row in table.xpath(".//tr")}


def test_report_says_how_webclean_decided_in_plain_words():
    article = explain(sample_page("page-type-article.html"), url="https://news.example/2025/03/story")
    facts = article.trace.facts  # the data, as the extractor computed it
    assert facts["switch cost"] == 0.5 and facts["threshold for article pages"] == 0.4
    assert facts["veto chrome (not applied on article pages) matches blocks"] == [8]
    rows = _decisions(article)
    assert rows["page type the rules follow"] == "article"
    assert rows["dropped whatever the model says, on article pages"] == (
        "readers' comment areas; form widget labels (buttons, options, legends)"
    )
    assert rows["navigation-like blocks dropped"] == "not applied on article pages; it would drop block 8"
    assert rows["gaps bridged between kept paragraphs"].startswith("light (switch cost 0.5): a block a little under")
    assert rows["content probability a block needs to be kept"].startswith(
        "0.40 (on article pages): the model rates each block from 0 (boilerplate) to 1 (main text)"
    )
    assert rows["repeated text dropped"] == "a block that repeats a kept block's text, when under 100 characters"
    assert rows["character encoding"] == "none: the page was given as text"
    docs = _decisions(explain(sample_page("page-type-docs.html"), url="https://news.example/a"))
    assert docs["blocks of the same layout decided together"].startswith("on documentation pages (weight 1)")
    assert docs["repeated text dropped"] == "every block that repeats a kept block's text"
    assert docs["small page"] == "under 200 characters of text in all: kept whole"
    # No internal name is shown.
    shown = " ".join(f"{k} {v}" for k, v in (rows | docs).items())
    assert not re.search(r"veto|switch cost\b(?! \d)|comment_area|chrome\b|vetoes", shown), shown


def test_untraceable_extractor_is_explained_from_its_output():
    from webclean_scrapy import Extractor

    class FirstBlock(Extractor):
        name = "first-block"

        def extract_text(self, doc):
            return doc.block_columns.texts[0] if len(doc.block_columns) else ""

    html, url = PAGES[0]
    report = explain(html, url=url, extractor=FirstBlock)
    assert not report.traced and [u.index for u in report.units if u.kept] == [0]
    assert "records no trace" in report.html()


# -- the command line -----------------------------------------------------------
def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*webclean_command(), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _report_checks(path: Path) -> lxml_html.HtmlElement:
    """What every report must be: self-contained, no script, escaped text."""
    source = path.read_text(encoding="utf-8")
    tree = lxml_html.fromstring(source)
    assert not tree.xpath("//script | //link | //iframe | //img[not(starts-with(@src, 'data:'))]")
    links = tree.xpath("//@src | //@href | //@*[local-name()='href'] | //@action | //@poster | //@srcset")
    assert all(link.startswith(("#", "data:")) for link in links), links  # nothing to fetch
    styles = " ".join(tree.xpath("//style/text() | //@style"))
    assert not re.search(r"url\(\s*['\"]?(?!#|data:)", styles) and "@import" not in styles
    csp = tree.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    assert csp and csp[0].startswith("default-src 'none'")
    return tree


@pytest.mark.parametrize("name", ["webclean", "ttr", "density", "punctuation", "baseline"])
def test_explain_command_writes_a_self_contained_report(tmp_path, name):
    html, url = demo_page(DEMO_ARTICLES[1])
    (tmp_path / "page.html").write_bytes(html)
    proc = _run("explain", "page.html", "-e", name, "--url", url, "-o", "report.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tree = _report_checks(tmp_path / "report.html")
    report = explain(html, url=url, extractor=name)
    kept = tree.xpath("//li[contains(@class, 'unit') and contains(@class, 'kept')]")
    assert len(kept) == sum(unit.kept for unit in report.units) > 0
    assert len(tree.xpath("//li[contains(@class, 'unit')]")) == len(report.units)
    # Each block shows its verdict, reason and (for blocks) its container path.
    first = kept[0]
    assert first.xpath("string(.//span[@class='reason'])")
    if report.trace.unit == "block":
        assert first.xpath("string(.//div[@class='path'])").startswith("html > body")
    extracted = tree.xpath("string(//pre[@class='extracted'])")
    assert extracted == report.extraction.text
    assert tree.xpath("string(//h1)") == report.extraction.title
    assert url in tree.xpath("string(//p[@class='url'])")
    if name in ("ttr", "density", "webclean", "punctuation"):
        assert tree.xpath("count(//*[local-name()='svg'])") >= 1  # the figure, inline
    assert "webclean, article page" in proc.stderr or name != "webclean"


def test_explain_escapes_the_page(tmp_path):
    evil = (
        b"<html><head><title>&lt;script&gt;alert(1)&lt;/script&gt;</title></head><body><p>"
        + b"&lt;img src=http://evil.test/x.png&gt; is text, not markup. " * 6
        + b"</p></body></html>"
    )
    (tmp_path / "evil.html").write_bytes(evil)
    assert _run("explain", "evil.html", "-o", "r.html", cwd=tmp_path).returncode == 0
    tree = _report_checks(tmp_path / "r.html")
    assert "<img src=http://evil.test/x.png>" in tree.xpath("string(//pre[@class='extracted'])")


def test_plot_command(tmp_path):
    html, url = demo_page(DEMO_ARTICLES[0])
    (tmp_path / "page.html").write_bytes(html)
    for name, output in (("ttr", "ttr.png"), ("density", "density.svg"), ("webclean", "scores.png")):
        proc = _run("plot", "page.html", "-e", name, "--url", url, "-o", output, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ttr.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "ttr.png").stat().st_size > 10_000
    assert "<svg" in (tmp_path / "density.svg").read_text()
    proc = _run("plot", "page.html", "-e", "baseline", "-o", "none.png", cwd=tmp_path)
    assert proc.returncode == 1 and "nothing on this page to plot" in proc.stderr
    assert not (tmp_path / "none.png").exists()
    proc = _run("explain", "missing.html", "-o", "r.html", cwd=tmp_path)
    assert proc.returncode == 1 and "no such file" in proc.stderr
    proc = _run("explain", "page.html", "-e", "nope", "-o", "r.html", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown extractor" in proc.stderr


def test_figures_draw_the_traces_values():
    pytest.importorskip("matplotlib")
    html, url = PAGES[0]
    report = explain(html, url=url, extractor="ttr")
    top = report.figure().axes[0]
    smoothed = [line for line in top.get_lines() if line.get_label() == "smoothed"][0]
    assert np.allclose(smoothed.get_ydata(), report.trace.series["smoothed"])
    threshold = [line for line in top.get_lines() if line.get_label().startswith("threshold")][0]
    assert threshold.get_ydata()[0] == pytest.approx(report.trace.threshold)


# -- WEBCLEAN_EXPLAIN_DIR -----------------------------------------------------------
HUB = (
    "<html><head><title>Sections</title></head><body><ul>"
    + "".join(f'<li><a href="/s/{i}">Section number {i}</a></li>' for i in range(30))
    + "</ul></body></html>"
)
EXPLAIN_ROUTES = {
    "/article": (200, {"Content-Type": "text/html; charset=utf-8"}, gazette_article()),
    "/empty": (200, {"Content-Type": "text/html; charset=utf-8"}, b""),
    "/hub": (200, {"Content-Type": "text/html; charset=utf-8"}, HUB),
}


def test_policy_decides_on_confidence_and_emptiness():
    policy = ExplainPolicy("unused", below=0.5)
    for html, url in (
        (gazette_article().encode(), "http://x.test/article"),
        (HUB.encode(), "http://x.test/hub"),
        (b"", "http://x.test/empty"),
    ):
        doc = Document.from_html(html, url=url)
        extraction, trace = policy.extract(get_extractor("webclean"), doc)
        expected = not extraction.text or trace.confidence < 0.5
        assert policy.wants_report(extraction, trace) is expected
    assert report_name("https://example.org/a/b?x=1").startswith("example.org_a_b_")
    assert report_name("https://example.org/a/b?x=1") != report_name("https://example.org/a/b?x=2")


def test_explain_settings():
    from scrapy.settings import Settings

    from webclean_scrapy.settings import WebcleanSettings

    assert WebcleanSettings.from_settings(Settings()).explain_dir is None
    read = WebcleanSettings.from_settings(Settings({"WEBCLEAN_EXPLAIN_DIR": "r", "WEBCLEAN_EXPLAIN_BELOW": "0.3"}))
    assert (read.explain_dir, read.explain_below) == ("r", 0.3)
    with pytest.raises(ValueError, match="WEBCLEAN_EXPLAIN_BELOW"):
        WebcleanSettings(explain_below=1.5)


def explained_pages(make_crawler, **settings) -> tuple[list[tuple[str, str]], dict]:
    """EXPLAIN_ROUTES through the middleware (in-process): each page's (url, text), and the stats."""
    crawler = make_crawler(WEBCLEAN_EXTRACTOR="webclean", **settings)
    responses = through_middleware(crawler, BASE, list(EXPLAIN_ROUTES), routes=EXPLAIN_ROUTES)
    items = []
    for response in responses.values():
        extraction = extraction_of(response)
        assert extraction is not None, f"{response.url} was not extracted"
        items.append((response.url, extraction.text))
    items.sort()
    return items, {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("webclean/")}


@pytest.mark.parametrize("offload", ["thread", "process"])
def test_explain_dir_in_a_crawl(tmp_path, make_crawler, offload):
    reports = tmp_path / "reports"
    items, stats = explained_pages(make_crawler, WEBCLEAN_OFFLOAD=offload, WEBCLEAN_EXPLAIN_DIR=str(reports))
    plain, _ = explained_pages(make_crawler, WEBCLEAN_OFFLOAD="none")
    assert items == plain  # reports cost no text

    written = sorted(path.name for path in reports.glob("*.html"))
    expected = set()
    for path, (_, _, body) in EXPLAIN_ROUTES.items():
        doc = Document.from_html(body, url=BASE + path)
        extraction, trace = ExplainPolicy(str(reports)).extract(get_extractor("webclean"), doc)
        if not extraction.text or trace.confidence < 0.5:
            expected.add(report_name(BASE + path))
    assert report_name(BASE + "/empty") in expected and report_name(BASE + "/article") not in expected
    assert written == sorted(expected)
    assert stats["webclean/explain/reports"] == len(written)
    assert "webclean/explain/errors" not in stats
    empty = _report_checks(reports / report_name(BASE + "/empty"))
    assert "the extracted text is empty" in empty.text_content()
    assert not list(reports.glob(".*.tmp"))


def test_unwritable_explain_dir_costs_no_page(tmp_path, make_crawler):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    items, stats = explained_pages(
        make_crawler, WEBCLEAN_OFFLOAD="thread", WEBCLEAN_EXPLAIN_DIR=str(blocker / "reports")
    )
    assert items == explained_pages(make_crawler, WEBCLEAN_OFFLOAD="none")[0]
    assert stats["webclean/explain/errors"] >= 1 and "webclean/explain/reports" not in stats
    assert stats["webclean/pages/extracted"] == len(EXPLAIN_ROUTES)


# -- as a person sees it ------------------------------------------------------------
VISIBILITY = """(() => {
  const box = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const seen = el => box(el) && el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const kept = [...document.querySelectorAll('li.unit.kept')];
  return {
    kept: kept.length,
    keptVisible: kept.filter(el => seen(el) && seen(el.querySelector('.text'))).length,
    keptTexts: kept.map(el => el.querySelector('.text').innerText),
    keptColour: kept.length ? getComputedStyle(kept[0]).borderLeftColor : null,
    droppedColour: (el => el ? getComputedStyle(el).borderLeftColor : null)(document.querySelector('li.unit.dropped')),
    dropped: document.querySelectorAll('li.unit.dropped').length,
    droppedVisible: [...document.querySelectorAll('li.unit.dropped')].filter(seen).length,
    svgDrawn: [...document.querySelectorAll('svg')].filter(box).length,
    title: document.querySelector('h1').innerText,
  };
})()"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("name", ["webclean", "ttr"])
def test_report_in_headless_chromium(tmp_path, name):
    html, url = demo_page(DEMO_ARTICLES[1])
    report = explain(html, url=url, extractor=name)
    page = tmp_path / "report.html"
    page.write_text(report.html(), encoding="utf-8")
    with Chromium(width=1200, height=900) as browser:
        browser.open(page)
        assert browser.problems() == []  # no console error, no blocked load, no request
        state = browser.evaluate(VISIBILITY)
        kept = [unit for unit in report.units if unit.kept]
        assert state["kept"] == len(kept) > 0
        assert state["keptVisible"] == len(kept)  # every kept block is on screen-able, unhidden
        assert state["keptTexts"] == [unit.text for unit in kept]
        assert state["keptColour"] == "rgb(46, 125, 50)" and state["droppedColour"] != state["keptColour"]
        assert state["droppedVisible"] == state["dropped"] > 0
        assert state["svgDrawn"] >= 1 and state["title"] == report.extraction.title
        shot = browser.screenshot(tmp_path / "report.png")
        assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
        # "kept only": the CSS toggle hides the dropped blocks and nothing else.
        browser.evaluate("document.getElementById('only-kept').click()")
        state = browser.evaluate(VISIBILITY)
        assert state["droppedVisible"] == 0 and state["keptVisible"] == len(kept)
        assert browser.problems() == []


def test_report_shows_a_hub_read_as_an_article(monkeypatch):
    """A page predicted a listing that the extractor reads as an article:
    the report's summary gives the type the extraction reports and the
    classifier's, and the page-level values say why."""
    import webclean_scrapy.engine.extraction as extraction_module
    import webclean_scrapy.explain as explain_module
    from webclean_scrapy.engine.extractors import webclean
    from webclean_scrapy.engine.page_type import PAGE_TYPES
    from webclean_scrapy.explain.report import render

    types = np.zeros(len(PAGE_TYPES))
    types[PAGE_TYPES.index("article")], types[PAGE_TYPES.index("listing")] = 0.3, 0.7
    for module in (webclean, extraction_module, explain_module):
        monkeypatch.setattr(module, "page_type_of", lambda doc: ("listing", types))
    report = explain_module.explain_document(Document.from_html(gazette_article()), get_extractor("webclean"))
    assert report.extraction.page_type == "article" and report.page_type == "listing"
    page = render(report)
    assert "<b>page type</b>article (predicted listing)" in page
    assert "read as an article (predicted listing)" in report.facts  # the data, by its name
    assert "<th>read as an article</th><td>predicted a listing page, but at most 10% of the text kept is links" in page
