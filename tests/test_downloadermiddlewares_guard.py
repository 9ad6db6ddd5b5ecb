"""The address guard at the guard level: policies, numeric host forms, the
connect-time resolver and the middleware, all before any connection is made
(no traffic leaves the test process; private and link-local targets are
judged, never contacted)."""

from __future__ import annotations

import asyncio
import ipaddress

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
    assert sum("Refused requests to 127.0.0.1" in r.getMessage() for r in caplog.records) == 1


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
