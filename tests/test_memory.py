"""Memory per page is bounded: the walk's tables are compact (columns,
sparse punctuation marks, one shared empty attribute dict), a large page
drops its lxml tree before the extraction method runs, and the
``webclean`` extractor's feature rows are built and scored a chunk at a
time, giving the same rows as one whole-page pass, bit for bit.

Peak memory is read with :mod:`tracemalloc` (numpy reports its buffers to
it), which counts allocations, not time: deterministic. The page-level
figures (peak RSS per page size) are ``benchmarks/hostile_pages.py``'s; one
test holds the bound on a huge page by its peak RSS, in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from lxml import etree

import webclean_scrapy.engine.document as document
import webclean_scrapy.engine.extraction as extraction
from webclean_scrapy.engine.document import RELEASE_TREE_ABOVE, Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.extractors.density import density_region
from webclean_scrapy.engine.extractors.punctuation import score_divs, select_div
from webclean_scrapy.engine.extractors.ttr import tagged_lines
from webclean_scrapy.engine.extractors.webclean import MODEL_FEATURES, WebcleanExtractor, block_probabilities
from webclean_scrapy.engine.extractors.webclean.convention import headline_drops
from webclean_scrapy.engine.extractors.webclean.features import (
    _SLICE,
    BLOCK_FEATURES,
    PageColumns,
    _BlockFeatures,
    _pair_counts,
    block_matrix,
    iter_block_matrices,
    repeated_texts,
)
from webclean_scrapy.engine.extractors.webclean.keywords import container_codes
from webclean_scrapy.engine.html.parsing import parse_html
from webclean_scrapy.engine.page_type import page_type_of
from webclean_scrapy.engine.text.marks import PUNCTUATION_MARKS

DEMO = Path(__file__).resolve().parent.parent / "webclean_scrapy" / "demo" / "site"


def _scoring_peak(blocks: int, stage=block_probabilities) -> int:
    """What *stage* (default :func:`block_probabilities`) allocates at its
    peak (``tracemalloc``) on a page of *blocks* paragraphs, one container
    each, beyond the walk's tables and what the extraction reads before
    (page type, title)."""
    doc = Document.from_html("<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>")
    page_type_of(doc)
    doc.title  # noqa: B018 - cached, as the extraction reads it before
    tracemalloc.start()
    try:
        result = stage(doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(result) >= blocks
    return peak


def test_scoring_never_holds_the_whole_feature_matrix():
    blocks = 100_000
    whole_matrix = blocks * len(MODEL_FEATURES) * 8
    peak = _scoring_peak(blocks)
    # Before chunking, the rows were built whole, twice over (about 2.5x
    # this); now only per-block vectors and one chunk live at once.
    assert peak < whole_matrix / 2, (peak, whole_matrix)


PAGES = [
    "<h1>Title</h1><p>First, a paragraph. It has commas, and stops!</p><p>x</p><nav><a href='/'>Home</a></nav>",
    "<div class='post'><p>" + "Words of a forum post, long enough to be prose. " * 5 + "</p></div>" * 1,
] + [path.read_text(encoding="utf-8", errors="replace") for path in sorted(DEMO.rglob("*.html"))[:12]]


@pytest.mark.parametrize("html", PAGES)
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_chunked_rows_are_the_whole_rows(html, chunk):
    page = PageColumns(Document.from_html(html))
    whole = block_matrix(page)
    chunks = [matrix for _, matrix in iter_block_matrices(page, len(MODEL_FEATURES), chunk)]
    assert all(len(matrix) <= chunk for matrix in chunks)
    rows = np.vstack(chunks) if chunks else np.zeros((0, len(MODEL_FEATURES)))
    assert np.array_equal(rows[:, : len(BLOCK_FEATURES)], whole)
    assert not rows[:, len(BLOCK_FEATURES) :].any()  # left for the page-type columns


def test_the_walks_tables_take_little_per_block():
    # The walk's output per block: its text (a short str), its place in
    # four lists and the int64 columns; marks only where a block has some,
    # containers without attributes sharing one empty dict. Before (an
    # int64 per punctuation mark per block, a dict per container), a
    # million-paragraph page's tables took ~380 bytes per block.
    blocks = 100_000
    root = parse_html("<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>")
    tracemalloc.start()
    try:
        doc = Document(root, truncated=False)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(doc.block_columns) == blocks and len(doc.container_columns) == blocks + 2
    assert held < 200 * blocks, held / blocks
    attributes = doc.container_columns.attributes
    assert all(a is attributes[0] for a in attributes) and attributes[0] == {}


def test_marks_are_counted_sparse_and_read_dense():
    doc = Document.from_html("<p>No marks</p><p>One, two; three. Four!</p><p>、、。</p>")
    assert doc.block_columns.count(",").tolist() == [0, 1, 0]
    assert doc.block_columns.count(".!").tolist() == [0, 2, 0]
    assert doc.block_columns.count("、。").tolist() == [0, 0, 3]
    for mark, row in zip(PUNCTUATION_MARKS, doc.block_columns.marks.tolist()):
        assert row == [text.count(mark) for text in doc.block_columns.texts], mark


def test_a_large_page_drops_its_tree_before_the_method_runs():
    paragraph = "<p>A paragraph of the page, with words enough to be prose in the end.</p>"
    html = "<html><head><title>Big</title></head><body><div id='main'>" + paragraph * 20_000 + "</div></body></html>"
    assert len(html) > RELEASE_TREE_ABOVE
    doc = Document.from_html(html)
    seen = []

    class Probe(Extractor):
        name = "probe"

        def extract_text(self, doc: Document) -> str:
            seen.append(doc._tree.root)
            return doc.block_columns.text()

    extraction = Probe().extract(doc)
    assert seen == [None]  # dropped before the method ran...
    assert extraction.title == "Big" and extraction.text.count("\n") == 19_999  # ...what it gave kept
    # Asked for again, the tree is the same page's, parsed again.
    assert doc.element(2).get("id") == "main" and doc.root.find(".//div").get("id") == "main"
    small = Document.from_html(paragraph)
    Probe().extract(small)
    assert small._tree.root is not None  # a small page keeps its tree
    parsed_elsewhere = Document(parse_html(html), source=html, truncated=False)
    assert not parsed_elsewhere.release_tree()  # not ours to drop


def test_only_a_huge_page_hands_its_freed_tree_back_to_the_system(monkeypatch):
    # Handing the heap back (malloc_trim) returns every free page of it, and
    # the pages after fault them back in: a large page's dropped tree stays in
    # the heap for the next pages to reuse; a huge one's is handed back.
    calls = []
    monkeypatch.setattr(document, "_trim_heap", lambda: calls.append(1))
    html = "<html><body>" + "<p>Words of a paragraph long enough to matter here.</p>" * 25_000 + "</body></html>"
    assert RELEASE_TREE_ABOVE < len(html) <= document.TRIM_HEAP_ABOVE
    large = Document.from_html(html)
    assert large.release_tree(larger_than=RELEASE_TREE_ABOVE) and large._tree.root is None
    assert calls == []
    monkeypatch.setattr(document, "TRIM_HEAP_ABOVE", len(html) - 1)
    huge = Document.from_html(html)
    assert huge.release_tree(larger_than=RELEASE_TREE_ABOVE) and calls == [1]


def test_the_scoring_stage_holds_little_per_block():
    # Everything block_probabilities allocates, beyond the walk's tables,
    # on a page of 100,000 paragraphs (one container each): before, the
    # per-block ancestors, densities and log lengths lived for the whole
    # scoring and the structure tables' temporaries all lived to its end
    # (about 470 bytes a block at the peak); freeing them early brought it to
    # about 310, then chunked scoring to about 155 (see
    # test_the_scoring_state_is_small_per_block; 46 of them the 4,096-row
    # chunk, which does not grow with the page).
    blocks = 100_000
    peak = _scoring_peak(blocks)
    assert peak < 200 * blocks, peak / blocks


def test_choosing_and_joining_the_blocks_costs_nothing_above_the_scoring():
    # On 100,000 distinct paragraphs, all kept, the text's whole path
    # (scores, the page type's policy read twice for a page typed a hub,
    # repeats, the join) peaked about 35 bytes a block above the scoring
    # itself with a Python int per kept block, for each of the
    # two readings, and a set of every kept text. The kept indexes are an
    # array now, and only texts that occur twice on the page are compared.
    blocks = 100_000
    _scoring_peak(blocks)  # first use: the model's memos
    scoring = _scoring_peak(blocks)
    extraction = _scoring_peak(blocks, WebcleanExtractor().extract_text)
    assert extraction < scoring + 12 * blocks, (extraction - scoring) / blocks


def test_the_published_methods_make_no_object_per_block_or_tag():
    # A page of 100,000 paragraphs on one line of source. `density` used to group the blocks into a Python list per string (156 bytes
    # a block at its peak), and `ttr` split the whole source into a list of
    # its pieces, tags and texts (21 bytes a source character).
    blocks = 100_000
    html = "<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>"
    doc = Document.from_html(html)
    doc.source  # noqa: B018 - decoded once, as the extraction has it
    columns = doc.block_columns
    tracemalloc.start()
    try:
        region = density_region(columns.positions, columns.texts)
        density_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        lines = tagged_lines(doc)
        ttr_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert region == (0, blocks - 1)
    assert density_peak < 100 * blocks, density_peak / blocks
    assert len(lines) == 1 and lines[0].tags == 2 * blocks + 4
    assert ttr_peak < 4 * len(html), ttr_peak / len(html)


def test_punctuation_makes_no_object_per_div():
    # 100,000 sibling DIVs holding a comma each. The method used to build a Python object per DIV, with its list of children, and a dict
    # keyed by them for the parent check: 398 bytes a DIV at its peak (the
    # million-DIV page of benchmarks/hostile_pages.py at 32x its size).
    divs = 100_000
    html = "<html><body>" + "".join(f"<div>d, {i:06d}</div>" for i in range(divs)) + "</body></html>"
    doc = Document.from_html(html)
    doc.container_columns  # noqa: B018 - built once, as the extraction has them
    tracemalloc.start()
    try:
        scored = score_divs(doc)
        chosen = select_div(scored)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(scored) == divs and chosen == 0  # every DIV scores 1**3 x 8: the first one wins
    assert peak < 200 * divs, peak / divs


def _walk_calls(html: str) -> list[tuple[bool, int]]:
    """Each walk a Document of *html* makes: (revealing, subtrees concealed)."""
    calls: list[tuple[bool, int]] = []
    original = Document._walk_once

    def spy(doc: Document, reveal: bool) -> int:
        concealed = original(doc, reveal)
        calls.append((reveal, concealed))
        return concealed

    with patch.object(Document, "_walk_once", spy):
        Document.from_html(html)
    return calls


def test_the_revealing_walk_is_made_only_when_something_was_concealed():
    # A page with little prose is walked again, revealing, only if the
    # first walk skipped something that walk would read; otherwise it would
    # give the same tables (on a huge page, a second copy of them).
    short = "<p>Short text.</p>" * 5
    assert _walk_calls(f"<html><head><noscript>x</noscript></head><body>{short}</body></html>") == [(False, 0)]
    assert _walk_calls(f"<html><body>{short}<noscript><p>Enable JS</p></noscript></body></html>") == [
        (False, 1),
        (True, 0),
    ]
    assert _walk_calls(f"<html><body>{short}<div hidden><p>Tab</p></div><p style='display:none'>x</p></body></html>")[
        0
    ] == (False, 2)
    # Both walks count alike.
    html = f"<html><body>{short}<div style='display: none'><noscript>a</noscript></div><noscript>b</noscript></body></html>"
    compiled = _walk_calls(html)
    document.COMPILED_WALK = False
    try:
        assert _walk_calls(html) == compiled == [(False, 2), (True, 0)]
    finally:
        document.COMPILED_WALK = True


BIG_PAGE = (
    "<html lang='de'><head><title>Big page</title><meta property='og:type' content='article'>"
    "<meta name='description' content='A description of the page'>"
    "<link rel='canonical' href='https://example.com/big'>"
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Headline from JSON-LD",'
    ' "datePublished": "2024-05-06"}</script></head><body><div class="wrap"><article>'
    + "<p>A paragraph of the article, with words enough to count as prose in the end, and more.</p>" * 10_000
    + "<div itemprop='author' itemscope><span itemprop='name'>Ada <b>Lovelace</b></span></div>"
    + "<p>Read <a href='/more-about-this-long-slug-name'>more</a> <time datetime='2024-05-07'>then</time>.</p>"
    + "<div itemscope itemtype='https://schema.org/Product'><p>x</p></div>"
    + "<p>Tail paragraph.</p>" * 10_000
    + "</article></div><title>Second title</title></body></html>"
)


def test_a_large_page_reads_the_same_from_its_pruned_tree(monkeypatch):
    # Before its metadata and page type are read, a large page's tree is
    # cut down to what those readers look at; every field comes out as
    # from the whole tree.
    assert len(BIG_PAGE) > RELEASE_TREE_ABOVE
    pruned = Document.from_html(BIG_PAGE, url="https://example.com/a")
    assert pruned.prune_tree(*extraction.TREE_READS)
    root = pruned.root
    assert len(root.findall(".//p")) == 2  # the one holding <a> and <time>, the one in the Product
    assert root.find(".//span[@itemprop='name']").xpath("string()") == "Ada Lovelace"
    assert not pruned.prune_tree(*extraction.TREE_READS)  # once
    assert len(pruned.element(0).findall(".//p")) == 20_002  # the object views read the whole page again
    fields = list(extraction.Extraction.__dataclass_fields__)
    outputs = []
    pruning = []
    prune_tree = Document.prune_tree

    def spy(doc, *args, **kwargs):
        pruning.append(prune_tree(doc, *args, **kwargs))
        return pruning[-1]

    monkeypatch.setattr(Document, "prune_tree", spy)
    for limit in (0, 10**9):  # pruned, and not (the page has fewer containers than a pruned one)
        monkeypatch.setattr(extraction, "PRUNE_TREE_ABOVE", limit)
        doc = Document.from_html(BIG_PAGE, url="https://example.com/a")
        for name in ("default", "punctuation"):
            result = get_extractor(name).extract(doc)
            outputs.append({field: getattr(result, field) for field in fields})
    assert pruning == [True, False]  # pruned once (the second extractor found it done); not at all after
    assert outputs[:2] == outputs[2:]
    assert outputs[0]["author"] == "Ada Lovelace" and outputs[0]["language"] == "de"
    assert outputs[0]["title"] == "Headline from JSON-LD" and outputs[0]["date"] == "2024-05-06"
    # After the extraction the tree is whole again (parsed anew).
    assert len(doc.root.findall(".//p")) == 20_002


def _feature_state(blocks: int) -> tuple[int, int]:
    """What the scoring's per-page state holds (``PageColumns`` and
    ``_BlockFeatures``, ``tracemalloc``) on a page of *blocks* paragraphs
    (one container each), and the peak while it is built."""
    doc = Document.from_html("<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>")
    page_type_of(doc)
    doc.title  # noqa: B018 - cached, as the extraction reads it before
    tracemalloc.start()
    try:
        features = _BlockFeatures(PageColumns(doc))
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert features.structure.keys.shape == (blocks + 2,)
    return held, peak


def test_the_scoring_state_is_small_per_block():
    # Held for the whole scoring, beyond the walk's tables: before chunked
    # scoring, 274 bytes a block (a float64 array per structure figure and
    # container, the marks and Readability's flags as whole-page vectors,
    # float copies of the walk's counts), built with a peak of 340; now
    # about 75 held, 100 at the peak (per-key tables, int32 counts, marks
    # read per chunk, no list of a million ints).
    blocks = 100_000
    held, peak = _feature_state(blocks)
    assert held < 100 * blocks, held / blocks
    assert peak < 150 * blocks, peak / blocks


def test_the_container_codes_take_no_list_per_container():
    blocks = 100_000
    doc = Document.from_html("<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>")
    tracemalloc.start()
    try:
        codes, signs = container_codes(doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert codes.dtype == np.int64 and signs.dtype == np.int8 and len(codes) == len(signs) == blocks + 2
    # The arrays (9 bytes a container), the indexes of those holding text
    # (8) and one slice of 65,536 containers read as lists (about 45 here,
    # whatever the page's size); whole lists of indexes, parents and codes
    # (objects above 256) took 112 before.
    assert peak < 80 * blocks, peak / blocks


def test_marks_counted_for_a_range_of_blocks_are_the_whole_counts_sliced():
    doc = Document.from_html("".join(f"<p>{'x, y. z!' * (i % 3)}w{i}</p>" for i in range(50)))
    blocks = doc.block_columns
    for marks in (",", ".!", "。、,;"):
        whole = blocks.count(marks)
        for start, stop in ((0, 50), (0, 7), (7, 20), (49, 50), (20, 20), (45, 80)):
            assert blocks.count(marks, slice(start, stop)).tolist() == whole[start:stop].tolist()


def test_repeated_texts_are_found_by_hash_on_large_pages():
    rng = np.random.default_rng(9)
    texts = [f"t{value}" for value in rng.integers(0, 200_000, size=_SLICE * 2).tolist()]
    counts = Counter(texts)
    expected = [counts[text] > 1 for text in texts]
    assert repeated_texts(texts).tolist() == expected and any(expected) and not all(expected)
    assert not repeated_texts([f"u{i}" for i in range(_SLICE + 5)]).any()


def test_sibling_pair_counts_are_the_unique_counts():
    rng = np.random.default_rng(3)
    nc = 5_000
    held = np.flatnonzero(rng.random(nc) < 0.7).astype(np.int32)
    parents = rng.integers(-1, 50, size=len(held))
    keys = rng.integers(0, 7, size=len(held)).astype(np.int32)
    pairs = parents * 7 + keys
    _, inverse, counts = np.unique(pairs, return_inverse=True, return_counts=True)
    expected = np.zeros(nc, dtype=np.int64)
    expected[held] = counts[inverse.ravel()]
    assert _pair_counts(parents, keys, 7, held, nc).tolist() == expected.tolist()
    assert not _pair_counts(parents[:0], keys[:0], 7, held[:0], nc).any()


def _freeing_page(paragraphs: int) -> str:
    """A page whose paragraphs the freeing walk frees, around what it must
    keep: links, ``<time>``, microdata, a hidden subtree holding a kept
    element, comments and tails."""
    return (
        "<html lang='fr'><head><title>Freed</title><meta name='description' content='d'></head><body>"
        "<div class='wrap'>intro text<!-- a comment -->tail of the comment"
        + "<p>A paragraph read and freed, long enough to be prose: eighty characters or more, spaces not counted.</p>tail\n"
        * paragraphs
        + "<p>Read <a href='/x'>more</a> <time datetime='2024-05-07'>then</time>.</p>after the kept one"
        + "<div style='display:none'><p>hidden</p><span itemprop='author'>Ada</span></div>"
        + "<div hidden><p>hidden, nothing kept</p></div>tail of the hidden"
        + "<p>Last words.</p></div>end of the body</body></html>"
    )


def test_the_walk_frees_the_tree_as_it_reads_a_huge_page(monkeypatch):
    # A page whose tree is ours, large enough, is freed while it is walked
    # (the tables then grow as the tree shrinks): what is left is what
    # prune_tree keeps, and the page reads the same.
    html = _freeing_page(3_000)
    calls = []
    monkeypatch.setattr(document, "_trim_heap", lambda: calls.append(1))
    monkeypatch.setattr(document, "RELEASE_TREE_ABOVE", 1000)
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 1000)
    freed = Document.from_html(html)
    assert freed._tree.pruned and calls  # the heap trimmed
    assert len(freed.root.findall(".//p")) == 1  # the one holding <a> and <time>
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 10**9)
    whole = Document.from_html(html)
    assert not whole._tree.pruned
    assert len(whole.root.findall(".//p")) == 3_000 + 4
    assert whole.prune_tree(*extraction.TREE_READS)
    assert etree.tostring(freed.root) == etree.tostring(whole.root)
    for name in ("block_columns", "container_columns"):
        for slot in type(getattr(whole, name)).__slots__:
            mine, theirs = getattr(getattr(freed, name), slot), getattr(getattr(whole, name), slot)
            assert np.array_equal(mine, theirs) if isinstance(mine, np.ndarray) else mine == theirs, slot
    # The object views and the containers' elements read the whole page again.
    assert len(freed.element(0).findall(".//p")) == 3_000 + 4
    fields = list(extraction.Extraction.__dataclass_fields__)
    results = []
    for doc in (Document.from_html(html), whole):
        monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 1000)
        result = get_extractor("default").extract(doc)
        results.append({field: getattr(result, field) for field in fields})
    assert results[0] == results[1] and results[0]["author"] == "Ada" and results[0]["language"] == "fr"


def test_the_freeing_walk_keeps_nodes_with_a_proxy_and_walks_small_pages_whole(monkeypatch):
    html = _freeing_page(300)
    root = parse_html(html)
    held = root.findall(".//p")[5]  # a proxy into the tree: never freed
    monkeypatch.setattr(document, "RELEASE_TREE_ABOVE", 1000)
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 100)
    doc = Document(root, source=html, truncated=False)  # a tree parsed elsewhere: not ours to free
    assert not doc._tree.pruned and len(root.findall(".//p")) == 304
    doc = Document(root, source=html, truncated=False, owns_tree=True)
    assert doc._tree.pruned
    assert held.getparent() is not None and "freed" in held.text
    assert len(root.findall(".//p")) == 2  # the one with a proxy kept too
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 10**9)
    assert not Document.from_html(html)._tree.pruned  # too few containers


@pytest.mark.parametrize(
    "concealed",
    [
        "<noscript><p>" + "The whole story, for crawlers. " * 40 + "</p></noscript>",
        # Hidden, and holding an element the freeing walk keeps: cut down
        # around it (the tree is then pruned, and parsed again to reveal),
        # with nothing else freed (the visible part is all kept).
        "<div hidden>" + "<p>The whole story, in a tab.</p>" * 3_000 + "<p>See <a href='/x'>this</a>.</p></div>",
    ],
)
def test_a_revealing_walk_after_the_freeing_one_reads_the_whole_page(monkeypatch, concealed):
    # Little visible text and something concealed: the page is walked
    # again, revealing, from the whole tree parsed again.
    visible = "<a href='/'>Home</a>" if "hidden" in concealed else "<p>x</p>\n" * 3_000
    html = "<html><body>" + visible + concealed + "</body></html>"
    monkeypatch.setattr(document, "RELEASE_TREE_ABOVE", 1000)
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 1000)
    freed = Document.from_html(html)
    monkeypatch.setattr(document, "PRUNE_TREE_ABOVE", 10**9)
    whole = Document.from_html(html)
    assert freed.revealed and whole.revealed
    assert freed.block_columns.texts == whole.block_columns.texts


_PEAK_OF_A_HUGE_PAGE = """
import resource, sys
from webclean_scrapy import extract
extract(b"<html><body><p>warm up</p></body></html>")
page = b"<html><body>" + b"".join(b"<p>p%06d</p>" % i for i in range(1_000_000)) + b"</body></html>"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = extract(page)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(page), (after - before) * 1024, result.truncated, result.text.startswith("p000000"))
"""


def test_a_page_of_a_million_tiny_paragraphs_grows_the_peak_by_a_bounded_amount():
    # 14 MB of <p>: libxml2's tree of it would take 20 times that; the tag screen cuts it first.
    # A fresh interpreter, so that no earlier test's peak hides this page's.
    run = subprocess.run([sys.executable, "-c", _PEAK_OF_A_HUGE_PAGE], capture_output=True, text=True, check=True)
    size, growth, truncated, starts = run.stdout.split()
    assert truncated == "True" and starts == "True"
    assert int(growth) < 6 * int(size), (growth, size)  # the whole tree alone would be ~20x


def test_the_headline_check_reads_a_long_paragraph_without_a_list_of_its_words():
    # Only a block with no more words than the title can repeat it: a long one is read a few words in.
    paragraph = "lorem ipsum dolor sit amet, " * 40_000
    doc = Document.from_html(f"<html><head><title>Hostile page</title></head><body><p>{paragraph}</p></body></html>")
    kept = np.arange(len(doc.block_columns), dtype=np.int64)
    tracemalloc.start()
    try:
        drops = headline_drops(doc, kept)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not drops.any()
    assert peak < 2 * len(paragraph)  # the lower-case copy; all its words would take ~10 times that
