"""The address guard at the guard level: policies, numeric host forms, the
connect-time resolver and the middleware, all before any connection is made
(no traffic leaves the test process; private and link-local targets are
judged, never contacted); then the guard in real crawls, where hostile search results,
redirects and meta refreshes must not reach a loopback address."""

from __future__ import annotations

import asyncio
import ipaddress
import json

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.test import get_crawler
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.endpoints import HostnameEndpoint
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IHostnameResolver
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.testing import MemoryReactorClock
from twisted.python.failure import Failure
from zope.interface import implementer

from _crawl import run_crawl
from http_server import TestSite
from pages import plain_article, refresh_page
from webclean_scrapy.downloadermiddlewares.guard import (
    AddressGuardMiddleware,
    AddressPolicy,
    BlockedAddressError,
    GuardedNameResolver,
    numeric_host,
)

REFUSED = {
    "127.0.0.1": "loopback",
    "127.255.0.9": "loopback",
    "::1": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "192.168.1.1": "private",
    "100.64.0.1": "private",
    "fc00::1": "private",
    "fec0::1": "private",
    "169.254.169.254": "link_local",
    "fe80::1": "link_local",
    "224.0.0.1": "multicast",
    "239.255.255.250": "multicast",
    "ff02::1": "multicast",
    "0.0.0.0": "unspecified",
    "::": "unspecified",
    "240.0.0.1": "private",
    "255.255.255.255": "private",
    "::ffff:127.0.0.1": "loopback",
    "::ffff:169.254.169.254": "link_local",
    "64:ff9b::a9fe:a9fe": "link_local",  # NAT64 of the metadata address
    "2002:7f00:1::1": "loopback",  # 6to4 of 127.0.0.1
    "::127.0.0.1": "reserved",  # deprecated IPv4-compatible form
}
PUBLIC = ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34", "64:ff9b::5db8:d822"]


@pytest.mark.parametrize("address,reason", sorted(REFUSED.items()))
def test_refused_addresses(address, reason):
    assert AddressPolicy().refusal(address) == reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address):
    assert AddressPolicy().refusal(address) is None


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "2130706433",
        "0x7f.1",
        "0x7f000001",
        "0177.0.0.1",
        "127.1",
        "[::ffff:127.0.0.1]",
        "::ffff:7f00:1",
        "127.0.0.1.",
    ],
)
def test_numeric_forms_of_loopback(host):
    ip = numeric_host(host)
    assert ip is not None and (
        ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else ip
    ) == ipaddress.IPv4Address("127.0.0.1")
    assert AddressPolicy().check_host(host) == (str(ip), "loopback")


@pytest.mark.parametrize("host", ["example.com", "1password.com", "0x.example", "xn--bcher-kva.example", ""])
def test_names_are_not_numeric(host):
    assert numeric_host(host) is None
    assert AddressPolicy().check_host(host) is None


def test_localhost_names_are_refused_without_dns():
    for host in ("localhost", "LOCALHOST.", "admin.localhost"):
        assert AddressPolicy().check_host(host) == ("127.0.0.1", "loopback")


def test_allowed_networks():
    policy = AddressPolicy.from_networks(["127.0.0.2/32", "10.0.0.0/8", "fd00::/8"])
    assert policy.refusal("127.0.0.2") is None and policy.refusal("::ffff:127.0.0.2") is None
    assert policy.refusal("10.9.9.9") is None and policy.refusal("fd12::1") is None
    assert policy.refusal("127.0.0.1") == "loopback"
    assert policy.refusal("169.254.169.254") == "link_local"
    with pytest.raises(ValueError, match="WEBCLEAN_ALLOWED_NETWORKS"):
        AddressPolicy.from_networks(["not-a-network"])


# -- connect time: Twisted's own HostnameEndpoint on an in-memory reactor ---------------------
@implementer(IHostnameResolver)
class Hosts:
    """Answers each name with the next list of addresses: ``{"name": [[first], [second], ...]}``."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = {name: list(lists) for name, lists in answers.items()}

    def resolveHostName(
        self,
        receiver,
        hostName,
        portNumber=0,
        addressTypes=None,  # noqa: N802, N803
        transportSemantics="TCP",
    ):  # noqa: N803
        receiver.resolutionBegan(None)
        queue = self.answers.get(hostName, [])
        for address in queue.pop(0) if len(queue) > 1 else (queue[0] if queue else []):
            cls = IPv6Address if ":" in address else IPv4Address
            receiver.addressResolved(cls("TCP", address, portNumber))
        receiver.resolutionComplete()


def connect(reactor: MemoryReactorClock, host: str):
    """Start a connection like Scrapy's HTTP/1.1 handler does; return (connected hosts, failure)."""
    failures: list[Failure] = []
    before = len(reactor.tcpClients)
    d = HostnameEndpoint(reactor, host, 80).connect(Factory.forProtocol(Protocol))
    d.addErrback(lambda failure: failures.append(failure))
    reactor.advance(1)
    return [client[0] for client in reactor.tcpClients[before:]], (failures[0] if failures else None)


