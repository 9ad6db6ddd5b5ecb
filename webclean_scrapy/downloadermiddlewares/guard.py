"""SSRF guard: no request reaches a loopback, private, link-local, multicast,
reserved or unspecified address unless the project allows it.

A crawler that follows search results and links fetches URLs chosen by
others. Without a guard, ``http://169.254.169.254/`` (cloud metadata),
``http://127.0.0.1:8080/admin`` or ``http://2130706433/`` (127.0.0.1 written as
one number) end up in the corpus. Two checks, one policy
(:class:`AddressPolicy`):

* **At connect time** (:class:`GuardedNameResolver`). Every TCP connection
  Twisted makes for Scrapy's HTTP/1.1 and HTTP/2 handlers (direct, or to a
  proxy) goes through ``reactor.nameResolver``: ``HostnameEndpoint``
  passes even numeric hosts (``2130706433``, ``0x7f.1``) through it, and the
  endpoint connects to exactly the addresses the resolver hands back. The
  guard wraps whatever resolver is installed (Scrapy's caching resolver, so
  the DNS cache still works) and drops forbidden answers. The address checked
  is therefore the address connected to: a name that resolves to a public
  address when first looked up and to 127.0.0.1 later (DNS rebinding), or a
  cached answer, cannot slip through.
* **Before the request leaves** (:class:`AddressGuardMiddleware`). Numeric
  hosts in all the forms ``inet_aton`` accepts, IPv6 literals (including
  IPv4-mapped ``[::ffff:127.0.0.1]``) and ``localhost`` names are refused in
  ``process_request`` without any DNS, connection or robots.txt fetch. The
  middleware also turns the resolver's refusals (which Twisted reports as a
  failed DNS lookup) into :class:`BlockedAddressError`, counts them
  (``webclean/blocked``, ``webclean/blocked/<reason>``), logs the first
  refused request of each host at WARNING with the settings that would allow
  it (the others at DEBUG) and keeps RetryMiddleware from retrying them.
  Redirects and meta refreshes create new requests that go through both
  checks again. A crawl in which every request was refused closes with
  ``finish_reason = "webclean_all_refused"`` and an ERROR line.

``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True`` turns the guard off;
``WEBCLEAN_ALLOWED_NETWORKS`` lets chosen networks through (a proxy on
127.0.0.1, an intranet site). A request marked with :func:`trust_endpoint`
goes to an endpoint the user configured (harvest's search engine, often a
SearXNG on localhost): that request and the robots.txt of its host and port
are trusted; any other request there, a redirect from the endpoint
included, is still judged by the address. docs/SECURITY.md explains the
design and its limits.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import CannotResolveHostError, CloseSpider, IgnoreRequest, NotConfigured
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.datatypes import LocalCache
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IHostnameResolver, IResolutionReceiver
from zope.interface import implementer, provider

from webclean_scrapy.settings import WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

#: A refused name fails as Scrapy's DNS error, or Twisted's where Scrapy does not wrap it.
_DNS_ERRORS: tuple[type[Exception], ...] = (CannotResolveHostError, DNSLookupError)

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from twisted.internet.interfaces import IAddress, IHostResolution
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Order in ``DOWNLOADER_MIDDLEWARES``. Above RetryMiddleware (550), because
#: ``process_exception`` runs from high numbers to low: the guard must turn a
#: refused connection into :class:`BlockedAddressError` before Retry sees a
#: "DNS failure" worth retrying. ``process_request`` at 560 still runs before
#: the proxy (750) and cache (900) middlewares and the download itself.
GUARD_ORDER = 560

#: ``Request.meta`` key set by :func:`trust_endpoint`: this request goes to an
#: endpoint the user configured (the harvest spider's search engine), so its
#: host is trusted. The value is the request's own URL, because Scrapy copies
#: ``meta`` to every redirected request (``Request.replace``): a copy on a
#: request to another URL, or on one reached through a redirect, trusts
#: nothing. Other requests to a trusted host are judged by its address:
#: hostile results must not reach the search server's other ports or paths.
META_TRUSTED_HOST = "webclean_trusted_host"

#: ``finish_reason`` of a crawl whose every request the guard refused.
ALL_REFUSED = "webclean_all_refused"

#: Deprecated IPv6 site-local space, which ``ipaddress`` calls global.
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
#: NAT64's well-known prefix: the IPv4 address in the low 32 bits decides.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class BlockedAddressError(IgnoreRequest):
    """A request was refused because its host is (or resolves to) a forbidden address."""

    def __init__(self, url: str, address: str, reason: str) -> None:
        host = urlsplit(url).hostname or ""
        super().__init__(f"refused {url} ({describe(address, reason)}); {how_to_allow(address, host)}")
        self.url = url
        self.address = address
        self.reason = reason


def describe(address: str, reason: str) -> str:
    """``"127.0.0.1 is a loopback address"``, for logs and errors."""
    kind = reason.replace("_", "-")
    return f"{address} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} address"


def how_to_allow(address: str, host: str = "") -> str:
    """The two settings that let *address* (of URL host *host*) through, the
    narrower one first: it opens that one address, not every private network.
    A ``localhost`` name needs both of its addresses (see :meth:`AddressPolicy.check_host`)."""
    if is_localhost_name(host):
        networks = ["127.0.0.1/32", "::1/128"]
    else:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            networks = [address]
        else:  # an IPv6 form of an IPv4 address is allowed by allowing the IPv4 address
            networks = [str(ipaddress.ip_network(embedded_ipv4(ip) or ip))]
    listed = ", ".join(f'"{network}"' for network in networks)
    return f"set WEBCLEAN_ALLOWED_NETWORKS = [{listed}] or WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True to allow it"


def trust_endpoint(request: Request) -> Request:
    """Mark *request* as going to an endpoint the user configured (a search
    engine): the guard lets it, and its host's robots.txt, through whatever the
    address. Only *request* itself: the mark is bound to its URL, and a request
    reached through a redirect is never trusted (:func:`is_trusted_endpoint`)."""
    request.meta[META_TRUSTED_HOST] = request.url
    return request


def is_trusted_endpoint(request: Request) -> bool:
    """Whether *request* is a request :func:`trust_endpoint` marked, not a copy.

    Scrapy's redirect middlewares build the redirected request with
    ``Request.replace``, which copies ``meta``: the copy is told apart by its
    URL (not the one marked) and by the redirect chain Scrapy records in
    ``meta["redirect_urls"]`` (a redirect to the very same URL).
    """
    marked = request.meta.get(META_TRUSTED_HOST)
    return isinstance(marked, str) and marked == request.url and not request.meta.get("redirect_urls")


def is_robots_request(request: Request) -> bool:
    """Whether *request* is the robots.txt middleware's own fetch (no spider
    callback), not a spider's request that happens to name a robots.txt."""
    return request.callback is NO_CALLBACK and urlsplit(request.url).path == "/robots.txt"


