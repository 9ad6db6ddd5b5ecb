"""The address guard against redirects, and what its refusals tell the user, in real crawls.

The harvest spider trusts its own search endpoint, a SearXNG stand-in on
127.0.0.1 here, as the usual local SearXNG would be. That trust must stay on
the endpoint request itself: Scrapy's RedirectMiddleware copies ``meta`` to
the redirected request, so a trust carried in ``meta`` alone followed a 302
from the endpoint to any loopback address. The "refused server" is a second
site on 127.0.0.1 that must receive no request at all (its own request log
is the evidence); the "public" site listens on 127.0.0.2, let through with
``WEBCLEAN_ALLOWED_NETWORKS``. No test sends traffic outside 127.0.0.0/8:
every redirect target is a loopback form, refused before any connection or,
for ``loopback.test`` (``tests/_dns.py``), at connect time.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from scrapy import Request
from scrapy.downloadermiddlewares.redirect import RedirectMiddleware
from scrapy.http import Response
from scrapy.utils.test import get_crawler

from _crawl import CrawlResult, run_crawl
from http_server import TestSite
from webclean_scrapy.downloadermiddlewares.guard import (
    META_TRUSTED_HOST,
    AddressGuardMiddleware,
    BlockedAddressError,
    is_trusted_endpoint,
    trust_endpoint,
)

SEARCH = "/search?q=the&format=json&pageno=1"
ALLOW_ALL = "User-agent: *\nAllow: /\n"

GUARDED = {
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": False,
    "WEBCLEAN_ALLOWED_NETWORKS": ["127.0.0.2/32"],
    "TWISTED_DNS_RESOLVER": "tests._dns.HostsResolver",
    "TEST_DNS_HOSTS": {"loopback.test": "127.0.0.1"},
}

#: Each form of "this machine" a redirect may name, as a URL template on the refused server's port.
REDIRECT_FORMS = {
    "dotted": "http://127.0.0.1:{port}/",
    "localhost": "http://localhost:{port}/",
    "unspecified": "http://0.0.0.0:{port}/",
    "one-number": "http://2130706433:{port}/",
    "name": "http://loopback.test:{port}/",
}


def article(title: str) -> str:
    paragraphs = "".join(
        f"<p>Paragraph {i} of {title} tells its story in plain sentences, long enough to read as an "
        f"article rather than as a list of links.</p>"
        for i in range(4)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><main><article><h1>{title}</h1>{paragraphs}</article></main></body></html>"
    )


def search_answer(urls: list[str]) -> str:
    return json.dumps({"results": [{"url": u, "title": u, "content": ""} for u in urls]})


@pytest.fixture()
def endpoint():
    """The search endpoint on 127.0.0.1, trusted by the harvest spider."""
    site = TestSite()
    site.add("/robots.txt", ALLOW_ALL, "text/plain")
    with site:
        yield site


@pytest.fixture()
def refused():
    """The server no request may reach, on 127.0.0.1 too (another port)."""
    site = TestSite()
    site.add("/", search_answer([]), "application/json")
    site.add("/robots.txt", ALLOW_ALL, "text/plain")
    with site:
        yield site


@pytest.fixture()
def public():
    """The stand-in for the open web, on 127.0.0.2."""
    site = TestSite(host="127.0.0.2")
    site.add("/robots.txt", ALLOW_ALL, "text/plain")
    site.add("/ok", article("A public page"))
    with site:
        yield site


def harvest(tmp_path, endpoint: TestSite, settings: dict) -> CrawlResult:
    return run_crawl(
        "harvest",
        tmp_path,
        args={"query": "the", "max_results": 10, "search_url": endpoint.url("/search"), "max_search_pages": 1},
        settings=settings,
    )


def warnings(log: str) -> list[str]:
    return [line for line in log.splitlines() if "WARNING" in line and "webclean: refused" in line]


def refusal_line(log: str, url: str) -> str:
    """The WARNING line refusing *url*, which must name both settings that would allow it."""
    lines = [line for line in warnings(log) if f"webclean: refused {url} (" in line]
    assert len(lines) == 1, log[-4000:]
    assert "WEBCLEAN_ALLOWED_NETWORKS" in lines[0] and "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True" in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "location", ["http://127.0.0.1:9/", "/search?q=the&pageno=2", "http://127.0.0.1:8888/search?q=the"]
)
def test_scrapy_copies_the_mark_to_a_redirected_request_and_the_copy_trusts_nothing(location):
    """Scrapy's own RedirectMiddleware builds the redirected request (as in a
    crawl): it copies ``meta``, mark included, elsewhere or to the very same URL."""
    redirect = RedirectMiddleware.from_crawler(get_crawler())
    request = trust_endpoint(Request("http://127.0.0.1:8888/search?q=the"))
    assert is_trusted_endpoint(request)
    response = Response(request.url, status=302, headers={"Location": location}, request=request)
    redirected = redirect.process_response(request, response)
    assert isinstance(redirected, Request) and redirected.meta[META_TRUSTED_HOST] == request.url
    assert not is_trusted_endpoint(redirected)


def test_the_old_true_mark_trusts_nothing(caplog):
    """``meta[META_TRUSTED_HOST] = True`` (the mark before it held the URL) is refused, with a WARNING."""
    crawler = get_crawler()
    # As in tests/test_downloadermiddlewares_guard.py: get_crawler() insists on a reactor.
    crawler.settings.frozen = False
    crawler.settings.set("TWISTED_REACTOR_ENABLED", False)  # no reactor touched: nothing connects
    crawler.stats.open_spider()
    guard = AddressGuardMiddleware.from_crawler(crawler)
    url = "http://127.0.0.1:8888/search?q=the"
    assert asyncio.run(guard.process_request(trust_endpoint(Request(url)))) is None
    with pytest.raises(BlockedAddressError):
        asyncio.run(guard.process_request(Request(url + "&pageno=2", meta={META_TRUSTED_HOST: True})))
    assert any("no longer trusts" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


@pytest.mark.parametrize("form", sorted(REDIRECT_FORMS))
def test_endpoint_redirect_to_a_refused_address_is_refused(endpoint, refused, tmp_path, form):
    target = REDIRECT_FORMS[form].format(port=refused.port)
    endpoint.add(SEARCH, b"", status=302, Location=target)
    result = harvest(tmp_path, endpoint, GUARDED)
    assert refused.hits == []  # not the page, not its robots.txt
    assert endpoint.hits.count(SEARCH) == 1  # the endpoint itself was asked, and answered the 302
    line = refusal_line(result.log, target)
    assert f"redirected from {endpoint.url(SEARCH)}" in line
    assert result.stat("harvest/search_errors/blocked_address") == 1, result.prefixed("harvest/")
    assert result.stat("finish_reason", "") == "search_failed"
    assert result.stat("webclean/blocked/unspecified" if form == "unspecified" else "webclean/blocked/loopback") >= 1


def test_endpoint_redirect_is_followed_where_the_policy_allows_it(endpoint, refused, tmp_path):
    """The control: the same 302 reaches the server once its network is allowed,
    so the tests above would see a guard that let the redirect through."""
    endpoint.add(SEARCH, b"", status=302, Location=REDIRECT_FORMS["dotted"].format(port=refused.port))
    result = harvest(tmp_path, endpoint, {**GUARDED, "WEBCLEAN_ALLOWED_NETWORKS": ["127.0.0.1/32"]})
    assert refused.hits == ["/robots.txt", "/"]
    assert result.stat("harvest/search_pages") == 1
    assert "webclean/blocked" not in result.stats


def test_endpoint_redirect_to_its_own_host_is_refused(endpoint, public, tmp_path):
    """Trust is for the endpoint request, not its host: a 302 to another path of
    the endpoint's own host and port is judged by the address, like any request."""
    moved = endpoint.url("/moved" + SEARCH[len("/search") :])
    endpoint.add(SEARCH, b"", status=302, Location=moved)
    endpoint.add("/moved", search_answer([public.url("/ok")]), "application/json")
    result = harvest(tmp_path, endpoint, GUARDED)
    assert [hit for hit in endpoint.hits if hit.startswith("/moved")] == []
    assert public.hits == []
    assert f"redirected from {endpoint.url(SEARCH)}" in refusal_line(result.log, moved)
    assert result.stat("finish_reason", "") == "search_failed"


