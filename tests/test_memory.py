"""Memory per page is bounded: the walk's tables are compact (columns,
sparse punctuation marks, one shared empty attribute dict), a large page
drops its lxml tree before the extraction method runs, and the
``webclean`` extractor's feature rows are built and scored a chunk at a
time, giving the same rows as one whole-page pass, bit for bit.

Peak memory is read with :mod:`tracemalloc` (numpy reports its buffers to
it), which counts allocations, not time: deterministic. The page-level
figures (peak RSS per page size) are ``benchmarks/hostile_pages.py``'s.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from webclean_scrapy.document import RELEASE_TREE_ABOVE, Document, parse_html
from webclean_scrapy.extraction import Extractor
from webclean_scrapy.extractors.webclean import MODEL_FEATURES, block_probabilities
from webclean_scrapy.extractors.webclean.features import BLOCK_FEATURES, _Page, block_matrix, iter_block_matrices
from webclean_scrapy.marks import PUNCTUATION_MARKS
from webclean_scrapy.page_type import page_type_of

DEMO = Path(__file__).resolve().parent.parent / "webclean_scrapy" / "demo" / "site"


def test_scoring_never_holds_the_whole_feature_matrix():
    blocks = 100_000
    doc = Document.from_html("<html><body>" + "".join(f"<p>p{i:06d}</p>" for i in range(blocks)) + "</body></html>")
    page_type_of(doc)  # computed once per page, outside what is measured
    whole_matrix = blocks * len(MODEL_FEATURES) * 8
    tracemalloc.start()
    try:
        probabilities = block_probabilities(doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert probabilities.shape == (blocks,)
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
    page = _Page(Document.from_html(html))
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
