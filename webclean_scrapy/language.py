"""Detected language of an extracted text (the ``[lang]`` extra: py3langid).

The declared language (``<html lang>``, ``Extraction.language``) is missing
on many pages and wrong on some (a template's ``lang="en"`` over a French
article); the text itself says which language it is in. Detection runs on
the *extracted* text, where the extraction runs (the offload worker in a
crawl), on its first :data:`SAMPLE_CHARS` characters only, so its cost stays
bounded whatever the page's size.

py3langid was chosen over lingua by measurement on the shared pages
(``benchmarks/language_id.py``, docs/BENCHMARKS.md): the same accuracy on
pages of text, a fifth of the time and a third of the memory.

Without the extra installed, :func:`detect_language` returns ``(None, None)``:
the fields stay empty and nothing fails.
"""

from __future__ import annotations

import threading
from typing import Any

#: Characters of text the detector reads (the first ones). At 1,000 the
#: measured accuracy is the full text's; at 100 it is already 0.97.
SAMPLE_CHARS = 1000

#: Texts with fewer letters than this get no detected language (a number, a
#: date, a menu label say nothing about a language).
MIN_LETTERS = 20

_identifier: Any = None
_unavailable = False
_lock = threading.Lock()


def _load() -> Any:
    """The py3langid identifier, loaded once per process (about 0.2 s); ``None``
    when py3langid is not installed."""
    global _identifier, _unavailable
    if _identifier is None and not _unavailable:
        with _lock:
            if _identifier is None and not _unavailable:
                try:
                    from py3langid.langid import MODEL_FILE, LanguageIdentifier
                except ImportError:
                    _unavailable = True
                    return None
                _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _identifier


def language_detection_available() -> bool:
    """Whether the ``[lang]`` extra (py3langid) is installed."""
    return _load() is not None


def detect_language(text: str | None, sample_chars: int = SAMPLE_CHARS) -> tuple[str | None, float | None]:
    """``(ISO 639-1 code, confidence in [0, 1])`` of *text*, e.g. ``("de", 0.99)``.

    ``(None, None)`` for a text with too few letters to tell, or when
    py3langid is not installed.
    """
    if not text:
        return None, None
    sample = text[:sample_chars]
    if sum(1 for char in sample if char.isalpha()) < MIN_LETTERS:
        return None, None
    identifier = _load()
    if identifier is None:
        return None, None
    language, confidence = identifier.classify(sample)
    if not language or language == "und":
        return None, None
    return str(language), round(float(confidence), 4)
