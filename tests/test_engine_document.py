"""Pages whose main text is hidden until a script runs (``Document._walk``'s revealing walk)."""

from __future__ import annotations

import pytest

from webclean_scrapy import extract
from webclean_scrapy.engine.document import PROSE_BELOW, Document, prose_chars

MENU = "".join(f'<li><a href="/section-{i}">Section number {i} of the site</a></li>' for i in range(40))
FOOTER = "<footer>" + "".join(f"<span>Office {i}: Monday to Friday, 9 to 5</span>" for i in range(8)) + "</footer>"
ARTICLE = "".join(
    f"<p>Paragraph {i} of an article whose words the reader came for, long enough to read as prose, "
    "with a second clause so that it holds well over eighty characters.</p>"
    for i in range(20)
)


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body><nav><ul>{MENU}</ul></nav>{body}{FOOTER}</body></html>"


@pytest.mark.parametrize(
    "hidden",
    [
        f"<div hidden><article>{ARTICLE}</article></div>",  # React's streamed HTML
        f'<div style="display: none"><div class="tab-panel">{ARTICLE}</div></div>',  # a closed tab
    ],
)
def test_chrome_in_view_and_the_article_hidden_is_revealed(hidden: str) -> None:
    html = page(hidden)
    doc = Document.from_html(html)
    assert int(doc.container_columns.chars[0]) > 500  # not the "nearly empty page" case
    assert doc.revealed
    assert "Paragraph 7 of an article" in doc.block_columns.text()
    assert "Paragraph 7 of an article" in extract(html).text


def test_a_page_with_prose_in_view_keeps_its_hidden_parts_hidden() -> None:
    visible = ARTICLE.replace("Paragraph", "Visible paragraph")
    html = page(f"<main>{visible}</main><div hidden><aside>{ARTICLE}</aside></div>")
    doc = Document.from_html(html)
    assert prose_chars(doc.block_columns) >= PROSE_BELOW
    assert not doc.revealed
    assert "Visible paragraph 3" in doc.block_columns.text()
    assert "Paragraph 3 of an article" not in doc.block_columns.text()


def test_a_hidden_menu_is_not_reason_enough_to_reveal() -> None:
    html = page(f"<p>{'A short visible note. ' * 5}</p><div hidden><ul>{MENU}{MENU}</ul></div>")
    doc = Document.from_html(html)
    assert not doc.revealed
    assert doc.block_columns.text().count("Section number 3 of") == 1
