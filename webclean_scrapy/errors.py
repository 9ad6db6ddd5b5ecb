"""Exceptions raised by webclean-scrapy, and the hint naming a missing extra.

Only one family is raised for bad input so callers (the CLI, the Scrapy
middleware) can catch it in one place and keep going with the next page.
"""


def install_hint(extra: str) -> str:
    """How to install the optional *extra*. The package is not on PyPI, so
    ``pip install "webclean-scrapy[extra]"`` would fail: it is installed from
    a clone (docs/SCRAPY.md, "Add to your Scrapy project")."""
    return f'pip install -e ".[{extra}]" in your webclean-scrapy clone'


class ExtractionError(Exception):
    """A page could not be turned into text.

    Raised for input that is not a web page at all (binary files such as PNG
    or PDF bytes) and for unknown extractor names. Empty or broken HTML is
    *not* an error: it yields an :class:`~webclean_scrapy.Extraction` whose
    ``text`` is empty.
    """


class NotHTMLError(ExtractionError):
    """The input is binary (an image, a PDF, an archive...), not markup."""


class UnknownExtractorError(ExtractionError, LookupError):
    """No extractor is registered under the requested name or dotted path."""


class PageTimeoutError(ExtractionError):
    """A page took longer than ``WEBCLEAN_PAGE_TIMEOUT`` to extract and was abandoned."""

    #: Its ``webclean/errors/<reason>`` stats key.
    stats_reason = "timeout"


class WorkerCrashError(ExtractionError):
    """A page killed the worker process extracting it, again in a fresh worker.

    A native crash (a segfault in a C library, the kernel's out-of-memory
    killer) is retried once in a new process, since the page may only have
    been unlucky; a page that kills a second worker is skipped.
    """

    stats_reason = "worker_crash"
