"""The punctuation marks, defined once.

The walk counts every mark of :data:`PUNCTUATION_MARKS` in every block's
text (:meth:`~webclean_scrapy.engine.columns.BlockColumns.count` adds them up);
the methods ask for the groups below. Each mark is one character, in its
ASCII, CJK full-width and half-width forms where it has them.
"""

from __future__ import annotations

#: Sentence ends: the full stop (ASCII, ideographic, full-width, half-width
#: ideographic), the exclamation and the question mark (ASCII and full-width),
#: and the sentence ends of scripts whose sentences do not end in ``.``:
#: the danda and double danda of Devanagari, Bengali and the other Indic
#: scripts (Hindi, Marathi, Nepali, Bengali...), the Urdu full stop, the
#: Arabic question mark, the Armenian full stop, the Ethiopic full stop
#: (Amharic, Tigrinya), the Myanmar section mark, the Khmer khan and the
#: Tibetan shad. Without them a paragraph of those languages has no
#: sentence end at all and reads, to the flagship's stop features, like a
#: menu.
FULL_STOPS: str = ".。．｡!！?？।॥۔؟։።။។།"
#: Commas: ASCII and full-width, the ideographic enumeration comma and its
#: half-width form, the Arabic comma (Arabic, Persian, Urdu).
COMMAS: str = ",，、､،"
#: Semicolons: ASCII, full-width and Arabic.
SEMICOLONS: str = ";；؛"

#: Every mark the walk counts, each once: what any method here reads (at
#: most :data:`webclean_scrapy.engine.html.walk.MAX_MARKS`, 32).
PUNCTUATION_MARKS: str = FULL_STOPS + COMMAS + SEMICOLONS