def test_results_redirected_to_the_endpoint_host_are_refused(endpoint, public, tmp_path):
    """Search results on the public site that redirect back to the trusted
    endpoint's host and port -- to a page, or to its robots.txt, which the
    robots.txt middleware itself may fetch -- are refused."""
    public.add("/hop", b"", status=302, Location=endpoint.url("/secret"))
    public.add("/hop-robots", b"", status=302, Location=endpoint.url("/robots.txt"))
    endpoint.add("/secret", article("Internal admin page"))
    endpoint.add(SEARCH, search_answer([public.url("/ok"), public.url("/hop"), public.url("/hop-robots")]))
    result = harvest(tmp_path, endpoint, GUARDED)
    assert [i["url"] for i in result.items] == [public.url("/ok")]
    assert "/secret" not in endpoint.hits
    assert endpoint.hits.count("/robots.txt") == 1  # the robots.txt middleware's own request only
    assert result.stat("harvest/failed/blocked_address") == 2, result.prefixed("harvest/")
    # One WARNING for the host (the first of the two refusals), naming the redirect it came from.
    (line,) = warnings(result.log)
    hops = {endpoint.url("/secret"): public.url("/hop"), endpoint.url("/robots.txt"): public.url("/hop-robots")}
    assert any(f"refused {url} (" in line and f"redirected from {hop}" in line for url, hop in hops.items()), line
    assert "WEBCLEAN_ALLOWED_NETWORKS" in line and "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES" in line
    assert result.stat("finish_reason", "") == "finished"


