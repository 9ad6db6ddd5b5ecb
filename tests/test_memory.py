"""Memory per page is bounded: the ``webclean`` extractor's feature rows
are built and scored a chunk at a time, and give the same rows as one
whole-page pass, bit for bit.

Peak memory is read with :mod:`tracemalloc` (numpy reports its buffers to
it), which counts allocations, not time: deterministic. The page-level
figures (peak RSS per page size) are ``benchmarks/hostile_pages.py``'s.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from webclean_scrapy.document import Document
from webclean_scrapy.extractors.webclean import MODEL_FEATURES, block_probabilities
from webclean_scrapy.extractors.webclean.features import BLOCK_FEATURES, _Page, block_matrix, iter_block_matrices
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
    assert np.array_equal(rows[:, :len(BLOCK_FEATURES)], whole)
    assert not rows[:, len(BLOCK_FEATURES):].any()  # left for the page-type columns
