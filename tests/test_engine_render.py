"""Markdown and clean HTML output (webclean_scrapy.engine.render), read back with a real Markdown parser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from lxml import html as lxml_html

from webclean_scrapy import ExtractionError, Extractor, available_extractors, extract
from webclean_scrapy.engine.render import MAX_NESTING, escape_markdown
from webclean_scrapy.evaluation.markdown import block_kinds, inline_text, markdown_text, parser, table_shapes
from webclean_scrapy.evaluation.metrics import Text, shingle_counts

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

CODE = 'def f(x):\n    """A | pipe and ``` fence."""\n    return x * 2  # <not a tag>'
PROSE = (
    "The committee met on Thursday to discuss the budget, and after a long debate it agreed, "
    "by a narrow margin, to fund the new library wing next year."
)

PAGE = f"""<!DOCTYPE html><html><head><title>T</title><script>var x = "script text";</script>
<style>p {{ color: red }}</style></head><body>
<nav><a href="/">Home</a> <a href="/a">About</a></nav>
<article>
<h1>Library wing approved</h1>
<p>{PROSE}</p>
<h2>What was <em>decided</em></h2>
<ul><li>Fund the wing</li><li>Keep the old reading room<ul><li>Repaint it</li><li>Fix the roof</li></ul></li>
<li>Review in *spring* with snake_case_names</li></ul>
<h3>Steps</h3>
<ol><li>Tender</li><li>Build<ol><li>Foundations</li><li>Walls</li></ol></li><li>Open</li></ol>
<blockquote><p>It is a great day for readers, said the mayor, who voted for the wing.</p>
<blockquote><p>Nested quote inside.</p></blockquote></blockquote>
<pre><code>{CODE.replace("<", "&lt;").replace(">", "&gt;")}</code></pre>
<table><caption>Costs</caption>
<thead><tr><th>Item</th><th>Cost</th><th>Year</th></tr></thead>
<tbody><tr><td>Walls | roof</td><td colspan="2">1,000,000 in total</td></tr>
<tr><td rowspan="2">Books</td><td>50,000</td><td>2027</td></tr>
<tr><td>20,000</td><td>2028</td></tr></tbody></table>
<p>1. This line only looks like a list. # Nor is this a heading; [not a link](x) &amp;amp; <b>bold</b>.</p>
<p>{PROSE}</p>
</article><footer>Copyright</footer></body></html>"""


def test_markdown_structure_round_trips():
    result = extract(PAGE, extractor="baseline", output="markdown")
    markdown = result.markdown
    assert result.html is None
    kinds = block_kinds(markdown)
    tokens = parser().parse(markdown)
    headings = [(t.tag, inline_text(tokens[i + 1])) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == [("h1", "Library wing approved"), ("h2", "What was decided"), ("h3", "Steps")]
    # nested lists: two levels of bullets, two of ordered items
    levels = [(t.type, t.level) for t in tokens if t.type in ("bullet_list_open", "ordered_list_open")]
    assert [kind for kind, _ in levels] == [
        "bullet_list_open",
        "bullet_list_open",
        "ordered_list_open",
        "ordered_list_open",
    ]
    assert levels[1][1] > levels[0][1] and levels[3][1] > levels[2][1]
    items = [inline_text(tokens[i + 2]) for i, t in enumerate(tokens) if t.type == "list_item_open"]
    assert items == [
        "Fund the wing",
        "Keep the old reading room",
        "Repaint it",
        "Fix the roof",
        "Review in *spring* with snake_case_names",
        "Tender",
        "Build",
        "Foundations",
        "Walls",
        "Open",
    ]
    assert kinds.count("blockquote_open") == 2
    fences = [t.content for t in tokens if t.type == "fence"]
    assert fences == [CODE + "\n"]  # whitespace, pipes and backticks kept verbatim
    assert table_shapes(markdown) == [[3, 3, 3, 3]]  # colspan and rowspan expanded, pipe escaped
    cells = [inline_text(t) for t in tokens if t.type == "inline"]
    assert "Walls | roof" in cells and "1,000,000 in total" in cells
    # look-alike syntax stays text
    assert "1. This line only looks like a list. # Nor is this a heading; [not a link](x) &amp; bold." in cells
    assert "heading_open" not in kinds[kinds.index("table_open") :]
    # the script, style and their text never make it
    assert "script text" not in markdown and "color" not in markdown


def test_markdown_keeps_every_word_in_order_for_every_extractor():
    for name in available_extractors():
        result = extract(PAGE, extractor=name, output=["markdown", "html"])
        assert result.markdown is not None and result.html is not None, name
        assert Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens, name
        html_text = (
            "\n".join(lxml_html.fragment_fromstring(result.html, create_parent="div").itertext()) if result.html else ""
        )
        assert Text(html_text).tokens == Text(result.text).tokens, name


def test_html_output_is_clean():
    result = extract(PAGE, extractor="baseline", output="html")
    assert result.markdown is None
    root = lxml_html.fragment_fromstring(result.html, create_parent="div")
    tags = {element.tag for element in root.iter() if element is not root}
    assert tags <= {
        "p",
        "h1",
        "h2",
        "h3",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "code",
        "table",
        "caption",
        "tr",
        "th",
        "td",
    }
    assert {"h1", "h2", "ul", "ol", "blockquote", "pre", "table", "th"} <= tags
    for element in root.iter():
        assert set(element.attrib) <= {"colspan", "rowspan"}, element.attrib
    assert root.find(".//pre/code").text == CODE
    assert [td.get("colspan") for td in root.iter("td")].count("2") == 1
    assert "script text" not in result.html


def test_text_output_unchanged():
    assert extract(PAGE, output="text").text == extract(PAGE).text
    both = extract(PAGE, output=("text", "markdown"))
    assert both.text == extract(PAGE).text and both.markdown
    with pytest.raises(ExtractionError, match="unknown output format"):
        extract(PAGE, output="pdf")


def test_ttr_and_unaligned_custom_extractors_fall_back_to_paragraphs(register_extractor):
    result = extract(PAGE, extractor="ttr", output="markdown")
    tokens = parser().parse(result.markdown)
    paragraphs = [inline_text(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    assert len(paragraphs) == len([line for line in result.text.split("\n") if line])
    assert Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens

    @register_extractor
    class UpperExtractor(Extractor):  # output not made of the page's blocks, and no trace
        name = "test-upper"

        def extract_text(self, doc):
            return doc.block_columns.text().upper()

    @register_extractor
    class HeadingsExtractor(Extractor):  # blocks, but no trace: found by matching the lines
        name = "test-headings"

        def extract_text(self, doc):
            columns = doc.container_columns
            return "\n".join(
                doc.block_columns.texts[b]
                for b, holder in enumerate(doc.block_columns.holders)
                if columns.tags[holder] in ("h1", "h2", "li")
            )

    upper = extract(PAGE, extractor=UpperExtractor, output="markdown")
    assert block_kinds(upper.markdown) == []
    assert Text(markdown_text(upper.markdown)).tokens == Text(upper.text).tokens
    headings = extract(PAGE, extractor=HeadingsExtractor, output="markdown").markdown
    assert headings.startswith("# Library wing approved\n\n## What was decided\n\n- Fund the wing")


def test_empty_and_hostile_pages():
    assert extract("", output=["markdown", "html"]).markdown == ""
    assert extract(b"<html><body></body></html>", output="html").html == ""
    # Deeply nested lists and quotes: flattened past MAX_NESTING, no recursion error.
    deep = "<html><body>" + "<ul><li>item " * 3000 + "</li></ul>" * 3000 + "</body></html>"
    markdown = extract(deep, extractor="baseline", output="markdown").markdown
    kinds = block_kinds(markdown)
    assert 0 < kinds.count("bullet_list_open") <= MAX_NESTING + 1
    quotes = "<html><body>" + "<blockquote>quoted " * 500 + "</blockquote>" * 500 + "</body></html>"
    assert (
        block_kinds(extract(quotes, extractor="baseline", output="markdown").markdown).count("blockquote_open")
        <= MAX_NESTING
    )
    # Absurd spans are capped; the table keeps one column count.
    table = (
        "<html><body><table><tr><td colspan=100000>wide</td><td>b</td></tr>"
        "<tr><td rowspan=99999>x</td><td>y</td></tr></table></body></html>"
    )
    shapes = table_shapes(extract(table, extractor="baseline", output="markdown").markdown)
    assert len(shapes) == 1 and len(set(shapes[0])) == 1 and shapes[0][0] <= 101


def test_layout_tables_are_not_tables():
    cells = "".join(f"<td><p>{PROSE}</p><ul><li>one</li></ul></td>" for _ in range(2))
    page = f"<html><body><table><tr>{cells}</tr></table><table><tr><td>{PROSE}</td></tr></table></body></html>"
    markdown = extract(page, extractor="baseline", output="markdown").markdown
    assert table_shapes(markdown) == [] and markdown.count(PROSE[:40]) == 3


def test_escape_markdown_reads_back_verbatim():
    samples = [
        "# not a heading",
        "> not a quote",
        "- not a list",
        "+ nor this",
        "12) nor this",
        "a * b * c",
        "a_b_c",
        "`code`",
        "[x](y)",
        "<div>",
        "&copy; &#169;",
        "~~strike~~",
        "=====",
        "|a|b|",
        "back\\slash",
        "***",
    ]
    for sample in samples:
        assert markdown_text(escape_markdown(sample)) == sample, sample


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_shared_pages_keep_their_shingles_and_tables_parse():
    from webclean_scrapy.evaluation.dataset import load_dataset

    checked = tables = 0
    for dataset in sorted(p for p in DATA.iterdir() if (p / "truth.jsonl").is_file()):
        for page in load_dataset(dataset, limit=8):
            result = extract(page.read(), url=page.url, output=["markdown", "html"])
            tp, fp, fn = shingle_counts(markdown_text(result.markdown), result.text)
            assert fn == 0 or tp / (tp + fn) >= 0.99, (dataset.name, page.id)
            for shape in table_shapes(result.markdown):
                tables += 1
                assert len(set(shape)) == 1, (dataset.name, page.id, shape)
            etree.fromstring(f"<div>{result.html}</div>", etree.HTMLParser())
            checked += 1
    assert checked >= 8


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "webclean_scrapy.cli", *args], capture_output=True, text=True, timeout=180, cwd=cwd
    )


def test_cli_formats_and_output_dir(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "news.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "b" / "news.html").write_text(PAGE.replace("Library wing", "Pool"), encoding="utf-8")
    proc = _cli(
        "extract", "a/news.html", "b/news.html", "-e", "baseline", "--format", "md", "--output-dir", "out", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["news-2.md", "news.md"]
    first = (tmp_path / "out" / "news.md").read_text(encoding="utf-8")
    second = (tmp_path / "out" / "news-2.md").read_text(encoding="utf-8")
    assert first.startswith("Home About\n\n# Library wing approved") and second.count("# Pool approved") == 1
    assert table_shapes(first) == [[3, 3, 3, 3]]

    proc = _cli("extract", "a/news.html", "-e", "baseline", "--format", "txt", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == extract(PAGE, extractor="baseline").text + "\n"
    proc = _cli("extract", "a/news.html", "--format", "jsonl", "--output-dir", "json", "-j", "2", cwd=tmp_path)
    record = json.loads((tmp_path / "json" / "news.json").read_text(encoding="utf-8"))
    assert proc.returncode == 0 and record["text"] == extract(PAGE).text and "markdown" not in record
    proc = _cli("extract", "a/news.html", "b/news.html", "-e", "baseline", "--format", "md", "-j", "2", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.count("# Library wing approved\n") == 1
    assert proc.stdout.count("# Pool approved\n") == 1
    proc = _cli("extract", "a/news.html", "--format", "pdf", cwd=tmp_path)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


# -- inline markup: links, formatting, images ------------------------------------

MARKUP_PAGE = f"""<html><head><base href="https://cdn.example.org/docs/"></head><body>
<nav><a href="/">Home</a></nav><article>
<h1>Budget <em>approved</em></h1>
<p>{PROSE} See the <a href="budget.html">budget [draft]</a>, the
<a href="https://other.example.net/x?a=1&amp;b=(2)">other site</a>, a <a href="javascript:void(0)">script</a>,
the <a href="#top">top</a> and an <a href="">empty one</a>; it passed by a <strong>narrow <em>margin</em></strong>,
with <em>emphasis <b>and</b> more</em>, <code>x = a*b</code> and un<em>believ</em>able words.</p>
<ul><li>Item with <a href="/one">the first link</a> inside it</li>
<li><a href="two">Second</a> and <a href="../three">third</a> links</li></ul>
<table><tr><th>Name</th><th>Page</th></tr>
<tr><td>Alpha</td><td><a href="/alpha">alpha | page</a></td></tr>
<tr><td>Beta</td><td><b>beta</b> <a href="/beta">page</a></td></tr></table>
<figure><img src="/img/chart.png" alt="A [chart]"><figcaption>Figure 1: the chart of the budget</figcaption></figure>
<p>An icon <img src="icon.png" alt="icon"> in a line, and a lazy one <img src="data:image/gif;base64,R0lGOD"
data-src="lazy.png" alt="lazy">.</p>
<p>{PROSE}</p>
</article></body></html>"""


def _links(markdown: str) -> list[tuple[str, str]]:
    """(text, target) of every link markdown-it-py reads in *markdown*."""
    found = []
    for token in parser().parse(markdown):
        children = token.children or []
        for n, child in enumerate(children):
            if child.type == "link_open":
                end = next(i for i in range(n, len(children)) if children[i].type == "link_close")
                text = "".join(c.content for c in children[n + 1 : end] if c.type in ("text", "code_inline"))
                found.append((text, child.attrs["href"]))
    return found


def _inline_types(markdown: str) -> list[str]:
    return [c.type for t in parser().parse(markdown) for c in t.children or () if c.type.endswith("_open")]


def test_links_are_absolute_and_read_back():
    result = extract(
        MARKUP_PAGE, url="https://www.example.org/news/page", extractor="baseline", output="markdown", links=True
    )
    links = _links(result.markdown)
    assert links == [
        ("Home", "https://cdn.example.org/"),
        ("budget [draft]", "https://cdn.example.org/docs/budget.html"),
        ("other site", "https://other.example.net/x?a=1&b=%282%29"),
        ("the first link", "https://cdn.example.org/one"),
        ("Second", "https://cdn.example.org/docs/two"),
        ("third", "https://cdn.example.org/three"),
        ("alpha | page", "https://cdn.example.org/alpha"),
        ("page", "https://cdn.example.org/beta"),
    ]
    # javascript:, fragment-only and empty targets stay their text; no emphasis, no images
    assert "a script, the top and an empty one;" in markdown_text(result.markdown)
    assert "em_open" not in _inline_types(result.markdown) and "![" not in result.markdown
    # lists and tables keep their structure with links inside
    assert "- Item with [the first link](https://cdn.example.org/one) inside it" in result.markdown
    assert table_shapes(result.markdown) == [[2, 2, 2]]
    # every word of the text, in order
    assert Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens
    assert result.text == extract(MARKUP_PAGE, url="https://www.example.org/news/page", extractor="baseline").text


def test_links_without_base_href_resolve_against_the_url():
    page = f'<html><body><article><p>{PROSE} <a href="/a">A link</a> and <a href="b">b link</a>.</p></article></body></html>'
    markdown = extract(page, url="https://site.example/dir/page.html", output="markdown", links=True).markdown
    assert _links(markdown) == [("A link", "https://site.example/a"), ("b link", "https://site.example/dir/b")]
    # without any URL the targets are kept as written
    assert _links(extract(page, output="markdown", links=True).markdown) == [("A link", "/a"), ("b link", "b")]


def test_a_link_around_a_block_links_the_block():
    page = f'<html><body><article><p>{PROSE}</p><a href="/card"><div>The card title</div></a></article></body></html>'
    markdown = extract(page, url="https://site.example/", extractor="baseline", output="markdown", links=True).markdown
    assert ("The card title", "https://site.example/card") in _links(markdown)


def test_formatting_nests_and_reads_back():
    result = extract(MARKUP_PAGE, extractor="baseline", output="markdown", formatting=True)
    markdown = result.markdown
    assert "# Budget *approved*" in markdown
    assert "a **narrow *margin***," in markdown
    assert "*emphasis **and** more*" in markdown
    assert "`x = a*b`" in markdown
    assert "unbelievable" in markdown  # emphasis inside a word is left out: not every reader sees it
    tokens = parser().parse(markdown)
    strong = [
        "".join(c.content for c in t.children[i + 1 : i + 2])
        for t in tokens
        for i, c in enumerate(t.children or ())
        if c.type == "strong_open"
    ]
    assert strong[:3] == ["narrow ", "and", "beta"]
    assert "link_open" not in _inline_types(markdown)
    assert Text(markdown_text(markdown)).tokens == Text(result.text).tokens


def test_images_are_absolute_with_their_alt():
    result = extract(
        MARKUP_PAGE, url="https://www.example.org/", extractor="baseline", output=["markdown", "html"], images=True
    )
    images = [
        ("".join(alt.content for alt in c.children or ()), c.attrs["src"])
        for t in parser().parse(result.markdown)
        for c in t.children or ()
        if c.type == "image"
    ]
    assert images == [
        ("A [chart]", "https://cdn.example.org/img/chart.png"),
        ("icon", "https://cdn.example.org/docs/icon.png"),
        ("lazy", "https://cdn.example.org/docs/lazy.png"),
    ]
    assert result.markdown.index("![A \\[chart\\]]") < result.markdown.index("Figure 1: the chart")
    root = lxml_html.fragment_fromstring(result.html, create_parent="div")
    assert [img.get("src") for img in root.iter("img")][0] == "https://cdn.example.org/img/chart.png"
    assert Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens


def test_html_output_keeps_the_same_inline_markup():
    result = extract(MARKUP_PAGE, extractor="baseline", output="html", links=True, formatting=True)
    root = lxml_html.fragment_fromstring(result.html, create_parent="div")
    assert root.find(".//h1/em").text == "approved"
    assert root.find(".//strong/em").text == "margin"
    assert [a.get("href") for a in root.iter("a")][:2] == [
        "https://cdn.example.org/",
        "https://cdn.example.org/docs/budget.html",
    ]
    assert root.find(".//td/a").text == "alpha | page"
    assert root.find(".//code").text == "x = a*b"


def test_default_output_has_no_inline_markup():
    """Off by default: the Markdown and HTML are the block structure alone, as before the options."""
    plain = extract(MARKUP_PAGE, url="https://www.example.org/", extractor="baseline", output=["markdown", "html"])
    assert "](" not in plain.markdown and "**" not in plain.markdown and "`" not in plain.markdown
    assert "<a " not in plain.html and "<em>" not in plain.html and "<img" not in plain.html
    off = extract(
        MARKUP_PAGE, url="https://www.example.org/", extractor="baseline", output=["markdown", "html"], links=False
    )
    assert (off.markdown, off.html) == (plain.markdown, plain.html)
    on = extract(
        MARKUP_PAGE,
        url="https://www.example.org/",
        extractor="baseline",
        output="markdown",
        links=True,
        formatting=True,
        images=True,
    )
    assert on.text == plain.text