# -- a refusal says which setting allows it -------------------------------------------------


def news(tmp_path, start_urls: list[str], settings: dict) -> CrawlResult:
    args = {"start_urls": ",".join(start_urls), "sitemaps": 0, "feeds": 0}
    return run_crawl("news", tmp_path, args=args, settings=settings)


def test_refused_start_url_names_the_page_and_closes_the_crawl(refused, tmp_path):
    refused.add("/page", article("A local page"))
    page = refused.url("/page")
    result = news(tmp_path, [page], GUARDED)
    assert result.items == [] and refused.hits == []
    # One WARNING for the host, naming the page asked for, not the robots.txt fetched before it.
    assert len(warnings(result.log)) == 1, result.log[-4000:]
    line = refusal_line(result.log, page)
    assert "127.0.0.1 is a loopback address" in line and "robots.txt" not in line
    assert 'WEBCLEAN_ALLOWED_NETWORKS = ["127.0.0.1/32"]' in line
    errors = [line for line in result.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "every request" in errors[0] and page in errors[0], errors
    assert "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES" in errors[0]  # the advice holds at LOG_LEVEL = "ERROR" too
    assert result.stat("finish_reason", "") == "webclean_all_refused"
    assert result.stat("news/errors/blocked_address") == 1


def test_a_crawl_with_one_refused_start_url_finishes_normally(refused, public, tmp_path):
    refused.add("/page", article("A local page"))
    result = news(tmp_path, [public.url("/ok"), refused.url("/page")], GUARDED)
    assert [i["url"] for i in result.items] == [public.url("/ok")]
    refusal_line(result.log, refused.url("/page"))
    assert result.stat("finish_reason", "") == "finished"
    assert not [line for line in result.log.splitlines() if " ERROR: " in line]
