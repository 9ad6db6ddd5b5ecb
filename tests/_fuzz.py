"""Hostile markup for property-based tests, and what must hold on every page.

Shared by ``tests/test_fuzz.py`` (a few seconds in CI) and
``benchmarks/fuzz.py`` (the long run). The markup strategy builds tag soup
the way broken and hostile pages are built: every structural, inline,
dropped, void and table tag the walk treats specially, unclosed and stray
end tags, attributes that hide (``hidden``, ``style``) or describe
(``class``, ``id``, ``role``, ``itemprop``), text in several scripts with
the punctuation the walk counts, entities, NULs and lone surrogates,
comments, processing instructions, ``</html>`` in the middle, deep nests.

:func:`check_markup` states the properties:

* every registered extractor returns an :class:`~webclean_scrapy.Extraction`
  with ``str`` text, from the ``str`` and from the UTF-8 bytes, or raises
  an :class:`~webclean_scrapy.errors.ExtractionError` (never anything else);
* the compiled walk and the Python reference walk give the same columns;
* the downloader middleware, called in-process on an ``HtmlResponse``,
  returns the response with an extraction or ``None`` attached, and never
  raises.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import strategies as st

from webclean_scrapy.engine import document
from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extraction import Extraction
from webclean_scrapy.engine.extractors import available_extractors, get_extractor
from webclean_scrapy.engine.html.parsing import parse_html
from webclean_scrapy.errors import ExtractionError

TAGS = (
    "div p span a b i font section article main nav aside header footer h1 h2 h3 li ul ol table tr td th "
    "tbody pre blockquote br hr img script style noscript template iframe svg select option input button "
    "label textarea form head body html title meta dd dt dl figure figcaption details summary x-custom"
).split()
ATTRIBUTES = ("class", "id", "role", "itemprop", "hidden", "style", "href", "lang", "content", "name")
ATTRIBUTE_VALUES = st.sampled_from(
    [
        "",
        "content",
        "article-body",
        "nav menu",
        "comment",
        "display:none",
        "visibility: hidden",
        "main",
        "post",
        "sidebar",
        "x" * 40,
        "og:title",
        "canonical",
        "\u00e9t\u00e9",
    ]
) | st.text(max_size=12)
WORDS = st.sampled_from(
    [
        "word",
        "The quick brown fox.",
        "jumps, over",
        "the lazy dog!",
        "\u4e2d\u6587\u6bb5\u843d\u3002",
        "\u0627\u0644\u0639\u0631\u0628\u064a\u0629\u060c",
        "&amp;",
        "&lt;tag&gt;",
        "&nbsp;",
        "&#0;",
        "&#xd800;",
        "\x00",
        "\ud800",
        " ",
        "\n",
        "\u3000",
        ";",
        "?",
        "<",
        ">",
        "&",
        '"',
        "'",
        "\u200b",
    ]
) | st.text(max_size=20)


@st.composite
def start_tag(draw: Any) -> str:
    tag = draw(st.sampled_from(TAGS))
    attributes = draw(st.lists(st.tuples(st.sampled_from(ATTRIBUTES), ATTRIBUTE_VALUES), max_size=3))
    rendered = "".join(f' {name}="{value.replace(chr(34), "")}"' for name, value in attributes)
    return f"<{tag}{rendered}>"


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A tag around children; closed, left open, or closed by the wrong name."""
    return st.builds(
        lambda start, inner, close: start + inner + (close(start) if close else ""),
        start_tag(),
        children,
        st.sampled_from(
            [
                lambda s: "</" + s[1:].split(">")[0].split(" ")[0] + ">",
                None,
                lambda s: "</div>",
                lambda s: "</p>",
                lambda s: "</html>",
            ]
        ),
    )


LEAVES = st.one_of(
    WORDS,
    start_tag(),
    st.sampled_from(
        [
            "<!-- c -->",
            "<!--",
            "<?pi x?>",
            "<![CDATA[x]]>",
            "</html>",
            "</body>",
            "</p>",
            "<br>",
            "<hr/>",
            "<!DOCTYPE html>",
            "<meta charset='latin-1'>",
            "<a href='/x'>",
            "</a>",
            "<",
            "</",
            "<p",
            "<script>",
        ]
    ),
)

#: One page of markup: nested elements and loose pieces, at most a few KB.
MARKUP = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        _element(st.lists(children, max_size=6).map("".join)),
        st.lists(children, max_size=8).map("".join),
        # A deep nest of one tag (past the walk's usual depths).
        st.builds(lambda start, depth, inner: start * depth + inner, start_tag(), st.integers(0, 300), children),
    ),
    max_leaves=60,
)


