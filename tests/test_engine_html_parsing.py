"""No silent text loss: what libxml2 drops is recovered, what cannot be is flagged.

libxml2 stops building the tree at 2,048 open elements and at the first
``</html>``, without an error. Each case: the text comes out whole, or the
:class:`~webclean_scrapy.Extraction` says ``truncated`` (a gzip body cut in
transfer: ``test_downloadermiddlewares_compression.py``).
"""

from __future__ import annotations

import re

import pytest
from parsel import Selector

from webclean_scrapy import extract
from webclean_scrapy.engine import document
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html import parsing
from webclean_scrapy.engine.html.parsing import (
    LIBXML2_MAX_DEPTH,
    flatten_markup,
    has_text_after_html,
    last_depth,
    parse_html,
    parse_page,
)

DEEP = "<div>" * 2047 + "deep" + "</div>" * 2047 + "<p>after</p>"
FONTS = "".join(f"<p><font>paragraph {i} of the page." for i in range(3000))


def block_texts(doc: Document) -> list[str]:
    return list(doc.block_columns.texts)


# -- nesting past libxml2's limit ------------------------------------------------------
def test_libxml2_still_stops_at_its_limit():
    """The premise: a plain parse drops the rest (if libxml2 lifts the limit, this says so)."""
    root = parse_html(DEEP)
    assert last_depth(root) == LIBXML2_MAX_DEPTH
    assert "after" not in "".join(root.itertext())


def test_deep_nesting_keeps_the_text_after():
    result = extract(DEEP)
    assert result.text.split("\n") == ["deep", "after"]
    assert result.truncated is False
    assert extract(DEEP, extractor="baseline").text == "deep\nafter"


def test_unclosed_font_paragraphs_all_kept():
    doc = Document.from_html(FONTS)
    assert len(doc.block_columns) == 3000 and not doc.truncated
    assert block_texts(doc)[-1] == "paragraph 2999 of the page."
    assert extract(FONTS, extractor="baseline").text.count("\n") == 2999


def test_tree_from_elsewhere_is_repaired_from_its_source():
    """Thread offload walks Scrapy's (parsel's) tree: repaired from ``response.text``."""
    selector = Selector(text=FONTS)
    doc = Document(selector.root, source=FONTS)
    assert len(doc.block_columns) == 3000 and not doc.truncated


def test_unrepairable_tree_is_flagged():
    """No source to repair from: the text is what there is, and it says so."""
    doc = Document(parse_html(DEEP))
    assert doc.truncated
    from webclean_scrapy.engine.extractors import get_extractor

    assert get_extractor("baseline").extract(doc).truncated is True


@pytest.mark.parametrize(
    "markup",
    [
        DEEP,
        FONTS,
        "<table>" + "<tr><td><table>" * 1500 + "cell" + "</table>" * 1500 + "<p>tail</p>",
        "<span>" * 5000 + "x" + "<p>y" * 10,
    ],
)
def test_flattening_never_removes_text(markup):
    flat = flatten_markup(markup)
    assert re.sub("<[^>]*>", "", flat) == re.sub("<[^>]*>", "", markup)  # only tags go
    assert last_depth(parse_html(flat)) < LIBXML2_MAX_DEPTH
    root, truncated = parse_page(markup)
    assert not truncated
    text = "".join(root.itertext())
    for word in ("deep", "after", "paragraph 2999", "cell", "tail", "x", "y"):
        if word in markup:
            assert word in text, word


@pytest.mark.compiled_walk
def test_both_walks_agree_on_repaired_pages(monkeypatch):
    for markup in (DEEP, FONTS, "x</html><p>hello</p>"):
        compiled = Document.from_html(markup)
        monkeypatch.setattr(document, "COMPILED_WALK", False)
        python = Document.from_html(markup)
        monkeypatch.setattr(document, "COMPILED_WALK", True)
        assert block_texts(compiled) == block_texts(python)
        assert (compiled.block_columns.positions == python.block_columns.positions).all()


# -- content after </html> ------------------------------------------------------------
def test_content_after_html_end_tag_is_kept():
    assert extract("x</html>hello", extractor="baseline").text == "xhello"
    two = "<html><body><p>first page</p></body></html><html><body><p>second page</p></body></html>"
    assert extract(two, extractor="baseline").text == "first page\nsecond page"
    doc = Document(Selector(text=two).root, source=two)  # thread offload's path
    assert block_texts(doc) == ["first page", "second page"]


def test_what_may_follow_html_end_tag():
    assert not has_text_after_html("<p>a</p></html>\n<!-- cached 0.1 s -->\n<script>x()</script>\n")
    assert has_text_after_html("<p>a</p></HTML ><p>b</p>")
    assert not has_text_after_html("<p>a</p>")
    # A long tail of scripts is read in one pass (possessive), not backtracked.
    assert has_text_after_html("x</html>" + "<script></script>" * 20000 + "y")


