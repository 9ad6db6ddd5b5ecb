"""One list of metadata fields (``Metadata``'s) and one Extraction-to-fields mapping."""

from __future__ import annotations

import dataclasses

import pytest

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import (
    ITEM_METADATA_FIELDS,
    Extraction,
    _check_metadata_fields,
    extraction_fields,
)
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.metadata import METADATA_FIELDS, Metadata, metadata_of
from webclean_scrapy.items import FIELD_ORDER

PAGE = """<html lang="en"><head><title>Rivers rise | Example News</title>
<meta property="og:site_name" content="Example News"><meta name="author" content="Jane Roe">
<meta property="article:published_time" content="2025-09-04"><meta name="description" content="Rain.">
<meta name="keywords" content="rivers, rain"><meta property="og:image" content="/lead.jpg">
<link rel="canonical" href="/news/rivers"></head><body><article><h1>Rivers rise</h1>
<p>The rivers rose after three days of rain, and the town closed the lower bridge for the night.</p>
</article></body></html>"""


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