def walk_columns(doc: Document) -> tuple:
    """Every column both walks fill, and whether the page was revealed (for comparing walks)."""
    blocks, containers = doc.block_columns, doc.container_columns
    return (
        blocks.texts,
        blocks.anchor_texts,
        blocks.positions.tolist(),
        blocks.holders.tolist(),
        blocks.chars.tolist(),
        blocks.anchor_chars.tolist(),
        blocks.marks.tolist(),
        containers.tags,
        containers.attributes,
        containers.parents.tolist(),
        containers.first_blocks.tolist(),
        containers.last_blocks.tolist(),
        containers.chars.tolist(),
        containers.anchor_chars.tolist(),
        doc.revealed,
    )


def check_walks(markup: str) -> None:
    """The compiled walk and the Python reference walk agree on *markup*'s tree."""
    root = parse_html(markup)
    if not document.COMPILED_WALK:
        return
    try:
        compiled = walk_columns(Document(root, truncated=False))
        document.COMPILED_WALK = False
        python = walk_columns(Document(root, truncated=False))
    finally:
        document.COMPILED_WALK = True
    assert compiled == python


def check_extractors(markup: str | bytes) -> None:
    """Every registered extractor, from ``str`` and from its UTF-8 bytes (or
    from raw bytes): an Extraction with ``str`` text, or an ExtractionError."""
    pages: list[str | bytes] = (
        [markup] if isinstance(markup, bytes) else [markup, markup.encode("utf-8", "surrogatepass")]
    )
    for html in pages:
        try:
            with built_page(lambda: Document.from_html(html)) as doc:
                for name in available_extractors():
                    result = get_extractor(name).extract(doc)
                    assert isinstance(result, Extraction) and isinstance(result.text, str), name
                    assert result.truncated is False or doc.truncated
        except ExtractionError:
            pass


def check_middleware(markup: str, middleware: Any) -> None:
    """The downloader middleware in-process: the response comes back with
    an extraction (or ``None``) attached, never an exception."""
    from scrapy import Request
    from scrapy.http import HtmlResponse

    body = markup.encode("utf-8", "surrogatepass")
    request = Request("http://127.0.0.1/page")
    response = HtmlResponse(request.url, body=body, request=request, headers={"Content-Type": "text/html"})
    returned = asyncio.run(middleware.process_response(request, response))
    assert returned is response
    attached = request.meta.get("webclean", "absent")
    assert attached is None or attached == "absent" or isinstance(attached, Extraction)


#: What servers say of a body's charset: nothing, no charset, a wrong legacy one, UTF-16.
CONTENT_TYPES = (None, "text/html", "text/html; charset=iso-8859-1", "text/html; charset=utf-16")


def check_charset(body: bytes) -> None:
    """:class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware`'s check on raw
    bytes, under each of :data:`CONTENT_TYPES`: the response comes back, and
    when the check changed its charset, Scrapy's text of it is the one
    :func:`~webclean_scrapy.engine.text.encoding.decode_html` reads (binary bodies pass)."""
    from scrapy.http import HtmlResponse

    from webclean_scrapy.downloadermiddlewares.charset import extraction_charset, with_encoding
    from webclean_scrapy.engine.text.encoding import decode_html, looks_binary

    for content_type in CONTENT_TYPES:
        headers = {"Content-Type": content_type} if content_type else {}
        response = HtmlResponse("http://127.0.0.1/page", body=body, headers=headers)
        if not body or looks_binary(body, content_type):
            continue
        choice = extraction_charset(response)
        if choice is not None:
            assert with_encoding(response, choice[0]).text == decode_html(body, content_type, response.url)[1]


def make_middleware() -> Any:
    """A :class:`~webclean_scrapy.downloadermiddlewares.extraction.WebcleanMiddleware` extracting inline (default extractor)."""
    from scrapy.utils.test import get_crawler

    from webclean_scrapy.downloadermiddlewares.extraction import WebcleanMiddleware

    crawler = get_crawler(settings_dict={"WEBCLEAN_OFFLOAD": "none"})
    crawler.stats.open_spider()
    return WebcleanMiddleware.from_crawler(crawler)


def check_markup(markup: str, middleware: Any) -> None:
    """All the properties, on one page."""
    check_walks(markup)
    check_extractors(markup)
    check_middleware(markup, middleware)
