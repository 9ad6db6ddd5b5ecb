"""The page-type classifier on pages made for it, and its shipped model on wcxb-dev."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from webclean_scrapy import extract
from webclean_scrapy.document import Document
from webclean_scrapy.page_type import PAGE_FEATURES, PAGE_TYPES, page_features, page_type_of, predict_page_type

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "wcxb-dev"

PRODUCT = """<html><head><title>Trail Runner 3 - Men's running shoe | Shop</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Trail Runner 3",
 "offers": {"@type": "Offer", "price": "129.00", "priceCurrency": "EUR"}}</script></head>
<body><nav><a href="/">Home</a> <a href="/men">Men</a> <a href="/men/shoes">Shoes</a></nav>
<div class="product-detail"><h1>Trail Runner 3</h1><div class="price">€129.00</div>
<form class="add-to-cart"><select name="size"><option>42</option></select><button>Add to cart</button></form>
<div class="product-description"><p>A light trail shoe with a grippy sole and a roomy toe box, for long runs
on rough ground.</p></div></div></body></html>"""

DOCS = """<html><head><title>Configuration - Widget 2.1 documentation</title></head><body>
<nav class="sidebar toc"><ul><li><a href="/docs/install">Install</a></li><li><a href="/docs/config">Configuration</a></li>
<li><a href="/docs/api">API reference</a></li></ul></nav>
<main class="document"><h1>Configuration</h1><p>Widget reads its settings from <code>widget.toml</code>.</p>
<pre><code>[server]
port = 8080
workers = 4</code></pre><h2>Options</h2><p>Each option can also be set as an environment variable.</p>
<pre><code>WIDGET_PORT=8080 widget serve</code></pre></main></body></html>"""


def test_clear_pages_get_their_type():
    assert predict_page_type(Document.from_html(PRODUCT), "https://shop.example/products/trail-runner-3")[0] == "product"
    assert predict_page_type(Document.from_html(DOCS), "https://widget.example/docs/config")[0] == "documentation"


@pytest.mark.parametrize("html", ["", "<html></html>", "<p>x", "\x00\x01 binary-ish", "<div>" * 3000])
def test_features_are_finite_and_probabilities_sum_to_one(html):
    doc = Document.from_html(html)
    features = page_features(doc)
    assert features.shape == (len(PAGE_FEATURES),) and np.isfinite(features).all()
    kind, probabilities = predict_page_type(doc)
    assert kind in PAGE_TYPES and probabilities.sum() == pytest.approx(1.0)
    assert probabilities.shape == (len(PAGE_TYPES),) and (probabilities >= 0).all()


def test_page_type_is_computed_once_per_document():
    doc = Document.from_html(PRODUCT, url="https://shop.example/products/trail-runner-3")
    first = page_type_of(doc)
    assert page_type_of(doc) is first
    assert extract(PRODUCT, url="https://shop.example/products/trail-runner-3").page_type == first[0]


@pytest.mark.quality
def test_shipped_model_on_a_third_of_wcxb_dev():
    if not (DATA / "truth.jsonl").is_file():
        pytest.skip(f"evaluation data absent: {DATA}")
    import gzip

    rows = [json.loads(line) for line in (DATA / "truth.jsonl").open(encoding="utf-8") if line.strip()][::3]
    right = 0
    for row in rows:
        doc = Document.from_html(gzip.decompress((DATA / "html" / f"{row['id']}.html.gz").read_bytes()), url=row["url"])
        right += predict_page_type(doc, row["url"])[0] == row["page_type"]
    # In-sample (the model was fitted on these pages): a regression check, not an accuracy claim.
    assert right / len(rows) >= 0.98
