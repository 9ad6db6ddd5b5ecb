"""Does the Markdown output keep the plain text? And what does it cost?

Usage::

    python benchmarks/markdown_fidelity.py [--data ../shared/data] [--dataset NAME ...]
                                           [--extractor default] [--limit N] [--markup]

For every page of every dataset under ``--data`` the extractor runs twice
in this process: text only (``extract_formats(..., ())``) and with Markdown
(``("markdown",)``), each on its own freshly built :class:`Document` (the
parse and walk are in both timings), in alternating order. The Markdown is read back with
markdown-it-py (:mod:`webclean_scrapy.evaluation.markdown`) and its text
compared with the plain text by the evaluation suite's 4-gram shingles
(:func:`~webclean_scrapy.evaluation.metrics.shingle_counts`, the plain text
as "gold"): per dataset, the mean shingle recall (goal >= 0.99), the pages
below 0.99, the tables found and those whose rows do not all have the
header's column count (goal 0), and the cost: total time with Markdown /
total time text only. Needs the ``test`` extra (markdown-it-py). Exits 0
with a message when the data is absent.

``--markup`` measures the inline markup instead (links, formatting and
images on: :class:`~webclean_scrapy.engine.formats.Markup`), against
trafilatura's Markdown (``include_links``, ``include_formatting``,
``include_tables``) on the same pages, per dataset:

* **kept links** (webclean only): of the ``<a href>`` inside the blocks
  the extractor kept (an anchor whose nearest structural ancestor holds a
  kept block containing its text; ``javascript:``, empty and fragment-only
  targets left out), the share that comes out as ``[anchor text](absolute
  href)`` (read back by markdown-it-py, addresses compared unquoted);
* **content links**, for both tools alike: of the kept links above whose
  anchor text is in the tool's text (its Markdown read back), the share
  that is a Markdown link with that text and target;
* **page links**, for both tools alike: of the page's ``<a href>`` whose anchor
  text (two words or more, 8 characters or more: fewer texts found by
  chance) is in the tool's text, the same share (an anchor text found
  elsewhere in the text counts too: a noisier, tool-blind measure);
* **tables** and **code**: of the page's data tables (2 rows and 2 columns
  or more, no nested table, list, heading, code or quote, no cell over 400
  characters) and ``<pre>`` (20 characters or more) whose
  text is in the tool's output (half the cells; the first 50 characters),
  the share that comes out as a GFM table holding half the cells / a code
  block holding the text;
* **recall**: webclean's Markdown with markup read back, against its plain
  text (the shingle recall above: the markup must not cost text).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lxml import etree

from webclean_scrapy.engine.document import Document, built_page
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.formats import Markup
from webclean_scrapy.engine.html.tags import STRUCTURAL_TAGS
from webclean_scrapy.engine.render import add_formats, base_url, extract_formats, kept_blocks, resolve_url
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.evaluation.dataset import load_dataset
from webclean_scrapy.evaluation.markdown import inline_text, markdown_text, parser, table_shapes
from webclean_scrapy.evaluation.metrics import _recall, shingle_counts


def run(directory: Path, extractor_name: str, limit: int | None) -> dict[str, float]:
    extractor = get_extractor(extractor_name)
    recalls: list[float] = []
    low: list[tuple[float, str]] = []
    tables = bad_tables = 0
    text_seconds = markdown_seconds = 0.0
    pages = load_dataset(directory, limit)
    with built_page(lambda: Document.from_html(pages[0].read())) as doc:  # warm-up, untimed
        extract_formats(extractor, doc, ("markdown",))
    for number, page in enumerate(pages):
        data = page.read()
        # Each page twice, on its own Document each time; which goes first
        # alternates, so warm caches favour neither.
        for formats in ((), ("markdown",)) if number % 2 else (("markdown",), ()):
            start = time.perf_counter()
            with built_page(lambda: Document.from_html(data, url=page.url)) as doc:
                result = extract_formats(extractor, doc, formats)
            seconds = time.perf_counter() - start
            if formats:
                extraction, markdown_seconds = result, markdown_seconds + seconds
            else:
                plain, text_seconds = result.text, text_seconds + seconds
        assert extraction.text == plain, page.id
        recall = _recall(*shingle_counts(markdown_text(extraction.markdown or ""), plain))
        recalls.append(recall)
        if recall < 0.99:
            low.append((recall, page.id))
        for shape in table_shapes(extraction.markdown or ""):
            tables += 1
            bad_tables += any(cells != shape[0] for cells in shape)
    for recall, page_id in sorted(low)[:5]:
        print(f"    low: {page_id} {recall:.3f}", file=sys.stderr)
    return {
        "pages": len(recalls),
        "recall": sum(recalls) / len(recalls),
        "below": len(low),
        "min": min(recalls),
        "tables": tables,
        "bad_tables": bad_tables,
        "text_ms": 1000 * text_seconds / len(recalls),
        "markdown_ms": 1000 * markdown_seconds / len(recalls),
    }


def read_text(markdown: str) -> str:
    """The text a reader of *markdown* sees, inline markup gone without a
    trace (:func:`~webclean_scrapy.evaluation.markdown.markdown_text` writes a
    space for each mark: ``[a](x),`` would read ``a ,``)."""
    lines: list[str] = []
    for token in parser().parse(markdown):
        if token.type == "inline":
            lines.append(
                "".join(
                    child.content
                    if child.type in ("text", "code_inline")
                    else " "
                    if child.type in ("softbreak", "hardbreak")
                    else ""
                    for child in token.children or ()
                )
            )
        elif token.type in ("fence", "code_block"):
            lines.append(token.content)
    return "\n".join(lines)


def _words(text: str) -> str:
    return " ".join(text.split())


def _text(element: etree._Element) -> str:
    return _words("".join(element.itertext()))


def _link_key(text: str, url: str) -> tuple[str, str]:
    return _words(text), unquote(url)


def markdown_parts(markdown: str) -> tuple[Counter[tuple[str, str]], list[str], list[str]]:
    """The links of *markdown* (text, target), its tables' texts and its code blocks' texts."""
    links: Counter[tuple[str, str]] = Counter()
    tables: list[str] = []
    codes: list[str] = []
    in_table = False
    for token in parser().parse(markdown):
        if token.type == "table_open":
            in_table = True
            tables.append("")
        elif token.type == "table_close":
            in_table = False
        elif token.type in ("fence", "code_block"):
            codes.append(_words(token.content))
        elif token.type == "inline":
            if in_table:
                tables[-1] += " " + inline_text(token)
            children = token.children or []
            for n, child in enumerate(children):
                if child.type != "link_open":
                    continue
                depth, text = 1, []
                for inner in children[n + 1 :]:
                    depth += inner.nesting if inner.type in ("link_open", "link_close") else 0
                    if depth == 0:
                        break
                    if inner.type in ("text", "code_inline"):
                        text.append(inner.content)
                links[_link_key("".join(text), str(child.attrs.get("href", "")))] += 1
    return links, [_words(t) for t in tables], codes


#: What a data table does not hold (it is a layout table then).
_LAYOUT = ("table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote")


def page_sources(root: etree._Element, base: str) -> tuple[list[tuple[str, str]], list[list[str]], list[str]]:
    """The page's links (text, absolute target), data tables (cell texts) and ``<pre>`` texts."""
    links = []
    for anchor in root.iter("a"):
        url = resolve_url(base, anchor.get("href"))
        text = _words(_text(anchor))
        if url is not None and len(text) >= 8 and " " in text:
            links.append(_link_key(text, url))
    tables = []
    for table in root.iter("table"):
        if any(True for _ in table.iterdescendants(*_LAYOUT)):
            continue
        rows = [[_words(_text(cell)) for cell in row.iter("td", "th")] for row in table.iter("tr")]
        if len(rows) >= 2 and max(map(len, rows)) >= 2 and all(len(cell) <= 400 for row in rows for cell in row):
            cells = [cell for row in rows for cell in row if cell]
            if cells:
                tables.append(cells)
    codes = [_words(_text(pre)) for pre in root.iter("pre")]
    return links, tables, [code for code in codes if len(code) >= 20]


