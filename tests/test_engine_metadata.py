"""Page metadata (webclean_scrapy.engine.metadata) on pages made for the purpose, and its scoring."""

from __future__ import annotations

import dataclasses
import json

import pytest
from scrapy.http import HtmlResponse

from pages import sample_page
from webclean_scrapy import extract
from webclean_scrapy.cli import main
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import (
    ITEM_METADATA_FIELDS,
    Extraction,
    _check_metadata_fields,
    extraction_fields,
)
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.metadata import METADATA_FIELDS, Metadata, extract_metadata, metadata_of
from webclean_scrapy.evaluation import author_exact, normalise_field, same_day, score_metadata, title_scores
from webclean_scrapy.items import FIELD_ORDER, CleanedPage

BODY = "<body><h1>The visible heading</h1><p>" + "Some words of the article. " * 20 + "</p></body>"

GRAPH = (
    """<html><head><title>Raw title | Example News</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "WebSite", "@id": "https://ex.com/#site", "name": "Example News"},
  {"@type": "Person", "@id": "https://ex.com/#jane", "name": "Jane Roe"},
  {"@type": ["NewsArticle"], "headline": "Rivers rise  after rain",
   "author": [{"@id": "https://ex.com/#jane"}, {"@type": "Person", "name": "John Doe"}],
   "publisher": {"@type": "Organization", "name": "Example News"},
   "datePublished": "2025-09-04T10:00:00+02:00", "dateModified": "2025-09-05",
   "description": "Water everywhere.", "keywords": "rivers, rain, Rivers",
   "image": {"@type": "ImageObject", "url": "/img/river.jpg"}}]}</script>
<script type="application/ld+json">{ not json at all</script>
</head>"""
    + BODY
    + "</html>"
)


def test_json_ld_graph_with_referenced_and_nested_authors():
    md = extract_metadata(Document.from_html(GRAPH, url="https://ex.com/news/rivers"))
    assert md.title == "Rivers rise after rain"
    assert md.author == "Jane Roe, John Doe"
    assert md.date == "2025-09-04T10:00:00+02:00"  # the page's own day, not moved to UTC
    assert md.date_modified == "2025-09-05"
    assert md.sitename == "Example News"
    assert md.description == "Water everywhere."
    assert md.tags == ["rivers", "rain"]  # split, case-insensitively deduplicated
    assert md.image == "https://ex.com/img/river.jpg"


def test_opengraph_and_meta_only():
    page = (
        """<html><head><meta property="og:title" content="OG title">
    <meta property="og:site_name" content="Site"><meta name="description" content="Desc">
    <meta property="article:published_time" content="2024-02-29T23:30:00Z">
    <meta property="article:modified_time" content="2024-03-01">
    <meta name="author" content="By Ann Writer"><meta property="article:tag" content="one">
    <meta property="article:tag" content="two"><meta property="og:image" content="https://cdn.ex.com/a.png">
    <meta property="og:url" content="https://ex.com/a"></head>"""
        + BODY
        + "</html>"
    )
    md = extract_metadata(Document.from_html(page, url="https://ex.com/a?utm=1"))
    assert (md.title, md.author, md.sitename, md.description) == ("OG title", "Ann Writer", "Site", "Desc")
    assert (md.date, md.date_modified) == ("2024-02-29T23:30:00Z", "2024-03-01")
    assert md.tags == ["one", "two"] and md.image == "https://cdn.ex.com/a.png"
    assert md.canonical_url == "https://ex.com/a"


def test_microdata_time_and_url():
    page = """<html><head><title>Micro</title></head><body><article itemscope itemtype="https://schema.org/BlogPosting">
    <h1 itemprop="headline">Microdata post</h1>
    <span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Kim Lee</span></span>
    <time itemprop="datePublished" datetime="2023-05-06">May 6</time><p>Text of the post, long enough.</p>
    </article></body></html>"""
    md = extract_metadata(Document.from_html(page, url="https://blog.ex.com/post"))
    assert (md.author, md.date) == ("Kim Lee", "2023-05-06")
    # a dated URL path is taken at its word; a <time> outside any markup counts too
    plain = "<html><body><h1>T</h1><p>Posted <time datetime='2022-01-02T08:00'>then</time></p></body></html>"
    assert extract_metadata(Document.from_html(plain)).date == "2022-01-02T08:00"
    assert extract_metadata(Document.from_html(plain, url="https://ex.com/2021/12/31/t")).date == "2021-12-31"


