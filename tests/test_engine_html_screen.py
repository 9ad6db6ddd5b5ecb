"""The markup screens: the compiled attribute screen scans exactly as the regular expression does, and a
page with too many tags is cut after the limit and said truncated."""

from __future__ import annotations

import random

import pytest

from pages import attribute_bomb, og_article
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html import screen
from webclean_scrapy.engine.html.screen import _SCAN, MAX_ATTRIBUTES_PER_ELEMENT, scan_pattern, screen_markup

_screen = pytest.importorskip("webclean_scrapy.engine.html._screen")

PIECES = [
    *(bytes([c]) for c in b'<>/="\' \t\n\x0b\x0caBx-!?\x00'),
    b"<!--", b"-->", b"--", b"<script", b"<SCRIPT", b"</script", b"</ScRiPt", b"<style", b"</style",
    b"<div", b"</div>", b" a=1", b' b="q"', b" c='r'", b"\xc3\xa9", b"<a", b"<p ", b" d", b"<!x", b"<?pi",
    b"scripts", b"<scriptx",
]  # fmt: skip


def reference(pattern, body: bytes, start: int):
    match = pattern.match(body, start)
    return None if match.group(1) is None else (match.end(1), match.end())


@pytest.mark.parametrize("limit", [1, 2, 3, 5])
def test_same_cuts_as_the_regular_expression_on_generated_markup(limit: int) -> None:
    pattern = scan_pattern(limit)
    rng = random.Random(limit)
    found = 0
    for _ in range(20000):
        body = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        start = rng.randrange(len(body)) if body and rng.random() < 0.2 else 0
        expected = reference(pattern, body, start)
        assert _screen.scan(body, start, limit) == expected, (body, start)
        found += expected is not None
    assert found > 1000  # the overloaded case is exercised, not only the clean one


def test_the_shipped_limit() -> None:
    assert _SCAN.pattern == scan_pattern(MAX_ATTRIBUTES_PER_ELEMENT).pattern
    tag = b"<div " + b" ".join(b"a%d=1" % i for i in range(MAX_ATTRIBUTES_PER_ELEMENT + 5)) + b">text</div>"
    body = b"<p>before</p><script>var s = '<div a b c>';</script>" + tag
    assert _screen.scan(body, 0, MAX_ATTRIBUTES_PER_ELEMENT) == reference(_SCAN, body, 0) is not None
    screened, reasons = screen_markup(body)
    assert reasons == ("attributes",) and screened.endswith(b">text</div>") and b"a1004=1" not in screened
    assert _screen.scan(b"", 0, 3) is None and screen_markup(b"<p>plain</p>") == (b"<p>plain</p>", ())


def test_screen_cuts_overloaded_elements_only():
    bomb = attribute_bomb(5_000).encode()
    screened, reasons = screen_markup(bomb)
    assert reasons == ("attributes",)
    doc = Document.from_html(bomb)
    assert doc.screened == ("attributes",)
    assert len(doc.root.xpath("//div")[0].attrib) == MAX_ATTRIBUTES_PER_ELEMENT
    assert "inside the bomb" in doc.block_columns.text() and "Bombed story" in doc.title
    # Ordinary pages come back as they were, not copied.
    page = og_article("Plain").encode()
    assert screen_markup(page) == (page, ())
    assert Document.from_html(page).screened == ()


@pytest.mark.parametrize(
    "markup",
    [
        # no blanks between quoted attributes: still separate attributes to libxml2
        "<div " + "".join(f'a{i}="1"' for i in range(3_000)) + ">x</div>",
        # unquoted and valueless attributes
        "<p " + " ".join(f"a{i}" for i in range(3_000)) + ">x</p>",
        # an overloaded tag right after a comment and a script holding "<" and quotes
        '<!-- <b \'" --><script>if (a<b) { s = "\'" }</script><i ' + " ".join(f"b{i}=2" for i in range(3_000)) + ">",
    ],
)
def test_screen_sees_through_quotes_and_separators(markup):
    screened, reasons = screen_markup(markup.encode())
    assert reasons == ("attributes",)
    assert len(screened) < len(markup)