def score(
    markdown: str,
    sources: tuple[list[tuple[str, str]], list[list[str]], list[str]],
    content_links: list[tuple[str, str]],
) -> dict[str, int]:
    """How many of the page's links, tables and ``<pre>`` the tool kept, and
    how many of those its Markdown has as links, tables and code blocks;
    the same for *content_links* (the links of webclean's kept blocks)."""
    text = _words(read_text(markdown))
    found, tables, codes = markdown_parts(markdown)
    links, source_tables, source_codes = sources
    counts = Counter[str]()
    left = found.copy()
    for key in content_links:
        if key[0] in text:
            counts["content_links"] += 1
            if left[key] > 0:
                left[key] -= 1
                counts["content_links_ok"] += 1
    for key in links:
        if key[0] in text:
            counts["links"] += 1
            if found[key] > 0:
                found[key] -= 1
                counts["links_ok"] += 1
    for cells in source_tables:
        if sum(cell in text for cell in cells) * 2 >= len(cells):
            counts["tables"] += 1
            counts["tables_ok"] += any(sum(cell in table for cell in cells) * 2 >= len(cells) for table in tables)
    for code in source_codes:
        if code[:50] in text:
            counts["codes"] += 1
            counts["codes_ok"] += any(code[:50] in block for block in codes)
    return dict(counts)


