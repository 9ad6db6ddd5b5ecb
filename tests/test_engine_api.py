"""The public API, the document model and bad input (issue: extraction engine)."""

from __future__ import annotations

import gzip

import pytest

import webclean_scrapy
from webclean_scrapy import (
    Document,
    Extraction,
    ExtractionError,
    NotHTMLError,
    UnknownExtractorError,
    available_extractors,
    extract,
    get_extractor,
)
from webclean_scrapy.engine.extraction import Extractor

ARTICLE = """<html lang="en-GB"><head><title>Page title</title>
<meta property="og:title" content="The og title">
<style>p { color: red }</style><script>var x = "script text";</script></head>
<body><nav><a href="/">Home</a> <a href="/a">About</a></nav>
<div id="main"><h1>Heading</h1>
<p>First paragraph, with <b>bold</b> and <a href="/x">a link</a>.</p>
<!-- a comment -->
<p>Second paragraph.<br>After a break.</p>
<div hidden>hidden text</div><div style="display: none">also hidden</div>
<noscript>noscript text</noscript><template>template text</template>
<ul><li>one</li><li>two</li></ul>
<table><tr><td>cell a</td><td>cell b</td></tr></table></div>
</body></html>"""


def test_document_blocks_are_strings_between_structural_tags():
    doc = Document.from_html(ARTICLE)
    texts = [block.text for block in doc.blocks]
    assert texts == [
        "Home About",
        "Heading",
        "First paragraph, with bold and a link.",
        "Second paragraph.",
        "After a break.",
        "one",
        "two",
        "cell a",
        "cell b",
    ]
    link_block = doc.blocks[2]
    assert link_block.container.tag == "p"
    assert link_block.anchor_chars == len("alink")
    assert doc.blocks[0].link_density == 1.0


def test_document_drops_scripts_comments_and_hidden_elements_once():
    text = extract(ARTICLE, extractor="baseline").text
    for gone in (
        "script text",
        "color: red",
        "a comment",
        "hidden text",
        "also hidden",
        "noscript text",
        "template text",
        "Page title",
    ):
        assert gone not in text


def test_container_tree_totals():
    doc = Document.from_html(ARTICLE)
    main = next(c for c in doc.containers if c.element.get("id") == "main")
    assert main.chars == sum(b.chars for b in doc.blocks[1:])
    assert main.first_block == 1 and main.last_block == len(doc.blocks) - 1
    assert main.block_count == len(doc.blocks) - 1
    body = next(c for c in doc.containers if c.tag == "body")
    assert body.chars == sum(b.chars for b in doc.blocks)
    assert body.anchor_chars == sum(b.anchor_chars for b in doc.blocks)
    assert main.parent is body and main in body.children


def test_document_reuses_an_existing_root_without_mutating_it():
    from parsel import Selector

    selector = Selector(text=ARTICLE)
    before = selector.root.xpath("count(//*)")
    doc = Document(selector.root, url="http://example.com/", source=ARTICLE)
    assert doc.blocks[1].text == "Heading"
    assert selector.root.xpath("count(//*)") == before
    assert selector.css("script::text").get() == 'var x = "script text";'


def test_title_and_language():
    doc = Document.from_html(ARTICLE)
    assert doc.title == "The og title"
    assert doc.language == "en"
    assert Document.from_html("<h1> The  h1 </h1><title>t</title>").title == "The h1"
    assert Document.from_html("<title>Only title</title><p>x</p>").title == "Only title"


@pytest.mark.parametrize(
    "declared, code",
    [
        ('<html lang="English">', "en"),
        ('<html lang="de-AT">', "de"),
        ('<html lang="Deutsch">', "de"),
        ('<html xml:lang="pt_BR">', "pt"),
        ('<html><head><meta property="og:locale" content="fr_FR">', "fr"),
        ('<html lang="x-klingon">', "x"),
        ("<html>", None),
    ],
)
def test_language_names_and_codes_group_together(declared, code):
    assert Document.from_html(declared + "<p>text</p>").language == code


def test_extract_returns_extraction_with_lines():
    result = extract(ARTICLE.encode("utf-8"), url="http://example.com/a", extractor="baseline")
    assert isinstance(result, Extraction)
    assert result.extractor == "baseline"
    assert result.url == "http://example.com/a"
    assert "First paragraph, with bold and a link.\nSecond paragraph.\nAfter a break." in result.text
    assert result.as_dict()["title"] == "The og title"


@pytest.mark.parametrize("charset", ["utf-8", "cp1251", "shift_jis", "utf-16"])
def test_charset_from_meta_and_bom(charset):
    words = {"utf-8": "naïve café", "cp1251": "Привет мир", "shift_jis": "日本語の文章", "utf-16": "Grüße"}[charset]
    page = f'<html><head><meta charset="{charset}"></head><body><p>{words}</p></body></html>'
    body = page.encode(charset)
    assert extract(body, extractor="baseline").text == words


def test_http_charset_argument_wins_over_meta():
    body = '<meta charset="utf-8"><p>Grüße aus Köln</p>'.encode("latin-1")
    assert extract(body, extractor="baseline", encoding="iso-8859-1").text == "Grüße aus Köln"
    assert extract(body, extractor="baseline", encoding="text/html; charset=ISO-8859-1").text == "Grüße aus Köln"