def guarded_reactor(answers: dict[str, list[list[str]]], policy: AddressPolicy = AddressPolicy()):
    reactor = MemoryReactorClock()
    reactor.installNameResolver(Hosts(answers))
    guard = GuardedNameResolver(reactor.nameResolver)
    guard.policies[0] = policy
    return reactor, guard.install(reactor)


def test_connect_time_refuses_private_answers():
    reactor, guard = guarded_reactor(
        {
            "metadata.test": [["169.254.169.254"]],
            "intranet.test": [["10.0.0.7"]],
            "public.test": [["93.184.216.34"]],
            "v6.test": [["::1"]],
        }
    )
    for name in ("metadata.test", "intranet.test", "v6.test"):
        hosts, failure = connect(reactor, name)
        assert hosts == [] and failure is not None and failure.check(DNSLookupError), name
    assert guard.refused_hosts["metadata.test"] == ("169.254.169.254", "link_local")
    assert guard.refused_hosts["intranet.test"] == ("10.0.0.7", "private")
    hosts, failure = connect(reactor, "public.test")
    assert hosts == ["93.184.216.34"] and failure is None


def test_connect_time_checks_every_lookup_dns_rebinding():
    """A name that answers a public address first and 127.0.0.1 next: the
    second connection, to the address actually resolved then, is refused."""
    reactor, guard = guarded_reactor({"rebind.test": [["93.184.216.34"], ["127.0.0.1"]]})
    assert connect(reactor, "rebind.test")[0] == ["93.184.216.34"]
    hosts, failure = connect(reactor, "rebind.test")
    assert hosts == [] and failure.check(DNSLookupError)
    assert guard.refused_hosts["rebind.test"] == ("127.0.0.1", "loopback")


def test_connect_time_keeps_public_answers_of_a_mixed_name():
    reactor, _ = guarded_reactor({"mixed.test": [["127.0.0.1", "93.184.216.34", "10.0.0.1"]]})
    assert connect(reactor, "mixed.test")[0] == ["93.184.216.34"]


def test_connect_time_allowed_network_and_reinstall():
    reactor, guard = guarded_reactor({"lab.test": [["10.0.0.7"]]}, AddressPolicy.from_networks(["10.0.0.0/8"]))
    assert connect(reactor, "lab.test")[0] == ["10.0.0.7"]
    # Another resolver installed later (CrawlerProcess does so when it starts) is wrapped again.
    reactor.installNameResolver(Hosts({"lab.test": [["192.168.0.1"]]}))
    assert guard.install(reactor) is guard and reactor.nameResolver is guard
    assert connect(reactor, "lab.test")[0] == []


# -- the middleware, without a reactor (no connection at all) --------------------------------
def middleware(**settings):
    crawler = get_crawler(settings_dict=settings)
    crawler.settings.frozen = False  # get_crawler() insists on a reactor; these tests need none
    crawler.settings.set("TWISTED_REACTOR_ENABLED", False)  # no reactor touched by these tests
    crawler.stats.open_spider()
    return AddressGuardMiddleware.from_crawler(crawler), crawler.stats


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/secret",
        "http://2130706433/",
        "http://0x7f.1:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://10.0.0.1/",
        "http://0.0.0.0:8000/",
        "http://[::]/",
        "http://224.0.0.251/",
        "https://192.168.0.1/admin",
    ],
)
def test_middleware_refuses_before_sending(url):
    mw, stats = middleware()
    with pytest.raises(BlockedAddressError) as raised:
        asyncio.run(mw.process_request(Request(url)))
    assert isinstance(raised.value, IgnoreRequest)  # no retry, no error log from Scrapy
    assert stats.get_value("webclean/blocked") == 1
    assert sum(v for k, v in stats.get_stats().items() if k.startswith("webclean/blocked/")) == 1


def test_middleware_passes_public_and_allowed():
    mw, stats = middleware(WEBCLEAN_ALLOWED_NETWORKS=["127.0.0.2/32"])
    for url in ("http://93.184.216.34/", "http://127.0.0.2:8080/ok", "http://[2606:4700:4700::1111]/"):
        assert asyncio.run(mw.process_request(Request(url))) is None
    assert stats.get_value("webclean/blocked") is None


def test_middleware_opt_out():
    with pytest.raises(NotConfigured):
        middleware(WEBCLEAN_ALLOW_PRIVATE_ADDRESSES=True)


