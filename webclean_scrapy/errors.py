"""Exceptions raised by webclean-scrapy.

Only one family is raised for bad input so callers (the CLI, the Scrapy
middleware) can catch it in one place and keep going with the next page.
"""


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