# -- a <title> that swallowed the page ---------------------------------------------------
HEAD_JUNK = "function zoom(size) { obj.style.fontSize = size + 'pt'; }\n" * 40
STORY = "".join(f"<p>Paragraph {i} of the story, which every reader of the page saw.</p>" for i in range(30))


def test_a_title_without_its_end_tag_does_not_swallow_the_page():
    """An archive cut a chunk out of the head, end tag included: libxml2
    (like a browser) reads the rest of the page as the title's text, and
    the body is empty. The title is closed at the end of its line, the
    debris up to the next tag dropped, and the story comes out."""
    for mangled in (
        f"<html><head><title>Golfer wins his seventh title (The Times)ntById('font');\n{HEAD_JUNK}</script>",
        "<html><head><title>Golfer wins his seventh title</titlevalue='true' -->\n</head>",
    ):
        page = f"{mangled}<body><div class='story'>{STORY}</div></body></html>"
        assert len(parse_html(page).find("head/title").text) > parsing.RUNAWAY_TITLE_CHARS  # the failure
        assert parsing.has_runaway_title(parse_html(page))
        root, truncated = parse_page(page)
        assert root.find("head/title").text.startswith("Golfer wins his seventh title") and not truncated
        result = extract(page, extractor="baseline")
        assert "Paragraph 29 of the story" in result.text and "obj.style" not in result.text
        doc = Document(Selector(text=page).root, source=page)  # a tree parsed elsewhere (the thread offload's path)
        assert "Paragraph 0 of the story, which every reader of the page saw." in block_texts(doc)


def test_a_long_title_that_is_only_text_stays_whole():
    title = "A very long title " * 100
    page = f"<html><head><title>{title}</title></head><body><p>Body text.</p></body></html>"
    root = parse_html(page)
    assert not parsing.has_runaway_title(root)
    assert parse_page(page)[0].find("head/title").text == title
    assert parsing.close_runaway_title("<p>no title</p>") == "<p>no title</p>"


# -- a body left in the head -----------------------------------------------------------
def test_a_page_with_no_body_tag_keeps_what_its_head_wrongly_holds():
    """An unknown element in the head (``<mbox>``) and no ``<body>`` tag:
    libxml2 leaves the rest of the page in the head, so the page had no
    body and no text. It is moved into a body, as a browser builds it."""
    page = f"<html><head><title>Story</title><meta charset='utf-8'><mbox>{STORY}</mbox><meta name='x'></head></html>"
    assert parse_html(page).find("body") is None  # the failure
    root, _ = parse_page(page)
    assert [e.tag for e in root.find("head")] == ["title", "meta"]
    assert [e.tag for e in root.find("body")] == ["mbox", "meta"]
    assert "Paragraph 29 of the story" in extract(page, extractor="baseline").text
    assert "Paragraph 29 of the story" in extract(page).text
    doc = Document(Selector(text=page).root, source=page)  # a tree parsed elsewhere: parsed again, ours to change
    assert "Paragraph 0 of the story, which every reader of the page saw." in block_texts(doc)
    # A page with a body keeps its head as it is.
    with_body = f"<html><head><title>T</title><mbox>x</mbox></head><body>{STORY}</body></html>"
    assert parsing.body_left_in_head(parse_html(with_body)) is None


def test_a_self_closed_html_start_tag_does_not_end_the_page():
    """``<html xmogo.jpg" alt=".." />``, an archive's debris (one of
    L3S-GN1's pages): libxml2 closes the root there and drops the whole
    page. ``html`` is not a void element: a browser ignores the ``/`` and
    reads on, and so does the repair."""
    page = f'<!DOCTYPE html>\n<html xlogo.jpg" alt="News" width="145" /></a></td><div>{STORY}</div></html>'
    assert len(parse_html(page)) == 0  # the failure
    root, truncated = parse_page(page)
    assert not truncated
    assert "Paragraph 29 of the story" in "".join(root.find("body").itertext())
    assert "Paragraph 29 of the story" in extract(page, extractor="baseline").text
    assert "Paragraph 29 of the story" in extract(page).text
    doc = Document(Selector(text=page).root, source=page)  # a tree parsed elsewhere: parsed again
    assert "Paragraph 0 of the story, which every reader of the page saw." in block_texts(doc)
    # An empty page with a self-closed root stays empty; an open root is left alone.
    assert extract("<html lang='en' />").text == ""
    assert parsing.reopen_html(parse_html(f"<html lang='a/>b'><body>{STORY}</body></html>"), "") is None