@pytest.mark.parametrize(
    "markup",
    [
        # "<" followed by many words inside a script, a comment, a quoted value: not tags
        "<script>var x = 1; if (i<n) {" + " y" * 3_000 + "}</script><p>text</p>",
        "<!-- <b" + " c" * 3_000 + " -->",
        '<img alt="<svg' + " d" * 3_000 + '">',
        # many attributes, but within the bound
        "<div " + " ".join(f"a{i}=1" for i in range(MAX_ATTRIBUTES_PER_ELEMENT)) + ">x</div>",
    ],
)
def test_screen_leaves_ordinary_markup_alone(markup):
    assert screen_markup(markup.encode()) == (markup.encode(), ())


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("count_slice", [7, 64, 1 << 20])
def test_a_page_with_too_many_tags_is_cut_before_the_first_one_over(monkeypatch, count_slice, compiled):
    monkeypatch.setattr(screen, "MAX_TAGS", 50)
    monkeypatch.setattr(screen, "_COUNT_SLICE", count_slice)
    if not compiled:
        monkeypatch.setattr(screen, "_compiled_count", None)
    rng = random.Random(count_slice)
    for _ in range(200):
        body = b"".join(rng.choice([b"<p>", b"</p>", b"text ", b"<", b"\xc3\xa9"]) for _ in range(rng.randint(0, 150)))
        cut = screen.screen_tags(body)
        positions = [i for i, byte in enumerate(body) if byte == ord("<")]
        if len(positions) <= 50:
            assert cut is None
        else:
            assert cut == body[: positions[50]]


def test_a_page_cut_for_its_tags_is_extracted_from_its_start_and_said_truncated(monkeypatch):
    monkeypatch.setattr(screen, "MAX_TAGS", 1000)
    page = b"<html><body>" + b"".join(b"<p>paragraph %d.</p>" % i for i in range(2000)) + b"</body></html>"
    doc = Document.from_html(page)
    assert doc.screened == ("tags",) and doc.truncated
    texts = {block.text for block in doc.blocks}
    assert "paragraph 0." in texts and "paragraph 498." in texts and "paragraph 1999." not in texts
    ordinary = Document.from_html(b"<html><body><p>one</p></body></html>")
    assert ordinary.screened == () and not ordinary.truncated


def test_count_byte_is_bytes_count():
    rng = random.Random(3)
    for length in [0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 1000, 4099]:
        data = bytes(rng.choice(b"<<>a\x00\xff\xc3") for _ in range(length))
        for byte in (ord("<"), 0, 255, ord("z")):
            assert _screen.count_byte(data, byte) == data.count(bytes([byte])), (length, byte)
    assert _screen.count_byte(bytearray(b"<p><b>"), ord("<")) == 2
    with pytest.raises(TypeError):
        _screen.count_byte("<p>", ord("<"))


def test_the_shipped_tag_limit_is_far_above_real_pages():
    assert screen.MAX_TAGS >= 10 * 22_000  # the most tags among the evaluation sets' pages


# -- the find of an ASCII needle ---------------------------------------------------

#: Characters of each width, and the bytes of "</html" inside wider characters
#: (U+3C2F holds "<" and "/", U+1F3C "<" with another byte).
FIND_PIECES = ["<", "/", "h", "t", "m", "l", "</html", "</HTML", "</htm", " ", "é", "\u3c2f", "\u1f3c", "\u6c6d",
               "\U0001f3c3", "\U00013c2f", "\x00"]  # fmt: skip


@pytest.mark.parametrize("needle", ["</html", "</HTML", "<", "l", "/h"])
def test_find_ascii_is_str_find(needle: str) -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(FIND_PIECES) for _ in range(rng.randrange(0, 12)))
        assert _screen.find_ascii(text, needle) == text.find(needle), (text, needle)


def test_find_ascii_refuses_what_is_not_an_ascii_needle() -> None:
    for needle in ("", "é"):
        with pytest.raises(ValueError):
            _screen.find_ascii("text", needle)
