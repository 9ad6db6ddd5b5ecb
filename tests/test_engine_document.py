"""The document model (``webclean_scrapy.engine.document``): blocks and containers from the markup, what the
walk drops, freeing a page; and pages whose main text is hidden until a script runs (``Document._walk``'s
revealing walk)."""

from __future__ import annotations

import pytest

from pages import MENU, PARTS_PAGE, menu_page
from webclean_scrapy import extract
from webclean_scrapy.engine.document import PROSE_BELOW, Document, prose_chars

ARTICLE = "".join(
    f"<p>Paragraph {i} of an article whose words the reader came for, long enough to read as prose, "
    "with a second clause so that it holds well over eighty characters.</p>"
    for i in range(20)
)


@pytest.mark.parametrize(
    "hidden",
    [
        f"<div hidden><article>{ARTICLE}</article></div>",  # React's streamed HTML
        f'<div style="display: none"><div class="tab-panel">{ARTICLE}</div></div>',  # a closed tab
    ],
)
def test_chrome_in_view_and_the_article_hidden_is_revealed(hidden: str) -> None:
    html = menu_page(hidden)
    doc = Document.from_html(html)
    assert int(doc.container_columns.chars[0]) > 500  # not the "nearly empty page" case
    assert doc.revealed
    assert "Paragraph 7 of an article" in doc.block_columns.text()
    assert "Paragraph 7 of an article" in extract(html).text


def test_a_page_with_prose_in_view_keeps_its_hidden_parts_hidden() -> None:
    visible = ARTICLE.replace("Paragraph", "Visible paragraph")
    html = menu_page(f"<main>{visible}</main><div hidden><aside>{ARTICLE}</aside></div>")
    doc = Document.from_html(html)
    assert prose_chars(doc.block_columns) >= PROSE_BELOW
    assert not doc.revealed
    assert "Visible paragraph 3" in doc.block_columns.text()
    assert "Paragraph 3 of an article" not in doc.block_columns.text()


def test_a_hidden_menu_is_not_reason_enough_to_reveal() -> None:
    html = menu_page(f"<p>{'A short visible note. ' * 5}</p><div hidden><ul>{MENU}{MENU}</ul></div>")
    doc = Document.from_html(html)
    assert not doc.revealed
    assert doc.block_columns.text().count("Section number 3 of") == 1


# -- the document model ----------------------------------------------------------------------------
def test_document_blocks_are_strings_between_structural_tags():
    doc = Document.from_html(PARTS_PAGE)
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
    text = extract(PARTS_PAGE, extractor="baseline").text
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
    doc = Document.from_html(PARTS_PAGE)
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

    selector = Selector(text=PARTS_PAGE)
    before = selector.root.xpath("count(//*)")
    doc = Document(selector.root, url="http://example.com/", source=PARTS_PAGE)
    assert doc.blocks[1].text == "Heading"
    assert selector.root.xpath("count(//*)") == before
    assert selector.css("script::text").get() == 'var x = "script text";'


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
        doc = Document.from_html(PARTS_PAGE)
        assert alive() == before  # the walk fills columns; objects only on demand
        assert doc.containers[1].children and doc.blocks[0].container.direct_blocks
        assert alive() > before
        doc.release()
        del doc
        assert alive() == before  # freed by reference counting alone
    finally:
        if enabled:
            gc.enable()
