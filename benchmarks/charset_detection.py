"""What a crawl's charset check costs and changes, on the shared sets' pages that declare no charset.

Usage::

    python benchmarks/charset_detection.py [--data ../shared/data] [--repeat 5]

Every page with no BOM and no ``<meta>`` charset, served as ``text/html``
without a charset (as the datasets' pages were saved), is read three ways in
the same process:

* Scrapy's own choice, ``HtmlResponse.encoding`` (ASCII, UTF-8, else
  charset-normalizer), on a fresh response each time;
* :func:`webclean_scrapy.downloadermiddlewares.charset.extraction_charset`, the check
  :class:`~webclean_scrapy.downloadermiddlewares.charset.CharsetMiddleware` runs on the reactor
  thread (a UTF-8 check, else the browser's detector);
* the extraction's reading, :func:`webclean_scrapy.engine.text.encoding.decode_html`.

Prints the pages on which Scrapy's choice and the extraction's differ, those
whose text differs too, and the time of each choice (best of ``--repeat``,
milliseconds per page, and their ratio). Then the same two times on large
generated pages (a news paragraph and its markup, repeated): a Western page
is mostly ASCII, which the detector is given cut short; a Russian or Japanese
page is mostly text outside ASCII, which it reads whole. Results:
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

from scrapy.http import HtmlResponse

from webclean_scrapy.downloadermiddlewares.charset import extraction_charset
from webclean_scrapy.engine.text.encoding import decode_html, html_encoding

HEADERS = {"Content-Type": "text/html"}

#: A news paragraph per script, and the charset its large generated page is in.
PARAGRAPHS = {
    "Portuguese": (
        "A câmara municipal aprovou na terça-feira o novo plano de ciclovias, após um debate que "
        "durou quase quatro horas. A oposição não ficou satisfeita com a decisão.",
        "cp1252",
    ),
    "Russian": (
        "Городской совет во вторник утвердил новый план велосипедных дорожек после дебатов, "
        "которые длились почти четыре часа. По словам мэра, работы начнутся летом.",
        "cp1251",
    ),
    "Japanese": (
        "市議会は火曜日、約四時間に及ぶ議論の末、新しい自転車道計画を承認した。市長によると、工事は夏に始まる。",
        "shift_jis",
    ),
}


def generated_page(paragraph: str, codec: str, size: int) -> bytes:
    """*paragraph* in its markup (a menu, an article), repeated to about *size* bytes, in *codec*."""
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(6))
    unit = f'<div class="story"><ul class="menu">{nav}</ul><article><p>{paragraph}</p></article></div>\n'
    one = unit.encode(codec)
    return b"<html><head><title>News</title></head><body>" + one * max(1, size // len(one)) + b"</body></html>"


def undeclared_pages(data: Path) -> list[tuple[str, bytes]]:
    pages = []
    for path in sorted(data.glob("*/html/*.html.gz")):
        body = gzip.decompress(path.read_bytes())
        if html_encoding(body, "text/html") is None:
            pages.append((f"{path.parent.parent.name}/{path.name}", body))
    return pages


def best_time(function, bodies: list[bytes], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        responses = [HtmlResponse("http://example.com/", body=body, headers=HEADERS) for body in bodies]
        start = time.process_time()
        for response in responses:
            function(response)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for language, (paragraph, codec) in PARAGRAPHS.items():
        for size in (200_000, 1_000_000):
            body = generated_page(paragraph, codec, size)
            scrapy = best_time(lambda response: response.encoding, [body], args.repeat)
            check = best_time(extraction_charset, [body], args.repeat)
            print(
                f"generated {language} page in {codec}, {len(body) // 1024} KB: Scrapy's detection "
                f"{1000 * scrapy:.1f} ms, the middleware's check {1000 * check:.1f} ms"
            )
    if not args.data.is_dir():
        print(f"no evaluation data at {args.data}; nothing to measure")
        return
    pages = undeclared_pages(args.data)
    legacy = [(name, body) for name, body in pages if not _is_utf8(body)]
    print(f"{len(pages)} pages declare no charset; {len(legacy)} of them are not UTF-8")
    differ = text_differs = 0
    for _, body in legacy:
        response = HtmlResponse("http://example.com/", body=body, headers=HEADERS)
        ours, text = decode_html(body, "text/html")
        if response.encoding != ours:
            differ += 1
            text_differs += response.text != text
    print(f"Scrapy's choice differs from the extraction's on {differ} (their text on {text_differs})")
    for label, subset in (("not UTF-8", legacy), ("all undeclared", pages)):
        bodies = [body for _, body in subset]
        if not bodies:
            continue
        scrapy = best_time(lambda response: response.encoding, bodies, args.repeat)
        check = best_time(extraction_charset, bodies, args.repeat)
        print(
            f"{label} ({len(bodies)} pages, {sum(map(len, bodies)) / len(bodies) / 1024:.0f} KB mean): "
            f"Scrapy's detection {1000 * scrapy / len(bodies):.2f} ms/page, "
            f"the middleware's check {1000 * check / len(bodies):.2f} ms/page ({scrapy / check:.1f}x less)"
        )


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


if __name__ == "__main__":
    main()
