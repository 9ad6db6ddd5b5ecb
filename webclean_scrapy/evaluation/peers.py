"""Other extraction libraries, wrapped to one signature for side-by-side scoring.

Each peer is a callable ``(html: str, language: str | None) -> str`` run
with the library's documented defaults. The libraries are optional (the
``compare`` extra) and imported only when asked for, so the core package
never depends on them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from webclean_scrapy.errors import install_hint

#: ``(decoded html, page language or None) -> main text``.
PeerFunction = Callable[[str, "str | None"], str]
#: ``(decoded html, page URL or None) -> {"title", "author", "date"}`` (values may be None).
MetadataFunction = Callable[[str, "str | None"], "dict[str, str | None]"]

INSTALL_HINT = install_hint("compare")

#: ISO 639-1 codes to jusText stoplist names (English when unknown).
JUSTEXT_STOPLISTS = {
    "af": "Afrikaans",
    "ar": "Arabic",
    "bg": "Bulgarian",
    "bn": "Bengali",
    "ca": "Catalan",
    "cs": "Czech",
    "cy": "Welsh",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "eo": "Esperanto",
    "es": "Spanish",
    "et": "Estonian",
    "eu": "Basque",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "ga": "Irish",
    "gl": "Galician",
    "he": "Hebrew",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "hy": "Armenian",
    "id": "Indonesian",
    "is": "Icelandic",
    "it": "Italian",
    "ka": "Georgian",
    "kk": "Kazakh",
    "ko": "Korean",
    "la": "Latin",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mk": "Macedonian",
    "ms": "Malay",
    "nb": "Norwegian_Bokmal",
    "nl": "Dutch",
    "nn": "Norwegian_Nynorsk",
    "no": "Norwegian_Bokmal",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sr": "Serbian",
    "sv": "Swedish",
    "sw": "Swahili",
    "ta": "Tamil",
    "te": "Telugu",
    "tl": "Tagalog",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "ur": "Urdu",
    "vi": "Vietnamese",
}


class PeerUnavailableError(ImportError):
    """The peer's library is not installed."""


def _trafilatura() -> PeerFunction:
    import trafilatura

    def run(html: str, language: str | None) -> str:
        return trafilatura.extract(html, include_comments=False, include_tables=True) or ""

    return run


def _readability() -> PeerFunction:
    from readability import Document as ReadabilityDocument

    from webclean_scrapy.engine.document import Document

    def run(html: str, language: str | None) -> str:
        # Readability returns cleaned HTML; our document walk turns it into
        # one line per block, the same text layout our extractors produce.
        summary = ReadabilityDocument(html).summary()
        doc = Document.from_html(summary)
        return doc.block_columns.text()

    return run


def _justext() -> PeerFunction:
    import justext

    stoplists: dict[str, frozenset[str]] = {}

    def stoplist(language: str | None) -> frozenset[str]:
        name = JUSTEXT_STOPLISTS.get(language or "", "English")
        if name not in stoplists:
            stoplists[name] = justext.get_stoplist(name)
        return stoplists[name]

    def run(html: str, language: str | None) -> str:
        paragraphs = justext.justext(html, stoplist(language))
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return run


def _resiliparse() -> PeerFunction:
    from resiliparse.extract.html2text import extract_plain_text

    def run(html: str, language: str | None) -> str:
        return extract_plain_text(html, main_content=True)

    return run


def _boilerpy3() -> PeerFunction:
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor()

    def run(html: str, language: str | None) -> str:
        return extractor.get_content(html) or ""

    return run


def _trafilatura_metadata() -> MetadataFunction:
    import trafilatura

    def run(html: str, url: str | None) -> dict[str, str | None]:
        found = trafilatura.extract_metadata(html, default_url=url)
        if found is None:
            return {"title": None, "author": None, "date": None}
        return {"title": found.title, "author": found.author, "date": found.date}

    return run


PEERS: dict[str, Callable[[], PeerFunction]] = {
    "trafilatura": _trafilatura,
    "readability": _readability,
    "justext": _justext,
    "resiliparse": _resiliparse,
    "boilerpy3": _boilerpy3,
}


#: Peers that also read a page's metadata, scored beside ours by ``webclean eval``.
METADATA_PEERS: dict[str, Callable[[], MetadataFunction]] = {
    "trafilatura": _trafilatura_metadata,
}


def load_metadata_peer(name: str) -> MetadataFunction | None:
    """The metadata reader of peer *name*, or None when the peer has none."""
    factory = METADATA_PEERS.get(name)
    return factory() if factory is not None else None


def load_peer(name: str) -> PeerFunction:
    """The adapter for peer *name*; :class:`PeerUnavailableError` if its
    library is missing, :class:`KeyError` for an unknown name."""
    try:
        factory = PEERS[name]
    except KeyError:
        raise KeyError(f"unknown peer {name!r}; known: {', '.join(PEERS)}") from None
    try:
        run = factory()
    except ImportError as exc:
        raise PeerUnavailableError(
            f"peer {name!r} needs a library that is not installed ({exc}); run: {INSTALL_HINT}"
        ) from exc
    # The peers log warnings (boilerpy3 even a traceback) for every page they
    # find hard; the run counts failed pages and the scores say the rest.
    for logger in ("trafilatura", "htmldate", "readability", "justext", "boilerpy3"):
        logging.getLogger(logger).setLevel(logging.CRITICAL)
    return run