def _reason(ip: IPAddress) -> str | None:
    """Why *ip* is forbidden (``loopback``, ``private``...), or ``None`` for a public address."""
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link_local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private or ip in _SITE_LOCAL:
        return "private"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:  # shared address space 100.64/10 and the like
        return "private"
    return None


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries and routes to, if any
    (IPv4-mapped, NAT64, 6to4, Teredo's client)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def numeric_host(host: str) -> IPAddress | None:
    """The address a numeric URL host stands for, or ``None`` for a name.

    Accepts what the system resolver accepts without DNS: dotted quads,
    ``inet_aton``'s short, octal, hexadecimal and single-number forms
    (``127.1``, ``0177.0.0.1``, ``0x7f.1``, ``2130706433``), and IPv6 literals
    with or without brackets.
    """
    host = host.strip().rstrip(".").strip("[]")
    if not host:
        return None
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return None
    if not host[0].isdigit():  # every numeric form starts with a digit ("0x7f.1" too)
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def is_localhost_name(host: str) -> bool:
    """``localhost`` and ``*.localhost`` always mean this machine (RFC 6761)."""
    host = host.strip().rstrip(".").lower()
    return host == "localhost" or host.endswith(".localhost")


@dataclass(frozen=True)
class AddressPolicy:
    """Which addresses requests may reach: public ones, plus *allowed* networks."""

    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_networks(cls, networks: Iterable[str]) -> AddressPolicy:
        parsed = []
        for network in networks:
            try:
                parsed.append(ipaddress.ip_network(str(network).strip(), strict=False))
            except ValueError:
                raise ValueError(f"WEBCLEAN_ALLOWED_NETWORKS: not a network: {network!r}") from None
        return cls(tuple(parsed))

    def _allowed(self, ip: IPAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in self.allowed)

    def refusal(self, ip: IPAddress | str) -> str | None:
        """The reason *ip* is refused, or ``None`` when it may be connected to."""
        if isinstance(ip, str):
            ip = ipaddress.ip_address(ip.split("%", 1)[0])
        inner = embedded_ipv4(ip)
        if self._allowed(ip) or (inner is not None and self._allowed(inner)):
            return None
        if inner is not None:
            if ip.ipv4_mapped is not None or ip in _NAT64:  # type: ignore[union-attr]
                return _reason(inner)  # only the IPv4 address is ever reached
            return _reason(inner) or _reason(ip)
        return _reason(ip)

    def check_host(self, host: str) -> tuple[str, str] | None:
        """``(address, reason)`` when a URL host is refused without any DNS lookup.

        Numeric hosts are judged directly; ``localhost`` names as 127.0.0.1
        and ::1. Other names return ``None``: the resolver judges their answers.
        """
        if is_localhost_name(host):
            candidates: Sequence[IPAddress] = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))
        else:
            ip = numeric_host(host)
            if ip is None:
                return None
            candidates = (ip,)
        for ip in candidates:
            reason = self.refusal(ip)
            if reason is not None:
                return str(ip), reason
        return None


