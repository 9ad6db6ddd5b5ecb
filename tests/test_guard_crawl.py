"""The address guard in real crawls: hostile search results, redirects and
meta refreshes must not reach a loopback address.

All traffic stays on 127.0.0.0/8: the "public" site listens on 127.0.0.2,
allowed with ``WEBCLEAN_ALLOWED_NETWORKS``; the secret listens on
127.0.0.1, which the guard refuses. ``rebind.test`` resolves to 127.0.0.1
through a test hosts file (``tests/_dns.py``), so the connect-time check is
exercised for a name, as with DNS rebinding. Each test also runs the crawl
with ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True`` to show that, unguarded,
the same URLs do reach the secret.
"""

from __future__ import annotations

import json

import pytest

from _crawl import run_crawl
from webclean_scrapy.demo.server import LocalSite

SECRET = "SECRET-TOKEN-7f3a"


def article(title: str, words: str) -> str:
    paragraphs = "".join(
        f"<p>{words} This paragraph number {i} of the page tells the story in plain words, with enough "
        f"sentences to read as an article rather than a listing of links.</p>"
        for i in range(4)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><main><article><h1>{title}</h1>{paragraphs}</article></main></body></html>"
    )


def refresh_page(target: str) -> str:
    return f'<html><head><meta http-equiv="refresh" content="0; url={target}"></head><body>Moved</body></html>'


@pytest.fixture()
def secret_site():
    """The site that must never be reached, on 127.0.0.1."""
    site = LocalSite()
    site.add("/secret", article("Internal admin page", SECRET))
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    with site:
        yield site


@pytest.fixture()
def public_site():
    """The stand-in for the open web, on 127.0.0.2."""
    site = LocalSite(host="127.0.0.2")
    with site:
        yield site


