"""What the webclean spiders share: the add-on they need, argument parsing, stats, failures."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.log import logformatter_adapter

from webclean_scrapy.addon import Addon
from webclean_scrapy.crawlstate.emitted import EmittedStore, open_store
from webclean_scrapy.crawlstate.jobdir import JobDir, JobDirFeedError
from webclean_scrapy.crawlstate.jobdir import configure_settings as configure_jobdir
from webclean_scrapy.downloadermiddlewares.extraction import META_KEY
from webclean_scrapy.downloadermiddlewares.guard import BlockedAddressError
from webclean_scrapy.fingerprint import canonical_key
from webclean_scrapy.offload.offloader import Offloader
from webclean_scrapy.settings import WebcleanSettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure
    from typing_extensions import Self  # typing.Self: Python 3.11

logger = logging.getLogger(__name__)


class SpiderArgumentError(ValueError):
    """A spider argument (``-a name=value``) that cannot be used: ``scrapy crawl``
    reports it in one ERROR line and exits with status 1 (:func:`refuse_start`)."""


def refuse_start(crawler: Crawler, spider: str, error: BaseException) -> None:
    """Report *error*, about to stop *spider* before its crawl starts, in one line.

    Scrapy has no clean way out of a spider's ``from_crawler``: the exception
    fails the crawl's task (``scrapy crawl`` exits 1), and asyncio then prints
    it with its traceback as "Task exception was never retrieved", some
    thirty lines around the message. The message is logged here once, as an
    ERROR, and the task's exception is marked retrieved when the task ends,
    so that asyncio prints nothing more; whoever awaits the task still gets
    the exception. (Under a Twisted reactor without asyncio, Twisted still
    logs the failed Deferred.)"""
    logger.error(
        "Cannot start the %(spider)s spider: %(error)s",
        {"spider": spider, "error": error},
        extra={"crawler": crawler},
    )
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no running event loop
        return
    if task is None:
        return

    def retrieve(done: asyncio.Task[Any]) -> None:
        if done.cancelled():
            return
        raised = done.exception()  # retrieved: asyncio prints nothing
        if raised is not None and raised is not error:  # another error: reported as asyncio would
            done.get_loop().call_exception_handler(
                {"message": "Task exception was never retrieved", "exception": raised, "future": done}
            )

    task.add_done_callback(retrieve)


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
        raise SpiderArgumentError(f"-a {name}= must be an integer, got {value!r}") from None
    if number < 0 or (number == 0 and not allow_zero):
        raise SpiderArgumentError(f"-a {name}= must be {'>= 0' if allow_zero else '> 0'}, got {number}")
    return number


def configure_crawl_state(settings: BaseSettings) -> None:
    """Durable outputs with ``JOBDIR``, scrapy-redis with ``WEBCLEAN_REDIS_URL`` (before settings freeze)."""
    configure_jobdir(settings)
    if WebcleanSettings.from_settings(settings).redis_url is not None:
        from webclean_scrapy.crawlstate.distributed import configure_settings as configure_redis

        configure_redis(settings)


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
                raise SpiderArgumentError(error + " (a URL without a scheme needs a domain name, like news.example)")
            url = "https://" + url
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as exc:
        raise SpiderArgumentError(str(exc) if str(exc).startswith(error) else error) from None
    if parts.scheme not in ("http", "https") or not host or not (_HOST_NAME.match(host) or _is_ip(host)):
        raise SpiderArgumentError(error)
    return url


def is_html(response: Response) -> bool:
    """True when the middleware treated *response* as HTML (its meta key is set)."""
    return META_KEY in response.meta


def is_redirect_loop(request: scrapy.Request) -> bool:
    """True when *request* (reached through redirects or meta refreshes) points
    back at a URL its own redirect chain already passed through."""
    chain = request.meta.get("redirect_urls") or ()
    return bool(chain) and canonical_key(request.url) in {canonical_key(url) for url in chain}


def failure_reason(failure: Failure) -> str:
    """The stats name of a failed request's cause (see :meth:`WebcleanSpider.count_failure`)."""
    if failure.check(HttpError):
        return f"http_{failure.value.response.status}"
    if failure.check(BlockedAddressError):
        return "blocked_address"
    if failure.check(IgnoreRequest):
        request = getattr(failure, "request", None)
        if request is not None and (is_redirect_loop(request) or "max redirections" in str(failure.value)):
            return "redirect_loop"
        return "ignored"
    return type(failure.value).__name__