def test_markup_on_every_extractor_keeps_every_word():
    for name in available_extractors():
        result = extract(
            MARKUP_PAGE,
            url="https://www.example.org/",
            extractor=name,
            output="markdown",
            links=True,
            formatting=True,
            images=True,
        )
        assert Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens, name


def test_cli_markdown_links(tmp_path):
    (tmp_path / "page.html").write_text(MARKUP_PAGE, encoding="utf-8")
    proc = _cli("extract", "page.html", "-e", "baseline", "--format", "md", "--links", "--formatting", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("the first link", "https://cdn.example.org/one") in _links(proc.stdout)  # <base href>: absolute
    assert "**narrow *margin***" in proc.stdout
    proc = _cli("extract", "page.html", "--links", cwd=tmp_path)
    assert proc.returncode == 2 and "--format md" in proc.stderr


def test_deeply_nested_inline_markup_is_capped(caplog):
    page = f"<html><body><article><p>{PROSE} {'<b><i><a href=/x>' * 3000}deep words{'</a></i></b>' * 3000}</p></article></body></html>"
    result = extract(page, url="https://site.example/", output="markdown", links=True, formatting=True)
    assert "could not structure" not in caplog.text
    assert "[" in result.markdown and Text(markdown_text(result.markdown)).tokens == Text(result.text).tokens
