"""Language names some pages declare instead of a code (``lang="english"``).

In English and in the language itself, mapped to ISO 639-1, so that per-language figures
group such pages with the coded ones.
"""

from __future__ import annotations

import re

LANGUAGE_NAMES: dict[str, str] = {
    "english": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "italian": "it",
    "italiano": "it",
    "portuguese": "pt",
    "português": "pt",
    "portugues": "pt",
    "dutch": "nl",
    "nederlands": "nl",
    "russian": "ru",
    "русский": "ru",
    "chinese": "zh",
    "中文": "zh",
    "japanese": "ja",
    "日本語": "ja",
    "polish": "pl",
    "polski": "pl",
    "czech": "cs",
    "čeština": "cs",
    "swedish": "sv",
    "svenska": "sv",
    "norwegian": "no",
    "norsk": "no",
    "danish": "da",
    "dansk": "da",
    "finnish": "fi",
    "suomi": "fi",
    "turkish": "tr",
    "türkçe": "tr",
    "arabic": "ar",
    "greek": "el",
    "korean": "ko",
    "한국어": "ko",
}


_SUBTAG_END = re.compile(r"[-_,;\s]")


def primary_language(declared: str) -> str | None:
    """The lower-cased primary subtag of a declared language (``"en-GB"``, ``"de_DE"``,
    ``"fr, en"``: ``"en"``, ``"de"``, ``"fr"``), a language name read as its code; ``None``
    for a value that names none."""
    primary = _SUBTAG_END.split(declared.strip().lower())[0]
    return LANGUAGE_NAMES.get(primary, primary) or None