class WebcleanSpider(scrapy.Spider):
    """Base class: makes sure the webclean add-on runs, counts outcomes in stats.

    The spiders read each page's text from ``response.meta["webclean"]``, so
    :class:`~webclean_scrapy.Addon` is added to ``ADDONS`` here when the
    project did not list it (a project that set it to ``None`` keeps it off,
    and gets no items unless it wires the components itself). Scrapy loads
    add-ons after this, so the add-on still defers to the project's settings.
    The add-on also enables the address guard (:mod:`webclean_scrapy.downloadermiddlewares.guard`);
    ``WEBCLEAN_ALLOW_PRIVATE_ADDRESSES = True`` turns it off.
    """

    #: Prefix of this spider's stats keys (``"news/"``).
    stats_prefix = ""
    #: Stats key of a failed page request (redirect loops the dupefilter drops count here too).
    errors_key = "errors"

    #: What this spider already emitted (:mod:`webclean_scrapy.crawlstate.emitted`): in
    #: memory, or in Redis when ``WEBCLEAN_REDIS_URL`` is set; seeded from the
    #: job's outputs when ``JOBDIR`` is set.
    emitted: EmittedStore
    _offloader: Offloader | None = None

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        settings.setdefault_in_component_priority_dict("ADDONS", Addon, 0)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        try:
            configure_crawl_state(crawler.settings)
            spider = super().from_crawler(crawler, *args, **kwargs)
        except (SpiderArgumentError, JobDirFeedError) as exc:  # one line, no traceback (refuse_start)
            refuse_start(crawler, cls.name, exc)
            raise
        crawler.signals.connect(spider.request_dropped, signal=signals.request_dropped)
        spider.emitted = open_store(crawler, spider.name)
        # Now, before the scheduler exists: a restarted Redis worker must release
        # its unwritten claims before its leftover requests are queued again.
        spider.emitted.open(JobDir.of(crawler), spider.emitted_keys)
        crawler.signals.connect(spider._close_emitted, signal=signals.spider_closed)
        return spider

    @property
    def offloader(self) -> Offloader:
        """The crawl's :class:`~webclean_scrapy.offload.Offloader` (the middleware's), on first use:
        CPU work on a response's bytes goes there, off the reactor thread."""
        if self._offloader is None:
            self._offloader = Offloader.for_crawler(self.crawler, WebcleanSettings.from_crawler(self.crawler))
        return self._offloader

    def request_dropped(self, request: scrapy.Request, spider: scrapy.Spider) -> None:
        """A redirect loop ends in the scheduler's dupefilter, which drops the
        request without calling its errback: count it as an error here."""
        if spider is self and is_redirect_loop(request):
            self.inc(self.errors_key)
            self.inc(f"{self.errors_key}/redirect_loop")
            self.log_redirect_loop(request)

    def log_redirect_loop(self, request: scrapy.Request) -> None:
        """One WARNING per redirect loop: Scrapy drops it silently (dupefilter) or at DEBUG (max redirections)."""
        chain = [*(request.meta.get("redirect_urls") or ()), request.url]
        self.logger.warning(
            "Redirect loop: %(url)s leads back to itself (%(chain)s); dropped",
            {"url": chain[0], "chain": " -> ".join(chain)},
        )

    def _close_emitted(self) -> None:
        self.emitted.close()

    def emitted_keys(self, item: Any) -> list[str] | None:
        """The keys that identify *item* in :attr:`emitted` (``None``: not one of this spider's items).

        Also applied to the items a ``JOBDIR`` job already wrote, read back as dicts.
        """
        return None

    def inc(self, key: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(self.stats_prefix + key, count)

    def count_failure(self, failure: Failure, key: str = "errors") -> None:
        """Count a failed request as ``<key>`` and ``<key>/<reason>``.

        The reason is ``http_<status>`` for HTTP errors, else the exception's
        class name; requests dropped on purpose (robots.txt, offsite:
        :class:`~scrapy.exceptions.IgnoreRequest`) are ``ignored``, except
        requests refused by the address guard (``blocked_address``, also after
        a redirect or meta refresh) and redirect loops (``redirect_loop``, also logged).
        """
        reason = failure_reason(failure)
        self.inc(key)
        self.inc(f"{key}/{reason}")
        if reason == "redirect_loop":
            self.log_redirect_loop(failure.request)  # type: ignore[attr-defined]  # Scrapy sets Failure.request

    def log_failure(self, failure: Failure) -> None:
        """Log a failed request the way Scrapy would have without our errback, once.

        An errback that handles a failure silences Scrapy's own messages, so
        this restores them: ``Ignoring response <500 ...>`` at INFO for HTTP
        errors (``HttpErrorMiddleware``'s message) and ``Error downloading
        <GET ...>: reason`` at ERROR for download errors (the log formatter's
        ``download_error``, so a custom ``LOG_FORMATTER`` applies). Nothing is
        logged when Scrapy already did for this request: ``IgnoreRequest``
        (robots.txt, offsite, redirect limits log their own DEBUG lines),
        ``DownloadCancelledError`` (the download handler warned about
        ``DOWNLOAD_MAXSIZE``), and failures ``RetryMiddleware`` gave up on
        (``Gave up retrying ...`` at ``RETRY_GIVE_UP_LOG_LEVEL``).
        """
        if self.gave_up_retrying(failure):
            return
        if failure.check(HttpError):  # before IgnoreRequest, its base class
            self.logger.info(
                "Ignoring response %(response)r: HTTP status code is not handled or not allowed",
                {"response": failure.value.response},
            )
            return
        if failure.check(IgnoreRequest, DownloadCancelledError):
            return
        request = failure.request  # type: ignore[attr-defined]  # set by Scrapy on every errback failure
        reason = failure.getErrorMessage() or type(failure.value).__name__
        logkws = self.crawler.logformatter.download_error(failure, request, self, reason)
        if logkws is not None:
            self.logger.log(*logformatter_adapter(logkws))

    def gave_up_retrying(self, failure: Failure) -> bool:
        """Whether Scrapy's ``RetryMiddleware`` handled (and so logged) this failure's last attempt."""
        retry = self._retry_middleware()
        if retry is None or failure.request.meta.get("dont_retry", False):  # type: ignore[attr-defined]  # Scrapy sets Failure.request
            return False
        if failure.check(HttpError):
            return failure.value.response.status in retry.retry_http_codes
        return isinstance(failure.value, retry.exceptions_to_retry)

    def _retry_middleware(self) -> RetryMiddleware | None:
        try:
            middlewares = self.crawler.engine.downloader.middleware.middlewares
        except AttributeError:  # no engine (a spider used outside a crawl)
            return None
        return next((mw for mw in middlewares if isinstance(mw, RetryMiddleware)), None)