def test_missing_charset_is_detected():
    assert extract("<p>Grüße</p>".encode(), extractor="baseline").text == "Grüße"
    assert extract("<p>Grüße</p>".encode("cp1252"), extractor="baseline").text == "Grüße"


def test_registry_names_default_and_dotted_path():
    names = available_extractors()
    assert {"baseline", "density", "ttr", "punctuation"} <= set(names)
    assert get_extractor("default").name in names
    dotted = get_extractor("webclean_scrapy.engine.extractors.baseline.BaselineExtractor")
    assert dotted.name == "baseline"
    with pytest.raises(UnknownExtractorError):
        get_extractor("no-such-method")
    with pytest.raises(UnknownExtractorError):
        get_extractor("collections.OrderedDict")
    with pytest.raises(ExtractionError):
        get_extractor("baseline", no_such_option=1)


class ShoutingExtractor(Extractor):
    """A user's own extractor, loaded by dotted path."""

    name = "shouting"
    defaults = {"suffix": "!"}

    def extract_text(self, doc):
        return "\n".join(b.text.upper() + self.options["suffix"] for b in doc.blocks)


def test_user_extractor_by_dotted_path_with_options():
    result = extract("<p>hi</p>", extractor=f"{__name__}.ShoutingExtractor", suffix="?")
    assert result.text == "HI?"
    assert result.extractor == "shouting"


# -- bad input: one test each ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["default", "baseline", "density", "ttr", "punctuation"])
def test_empty_bytes_give_empty_text(name):
    result = extract(b"", extractor=name)
    assert result.text == "" and result.title == ""


@pytest.mark.parametrize("name", ["default", "baseline"])
def test_png_bytes_raise_not_html(name):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    with pytest.raises(NotHTMLError):
        extract(png, extractor=name)
    with pytest.raises(ExtractionError):  # the documented family
        extract(gzip.compress(b"<p>x</p>"), extractor=name)


@pytest.mark.parametrize("name", ["default", "baseline", "density", "ttr", "punctuation"])
def test_plain_text_is_kept_as_text(name):
    result = extract(b"Just a line of plain text, with no markup at all.", extractor=name)
    assert result.text == "Just a line of plain text, with no markup at all."


@pytest.mark.parametrize("name", ["default", "baseline"])
def test_twenty_megabyte_page(name):
    # Numbered paragraphs: a page that only repeats one paragraph tests the
    # repeat handling (the model reads repeated text as likely boilerplate),
    # not whether a huge page's text survives.
    lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20
    paragraphs = [f"<p>Paragraph {i}. {lorem}</p>\n" for i in range(20_000_000 // (len(lorem) + 30))]
    body = ("<html><body><div>" + "".join(paragraphs) + "</div></body></html>").encode()
    assert len(body) >= 19_000_000
    text = extract(body, extractor=name).text
    assert text.count("\n") + 1 >= 15_000  # the paragraphs survive, one per line


@pytest.mark.parametrize("name", ["default", "baseline", "density", "ttr", "punctuation"])
def test_ten_thousand_deep_nesting_never_recurses(name):
    body = ("<html><body>" + "<div>" * 10_000 + "deep text" + "</div>" * 10_000 + "<p>after</p></body></html>").encode()
    result = extract(body, extractor=name)  # a RecursionError would fail the test
    # Line-based TTR joins what sits on one source line.
    assert result.text == ("deep text after" if name == "ttr" else "deep text\nafter")


@pytest.mark.parametrize("name", ["default", "baseline"])
def test_bytes_invalid_in_declared_charset_are_replaced(name):
    body = (
        b'<html><head><meta charset="utf-8"></head><body><p>caf\xe9 au lait, '
        + b"une phrase assez longue. " * 5
        + b"</p></body></html>"
    )
    text = extract(body, extractor=name).text
    assert text.startswith("caf\ufffd au lait")


@pytest.mark.parametrize("name", ["default", "baseline", "density", "ttr", "punctuation"])
def test_document_without_body(name):
    result = extract(b"<html><head><title>Only a head</title></head></html>", extractor=name)
    # Line-based TTR reads the whole source, <title> line included (faithful to the paper).
    assert result.text in (("", "Only a head") if name == "ttr" else ("",))
    assert result.title == "Only a head"


def test_version_is_the_packages():
    # One version: what the installed distribution says (pyproject.toml's), and what the code says.
    import importlib.metadata
    import re

    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", webclean_scrapy.__version__)
    assert webclean_scrapy.__version__ == importlib.metadata.version("webclean-scrapy")


def test_release_frees_the_page_without_the_cycle_collector():
    import gc

    from webclean_scrapy.engine.document import Block, Container

    def alive() -> int:
        return sum(isinstance(o, (Block, Container)) for o in gc.get_objects())

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = alive()
        doc = Document.from_html(ARTICLE)
        assert alive() == before  # the walk fills columns; objects only on demand
        assert doc.containers[1].children and doc.blocks[0].container.direct_blocks
        assert alive() > before
        doc.release()
        del doc
        assert alive() == before  # freed by reference counting alone
    finally:
        if enabled:
            gc.enable()