GUARDED = {
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": False,
    "WEBCLEAN_ALLOWED_NETWORKS": ["127.0.0.2/32"],
    "TWISTED_DNS_RESOLVER": "tests._dns.HostsResolver",
    "TEST_DNS_HOSTS": {"rebind.test": "127.0.0.1"},
}
UNGUARDED = {**GUARDED, "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True}


def hostile_results(public: LocalSite, secret: LocalSite) -> list[str]:
    port = secret.port
    return [
        public.url("/ok"),
        f"http://127.0.0.1:{port}/secret",
        f"http://localhost:{port}/secret",
        f"http://2130706433:{port}/secret",  # 127.0.0.1 as one number
        f"http://0x7f.1:{port}/secret",  # ... in inet_aton's hexadecimal short form
        f"http://0177.0.0.1:{port}/secret",  # ... in octal
        f"http://[::ffff:127.0.0.1]:{port}/secret",  # ... IPv4-mapped IPv6
        f"http://rebind.test:{port}/secret",  # a name resolving to it
        public.url("/redirect"),  # 302 to the secret
        public.url("/refresh"),  # meta refresh to the secret
        public.url("/loop1"),  # a redirect loop (counted, not an address)
    ]


def serve_search(public: LocalSite, secret: LocalSite) -> None:
    public.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    public.add("/ok", article("A public page", "Public words."))
    public.add("/redirect", b"", status=302, Location=secret.url("/secret"))
    public.add("/refresh", refresh_page(secret.url("/secret")))
    public.add("/loop1", b"", status=302, Location=public.url("/loop2"))
    public.add("/loop2", b"", status=302, Location=public.url("/loop1"))
    results = hostile_results(public, secret)
    public.add(
        "/search?q=the&format=json&pageno=1",
        json.dumps({"results": [{"url": u, "title": u, "content": ""} for u in results]}),
        "application/json",
    )


def harvest(tmp_path, public: LocalSite, settings: dict) -> object:
    return run_crawl(
        "harvest",
        tmp_path,
        args={"query": "the", "max_results": 20, "search_url": public.url("/search"), "max_search_pages": 1},
        settings=settings,
    )


def test_harvest_refuses_loopback_results(public_site, secret_site, tmp_path):
    serve_search(public_site, secret_site)
    result = harvest(tmp_path, public_site, GUARDED)
    assert [i["url"] for i in result.items] == [public_site.url("/ok")]
    assert not any(SECRET in i["text"] for i in result.items)
    assert secret_site.hits == []  # not even robots.txt
    # Nine results refused (robots.txt requests for their hosts are refused and counted too).
    blocked = result.prefixed("webclean/blocked")
    assert blocked["webclean/blocked"] >= 9 and blocked["webclean/blocked"] == blocked["webclean/blocked/loopback"]
    assert result.stat("harvest/failed/blocked_address") == 9, result.prefixed("harvest/")
    assert result.stat("harvest/failed/redirect_loop") == 1
    assert result.stat("harvest/failed") == 10
    # Logged once per host, not per request.
    assert result.log.count("webclean: refused http://127.0.0.1:") == 1, result.log[-3000:]
    assert f"refused http://rebind.test:{secret_site.port}/secret (127.0.0.1 is a loopback address)" in result.log


def test_harvest_unguarded_reaches_the_secret(public_site, secret_site, tmp_path):
    """The control: without the guard the same results fetch the secret page."""
    serve_search(public_site, secret_site)
    result = harvest(tmp_path, public_site, UNGUARDED)
    secret_urls = {i["url"] for i in result.items if SECRET in i["text"]}
    assert len(secret_urls) >= 7, [i["url"] for i in result.items]
    assert "webclean/blocked" not in result.stats


def test_news_redirects_and_refresh_to_refused_addresses_are_counted(public_site, secret_site, tmp_path):
    """A news site whose pages redirect and meta-refresh to a refused address,
    and loop redirects: each is counted in ``news/errors``."""
    secret_site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    p = public_site
    p.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    p.add(
        "/",
        '<html><body><a href="/a1">one</a> <a href="/moved">two</a> <a href="/refresh">three</a>'
        ' <a href="/loop1">four</a></body></html>',
    )
    p.add("/a1", article("First article", "Public words."))
    p.add("/moved", b"", status=301, Location=f"http://rebind.test:{secret_site.port}/secret")
    p.add("/refresh", refresh_page(f"http://rebind.test:{secret_site.port}/secret?from=refresh"))
    p.add("/loop1", b"", status=302, Location=p.url("/loop2"))
    p.add("/loop2", b"", status=302, Location=p.url("/loop1"))
    # rebind.test is a second site of the crawl, so the offsite filter lets its URLs through.
    args = {"start_urls": f"{p.url('/')},http://rebind.test:{secret_site.port}/", "sitemaps": 0, "feeds": 0}
    result = run_crawl("news", tmp_path, args=args, settings=GUARDED)
    assert [i["url"] for i in result.items] == [p.url("/a1")]
    news = result.prefixed("news/")
    # The second start URL, the redirect and the meta refresh are refused; the loop is counted.
    assert news.get("news/errors/blocked_address") == 3, result.stats
    assert news.get("news/errors/redirect_loop") == 1, news
    assert news.get("news/errors") == 4, news
    assert result.stat("webclean/blocked/loopback") >= 3
    assert secret_site.hits == []


def test_news_unguarded_follows_the_redirect(public_site, secret_site, tmp_path):
    p = public_site
    p.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    p.add("/", '<html><body><a href="/moved">two</a></body></html>')
    p.add("/moved", b"", status=301, Location=f"http://rebind.test:{secret_site.port}/secret")
    args = {"start_urls": f"{p.url('/')},http://rebind.test:{secret_site.port}/", "sitemaps": 0, "feeds": 0}
    result = run_crawl("news", tmp_path, args=args, settings=UNGUARDED)
    assert any(SECRET in i["text"] for i in result.items), result.items


def test_harvest_trusts_its_own_search_endpoint_only(public_site, secret_site, tmp_path):
    """A SearXNG on 127.0.0.1 (the usual set-up) is reachable without opening
    127.0.0.1 to the results: results pointing back at it are refused."""
    port = secret_site.port
    public_site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    public_site.add("/ok", article("A public page", "Public words."))
    results = [
        public_site.url("/ok"),
        secret_site.url("/secret"),
        f"http://localhost:{port}/secret",
        f"http://2130706433:{port}/secret",
    ]
    secret_site.add(
        "/search?q=the&format=json&pageno=1",
        json.dumps({"results": [{"url": u, "title": u, "content": ""} for u in results]}),
        "application/json",
    )
    result = run_crawl(
        "harvest",
        tmp_path,
        args={"query": "the", "max_results": 10, "search_url": secret_site.url("/search"), "max_search_pages": 1},
        settings={**GUARDED, "WEBCLEAN_ALLOWED_NETWORKS": ["127.0.0.2/32"]},
    )
    assert result.stat("harvest/search_pages") == 1, result.prefixed("harvest/")
    assert [i["url"] for i in result.items] == [public_site.url("/ok")]
    assert result.stat("harvest/failed/blocked_address") == 3
    assert "/secret" not in secret_site.hits
    assert secret_site.hits[:2] == ["/robots.txt", "/search?q=the&format=json&pageno=1"]
