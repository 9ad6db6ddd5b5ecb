"""The compiled walk gives exactly the Python walk's blocks and containers.

``webclean_scrapy.engine.html._walk`` reads libxml2's nodes directly; the pure-Python
walk (``webclean_scrapy.engine.html.walk.walk``) is the reference. Every column of both
tables, and every field of every block and container object built from
them, is compared, on hand-made edge cases and on the dev datasets.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree
from parsel import Selector

from _fuzz import walk_columns
from pages import sample_page
from webclean_scrapy.engine import document
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.parsing import parse_html
from webclean_scrapy.engine.text.encoding import decode_html

#: The compiled walk's module (``None`` when not built; the tests that use it are marked).
compiled_walk: Any = document._compiled_walk

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

EDGE_CASES = {
    "anchors": '<p>a <a href="x">link <b>bold</b></a> tail <a>two</a></p><a><div>block in link</div> after</a>',
    "hidden and dropped": (
        '<div hidden>h</div><div style="color:red; DISPLAY : none">s</div>'
        '<p style="">kept</p><div style>bare</div><script>x</script>tail<p>p</p>'
        '<select><option>o</option></select><input value="v">after input'
    ),
    "comments and pi": "<p>one<!-- c -->two<?pi x?>three</p><!-- end -->four",
    "whitespace only": "<p>\xa0 \u3000\n</p><p> \t </p><div>\u2003x\u2003</div>",
    "breaks": "<p>a<br>b<hr>c<br/></p>text<br>",
    "unclosed": "<div><p>one<p>two<li>three<table><td>cell",
    "empty": "",
    "cjk": "<article><h1>标题</h1><p>中文段落，测试。</p></article>",
    "entities": "<p>&amp; &lt;tag&gt; &nbsp;&copy;</p>",
    # Pages whose text only a revealing walk finds (Document._walk).
    "noscript posts": (
        '<div class="splash">Loading</div><noscript><div id="main-outlet"><div class="post">'
        + "<p>A forum post served to crawlers inside noscript, with enough words to count.</p>" * 8
        + "</div></div></noscript><script>x</script>"
    ),
    "streamed hidden": (
        '<nav><a href="/">Home</a></nav><div hidden id="S:0"><article><h1>Title</h1>'
        + '<p style="display:none">A paragraph React parks in a hidden div until a script runs.</p>' * 8
        + "</article></div>"
    ),
}


@pytest.mark.parametrize("name", ["noscript posts", "streamed hidden"])
def test_a_page_with_little_visible_text_is_walked_again_revealing(name: str) -> None:
    doc = Document.from_html(EDGE_CASES[name])
    assert doc.revealed
    assert "served to crawlers" in doc.block_columns.text() or "React parks" in doc.block_columns.text()
    assert "Loading" not in doc.block_columns.text() or name == "noscript posts"


def test_a_page_with_visible_text_is_not_revealed() -> None:
    page = "<p>" + "Visible prose of the page, long enough to stand on its own. " * 10 + "</p>"
    doc = Document.from_html(page + "<noscript><p>Please enable JavaScript.</p></noscript><div hidden>secret</div>")
    assert not doc.revealed
    assert "JavaScript" not in doc.block_columns.text() and "secret" not in doc.block_columns.text()


def snapshot(doc: Document) -> tuple[list, list, tuple]:
    columns = walk_columns(doc)
    container_views = [
        (
            c.index,
            c.tag,
            c.parent.index if c.parent else None,
            c.depth,
            c.chars,
            c.anchor_chars,
            c.block_count,
            c.first_block,
            c.last_block,
            [x.index for x in c.children],
            [b.index for b in c.direct_blocks],
            c.element,
            c.attributes,
        )
        for c in doc.containers
    ]
    block_views = [
        (b.index, b.position, b.text, b.container.index, b.chars, b.anchor_chars, b.anchor_text) for b in doc.blocks
    ]
    return container_views, block_views, columns


def both_walks(root: etree._Element, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    monkeypatch.setattr(document, "COMPILED_WALK", True)
    compiled = snapshot(Document(root))
    monkeypatch.setattr(document, "COMPILED_WALK", False)
    python = snapshot(Document(root))
    return compiled, python


def c_compiler() -> str | None:
    """The C compiler setup.py builds the extensions with, if the machine has one."""
    import os
    import shlex
    import shutil
    import sysconfig

    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(shlex.split(command)[0])


@pytest.mark.skipif(c_compiler() is None, reason="no C compiler: the pure-Python walk is the one expected here")
def test_the_compiled_walk_is_built() -> None:
    # The speed goals rest on it; a silent fallback to Python where it could be built is a regression.
    assert document.COMPILED_WALK, "webclean_scrapy.engine.html._walk was not built (is a C compiler installed?)"
    assert compiled_walk.is_html_tree(parse_html("<p>x</p>"))


@pytest.mark.compiled_walk
@pytest.mark.parametrize("name", EDGE_CASES)
def test_same_blocks_and_containers_on_edge_cases(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled, python = both_walks(parse_html(EDGE_CASES[name]), monkeypatch)
    assert compiled == python


def test_edge_case_blocks_are_what_the_walk_promises() -> None:
    doc = Document(parse_html(EDGE_CASES["anchors"]))
    assert [(b.text, b.anchor_text) for b in doc.blocks] == [
        ("a link bold tail two", "link bold two"),
        ("block in link", "block in link"),
        ("after", "after"),
    ]
    doc = Document(parse_html(EDGE_CASES["hidden and dropped"]))
    assert [b.text for b in doc.blocks] == ["kept", "bare", "tail", "p", "after input"]
    assert [b.text for b in Document(parse_html(EDGE_CASES["whitespace only"])).blocks] == ["x"]


@pytest.mark.compiled_walk
def test_subtree_root_stops_at_its_own_end(monkeypatch: pytest.MonkeyPatch) -> None:
    root = parse_html("<div id='a'><p>inside</p></div>after<p>sibling</p>")
    inner = root.find(".//div")
    compiled, python = both_walks(inner, monkeypatch)
    assert compiled == python
    assert [b[2] for b in compiled[1]] == ["inside"]


@pytest.mark.compiled_walk
def test_parsel_root_and_deep_nesting(monkeypatch: pytest.MonkeyPatch) -> None:
    selector = Selector(text="<html><body><div><p>from parsel</p></div></body></html>")
    compiled, python = both_walks(selector.root, monkeypatch)
    assert compiled == python and compiled[1][0][2] == "from parsel"
    deep = parse_html("<div>" * 3000 + "deep text" + "</div>" * 3000 + "<p>after</p>")
    compiled, python = both_walks(deep, monkeypatch)
    assert compiled == python


@pytest.mark.compiled_walk
def test_xml_trees_take_the_python_walk() -> None:
    root = etree.fromstring("<html><body><p>xml parsed</p></body></html>")
    assert not compiled_walk.is_html_tree(root)
    assert not compiled_walk.is_html_tree("<p>not an element</p>")
    assert [b.text for b in Document(root).blocks] == ["xml parsed"]


@pytest.mark.compiled_walk
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_same_output_on_dataset_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted(DATA.glob("*/html/*.html.gz"))[::7]
    assert files
    for path in files:
        root = parse_html(decode_html(gzip.decompress(path.read_bytes()))[1])
        compiled, python = both_walks(root, monkeypatch)
        assert compiled == python, path


def test_mark_counts_are_the_numpy_counts() -> None:
    """``BlockColumns.count`` (compiled: ``_walk.mark_counts``) against its
    numpy reference, for single marks and sets of them, whole pages and
    ranges (empty, at either end, past the end), on generated and real pages."""
    from webclean_scrapy.engine.text.marks import PUNCTUATION_MARKS

    rng = random.Random(5)
    pieces = [*PUNCTUATION_MARKS, "a", " ", "</p><p>", "<li>", "word"]
    pages: list[str | bytes] = [
        "<p>" + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 200))) for _ in range(100)
    ]
    pages += [gzip.decompress(path.read_bytes()) for path in sorted(DATA.glob("*/html/*.html.gz"))[::97]]
    for page in pages:
        blocks = Document.from_html(page).block_columns
        n = len(blocks)
        for marks in ("", ",", ".!", PUNCTUATION_MARKS, "".join(rng.sample(PUNCTUATION_MARKS, 3)), ",,"):
            for rows in (slice(None), slice(0, 0), slice(n // 3, n), slice(0, n // 2), slice(n - 1, n + 5)):
                found, expected = blocks.count(marks, rows), blocks.python_count(marks, rows)
                assert found.dtype == expected.dtype == np.int64
                assert found.tolist() == expected.tolist(), (marks, rows)


def test_without_the_extension_the_python_walk_runs() -> None:
    # An install without a C compiler has no webclean_scrapy.engine.html._walk; importing
    # must still work and extraction give the same text.
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['webclean_scrapy.engine.html._walk'] = None\n"
        "import webclean_scrapy\n"
        "from webclean_scrapy.engine import document\n"
        "assert not document.COMPILED_WALK\n"
        "print(webclean_scrapy.extract('<article><p>' + 'Some words here. ' * 20 + '</p></article>').text)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ("Some words here. " * 20).strip()


@pytest.mark.compiled_walk
def test_whitespace_is_what_str_split_splits_on() -> None:
    # The compiled walk collapses whitespace on UTF-8 bytes; the Python walk
    # uses " ".join(text.split()). Every code point, between two letters:
    collapse = compiled_walk.collapse_whitespace
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue  # surrogates cannot be encoded in UTF-8
        text = "a" + chr(code) + "b"
        expected = " ".join(text.split())
        assert collapse(text.encode())[:2] == (expected, expected.count(" ")), hex(code)


@pytest.mark.compiled_walk
def test_whitespace_next_to_invalid_utf8_collapses_as_decoded() -> None:
    # Truncated sequences, stray continuation bytes, encoded surrogates and
    # bytes that never occur in UTF-8, mixed with every kind of whitespace
    # and the punctuation marks counted: the bytes must collapse, and the
    # marks be counted, as in the text decoded with "replace".
    pieces = [
        b" ",
        b"\t",
        b"\x1c",
        b"\xc2\xa0",
        b"\xc2\x85",
        b"\xe3\x80\x80",
        b"\xe2\x80\x8a",
        b"\xe2\x80\xaf",
        b"\xe2\x81\x9f",
        b"\xe1\x9a\x80",
        b"a",
        b"\xe4\xb8\xad",
        b"\xc2",
        b"\xe2",
        b"\xe2\x80",
        b"\xe3\x80",
        b"\x80",
        b"\xff",
        b"\xed\xa0\x80",
        b"\xf0\x90",
        b".",
        b",",
        b"\xe3\x80\x82",
        b"\xef\xbc\x8c",
        b"\xef\xbc",
        b"\xd8\x8c",
        b"\xd8",
        b"\xef\xbd\xa1",
    ]
    collapse = compiled_walk.collapse_whitespace
    rng = random.Random(4)
    for _ in range(20_000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        decoded = data.decode("utf-8", "replace")
        expected = " ".join(decoded.split())
        counts = [decoded.count(mark) for mark in document.PUNCTUATION_MARKS]
        assert collapse(data, document._MARK_BYTES) == (expected, expected.count(" "), counts), data


@pytest.mark.compiled_walk
def test_elements_are_found_again_on_demand() -> None:
    # The compiled walk makes no element proxies; the object views find
    # them with a second walk, and refuse a tree modified in between.
    root = parse_html("<div id='a'><p>one</p><section><p>two</p></section></div>")
    doc = Document(root)
    assert document.COMPILED_WALK and doc._elements.elements is None
    assert [c.tag for c in doc.containers] == ["html", "body", "div", "p", "section", "p"]
    assert doc._elements.elements is None  # the views alone do not need them
    assert [c.element.tag for c in doc.containers] == ["html", "body", "div", "p", "section", "p"]
    assert doc.containers[2].element is root.find(".//div")
    changed = Document(root)
    section = root.find(".//section")
    section.getparent().remove(section)
    assert len(changed.containers) == 6  # the tables and views stand as walked
    with pytest.raises(RuntimeError, match="modified"):
        changed.containers[2].element  # noqa: B018 (the access raises)


SURVEYED = sample_page("walk-surveyed.html")
SURVEY_TAGS = ("a", "meta", "link", "script", "time", "img", "svg")
#: Attribute values read per tag, without element proxies (tags not in SURVEY_TAGS).
SURVEY_TAG_VALUES = (("area", "href"), ("span", "itemprop"), ("div", "data-x"))


def survey(root: etree._Element) -> tuple:
    return document.survey(root, SURVEY_TAGS, ("itemtype",), ("itemprop",), SURVEY_TAG_VALUES)


def python_survey(root: etree._Element, monkeypatch: pytest.MonkeyPatch) -> tuple:
    with monkeypatch.context() as patch:
        patch.setattr(document, "COMPILED_WALK", False)
        return survey(root)


@pytest.mark.compiled_walk
def test_the_survey_finds_what_iter_and_xpath_find(monkeypatch: pytest.MonkeyPatch) -> None:
    root = parse_html(SURVEYED)
    compiled = survey(root)
    assert compiled == python_survey(root, monkeypatch)
    tags, values, holders, tag_values = compiled
    assert [el.get("href") for el in tags["a"]] == ["/one", "/in-svg", "/t"]
    assert values == [["https://schema.org/WebPage", "https://schema.org/Person", "x y"]]
    assert [el.tag for el in holders[0]] == ["div", "span", "meta", "time", "a", "img"]
    # Per (tag, attribute): the value on each element of the tag, None where it has none.
    assert tag_values == [["/m", None, ""], ["price", None], [None, None, "a&b"]]
    # From a subtree: its own tagged elements, the whole document's attributes (as ``//`` reads them).
    body = root.find("body")
    compiled = survey(body)
    assert compiled == python_survey(body, monkeypatch)
    assert compiled[0]["meta"] == [root.find(".//body/meta")] and len(compiled[1][0]) == 3
    assert compiled[3] == [["/m", None, ""], ["price", None], [None, None, "a&b"]]
    # A subtree without them: empty lists.
    head = root.find("head")
    assert survey(head)[3] == [[], [], []] == python_survey(head, monkeypatch)[3]
    # A tag asked for both as elements and as values: refused by either pass.
    for compiled_walk in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(document, "COMPILED_WALK", compiled_walk)
            with pytest.raises(ValueError, match="also in tags"):
                document.survey(root, ("a",), (), (), (("a", "href"),))


@pytest.mark.compiled_walk
@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_same_survey_on_dataset_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted(DATA.glob("*/html/*.html.gz"))[::23]
    assert files
    for path in files:
        root = parse_html(decode_html(gzip.decompress(path.read_bytes()))[1])
        assert survey(root) == python_survey(root, monkeypatch), path