def test_visible_byline_date_and_rejected_authors():
    page = """<html><head><meta name="author" content="undefined"></head><body><h1>Heading</h1>
    <p>By Sam | Published September 4th, 2025</p><p>In 1999 the story began on March 3, 1999.</p></body></html>"""
    md = extract_metadata(Document.from_html(page))
    assert md.date == "2025-09-04"  # the byline's date, next to the heading
    assert md.author is None  # a placeholder is nobody
    # Blocks with digits but no year (times, counts, a day and month) are
    # passed over; every date form the byline may take is still read.
    for byline, date in [
        ("12 comments | 10:42 | 4 Sept.", None),
        ("12 comments</p><p>Updated 10:42, 24.09.2025", "2025-09-24"),
        ("5 min read</p><p>2025/9/4", "2025-09-04"),
        ("3 likes</p><p>4. September 2025", "2025-09-04"),
        ("7 replies</p><p>on 2025-09-04 at noon", "2025-09-04"),
    ]:
        page = f"<html><body><h1>Heading</h1><p>{byline}</p><p>{'Prose. ' * 40}</p></body></html>"
        assert extract_metadata(Document.from_html(page)).date == date, byline
    for value in ("jdoe_42", "https://ex.com/jane", "@handle", "page.head.author"):
        page = f'<html><head><meta name="author" content="{value}"></head><body><p>x</p></body></html>'
        assert extract_metadata(Document.from_html(page)).author is None, value


def test_organisation_author_only_on_articles():
    page = (
        """<html><head><script type="application/ld+json">{"@type": "Product", "name": "Blue Widget",
    "author": {"@type": "Organization", "name": "Widgets Inc"}}</script></head>"""
        + BODY
        + "</html>"
    )
    doc = Document.from_html(page, url="https://widgets.example/blue")
    assert extract_metadata(doc, page_type="article").author == "Widgets Inc"
    assert extract_metadata(doc, page_type="product").author is None


@pytest.mark.parametrize(
    "page",
    [
        "<html><body><p>Nothing but a paragraph.</p></body></html>",
        "",
        '<html><head><script type=\'application/ld+json\'>[1, "x", null, {"@graph": 5}]</script>'
        "<meta name='date' content='not a date'><meta property='article:published_time' content='2025-13-45'>"
        "<time datetime='yesterday'></time></head><body><p>x</p></body></html>",
        "<script type='application/ld+json'>" + "[" * 100_000 + "]" * 100_000 + "</script><p>x</p>",
    ],
)
def test_pages_that_say_nothing(page):
    md = extract_metadata(Document.from_html(page))
    assert md == Metadata(title=md.title)  # every other field empty
    assert md.date is None and md.tags == []


