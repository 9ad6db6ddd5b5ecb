"""webclean-scrapy: keep only the main text of web pages, in and out of Scrapy."""

from .api import extract
from .document import Block, Container, Document
from .errors import ExtractionError, NotHTMLError, UnknownExtractorError
from .extraction import Extraction, Extractor
from .extractors import available_extractors, get_extractor, register

__version__ = "0.1.0"

__all__ = [
    "Block", "Container", "Document", "Extraction", "ExtractionError", "Extractor",
    "NotHTMLError", "UnknownExtractorError", "available_extractors", "extract",
    "get_extractor", "register", "__version__",
]
