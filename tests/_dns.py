"""A hosts file for crawl subprocesses: ``TWISTED_DNS_RESOLVER = "tests._dns.HostsResolver"``.

Scrapy's own caching resolver, answering the names of the ``TEST_DNS_HOSTS``
setting (``{"name": "address"}``) itself, like ``/etc/hosts`` would, so a
test can make a name resolve to a loopback address without real DNS. The
connection still goes through Twisted's endpoint and the reactor's name
resolver, where the address guard sits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.base import ReactorBase
    from typing_extensions import Self  # typing.Self: Python 3.11


class HostsResolver(CachingThreadedResolver):
    def __init__(self, reactor: Any, cache_size: int, timeout: float, hosts: dict[str, str]) -> None:
        super().__init__(reactor, cache_size, timeout)
        self.hosts = hosts

    @classmethod
    def from_crawler(cls, crawler: Crawler, reactor: ReactorBase) -> Self:
        settings = crawler.settings
        return cls(
            reactor,
            settings.getint("DNSCACHE_SIZE"),
            settings.getfloat("DNS_TIMEOUT"),
            dict(settings.getdict("TEST_DNS_HOSTS")),
        )

    def getHostByName(self, name: str, timeout: Any = ()) -> defer.Deferred[str]:  # noqa: N802
        if name in self.hosts:
            return defer.succeed(self.hosts[name])
        return super().getHostByName(name, timeout)