def test_fields_reach_extraction_item_and_cli(tmp_path, capsys):
    result = extract(GRAPH, url="https://ex.com/news/rivers")
    assert (result.title, result.author, result.date[:10]) == (
        "Rivers rise after rain",
        "Jane Roe, John Doe",
        "2025-09-04",
    )
    response = HtmlResponse("https://ex.com/news/rivers", body=GRAPH.encode(), encoding="utf-8")
    item = CleanedPage.from_response(response, result)
    assert item["author"] == "Jane Roe, John Doe" and item["tags"] == ["rivers", "rain"]
    assert item["sitename"] == "Example News" and item["date_modified"] == "2025-09-05"
    empty = CleanedPage.from_response(response, None)
    assert empty["author"] is None and empty["tags"] == []

    (tmp_path / "p.html").write_text(GRAPH, encoding="utf-8")
    assert main(["extract", str(tmp_path / "p.html"), "-e", "baseline"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["author"] == "Jane Roe, John Doe" and record["date"].startswith("2025-09-04")
    assert list(record)[1] == "canonical_url"  # after source, as in the item
    assert list(record)[-7:] == ["author", "date", "date_modified", "sitename", "description", "tags", "image"]


# -- scoring, on worked examples ---------------------------------------------------
def test_normalised_title_and_author_matches():
    assert normalise_field("  “Rivers Rise” — After Rain!  ") == "rivers rise after rain"
    assert title_scores("Rivers rise after rain | Example News", "Rivers Rise: After Rain") == (
        0.0,
        pytest.approx(2 * (4 / 6) * 1 / (4 / 6 + 1)),
    )  # 4 of 6 words are gold, all 4 gold words found: F1 0.8
    assert title_scores("rivers RISE after rain.", "Rivers rise after rain") == (1.0, 1.0)
    assert title_scores(None, "Rivers") == (0.0, 0.0)
    assert author_exact("jane roe", "Jane Roe") == 1.0
    assert author_exact(None, None) == 1.0 and author_exact("", None) == 1.0  # null gold: empty answer
    assert author_exact("Jane Roe", None) == 0.0 and author_exact(None, "Jane Roe") == 0.0


def test_same_day():
    assert same_day("2025-09-04T23:30:00-05:00", "2025-09-04") == 1.0  # the page's own day
    assert same_day("2025-09-05", "2025-09-04") == 0.0
    assert same_day(None, "2025-09-04") == 0.0
    assert same_day("2025-09-30", "2025-09") == 1.0 and same_day("2025", "2025-09") == 0.0


def test_score_metadata_judges_only_what_the_gold_knows():
    scores = score_metadata("T", None, "2020-01-01", gold_title="T", gold_author=None, gold_date=None)
    assert scores == {"title_exact": 1.0, "title_f1": 1.0, "author_exact": 1.0, "date_same_day": None}
    # no gold title: the page's metadata was not annotated, nothing is judged
    assert set(score_metadata("T", "A", None, gold_title=None, gold_author="A", gold_date=None).values()) == {None}


# -- metadata fields and the item fields -----------------------------------------------------------
# One list of metadata fields (``Metadata``'s) and one Extraction-to-fields mapping.
PAGE = sample_page("metadata-fields.html")


def test_an_extraction_carries_every_metadata_field_of_the_page():
    doc = Document.from_html(PAGE, url="https://ex.example/news/rivers?ref=x")
    extraction = get_extractor("baseline").extract(doc)
    metadata = metadata_of(doc)
    assert {name: getattr(extraction, name) for name in METADATA_FIELDS} == dataclasses.asdict(metadata)
    assert extraction.author == "Jane Roe" and extraction.canonical_url == "https://ex.example/news/rivers"
    assert extraction.tags is not metadata.tags  # a copy: the Metadata is cached with the document


def test_metadata_lists_drive_the_item_fields():
    assert METADATA_FIELDS[0] == "title" and METADATA_FIELDS[-1] == "canonical_url"
    assert ITEM_METADATA_FIELDS == METADATA_FIELDS[1:-1]


def test_extraction_must_declare_what_metadata_holds(monkeypatch):
    _check_metadata_fields()  # as shipped: they agree

    @dataclasses.dataclass
    class MoreMetadata(Metadata):
        license: str | None = None

    monkeypatch.setattr("webclean_scrapy.engine.extraction.Metadata", MoreMetadata)
    with pytest.raises(TypeError, match="Extraction.license"):
        _check_metadata_fields()


def test_the_one_mapping_is_in_the_items_export_order():
    extraction = Extraction("Some text", "T", "baseline", tags=["a"], markdown="# T")
    fields = extraction_fields(extraction, ("markdown", "html"), html_bytes=120)
    assert list(fields) == [name for name in FIELD_ORDER if name in fields]
    assert fields["text_chars"] == 9 and fields["html_bytes"] == 120
    assert fields["markdown"] == "# T" and fields["content_html"] == ""
    empty = extraction_fields(None)
    assert empty["text"] == "" and empty["tags"] == [] and empty["author"] is None
    assert list(empty) == list(extraction_fields(extraction))  # the same fields, filled or not
