"""The outline walks a page's anchors once: links and the article signals' anchor texts from one pass."""

from __future__ import annotations

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors import get_extractor
from webclean_scrapy.engine.page_type.articles import PageSignals
from webclean_scrapy.offload.outline import page_outline

LISTING = """<!DOCTYPE html><html><head><title>World news</title>
<meta property="og:type" content="website"></head><body>
<nav><a href="/">Home</a> <a href="/world/">World</a> <a>Sign in</a></nav>
<main><h1>World</h1>
<ul><li><a href="/2025/03/07/bridge-to-close-for-repairs.html">Old bridge to close for repairs this spring</a></li>
<li><a href="/2025/03/07/council-votes-on-the-new-budget.html">Council votes on the <b>new</b> budget today</a></li>
<li><a href="/2025/03/06/rain-expected-all-week.html" rel="nofollow">Rain expected all week long, says the office</a></li>
</ul><p>Our reporters cover the world, <a href="/about">about us</a>, and a longer paragraph of plain prose.</p>
<map><area href="/map-area" alt="area"></map><a href="/2025/03/07/bridge-to-close-for-repairs.html">again</a>
</main></body></html>"""


def test_one_pass_gives_the_signals_a_separate_pass_over_the_anchors_gives():
    url = "https://n.example/world/"
    extractor = get_extractor("baseline")
    doc = Document.from_html(LISTING.encode(), url=url, encoding="utf-8")
    extraction = extractor.extract(doc)
    outline = page_outline(doc, extraction)
    # PageSignals reading the anchors itself: what the outline did before (a second pass).
    assert outline.signals == PageSignals.from_root(doc.root, url, extraction.text, extraction.page_type)
    assert outline.signals.link_chars == sum(len("".join(" ".join(a.itertext()).split())) for a in doc.root.iter("a"))
    assert outline.signals.text_link_share > 0
    # Links and their texts come from the same pass: <a> and <area>, first occurrence, no nofollow.
    assert outline.links == (
        "https://n.example/",
        "https://n.example/world/",
        "https://n.example/2025/03/07/bridge-to-close-for-repairs.html",
        "https://n.example/2025/03/07/council-votes-on-the-new-budget.html",
        "https://n.example/about",
        "https://n.example/map-area",
    )
    assert outline.link_texts[3] == "Council votes on the  new  budget today"  # " ".join(itertext()), as before
    assert outline.link_texts[5] == ""