@provider(IResolutionReceiver)
class _FilteringReceiver:
    """Passes on the allowed answers of one lookup and records the refused ones."""

    def __init__(
        self,
        receiver: IResolutionReceiver,
        host: str,
        resolver: GuardedNameResolver,
        trusted: tuple[str, int] | None = None,
    ) -> None:
        self.receiver = receiver
        self.host = host
        self.resolver = resolver
        #: For a trusted endpoint: pass every answer, remember if one would have been refused.
        self.trusted = trusted
        self.passed = 0
        self.refused: tuple[str, str] | None = None

    def resolutionBegan(self, resolution: IHostResolution) -> None:  # noqa: N802 - Twisted's interface
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: IAddress) -> None:  # noqa: N802
        host = getattr(address, "host", None)
        reason = self.resolver.refusal(host) if host is not None else None
        if reason is not None and self.trusted is not None:
            self.resolver.private_endpoints.setdefault(self.trusted, (str(host), reason))
            reason = None
        if reason is None:
            self.passed += 1
            self.receiver.addressResolved(address)
        elif self.refused is None:
            self.refused = (str(host), reason)

    def resolutionComplete(self) -> None:  # noqa: N802
        if self.refused is not None and not self.passed:
            self.resolver.refused_hosts[self.host.lower()] = self.refused
        elif self.passed:
            self.resolver.refused_hosts.pop(self.host.lower(), None)
        self.receiver.resolutionComplete()


@implementer(IHostnameResolver)
class GuardedNameResolver:
    """``reactor.nameResolver`` wrapper that drops forbidden answers.

    Process-wide, like the reactor: each guarded crawler registers its
    policy, and an address must pass every registered policy. A lookup whose
    answers were all refused completes empty, which Twisted's endpoint
    reports as a failed DNS lookup; :attr:`refused_hosts` remembers why, so
    :class:`AddressGuardMiddleware` can say so.
    """

    def __init__(self, inner: IHostnameResolver) -> None:
        self.inner = inner
        self.policies: dict[int, AddressPolicy] = {}
        #: host name -> (first refused address, reason) of its last lookup that was refused whole.
        self.refused_hosts: LocalCache[str, tuple[str, str]] = LocalCache(10_000)
        #: ``(host, port)`` of trusted endpoints (:data:`META_TRUSTED_HOST`): their answers pass.
        self.trusted: set[tuple[str, int]] = set()
        #: Trusted endpoints that resolved to a refused address: (address, reason).
        self.private_endpoints: dict[tuple[str, int], tuple[str, str]] = {}

    def install(self, reactor: Any) -> GuardedNameResolver:
        """Make sure *reactor* resolves through a guard; return the one in place.

        Called again before each request: ``CrawlerProcess`` installs
        ``TWISTED_DNS_RESOLVER`` only when it starts, after the crawler's
        components exist, and anything may install another resolver later.
        A replaced resolver becomes the new inner one; policies carry over.
        """
        current = reactor.nameResolver
        if current is self:
            return self
        if isinstance(current, GuardedNameResolver):
            current.policies.update(self.policies)
            current.trusted |= self.trusted
            return current
        self.inner = current
        reactor.installNameResolver(self)
        return self

    def refusal(self, address: str) -> str | None:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return None
        for policy in self.policies.values():
            reason = policy.refusal(ip)
            if reason is not None:
                return reason
        return None

    def resolveHostName(
        self,
        resolutionReceiver: IResolutionReceiver,
        hostName: str,  # noqa: N802, N803
        portNumber: int = 0,
        addressTypes: Sequence[type[IAddress]] | None = None,  # noqa: N803
        transportSemantics: str = "TCP",
    ) -> IHostResolution:  # noqa: N803
        if not self.policies:
            return self.inner.resolveHostName(
                resolutionReceiver, hostName, portNumber, addressTypes, transportSemantics
            )
        key = (hostName.lower(), portNumber)
        receiver = _FilteringReceiver(resolutionReceiver, hostName, self, key if key in self.trusted else None)
        return self.inner.resolveHostName(receiver, hostName, portNumber, addressTypes, transportSemantics)