def test_middleware_logs_once_per_host(caplog):
    mw, stats = middleware()
    for path in ("/a", "/b", "/c"):
        with pytest.raises(BlockedAddressError):
            asyncio.run(mw.process_request(Request("http://127.0.0.1" + path)))
    assert stats.get_value("webclean/blocked/loopback") == 3
    assert sum("refused http://127.0.0.1/" in r.getMessage() for r in caplog.records if r.levelname == "WARNING") == 1


def test_middleware_turns_a_refused_connection_into_blocked_address():
    mw, stats = middleware()
    mw.resolver = GuardedNameResolver(None)  # as when the connect-time check refused the name
    mw.resolver.refused_hosts["rebind.test"] = ("127.0.0.1", "loopback")
    with pytest.raises(BlockedAddressError, match="127.0.0.1 is a loopback address"):
        mw.process_exception(Request("http://rebind.test/x"), DNSLookupError("no results"))
    # A genuine DNS failure of another name stays what it is (retried, logged by Scrapy).
    assert mw.process_exception(Request("http://nx.test/"), DNSLookupError("no results")) is None
    assert stats.get_value("webclean/blocked") == 1


def test_connect_time_trusts_one_endpoint_by_host_and_port():
    reactor, guard = guarded_reactor({"searx.lan": [["10.0.0.5"]]})
    guard.trusted.add(("searx.lan", 8888))
    client = []
    HostnameEndpoint(reactor, "searx.lan", 8888).connect(Factory.forProtocol(Protocol)).addErrback(client.append)
    reactor.advance(1)
    assert reactor.tcpClients[-1][:2] == ("10.0.0.5", 8888) and not client
    assert guard.private_endpoints[("searx.lan", 8888)] == ("10.0.0.5", "private")
    hosts, failure = connect(reactor, "searx.lan")  # port 80: not the trusted endpoint
    assert hosts == [] and failure.check(DNSLookupError)


def test_without_reactor_names_are_resolved_before_sending():
    """Reactorless mode: the middleware resolves the name itself (the machine's
    own name resolves to a loopback or private address on most systems)."""
    import socket

    name = socket.gethostname()
    try:
        answers = {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except OSError:
        pytest.skip("this machine's name does not resolve")
    if not answers or any(AddressPolicy().refusal(a) is None for a in answers):
        pytest.skip(f"{name} resolves to a public address here")
    mw, stats = middleware()
    assert mw.resolver is None
    with pytest.raises(BlockedAddressError):
        asyncio.run(mw.process_request(Request(f"http://{name}/")))
    assert stats.get_value("webclean/blocked") == 1


# -- in real crawls --------------------------------------------------------------------------------
# The address guard in real crawls: hostile search results, redirects and
# meta refreshes must not reach a loopback address.
#
# All traffic stays on 127.0.0.0/8: the "public" site listens on 127.0.0.2,
# allowed with ``WEBCLEAN_ALLOWED_NETWORKS``; the secret listens on
# 127.0.0.1, which the guard refuses. ``rebind.test`` resolves to 127.0.0.1
# through a test hosts file (``tests/_dns.py``), so the connect-time check is
# exercised for a name, as with DNS rebinding. Each test also runs the crawl
# with ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True`` to show that, unguarded,
# the same URLs do reach the secret.
SECRET = "SECRET-TOKEN-7f3a"


@pytest.fixture()
def secret_site():
    """The site that must never be reached, on 127.0.0.1."""
    site = TestSite()
    site.add("/secret", plain_article("Internal admin page", SECRET))
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    with site:
        yield site


@pytest.fixture()
def public_site():
    """The stand-in for the open web, on 127.0.0.2."""
    site = TestSite(host="127.0.0.2")
    with site:
        yield site


GUARDED = {
    "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": False,
    "WEBCLEAN_ALLOWED_NETWORKS": ["127.0.0.2/32"],
    "TWISTED_DNS_RESOLVER": "tests._dns.HostsResolver",
    "TEST_DNS_HOSTS": {"rebind.test": "127.0.0.1"},
}
UNGUARDED = {**GUARDED, "WEBCLEAN_ALLOW_PRIVATE_ADDRESSES": True}


def hostile_results(public: TestSite, secret: TestSite) -> list[str]:
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


def serve_search(public: TestSite, secret: TestSite) -> None:
    public.add("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    public.add("/ok", plain_article("A public page", "Public words."))
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


def harvest(tmp_path, public: TestSite, settings: dict) -> object:
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
    assert result.log.count("] WARNING: Redirect loop: ") == 1, result.log[-3000:]
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
    p.add("/a1", plain_article("First article", "Public words."))
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
    loops = f"] WARNING: Redirect loop: {p.url('/loop1')} leads back to itself"
    assert result.log.count(loops) == 1, result.log[-3000:]
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
    public_site.add("/ok", plain_article("A public page", "Public words."))
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
