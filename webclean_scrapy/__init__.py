"""webclean-scrapy: keep only the main text of web pages, in and out of Scrapy."""

from webclean_scrapy import _moved
from webclean_scrapy._version import __version__
from webclean_scrapy.engine.api import extract
from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extraction, Extractor
from webclean_scrapy.engine.extractors import available_extractors, get_extractor, register
from webclean_scrapy.engine.views import Block, Container
from webclean_scrapy.errors import ExtractionError, NotHTMLError, UnknownExtractorError

__all__ = [
    "Addon",
    "Block",
    "Container",
    "Document",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "NotHTMLError",
    "UnknownExtractorError",
    "available_extractors",
    "extract",
    "get_extractor",
    "register",
    "__version__",
]


def __getattr__(name: str) -> object:
    # The Scrapy add-on is imported on first use (``ADDONS = {"webclean_scrapy.Addon": 0}``),
    # so ``import webclean_scrapy`` outside a crawl does not pay for importing Scrapy.
    if name == "Addon":
        from webclean_scrapy.addon import Addon

        return Addon
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_moved.install()
