"""The CJK characters, defined once.

Chinese and Japanese are written without spaces between words, and one
character holds a syllable or a morpheme; a Korean syllable block holds two
or three letters. Two consequences, each read from here:

* the evaluation scores these characters one by one, not as ``\\w+`` runs
  (:mod:`webclean_scrapy.evaluation.tokenize`);
* the document model's *lengths* count each of them
  :data:`CJK_CHARACTER_WEIGHT` times (:attr:`BlockColumns.lengths
  <webclean_scrapy.engine.columns.BlockColumns.lengths>`), so that the rules and
  models that ask how much text a block holds (the flagship's features and
  page type, the fallback's floor, the revealing walk) read a paragraph of
  Chinese as the paragraph it is, not as the short line its character
  count makes of it. The same sentence takes about half as many characters
  (or fewer) in Chinese or Japanese as in English; every length threshold
  here was set on English pages.
"""

from __future__ import annotations

#: The CJK characters, as (first, last) code point ranges: ideographs
#: (unified, extensions A to G, compatibility), Hiragana, Katakana (with its
#: phonetic extensions and half-width forms), Hangul syllables and jamo. CJK
#: punctuation lives in other blocks (U+3000-303F, U+FF00-FF65) and is not
#: among them.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul jamo
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3134F),  # CJK extensions B-G
)

#: :data:`CJK_RANGES` as the inside of a regular expression's ``[...]``.
CJK_CHARS: str = "".join(f"{chr(first)}-{chr(last)}" for first, last in CJK_RANGES)

#: How many letters one CJK character counts for in a length. Two is the
#: low end of what a character holds (a kana or a Hangul syllable: a
#: consonant and a vowel; an ideograph: a syllable and its meaning, an
#: English sentence's letters running two and a half to three times its
#: Chinese translation's characters). It was chosen on pages made
#: CJK by ``benchmarks/language_blind.py --script cjk`` and checked it on
#: the six Chinese and Japanese pages of the shared data
#: (docs/WEBCLEAN.md, "Pages in other languages").
CJK_CHARACTER_WEIGHT = 2
