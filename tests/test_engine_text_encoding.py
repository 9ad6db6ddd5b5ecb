"""Charset edge cases: BOM-less UTF-16 from HTTP, stray NUL bytes,
``<meta charset="utf-16">`` on an ASCII page, UTF-8 declared as a legacy
charset, UTF-8 decoded twice before publication, and the same text from the thread path (Scrapy's decoded response)
and the process path (raw bytes)."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from chardetng_py import EncodingDetector
from scrapy.http import HtmlResponse

from pages import CZECH_PAGE, LEGACY_PAGES, WORDS, charset_page, legacy_page
from webclean_scrapy import NotHTMLError, available_extractors, extract, get_extractor
from webclean_scrapy.engine.text.encoding import (
    DETECTION_BYTES,
    DETECTION_CONTEXT,
    REPAIR_BUDGET,
    decode_html,
    detection_input,
    double_encoded,
    html_encoding,
    is_plain_utf8,
    looks_binary,
    mostly_utf8,
    python_detection_input,
    top_level_domain,
    undo_double_encoding,
)
from webclean_scrapy.offload import extract_markup, extract_response


@pytest.mark.parametrize(
    "codec,charset",
    [
        ("utf-16-le", "utf-16"),
        ("utf-16-be", "utf-16"),
        ("utf-16-le", "UTF-16LE"),
        ("utf-16-be", "utf-16be"),
        ("utf-32-le", "utf-32"),
    ],
)
def test_bomless_utf16_declared_by_http(codec, charset):
    body = charset_page().encode(codec)
    content_type = f"text/html; charset={charset}"
    assert not looks_binary(body, content_type)
    assert WORDS in decode_html(body, content_type)[1]
    assert WORDS in extract(body, encoding=content_type).text
    with pytest.raises(NotHTMLError):  # undeclared, its NULs still say binary: browsers do not sniff it
        extract(body)


def test_one_nul_byte_is_not_binary():
    body = charset_page().encode().replace(b"<body>", b"<body>\x00")
    assert not looks_binary(body)
    assert WORDS in extract(body).text
    assert not looks_binary(b"<p>hi</p>\x00")  # short pages too
    assert not looks_binary(charset_page(extra="<p>a\x00b\x00c</p>").encode())


@pytest.mark.parametrize(
    "body",
    [
        b"\x89PNG\r\n\x1a\n" + bytes(100),
        b"%PDF-1.4\n",
        bytes(range(256)) * 4,
        b"\x00\x01\x02\x03" * 64,
        "<html>".encode("utf-16-le") * 20,  # undeclared UTF-16
    ],
)
def test_binary_is_still_binary(body):
    assert looks_binary(body)
    with pytest.raises(NotHTMLError):
        extract(body)


@pytest.mark.parametrize(
    "declaration",
    [
        '<meta charset="utf-16">',
        '<meta charset="UTF-16LE">',
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-16">',
        '<meta charset="utf-32">',
    ],
)
def test_meta_utf16_on_an_ascii_page_is_utf8(declaration):
    """HTML standard: a <meta> that could be read as ASCII cannot mean UTF-16; use UTF-8."""
    ascii_body = charset_page(declaration).encode("ascii", "xmlcharrefreplace")
    utf8_body = charset_page(declaration).encode("utf-8")
    assert html_encoding(ascii_body) == "utf-8"
    assert WORDS in extract(ascii_body).text
    assert WORDS in extract(utf8_body).text


def test_http_charset_and_bom_still_win():
    body = charset_page('<meta charset="utf-16">').encode("latin-1", "replace")
    assert html_encoding(body, "text/html; charset=iso-8859-1") == "cp1252"
    assert html_encoding(b"\xef\xbb\xbf" + body, "text/html; charset=iso-8859-1") == "utf-8"


CHINESE = "\u8fd9\u6b3e\u4ea7\u54c1\u5177\u6709\u6781\u5176\u91cd\u8981\u7684\u610f\u4e49\u3002" * 20


@pytest.mark.parametrize(
    "body,content_type",
    [
        (charset_page().encode(), "text/html; charset=iso-8859-1"),  # Apache's default header on a UTF-8 page
        (charset_page('<meta charset="windows-1252">').encode(), "text/html"),  # re-saved as UTF-8, old <meta> kept
        (charset_page('<meta charset="gb2312">', f"<p>{CHINESE}</p>").encode(), None),
        (charset_page(extra=f"<p>{CHINESE}</p>").encode(), "text/html; charset=gbk"),
    ],
)
def test_utf8_declared_as_a_legacy_charset_is_utf8(body, content_type):
    """A body whose non-ASCII bytes are all valid UTF-8 is UTF-8, whatever
    legacy charset its header or ``<meta>`` names: read as declared it is
    mojibake (``CafÃ©``)."""
    assert html_encoding(body, content_type) == "utf-8"
    text = extract(body, encoding=content_type).text
    assert WORDS in text
    assert "\u00c3" not in text
    if CHINESE.encode() in body:
        assert CHINESE in text


@pytest.mark.parametrize(
    "body,content_type,charset",
    [
        (charset_page().encode("cp1252"), "text/html; charset=iso-8859-1", "cp1252"),
        (charset_page('<meta charset="windows-1252">').encode("cp1252"), None, "cp1252"),
        (charset_page('<meta charset="gbk">', f"<p>{CHINESE}</p>").encode("gbk", "replace"), None, "gb18030"),
        (charset_page(extra=f"<p>{CHINESE}</p>").encode("big5", "replace"), "text/html; charset=big5", "big5hkscs"),
        # 7-bit: pure ASCII keeps its declaration (ISO-2022-JP's escapes are ASCII bytes)
        (
            "<p>\u65e5\u672c\u8a9e\u306e\u6587\u7ae0</p>".encode("iso2022_jp"),
            "text/html; charset=iso-2022-jp",
            "iso2022_jp",
        ),
    ],
)
def test_text_truly_in_a_legacy_charset_keeps_it(body, content_type, charset):
    """Text in the charset it declares is not valid UTF-8 (accented letters
    and double-byte characters are not followed by UTF-8's continuation
    bytes), or is ASCII: the declaration stands."""
    assert html_encoding(body, content_type) == charset
    text = decode_html(body, content_type)[1]
    assert text == body.decode(charset, "replace")


def twice(text: str, codec: str = "cp1252") -> str:
    """*text* as a page shows it after its UTF-8 was decoded as *codec* and
    saved again (Windows-1252 as browsers read it: its five undefined bytes
    are the C1 controls of Latin-1)."""
    return "".join(
        chr(byte) if codec == "latin-1" or byte in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else bytes([byte]).decode(codec)
        for byte in text.encode("utf-8")
    )


#: Real text that holds a character of U+00C2-U+00F4 next to one of U+0080-U+00BF
#: or Windows-1252's punctuation, and must stay as it is.
LOOKALIKES = "N\u00c3O \u00e9 CAF\u00c9\u00a0\u00bb et l\u2019\u00c9T\u00c9 \u2014 gro\u00df\u2019 Stra\u00dfe, \u00c9T\u00c9\u20132024."


@pytest.mark.parametrize("codec", ["cp1252", "latin-1"])
@pytest.mark.parametrize("as_bytes", [True, False])
def test_utf8_decoded_twice_is_read_back(codec, as_bytes):
    """A valid UTF-8 page holding ``CafÃ©`` and ``â€™`` (UTF-8 decoded as
    Windows-1252 or Latin-1, then saved as UTF-8, before it was published) is
    read as the characters they stood for; real text beside them, with its
    accented capitals next to a no-break space or a curly quote, stays."""
    html = charset_page(extra=f"<p>{LOOKALIKES}</p>").replace(WORDS, twice(WORDS, codec))
    body = html.encode()
    assert double_encoded(body)
    text = extract(body if as_bytes else html, extractor="baseline").text
    assert WORDS in text
    assert LOOKALIKES.replace("\u00a0", " ") in text
    assert "\u00c3\u00a9" not in text and "\u00e2\u20ac" not in text


def test_lookalikes_alone_are_not_double_encoded():
    body = charset_page(extra=f"<p>{LOOKALIKES}</p>").encode()
    assert extract(body, extractor="baseline").text.count(WORDS) == 2
    assert undo_double_encoding(LOOKALIKES) == LOOKALIKES
    assert not double_encoded(charset_page().encode()) and not double_encoded(charset_page().encode("cp1252"))


def test_the_repair_is_bounded_by_its_budget():
    """Past :data:`REPAIR_BUDGET` characters of context, pairs are left as
    they are: a page of nothing but mojibake costs a bounded time."""
    paragraph = twice(WORDS) + " "
    text = paragraph * (3 * REPAIR_BUDGET // len(paragraph))
    repaired = undo_double_encoding(text)
    assert repaired.startswith(WORDS + " " + WORDS)
    assert repaired.endswith(paragraph * 3)
    # A pair deep inside a long text node without spaces: only its window is read.
    blob = "x" * 100_000 + twice("\u2019") + "y" * 100_000
    assert undo_double_encoding(f"<pre>{blob}</pre>") == f"<pre>{blob.replace(twice(chr(0x2019)), chr(0x2019))}</pre>"


def test_the_repair_leaves_what_nothing_reads():
    """Pairs inside a script that is not JSON-LD, or a style sheet, are left
    as they are (nothing reads that text, and a framework's state script can
    hold thousands of them); JSON-LD is repaired, since the metadata reads
    it; a page with nothing to repair comes back as the same object."""
    state = f'<script id="__NEXT_DATA__">{{"name": "{twice(WORDS)}"}}</script>'
    style = f"<STYLE>.a::after {{content: '{twice(WORDS)}'}}</STYLE>"
    ld = f'<script type="application/ld+json">{{"@type": "Article", "headline": "{twice(WORDS)}"}}</script>'
    text = f"<html><head>{state}{style}{ld}</head><body><p>{twice(WORDS)}</p>{state}</body></html>"
    assert undo_double_encoding(text) == (
        f'<html><head>{state}{style}<script type="application/ld+json">{{"@type": "Article", "headline": "{WORDS}"}}</script>'
        f"</head><body><p>{WORDS}</p>{state}</body></html>"
    )
    untouched = f"<html><body>{state}{style}<p>{WORDS}</p></body></html>"
    assert undo_double_encoding(untouched) is untouched
    # An unclosed script runs to the end of the page, as libxml2 reads it.
    assert undo_double_encoding(f"<p>{WORDS}</p><script>{twice(WORDS)}") == f"<p>{WORDS}</p><script>{twice(WORDS)}"
    # Start tags that never close are read in one pass (not one pass each), and
    # the pair after them is repaired.
    hostile = "<script " * 50_000 + f"<p>{twice(WORDS)}</p>"
    assert undo_double_encoding(hostile) == "<script " * 50_000 + f"<p>{WORDS}</p>"
    # Through the extraction: the visible text and the JSON-LD title are read back.
    body = text.replace("<p>", f"<p>{WORDS} ").encode()
    result = extract(body, extractor="baseline")
    assert WORDS in result.text and "\u00c3" not in result.text
    assert result.title == WORDS


@pytest.mark.parametrize(
    "language,codec", [(language, codec) for language, (_, codecs) in LEGACY_PAGES.items() for codec in codecs]
)
def test_an_undeclared_legacy_charset_is_read_as_a_browser_reads_it(language, codec):
    # A page saved without its HTTP header keeps no charset. Read as
    # Windows-1252 (the old fallback), every letter of these but the
    # Western ones was mojibake.
    text = LEGACY_PAGES[language][0]
    body = legacy_page(text).encode(codec)
    assert html_encoding(body) is None
    encoding, decoded = decode_html(body)
    assert text in decoded, (language, codec, encoding)
    assert text in extract(body).text
    if language in ("de", "pt"):
        assert encoding == "cp1252"


def test_an_undeclared_iso_2022_jp_page_is_read_as_japanese():
    # ISO-2022-JP is 7-bit, so valid UTF-8 (ASCII): without its escape
    # sequences read, the page is "$B;T5D2q$O..." instead of Japanese.
    text = LEGACY_PAGES["ja"][0]
    body = legacy_page(text).encode("iso2022_jp")
    assert body.isascii()
    assert decode_html(body) == ("iso2022_jp", legacy_page(text))
    assert text in extract(body).text
    # An ASCII page with a stray ESC is still UTF-8 (ASCII).
    plain = legacy_page("An escape \x1b in the text, nothing else.").encode()
    assert decode_html(plain)[0] == "utf-8"


def test_undeclared_utf8_with_a_few_broken_bytes_stays_utf8():
    # A stray Latin-1 byte or a character cut in two does not make the page
    # Windows-1252 (or whatever a detector makes of it): its other letters
    # stay themselves, the broken bytes become U+FFFD.
    text = LEGACY_PAGES["de"][0]
    body = legacy_page(text).encode().replace(b"</article>", b"\xe9 \xe2\x80</article>", 1)
    encoding, decoded = decode_html(body)
    assert encoding == "utf-8" and text in decoded and decoded.count("\ufffd") == 2
    assert text in extract(body).text
    # Legacy text forms few well-formed sequences, so it is never taken for this.
    for language, (words, codecs) in LEGACY_PAGES.items():
        for codec in codecs:
            legacy = legacy_page(words).encode(codec)
            if not legacy.isascii():
                assert not mostly_utf8(legacy.decode("utf-8", "replace")), (language, codec)


def test_the_top_level_domain_hints_the_detection_as_in_a_browser():
    # On a .cz address, as in Firefox, the page is read as Windows-1250.
    html = CZECH_PAGE
    body = html.encode("cp1250")
    assert decode_html(body)[0] == "iso8859-2"
    url = "https://www.example.cz/zpravy/1"
    assert decode_html(body, url=url) == ("cp1250", html)
    assert "© 2024 Example Media ·" in extract(body, url=url, extractor="baseline").text  # the footer, read right
    assert top_level_domain("https://www.example.cz/a") == b"cz"
    assert top_level_domain("http://пример.рф/") == b"xn--p1ai"
    assert top_level_domain("HTTP://Example.COM.") == b"com"
    for nothing in (None, "", "http://127.0.0.1/", "http://localhost/", "not a url", "http://[::1]/"):
        assert top_level_domain(nothing) is None, nothing


DEMO_PAGES = sorted((Path(__file__).resolve().parent.parent / "webclean_scrapy" / "demo" / "site").rglob("*.html"))

CASES = {
    "utf16-header-le": (charset_page().encode("utf-16-le"), "text/html; charset=utf-16"),
    "utf16-header-be": (charset_page().encode("utf-16-be"), "text/html; charset=utf-16"),
    "utf16-bom": (charset_page().encode("utf-16"), "text/html"),
    "nul-byte": (charset_page().encode().replace(b"<body>", b"<body>\x00"), "text/html; charset=utf-8"),
    "meta-utf16-ascii": (charset_page('<meta charset="utf-16">').encode("ascii", "xmlcharrefreplace"), "text/html"),
    "meta-utf16-utf8": (charset_page('<meta charset="utf-16">').encode(), "text/html"),
    "xml-declaration-utf16": (('<?xml version="1.0" encoding="utf-16"?>' + charset_page()).encode(), "text/html"),
    "cp1252-undeclared": (charset_page().encode("cp1252"), "text/html"),
    "latin1-header": (charset_page().encode("cp1252"), "text/html; charset=iso-8859-1"),
    "bom-beats-header": (b"\xef\xbb\xbf" + charset_page().encode(), "text/html; charset=iso-8859-1"),
    "bad-utf8-declared": (charset_page().encode().replace(b"Caf", b"Ca\xff"), "text/html; charset=utf-8"),
    "meta-cp1252-on-utf8": (charset_page('<meta charset="windows-1252">').encode(), "text/html"),
    "meta-gbk": (charset_page('<meta charset="gbk">').encode("gbk", "replace"), "text/html"),
    # Scrapy detects with charset-normalizer, the process path with chardetng:
    # where they disagree, the thread path decodes the bytes itself.
    "cp1251-undeclared": (
        legacy_page(LEGACY_PAGES["ru"][0] + " " + WORDS).encode("cp1251", "xmlcharrefreplace"),
        "text/html",
    ),
    "shift-jis-undeclared": (
        legacy_page(LEGACY_PAGES["ja"][0] + " " + WORDS).encode("shift_jis", "xmlcharrefreplace"),
        "text/html",
    ),
    "cp1252-german-undeclared": (legacy_page(LEGACY_PAGES["de"][0] + " " + WORDS).encode("cp1252"), "text/html"),
    "utf8-decoded-twice": (charset_page().replace(WORDS, twice(WORDS)).encode(), "text/html; charset=utf-8"),
    "utf8-decoded-twice-latin1-header": (
        charset_page().replace(WORDS, twice(WORDS)).encode(),
        "text/html; charset=iso-8859-1",
    ),
    "no-content-type": (charset_page().encode(), None),
    **{f"demo:{p.name}": (p.read_bytes(), "text/html") for p in DEMO_PAGES[:6]},
}


@pytest.mark.parametrize("extractor", ["default", *available_extractors()])
def test_thread_and_process_paths_give_the_same_text(extractor):
    """The thread path reuses Scrapy's decoded response; the process path
    decodes the raw bytes. Same bytes, same text, for every extractor."""
    method = get_extractor(extractor)
    for name, (body, content_type) in CASES.items():
        headers = {"Content-Type": content_type} if content_type else {}
        response = HtmlResponse("http://example.com/page", body=body, headers=headers)
        threaded = extract_response(method, response).extraction
        processed = extract_markup(method, body, response.url, content_type).extraction
        assert threaded.text == processed.text, name
        assert threaded.title == processed.title, name
        # (a page that lies in its <meta> or its bytes gives mojibake, the same on both paths)
        if (
            name not in ("meta-gbk", "bad-utf8-declared")
            and not name.startswith("demo:")
            and extractor in ("default", "webclean", "baseline")
        ):
            assert WORDS in processed.text, name


@pytest.mark.parametrize(
    "body",
    [
        charset_page().encode("utf-8"),
        charset_page().encode("cp1252"),
        charset_page().encode("cp1252") + b"\x81\x8d",  # bytes cp1252 leaves undefined: replaced
        b"",
        b"<p>ascii only</p>",
        charset_page(extra="<p>\ufffd</p>").encode("utf-8"),
    ],
)
@pytest.mark.parametrize("content_type", [None, "text/html"])
def test_an_undeclared_charset_decodes_as_w3lib_would(body: bytes, content_type: str | None) -> None:
    """Without a BOM, header charset or <meta>, :func:`decode_html` decodes
    once where ``html_to_unicode`` with the UTF-8 / cp1252 detection decoded
    twice: the same encoding and text."""
    from w3lib.encoding import html_to_unicode

    from webclean_scrapy.engine.text.encoding import undeclared_encoding

    assert html_encoding(body, content_type) is None
    assert decode_html(body, content_type) == html_to_unicode(None, body, auto_detect_fun=undeclared_encoding)


# -- the detector's input, cut short -------------------------------------------

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: Top-level domains of every kind the detector tells apart, and none.
HINTS = [None, b"com", b"cz", b"hu", b"pl", b"jp", b"ru", b"ua", b"gr", b"il", b"eg", b"tw", b"cn", b"kr", b"th"]
HINTS += [b"vn", b"tr", b"lt", b"is", b"de"]

#: Text in the scripts of every charset the detector names, and its charsets.
DETECTION_SAMPLES = [
    (LEGACY_PAGES["ru"][0], ["cp1251", "koi8_r", "koi8_u", "cp866", "iso8859_5"]),
    (LEGACY_PAGES["el"][0] + " ΕΛΛΑΔΑ", ["cp1253", "iso8859_7"]),
    (LEGACY_PAGES["ar"][0], ["cp1256", "iso8859_6"]),
    (LEGACY_PAGES["ja"][0] + " カタカナ", ["shift_jis", "euc_jp"]),
    (LEGACY_PAGES["zh"][0], ["gb18030"]),
    ("這是一個字符編碼測試。臺北市天氣晴朗，適合出行。", ["big5"]),
    (LEGACY_PAGES["ko"][0], ["euc_kr"]),
    (LEGACY_PAGES["pl"][0] + " ŻÓŁW Árvíztűrő tükörfúrógép", ["cp1250", "iso8859_2"]),
    (LEGACY_PAGES["tr"][0] + " İSTANBUL", ["cp1254", "iso8859_9"]),
    (LEGACY_PAGES["de"][0] + " Þetta er kóðunarpróf ÆÐ", ["cp1252", "iso8859_15"]),
    ("דג סקרן שט בים מאוכזב ולפתע מצא חברה. ירושלים", ["cp1255", "iso8859_8"]),
    ("Įlinkdama fechtuotojo špaga sublykčiojusi pragręžė apvalų arbūzą. ŠIAULIAI", ["cp1257", "iso8859_13"]),
    ("นายสังฆภัณฑ์ เฮงพิทักษ์ฝา ผู้เฒ่าซึ่งมีอาชีพเป็นฅนขายฃวด", ["cp874"]),
    ("Tiếng Việt có dấu. Hà Nội, Sài Gòn", ["cp1258"]),
]
MARKUP = [b'<div class="content">', b"</div>\n", b"<p>", b"</p>", b'<a href="/news/2024/story.html">', b"</a>"]
MARKUP += [b"<script>var x = 1; function f(a) { return a * 2; }</script>", b"\n    ", b" ", b"ABC", b"xY", b"\t"]
MARKUP += [b"English words, a sentence. ", b"\r\n", b"<!-- a comment -->", b"12:30"]


def generated_page(rng: random.Random) -> bytes:
    """Markup and English around pieces of text in one legacy charset, with
    now and then a few random bytes (controls, stray bytes, escapes)."""
    text, codecs = rng.choice(DETECTION_SAMPLES)
    codec = rng.choice(codecs)
    parts = []
    for _ in range(rng.randrange(1, 30)):
        roll = rng.random()
        if roll < 0.45:
            parts.append(b"".join(rng.choice(MARKUP) for _ in range(rng.randrange(1, 50))))
        elif roll < 0.9:
            start = rng.randrange(len(text))
            parts.append(text[start : rng.randrange(start, min(len(text), start + 60) + 1)].encode(codec, "ignore"))
        else:
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5))))
    return b"".join(parts)


def guesses(data: bytes, last: bool) -> list[object]:
    """The detector's guess for every hint, with and without UTF-8 allowed."""
    detector = EncodingDetector()
    detector.feed(data, last=last)
    return [detector.guess(tld=hint, allow_utf8=utf8) for hint in HINTS for utf8 in (False, True)]


