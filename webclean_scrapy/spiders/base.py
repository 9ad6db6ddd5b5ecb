"""What the webclean spiders share: the add-on they need, argument parsing, stats, failures."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

from webclean_scrapy.addon import Addon
from webclean_scrapy.items import META_KEY

if TYPE_CHECKING:
    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure


def parse_bool(value: Any) -> bool:
    """A spider argument (``-a x=1``) as a bool: 1/true/yes/on are true."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"1", "true", "yes", "on"}


def parse_positive_int(name: str, value: Any, *, allow_zero: bool = False) -> int:
    """A spider argument as an int, with a clear error instead of a traceback deep in Scrapy."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"-a {name}= must be an integer, got {value!r}") from None
    if number < 0 or (number == 0 and not allow_zero):
        raise ValueError(f"-a {name}= must be {'>= 0' if allow_zero else '> 0'}, got {number}")
    return number


#: A host name: labels of letters (any script), digits, ``-`` and ``_``, joined by dots.
_HOST_NAME = re.compile(r"^[^\W_]([\w-]*[^\W_])?(\.[^\W_]([\w-]*[^\W_])?)*\.?$")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def parse_url(value: Any, name: str) -> str:
    """A URL given to a spider (``-a start_urls=``, ``-a search_url=``, a setting), checked
    the same way by every spider, so a typo fails at start-up with a message naming *name*.

    It must be ``http(s)://`` with a well-formed host. A URL without a scheme
    gets ``https://`` only when its host is a domain name with a dot
    (``news.example``), an IP address or ``localhost``: ``not-a-url`` is a
    typo, not a host to retry DNS for. With an explicit scheme, single-label
    hosts (``http://intranet/``) are allowed.
    """
    url = str(value).strip()
    error = f"{name}: not an http(s) URL: {value!r}"
    try:
        if "://" not in url:
            host = urlsplit("https://" + url).hostname or ""
            if not ("." in host.strip(".") or host == "localhost" or _is_ip(host)):
                raise ValueError(error + " (a URL without a scheme needs a domain name, like news.example)")
            url = "https://" + url
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as exc:
        raise ValueError(str(exc) if str(exc).startswith(error) else error) from None
    if parts.scheme not in ("http", "https") or not host or not (_HOST_NAME.match(host) or _is_ip(host)):
        raise ValueError(error)
    return url


def is_html(response: Response) -> bool:
    """True when the middleware treated *response* as HTML (its meta key is set)."""
    return META_KEY in response.meta


class WebcleanSpider(scrapy.Spider):
    """Base class: makes sure the webclean add-on runs, counts outcomes in stats.

    The spiders read each page's text from ``response.meta["webclean"]``, so
    :class:`~webclean_scrapy.Addon` is added to ``ADDONS`` here when the
    project did not list it (a project that set it to ``None`` keeps it off,
    and gets no items unless it wires the components itself). Scrapy loads
    add-ons after this, so the add-on still defers to the project's settings.
    """

    #: Prefix of this spider's stats keys (``"news/"``).
    stats_prefix = ""

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        settings.setdefault_in_component_priority_dict("ADDONS", Addon, 0)

    def inc(self, key: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(self.stats_prefix + key, count)

    def count_failure(self, failure: Failure, key: str = "errors") -> None:
        """Count a failed request as ``<key>`` and ``<key>/<reason>``.

        The reason is ``http_<status>`` for HTTP errors, else the exception's
        class name; requests dropped on purpose (robots.txt, offsite:
        :class:`~scrapy.exceptions.IgnoreRequest`) are ``ignored``.
        """
        if failure.check(HttpError):
            reason = f"http_{failure.value.response.status}"
        elif failure.check(IgnoreRequest):
            reason = "ignored"
        else:
            reason = type(failure.value).__name__
        self.inc(key)
        self.inc(f"{key}/{reason}")
