"""webclean-scrapy: keep only the main text of web pages, in and out of Scrapy."""

from .api import extract
from .document import Document
from .errors import ExtractionError, NotHTMLError, UnknownExtractorError
from .extraction import Extraction, Extractor
from .extractors import available_extractors, get_extractor, register
from .views import Block, Container

__version__ = "0.1.0"

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
        from .addon import Addon

        return Addon
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
