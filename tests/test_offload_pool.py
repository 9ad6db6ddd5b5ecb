"""Worker processes: native crashes, the per-page time limit, an attribute bomb screened in a crawl, the
workers' ids, the fields they compute and send back, and the time-limit setting (the screen's own cases:
``test_engine_html_screen.py``; the outline the workers send back: ``test_offload_outline.py``).

The crawls are real (``tests/_crawl.py``: the ``news`` spider in a subprocess
against a local HTTP server); the misbehaving extractor lives in
``tests/_hostile_extractor.py`` so that fresh worker processes can import it.
"""

from __future__ import annotations

import pytest

from _crawl import run_crawl
from pages import DAY, OG_PARAGRAPH, attribute_bomb, og_article
from webclean_scrapy.settings import WebcleanSettings


def serve(local_site, pages: dict[str, str], home_links: list[str]) -> str:
    """A news site: robots.txt names a sitemap of the home page and *pages*; the home links *home_links*."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    routes: dict[str, tuple[int, dict[str, str], str]] = {p: (200, html, b) for p, b in pages.items()}
    links = "".join(f'<li><a href="{path}">{path}</a></li>' for path in home_links)
    routes["/"] = (200, html, f"<html><body><h1>Home</h1><ul>{links}</ul></body></html>")
    # Relative <loc> values: the spider resolves them against the sitemap's URL.
    urls = "".join(f"<url><loc>{p}</loc></url>" for p in ["/", *pages])
    routes["/sitemap.xml"] = (
        200,
        {"Content-Type": "application/xml"},
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
    )
    routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, "User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n")
    return local_site(routes)


HOSTILE = "tests._hostile_extractor.HostileExtractor"


def test_crashing_and_stuck_pages_lose_nothing_else(tmp_path, local_site):
    """A page that kills its worker (first page of the crawl, and later) is retried
    once in a fresh worker, then skipped and counted; a page that crashed once is
    recovered; pages over WEBCLEAN_PAGE_TIMEOUT are abandoned, whether the worker
    gives up by itself (Python code) or has to be killed (blocked signals, as in C
    code). Every other page comes out, and the crawl never falls back to threads."""
    good = [f"{DAY}story-{n:02d}-about-the-town-council.html" for n in range(1, 15)]
    hostile = [
        f"{DAY}crash-always-first.html",
        f"{DAY}crash-always-later.html",
        f"{DAY}crash-once-then-fine.html",
        f"{DAY}slow-story-of-a-page.html",
        f"{DAY}stuck-story-of-a-page.html",
    ]
    pages = {path: og_article(f"Story {i}") for i, path in enumerate(good + hostile)}
    base = serve(local_site, pages, good + hostile[1:])
    markers = tmp_path / "markers"
    markers.mkdir()
    result = run_crawl(
        "news",
        tmp_path,
        args={"start_urls": base + hostile[0], "sitemaps": 1},
        settings={
            "WEBCLEAN_EXTRACTOR": HOSTILE,
            "WEBCLEAN_EXTRACTOR_OPTIONS": {"marker_dir": str(markers)},
            "WEBCLEAN_OFFLOAD": "process",
            "WEBCLEAN_WORKERS": 2,
            "WEBCLEAN_PAGE_TIMEOUT": 10,  # generous: the machine may be loaded
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
        },
        timeout=600,
    )
    urls = sorted(item["url"][len(base) :] for item in result.items)
    assert urls == sorted(good + [f"{DAY}crash-once-then-fine.html"])
    recovered = next(i for i in result.items if "crash-once" in i["url"])
    assert OG_PARAGRAPH.strip() in recovered["text"]
    assert (markers / "crash-once-then-fine.html").exists()  # it did crash once
    assert result.stat("webclean/errors/worker_crash") == 2
    assert result.stat("webclean/errors/timeout") == 2
    assert result.stat("webclean/errors") == 4
    assert result.stat("news/unextracted") == 4
    assert "failed to start" not in result.log
    assert "killed 2 worker processes (last: signal SIGSEGV); page skipped" in result.log
    assert "retrying the page in a new worker" in result.log
    assert "slow-story-of-a-page.html took over WEBCLEAN_PAGE_TIMEOUT" in result.log
    assert "its worker was replaced" in result.log  # the stuck page's worker


@pytest.mark.parametrize("offload", ["process", "thread"])
def test_attribute_bomb_is_screened_in_a_crawl(tmp_path, local_site, offload):
    """A page with 100,000 attributes on one element (about 20 s for libxml2,
    and as long again for a selector on the reactor) is neutralised before any
    parse and still extracted; the spider reads its links from the worker."""
    good = [f"{DAY}story-{n:02d}-about-the-town-council.html" for n in range(1, 4)]
    bomb = f"{DAY}bombed-story-about-the-bridge.html"
    pages = {path: og_article(f"Story {i}") for i, path in enumerate(good)}
    pages[bomb] = attribute_bomb(100_000).replace(
        "</body>", f'<a href="{DAY}linked-only-from-the-bomb.html">next</a></body>'
    )
    pages[f"{DAY}linked-only-from-the-bomb.html"] = og_article("Linked from the bomb")
    base = serve(local_site, pages, [bomb, *good])
    result = run_crawl(
        "news",
        tmp_path,
        args={"start_urls": base + "/", "sitemaps": 0},
        settings={
            "WEBCLEAN_EXTRACTOR": "baseline",
            "WEBCLEAN_OFFLOAD": offload,
            "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True,
            "CLOSESPIDER_TIMEOUT": 120,
        },
        timeout=600,
    )
    by_path = {item["url"][len(base) :]: item for item in result.items}
    assert sorted(by_path) == sorted([*good, bomb, f"{DAY}linked-only-from-the-bomb.html"])
    assert "inside the bomb" in by_path[bomb]["text"] and OG_PARAGRAPH.strip() in by_path[bomb]["text"]
    assert result.stat("webclean/screened/attributes") == 1
    assert result.stat("finish_reason", "") == "finished"


def test_worker_pids_name_the_running_workers():
    """What benchmarks/crawl.py reads the extraction workers' CPU time from."""
    import os
    import time

    from webclean_scrapy.offload import WorkerPool

    pool = WorkerPool(2, "default", {}, None)
    try:
        ran_in = {pool.submit(os.getpid).result(timeout=300) for _ in range(4)}
        deadline = time.monotonic() + 300  # a loaded machine starts the second worker late
        while len(pool.worker_pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = pool.worker_pids()
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert ran_in <= set(pids)
        for pid in pids:
            os.kill(pid, 0)  # alive
    finally:
        pool.shutdown()
    assert pool.worker_pids() == []


def test_page_timeout_setting():
    from scrapy.settings import Settings

    assert WebcleanSettings.from_settings(Settings()).page_timeout == 30.0
    assert WebcleanSettings.from_settings(Settings()).outline is False  # the news spider turns it on
    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": "2.5"})).page_timeout == 2.5
    assert WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": 0})).page_timeout is None
    with pytest.raises(ValueError, match="WEBCLEAN_PAGE_TIMEOUT"):
        WebcleanSettings.from_settings(Settings({"WEBCLEAN_PAGE_TIMEOUT": -1}))


def test_a_worker_computes_the_fields_asked_for_and_sends_back_what_it_computed():
    """A worker process given ``WEBCLEAN_FIELDS`` returns the fields asked for
    as this process computes them and the others empty; what crosses the
    boundary loads back equal, and the fields left out make it smaller."""
    import pickle

    from pages import sample_bytes
    from webclean_scrapy.engine.formats import NO_MARKUP
    from webclean_scrapy.offload import WorkerPool
    from webclean_scrapy.offload.jobs import extract_markup

    page = sample_bytes("metadata-fields.html")
    url, content_type = "https://news.example/a", "text/html; charset=utf-8"
    pool = WorkerPool(1, "baseline", {}, None)
    try:
        args = (None, page, url, content_type, False, None, (), NO_MARKUP)
        complete = pool.submit(extract_markup, *args).result(timeout=300)
        asked = pool.submit(extract_markup, *args, frozenset({"date"})).result(timeout=300)
    finally:
        pool.shutdown()
    assert complete.extraction.author == "Jane Roe" and complete.extraction.detected_language == "en"
    assert asked.extraction.date == complete.extraction.date == "2025-09-04"
    assert asked.extraction.author is None and asked.extraction.detected_language is None
    assert asked.extraction.text == complete.extraction.text and asked.extraction.title == ""
    assert pickle.loads(pickle.dumps(complete)) == complete
    assert len(pickle.dumps(asked)) < len(pickle.dumps(complete))