def netloc_key(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of *url* as Twisted connects to it (default ports filled in)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    return parts.hostname.lower(), port or (443 if parts.scheme == "https" else 80)


def _twisted_reactor(crawler: Crawler) -> Any | None:
    """The installed Twisted reactor, if this crawl runs on one."""
    if not crawler.settings.getbool("TWISTED_REACTOR_ENABLED", True):
        return None
    from twisted.internet import reactor

    return reactor if hasattr(reactor, "installNameResolver") else None


class AddressGuardMiddleware:
    """Downloader middleware refusing requests to forbidden addresses (see the module docs).

    Enabled by default in the spiders and :data:`~webclean_scrapy.spiders.PROJECT_SETTINGS`
    at :data:`GUARD_ORDER`; ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True`` makes
    it ``NotConfigured``. Without a Twisted reactor (``TWISTED_REACTOR_ENABLED
    = False``) names are resolved here before the request goes out, which
    leaves a window between check and connection: see docs/SECURITY.md.
    """

    def __init__(self, crawler: Crawler, policy: AddressPolicy) -> None:
        self.crawler = crawler
        self.policy = policy
        self.stats = WebcleanStats(crawler.stats)
        self._logged: set[str] = set()
        #: host -> the refusal of its robots.txt, until a request of that host is logged.
        self._robots_refused: dict[str, BlockedAddressError] = {}
        #: Requests (robots.txt fetches aside) let through, and refused; the first refusal.
        self._passed = 0
        self._refused = 0
        self._first_refused: BlockedAddressError | None = None
        self._reported_all_refused = False
        self._warned_legacy_trust = False
        self.trusted: set[tuple[str, int]] = set()
        crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)
        self.reactor = _twisted_reactor(crawler)
        self.resolver: GuardedNameResolver | None = None
        if self.reactor is not None:
            self.resolver = GuardedNameResolver(self.reactor.nameResolver)
            self.resolver.policies[id(self)] = policy
            self.resolver = self.resolver.install(self.reactor)
            crawler.signals.connect(self._unregister, signal=signals.engine_stopped)
        else:
            logger.warning(
                "No Twisted reactor: the address guard checks names when the request is "
                "sent, not the address connected to (docs/SECURITY.md)"
            )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = WebcleanSettings.from_crawler(crawler)
        if settings.allow_private_addresses:
            # A choice the user made, so INFO; a NotConfigured message would be a WARNING.
            logger.info("webclean: address guard off (WEBCLEAN_ALLOW_PRIVATE_ADDRESSES)")
            raise NotConfigured

        return cls(crawler, AddressPolicy.from_networks(settings.allowed_networks))

    def _unregister(self) -> None:
        if self.resolver is not None:
            self.resolver.policies.pop(id(self), None)

    def refuse(self, request: Request, host: str, address: str, reason: str) -> BlockedAddressError:
        """Count and log a refused request; the exception to raise for it.

        The first refused request of each host is logged at WARNING with its
        own URL and the settings that would allow it, the others at DEBUG. A
        refused robots.txt fetch is not what the user asked for: the request
        it was fetched for comes to the guard right after it and is refused
        in turn, so that one names the host; the robots.txt is only named at
        the end of the crawl if nothing else of its host was.
        """
        self.stats.blocked(reason)
        error = BlockedAddressError(request.url, address, reason)
        if is_robots_request(request):
            if host not in self._logged:
                self._robots_refused.setdefault(host, error)
            logger.debug("webclean: %s", error)
            return error
        self._refused += 1
        if self._first_refused is None:
            self._first_refused = error
        chain = request.meta.get("redirect_urls")
        redirected = f" (redirected from {chain[-1]})" if chain else ""
        if host in self._logged:
            logger.debug("webclean: %s%s", error, redirected)
        else:
            self._logged.add(host)
            self._robots_refused.pop(host, None)
            logger.warning("webclean: %s%s", error, redirected)
        return error

    def _request_scheduled(self, request: Request, spider: Any) -> None:
        """Trust an endpoint as soon as its request is scheduled, before the
        robots.txt middleware asks for the endpoint's robots.txt."""
        if self._is_trusted(request):
            self.trust(request.url)

    def _is_trusted(self, request: Request) -> bool:
        """:func:`is_trusted_endpoint`, warning once about the old ``meta[META_TRUSTED_HOST] = True``
        (it trusted redirected requests too, so it now trusts nothing)."""
        if request.meta.get(META_TRUSTED_HOST) is True and not self._warned_legacy_trust:
            self._warned_legacy_trust = True
            logger.warning(
                "webclean: meta[%r] = True no longer trusts a request (it followed redirects); "
                "mark endpoint requests with webclean_scrapy.downloadermiddlewares.guard.trust_endpoint()",
                META_TRUSTED_HOST,
            )
        return is_trusted_endpoint(request)

    def _spider_idle(self) -> None:
        """Close a crawl whose every request was refused as ``webclean_all_refused``.

        Checked when the crawl runs out of requests, where Scrapy decides a
        crawl is ``finished``: a refusal alone says nothing about the start
        requests or sitemaps still to come. ``CloseSpider`` from a
        ``spider_idle`` handler is Scrapy's way to give that close a reason of
        its own, which the stats dump and ``spider_closed`` handlers see.
        """
        if self._passed or not self._refused:
            return
        if not self._reported_all_refused:
            self._reported_all_refused = True
            # The whole advice again: at LOG_LEVEL = "ERROR" the WARNING is not shown.
            logger.error(
                "webclean: every request of this crawl was refused by the address guard (%d refused; first: %s)",
                self._refused,
                self._first_refused,
            )
        raise CloseSpider(ALL_REFUSED)

    def _spider_closed(self) -> None:
        """Name the hosts whose robots.txt was refused and nothing else was logged for."""
        for host, error in self._robots_refused.items():
            logger.warning("webclean: %s (the robots.txt of %s, fetched for a request of it)", error, host)
        self._robots_refused.clear()

    def trust(self, url: str) -> tuple[str, int] | None:
        key = netloc_key(url)
        if key is not None:
            self.trusted.add(key)
            if self.resolver is not None:
                self.resolver.trusted.add(key)
        return key

    def _trusted_refusal(self, request: Request, key: tuple[str, int]) -> tuple[str, str] | None:
        """A request to a trusted endpoint without being its own: the robots.txt
        middleware's fetch passes (not redirected); anything else is judged by
        the endpoint's address (hostile results must not reach a private search
        server through its own port, nor a redirect from the endpoint elsewhere)."""
        if is_robots_request(request) and not request.meta.get("redirect_urls"):
            return None
        if self.resolver is not None and key in self.resolver.private_endpoints:
            return self.resolver.private_endpoints[key]
        return self.policy.check_host(key[0])

    async def process_request(self, request: Request) -> None:
        if self.resolver is not None:
            self.resolver = self.resolver.install(self.reactor)
        host = urlsplit(request.url).hostname
        if not host:
            return
        counted = not is_robots_request(request)
        if self._is_trusted(request):
            self.trust(request.url)
            self._passed += counted
            return
        key = netloc_key(request.url)
        if key in self.trusted:
            refused = self._trusted_refusal(request, key)
        else:
            refused = self.policy.check_host(host)
            if refused is None and self.resolver is None and numeric_host(host) is None:
                refused = await self._resolve_and_check(host)
        if refused is not None:
            raise self.refuse(request, host, *refused)
        self._passed += counted

    async def _resolve_and_check(self, host: str) -> tuple[str, str] | None:
        """Without a Twisted reactor: resolve *host* now and judge every answer."""
        import asyncio

        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
        except OSError:
            return None  # the download fails on its own
        for info in infos:
            address = str(info[4][0])
            reason = self.policy.refusal(address)
            if reason is not None:
                return address, reason
        return None

    def process_exception(self, request: Request, exception: Exception) -> None:
        if self.resolver is None or not isinstance(exception, _DNS_ERRORS):
            return
        host = (urlsplit(request.url).hostname or "").lower()
        proxy = request.meta.get("proxy")
        if proxy:  # the connection went to the proxy, not to the URL's host
            host = (urlsplit(proxy if "://" in proxy else "http://" + proxy).hostname or "").lower()
        refused = self.resolver.refused_hosts.get(host)
        if refused is not None and not is_trusted_endpoint(request):
            if not is_robots_request(request):
                self._passed -= 1  # counted as let through by process_request
            raise self.refuse(request, host, *refused)
