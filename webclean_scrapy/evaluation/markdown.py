"""Markdown read back with a real CommonMark parser, to check what the
Markdown output (:mod:`webclean_scrapy.engine.render`) says.

Used by ``benchmarks/markdown_fidelity.py`` and the tests: the text a
Markdown reader gets (for the shingle comparison with the plain text) and
the shape of every table it finds. Needs ``markdown-it-py`` (in the
``test`` extra), imported on first use.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def parser() -> Any:
    """markdown-it-py's CommonMark parser with GFM tables (no raw HTML)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def inline_text(token: Any) -> str:
    """The text of an ``inline`` token, as read (escapes and emphasis marks gone)."""
    return "".join(
        child.content if child.type in ("text", "code_inline", "html_inline") else " " for child in token.children or ()
    )


def markdown_text(markdown: str) -> str:
    """The text a Markdown reader sees: every inline run and code block,
    one per line, syntax and escapes gone."""
    lines: list[str] = []
    for token in parser().parse(markdown):
        if token.type == "inline":
            lines.append(inline_text(token))
        elif token.type in ("fence", "code_block"):
            lines.append(token.content)
    return "\n".join(lines)


def table_shapes(markdown: str) -> list[list[int]]:
    """For every table the parser finds, the number of cells of each of its
    rows (header row first)."""
    tables: list[list[int]] = []
    for token in parser().parse(markdown):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append(0)
        elif token.type in ("th_open", "td_open"):
            tables[-1][-1] += 1
    return tables


def block_kinds(markdown: str) -> list[str]:
    """The block tokens the parser opens, in order (``heading_open``,
    ``bullet_list_open``, ``blockquote_open``, ``fence``...)."""
    return [
        token.type
        for token in parser().parse(markdown)
        if token.block and token.nesting >= 0 and token.type not in ("inline", "paragraph_open")
    ]
