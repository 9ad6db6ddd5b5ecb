"""The punctuation marks, defined once.

The walk counts every mark of :data:`PUNCTUATION_MARKS` in every block's
text (:meth:`~webclean_scrapy.document.BlockColumns.count` adds them up);
the methods ask for the groups below. Each mark is one character, in its
ASCII, CJK full-width and half-width forms where it has them.
"""

from __future__ import annotations

#: Sentence ends: the full stop (ASCII, ideographic, full-width, half-width
#: ideographic), the exclamation and the question mark (ASCII and full-width),
#: and the full stops of scripts whose sentences do not end in ``.``: the
#: danda of Devanagari, Bengali and the other Indic scripts (Hindi,
#: Marathi, Nepali, Bengali...) and the Urdu full stop. Without them a
#: Hindi or Urdu paragraph has no sentence end at all and reads, to the
#: flagship's stop features, like a menu.
FULL_STOPS: str = ".。．｡!！?？।۔"
#: Commas: ASCII and full-width, the ideographic enumeration comma and its
#: half-width form, the Arabic comma.
COMMAS: str = ",，、､،"
SEMICOLONS: str = ";"

#: Every mark the walk counts, each once: what any method here reads (at
#: most :data:`webclean_scrapy.walk.MAX_MARKS`, 16).
PUNCTUATION_MARKS: str = FULL_STOPS + COMMAS + SEMICOLONS

# The groups the flagship's block features count. The shipped model was
# fitted on these; they are narrower than the groups above (no full-width
# full stop, exclamation or question mark, no half-width marks, no Arabic
# comma: all of which occur on a few of the training pages, so counting
# them would change those pages' features and needs a retrained model).
# The danda and the Urdu full stop occur on none of the training pages
# (session 14): counting them changes no training page's features and
# gives Indic and Urdu prose the sentence ends the model reads prose by.
#: Stops counted by the ``stops`` feature.
MODEL_STOPS: str = ".。!?।۔"
#: Commas counted by the ``commas`` feature (with :data:`SEMICOLONS`), and
#: by the Readability points.
MODEL_COMMAS: str = ",，、"
#: A block whose last character is one of these ends a sentence (``ends_stop``).
MODEL_SENTENCE_ENDS: str = ".!?。！？।۔"
