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

Without the extra installed (or when its model cannot be loaded, e.g. no
room for the temporary file py3langid unpacks it to: a WARNING once per
process), :func:`detect_language` returns ``(None, None)``: the fields stay
empty and nothing fails.
"""

from __future__ import annotations

import logging
import threading
from array import array
from functools import lru_cache
from itertools import islice
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

#: Characters of text the detector reads (the first ones). At 1,000 the
#: measured accuracy is the full text's; at 100 it is already 0.97.
SAMPLE_CHARS = 1000

#: Texts with fewer letters than this get no detected language (a number, a
#: date, a menu label say nothing about a language).
MIN_LETTERS = 20

_identifier: Any = None
_unavailable = False
_lock = threading.Lock()


def _compiled(base: Any) -> Any:
    """py3langid's ``LanguageIdentifier`` (*base*) with its byte automaton
    walked in C (:mod:`webclean_scrapy.engine.text._langid`): the Python loop over the
    sample's bytes was most of a detection's time. Everything else,
    scoring included, is py3langid's own, and the automaton's counts are
    the ones its ``visit_counts`` makes, so the results are the same
    (``tests/test_engine_text_language.py`` compares them). *base* itself when the
    module was not built or this py3langid keeps its tables otherwise."""
    try:
        import webclean_scrapy.engine.text._langid as compiled
    except ImportError:
        return base
    _langid: Any = compiled
    if not all(hasattr(base, name) for name in ("_raw_score", "_sparse_score", "_rowbase", "tk_output")):
        return base

    class CompiledAutomaton(base):
        __slots__ = ("_tables",)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            try:
                self._tables: tuple[Any, ...] | None = (
                    self.tk_nextmove,
                    array("q", self._rowbase),
                    array("i", self.tk_output),
                )
                _langid.visit_counts(*self._tables, b"tables of the expected types")
            except (TypeError, ValueError, OverflowError):
                self._tables = None  # py3langid's own loop
            else:
                # py3langid keeps these two as lists of 100,000 ints, which
                # the garbage collector walks item by item in each full
                # collection (two thirds of the references it followed
                # after the model was loaded). The arrays hold the same
                # ints, index alike, and have no items to walk. (Set through
                # an untyped name: the slots are py3langid's.)
                automaton: Any = self
                automaton._rowbase, automaton.tk_output = self._tables[1], self._tables[2]

        def _sparse_score(self, visits: dict[int, int], table: Any) -> Any:
            """py3langid's score, its half-precision rows widened through
            :func:`_half_to_single` (a lookup, the same float32 values
            numpy's cast makes) instead of numpy's element-by-element cast,
            which was most of a detection's time: the same product of the
            same float32 rows, so the same scores bit for bit."""
            if table.dtype != np.float16 or table.ndim != 2:
                return super()._sparse_score(visits, table)
            idx = np.fromiter(visits.keys(), dtype=np.intp, count=len(visits))
            counts = np.fromiter(visits.values(), dtype=np.float32, count=len(visits))
            rows = _half_to_single().take(table.view(np.uint16).take(idx, axis=0))
            return np.log1p(counts) @ rows + self.nb_pc

        def _raw_score(self, text: bytes) -> Any:
            """py3langid's score: with a half-precision table, the automaton
            walk, the counting and the widened rows in one compiled pass
            (``_langid.sparse_rows``, whose reference is :meth:`_sparse_score`
            over ``visit_counts``), then the same product."""
            if self._tables is None or not isinstance(text, bytes):
                return super()._raw_score(text)
            table = self.nb_ptc
            if table.dtype == np.float16 and table.ndim == 2:
                found = _langid.sparse_rows(*self._tables, text, table.view(np.uint16), _half_to_single())
                if found is None:
                    return super()._raw_score(text)  # no feature: py3langid's own answer
                counts, rows = found
                return np.log1p(counts) @ rows + self.nb_pc
            visits = _langid.visit_counts(*self._tables, text)
            if visits:
                return self._sparse_score(visits, table)
            return super()._raw_score(text)  # no feature: py3langid's own answer

    return CompiledAutomaton


@lru_cache(maxsize=1)
def _half_to_single() -> Any:
    """Every float16 bit pattern's float32 value (256 KB, made once per
    process): the model's half-precision table widened by one lookup per
    value."""
    return np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)


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
                try:
                    # py3langid unpacks its model through a temporary file: a full disk fails here.
                    _identifier = _compiled(LanguageIdentifier).from_model_file(MODEL_FILE, norm_probs=True)
                except Exception as exc:  # detection is an extra: never the page's failure
                    logger.warning(
                        "webclean: language detection is off in this process: cannot load py3langid's model (%s: %s)",
                        type(exc).__name__,
                        exc,
                    )
                    _unavailable = True
                    return None
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
    # At least MIN_LETTERS letters: the count stops at the last one needed
    # (text is mostly letters: a few dozen characters read, not a thousand).
    if MIN_LETTERS > 0 and next(islice(filter(str.isalpha, sample), MIN_LETTERS - 1, None), None) is None:
        return None, None
    identifier = _load()
    if identifier is None:
        return None, None
    try:
        language, confidence = identifier.classify(sample)
    except Exception:  # pragma: no cover - py3langid does not raise on text; never fail a page for it
        return None, None
    if not language or language == "und":
        return None, None
    return str(language), round(float(confidence), 4)