def test_long_plain_ascii_runs_are_cut_to_their_ends() -> None:
    keep = DETECTION_CONTEXT
    short, long = b"a" * (2 * keep), b"b" * keep + b"c" * 100 + b"d" * keep
    assert detection_input(short + b"\xe9" + long + b"\xe8") == short + b"\xe9" + b"b" * keep + b"d" * keep + b"\xe8"
    # Only printable ASCII, tab, LF and CR are cut: a control byte splits a run and stays.
    run = b"x" * 40
    assert detection_input(run + b"\x00" + run) == b"x" * 32 + b"\x00" + b"x" * 32
    assert detection_input(b"\r\n\t " * 20) == (b"\r\n\t " * 20)[:keep] + (b"\r\n\t " * 20)[-keep:]
    # An escape byte (ISO-2022-JP's switch to two-byte text) keeps the page whole.
    escaped = b"\x1b$B" + b"F|K\\8l" * 30 + b"\x1b(B"
    assert detection_input(escaped) == escaped
    assert detection_input(b"") == b""


def test_the_compiled_cut_is_the_reference() -> None:
    rng = random.Random(3)
    pieces = [b"a", b" ", b"\n", b"\t", b"\r", b"\x00", b"\x7f", b"\x1f", b"\xe9", b"\x80", b"~", b"\x1b"]
    lengths = [1, 2, DETECTION_CONTEXT - 1, DETECTION_CONTEXT, DETECTION_CONTEXT + 1, 2 * DETECTION_CONTEXT]
    lengths += [2 * DETECTION_CONTEXT + 1, 100]
    for _ in range(5000):
        data = b"".join(rng.choice(pieces) * rng.choice(lengths) for _ in range(rng.randrange(12)))
        assert detection_input(data) == python_detection_input(data), data


def test_the_detector_guesses_alike_on_the_cut_input() -> None:
    """The cut input gets the whole input's guess, for every hint, with and
    without UTF-8 allowed, as a whole stream and as its start."""
    rng = random.Random(11)
    cut = 0
    for _ in range(600):
        page = generated_page(rng)
        given = detection_input(page)
        cut += len(page) - len(given)
        for last in (True, False):
            assert guesses(given, last) == guesses(page, last), page
    assert cut > 1_000_000  # the pages' markup was cut, not kept whole


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is absent")
def test_the_detector_guesses_alike_on_the_shared_pages_it_reads() -> None:
    read = 0
    for path in sorted(DATA.glob("*/html/*.html.gz")):
        body = gzip.decompress(path.read_bytes())[:DETECTION_BYTES]
        if is_plain_utf8(body):
            continue
        read += 1
        assert guesses(detection_input(body), True) == guesses(body, True), path
    assert read > 100
