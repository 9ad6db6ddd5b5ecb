"""The public API (extract, the extractor registry, the version) and bad input: one test each."""

from __future__ import annotations

import gzip

import pytest

import webclean_scrapy
from pages import PARTS_PAGE, sample_bytes
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
from webclean_scrapy.engine.fields import CORE_FIELDS, OPTIONAL_FIELDS


def test_title_and_language():
    doc = Document.from_html(PARTS_PAGE)
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
    result = extract(PARTS_PAGE.encode("utf-8"), url="http://example.com/a", extractor="baseline")
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


# -- fields=: only the work a caller asks for ------------------------------------
#: A page whose every optional field has a value (metadata, a language to detect, blocks to render).
FIELDS_PAGE = sample_bytes("metadata-fields.html").replace(
    b"</head>", b'<meta property="article:modified_time" content="2025-09-05"></head>'
)
FIELDS_URL = "https://news.example/a"


@pytest.fixture
def stages(monkeypatch):
    """Counts of the calls to each skippable stage: the metadata readers, the
    language model and the two renderers, spied where the extraction calls them."""
    import webclean_scrapy.engine.extraction as extraction_module
    import webclean_scrapy.engine.render as render_module

    calls = dict.fromkeys(("metadata", "language", "markdown", "html"), 0)

    def spy(module, name, stage):
        original = getattr(module, name)

        def counted(*args, **kwargs):
            calls[stage] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    spy(extraction_module, "metadata_of", "metadata")
    spy(extraction_module, "detect_language", "language")
    spy(render_module, "to_markdown", "markdown")
    spy(render_module, "to_html", "html")
    return calls


@pytest.mark.parametrize(
    "fields, stages_run",
    [
        (["text"], set()),
        ([], set()),
        (["title"], {"metadata"}),
        (["metadata"], {"metadata"}),
        (["date", "tags"], {"metadata"}),
        (["detected_language"], {"language"}),
        (["language_confidence", "page_type"], {"language"}),
        (["markdown"], {"markdown"}),
        (["html", "author", "detected_language"], {"html", "metadata", "language"}),
    ],
)
@pytest.mark.parametrize("extractor", ["webclean", "baseline"])
def test_fields_skip_the_work_no_asked_field_needs(stages, fields, stages_run, extractor):
    """Each stage runs only when a field asked for needs it; the fields asked
    for are the complete call's, every other optional field is empty."""
    complete = extract(FIELDS_PAGE, url=FIELDS_URL, extractor=extractor, output=["markdown", "html"]).as_dict()
    assert all(stages.values())  # the complete call runs every stage
    stages.update(dict.fromkeys(stages, 0))
    asked = extract(FIELDS_PAGE, url=FIELDS_URL, extractor=extractor, fields=fields).as_dict()
    assert {stage for stage, count in stages.items() if count} == stages_run
    wanted = webclean_scrapy.engine.fields.check_fields(fields)
    for name, value in asked.items():
        if name in wanted or name in CORE_FIELDS:
            assert value == complete[name], name
        else:
            assert value in (None, "", []), name
            assert complete[name] not in (None, "", []), name  # the page has it: leaving it out is seen


def test_the_default_call_is_the_complete_one(stages):
    """No ``fields``: every field, as ``fields=None`` and as naming them all."""
    default = extract(FIELDS_PAGE, url=FIELDS_URL)
    assert stages["metadata"] and stages["language"]
    assert extract(FIELDS_PAGE, url=FIELDS_URL, fields=None) == default
    everything = extract(FIELDS_PAGE, url=FIELDS_URL, fields=[*OPTIONAL_FIELDS])
    assert everything == extract(FIELDS_PAGE, url=FIELDS_URL, output=["markdown", "html"])
    assert default.author == "Jane Roe" and default.detected_language == "en"


def test_fields_and_output_add_up():
    both = extract(FIELDS_PAGE, url=FIELDS_URL, fields=["html"], output="markdown")
    assert both.markdown and both.html and both.title == ""


def test_an_unknown_field_is_an_error_naming_the_known_ones():
    with pytest.raises(ExtractionError, match=r"unknown field\(s\) 'autor'.*metadata, title, author"):
        extract(FIELDS_PAGE, fields=["autor"])
    with pytest.raises(ExtractionError, match="unknown field"):
        extract(FIELDS_PAGE, fields=[None])
    assert extract(FIELDS_PAGE, fields="title").title == "Rivers rise"  # one name alone


def test_an_extraction_crosses_a_process_boundary_whole():
    """Worker processes send extractions back pickled: every field survives."""
    import pickle

    complete = extract(FIELDS_PAGE, url=FIELDS_URL, output=["markdown", "html"])
    copy = pickle.loads(pickle.dumps(complete))
    assert copy == complete and copy.tags is not complete.tags


def test_a_subclass_of_extraction_pickles_whole():
    """The tuple an extraction pickles as is its own fields: a subclass with one
    more keeps its class and its fields."""
    import dataclasses
    import pickle

    @dataclasses.dataclass(slots=True)
    class Scored(Extraction):
        score: float = 0.0

    globals()["Scored"] = Scored  # pickle finds classes by module and name
    Scored.__qualname__ = "Scored"
    scored = Scored("text", "title", "baseline", author="Jane Roe", score=0.5)
    copy = pickle.loads(pickle.dumps(scored))
    assert type(copy) is Scored and copy == scored and copy.score == 0.5