def kept_links(doc: Document, kept: list[int] | None, base: str) -> list[tuple[str, str]]:
    """The links inside the kept blocks: ``<a href>`` whose nearest structural
    ancestor holds a kept block with the anchor's text."""
    if not kept:
        return []
    texts, holders = doc.block_columns.texts, doc.block_columns.holders
    by_holder: dict[int, list[str]] = {}
    for block in kept:
        by_holder.setdefault(int(holders[block]), []).append(texts[block])
    links = []
    for holder, kept_texts in by_holder.items():
        element = doc.element(holder)
        for anchor in element.iter("a"):
            at = anchor.getparent()
            while at is not None and at is not element and at.tag not in STRUCTURAL_TAGS:
                at = at.getparent()
            url = resolve_url(base, anchor.get("href"))
            text = _words(_text(anchor))
            if at is element and url is not None and text and any(text in kept_text for kept_text in kept_texts):
                links.append(_link_key(text, url))
    return links


def run_markup(directory: Path, extractor_name: str, limit: int | None) -> dict[str, Any]:
    """``--markup``: links, tables and code, webclean (all markup on) and trafilatura."""
    import trafilatura

    extractor = get_extractor(extractor_name)
    markup = Markup(links=True, formatting=True, images=True)
    totals: dict[str, Counter[str]] = {"webclean": Counter(), "trafilatura": Counter()}
    seconds = Counter[str]()
    recalls: list[float] = []
    pages = load_dataset(directory, limit)
    for page in pages:
        data = page.read()
        start = time.perf_counter()
        with built_page(lambda: Document.from_html(data, url=page.url)) as doc:
            trace = Trace() if extractor.traceable else None
            extraction = extractor.extract(doc, trace=trace)
            add_formats(extraction, doc, ("markdown",), trace, markup)
            seconds["webclean"] += time.perf_counter() - start
            base = base_url(doc)
            expected = kept_links(doc, kept_blocks(doc, extraction.text, trace), base)
            sources = page_sources(doc.element(0), base)
            html = doc.source
        markdown = extraction.markdown or ""
        found = markdown_parts(markdown)[0]
        totals["webclean"]["kept_links"] += len(expected)
        for key in expected:
            if found[key] > 0:
                found[key] -= 1
                totals["webclean"]["kept_links_ok"] += 1
        totals["webclean"].update(score(markdown, sources, expected))
        recalls.append(_recall(*shingle_counts(read_text(markdown), extraction.text)))
        start = time.perf_counter()
        theirs = trafilatura.extract(
            html,
            url=page.url,
            output_format="markdown",
            include_links=True,
            include_formatting=True,
            include_tables=True,
        )
        seconds["trafilatura"] += time.perf_counter() - start
        totals["trafilatura"].update(score(theirs or "", sources, expected))
    return {"pages": len(pages), "totals": totals, "seconds": seconds, "recall": sum(recalls) / len(recalls)}


def _share(counts: Counter[str], name: str) -> str:
    total = counts[name]
    return f"{counts[name + '_ok'] / total:.3f} ({counts[name + '_ok']}/{total})" if total else "-"


def main_markup(root: Path, names: list[str], extractor: str, limit: int | None) -> None:
    print(f"extractor {extractor}, markup: links, formatting, images")
    print("| dataset | tool | pages | kept links | content links | page links | tables | code | recall | ms/page |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        r = run_markup(root / name, extractor, limit)
        for tool, counts in r["totals"].items():
            webclean = tool == "webclean"
            print(
                f"| {name} | {tool} | {r['pages']} | {_share(counts, 'kept_links') if webclean else '-'} "
                f"| {_share(counts, 'content_links')} | {_share(counts, 'links')} | {_share(counts, 'tables')} | {_share(counts, 'codes')} "
                f"| {r['recall'] if webclean else float('nan'):.4f} | {1000 * r['seconds'][tool] / r['pages']:.1f} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--dataset", action="append", help="only these datasets (repeatable)")
    parser.add_argument("--extractor", default="default")
    parser.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    parser.add_argument(
        "--markup", action="store_true", help="links, tables and code with inline markup on, and trafilatura's"
    )
    args = parser.parse_args(argv)
    root = Path(args.data)
    if not root.is_dir():
        print(f"no data at {root}: nothing to measure")
        return 0
    names = args.dataset or sorted(p.name for p in root.iterdir() if (p / "truth.jsonl").is_file())
    if args.markup:
        main_markup(root, names, args.extractor, args.limit)
        return 0
    print(f"extractor {args.extractor}")
    print(
        f"{'dataset':<16} {'pages':>5} {'recall':>7} {'min':>6} {'<0.99':>6} {'tables':>6} {'bad':>4} "
        f"{'text ms':>8} {'md ms':>7} {'ratio':>6}"
    )
    total_text = total_md = 0.0
    for name in names:
        r = run(root / name, args.extractor, args.limit)
        total_text += r["text_ms"] * r["pages"]
        total_md += r["markdown_ms"] * r["pages"]
        print(
            f"{name:<16} {r['pages']:>5} {r['recall']:>7.4f} {r['min']:>6.3f} {r['below']:>6} {r['tables']:>6} "
            f"{r['bad_tables']:>4} {r['text_ms']:>8.2f} {r['markdown_ms']:>7.2f} "
            f"{r['markdown_ms'] / r['text_ms']:>6.2f}",
            flush=True,
        )
    print(f"all: markdown / text time = {total_md / total_text:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
