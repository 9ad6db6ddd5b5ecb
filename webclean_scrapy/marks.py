"""The punctuation marks, defined once.

The walk counts every mark of :data:`PUNCTUATION_MARKS` in every block's
text (:meth:`~webclean_scrapy.document.BlockColumns.count` adds them up);
the methods ask for the groups below. Each mark is one character, in its
ASCII, CJK full-width and half-width forms where it has them.
"""

from __future__ import annotations

#: Sentence ends: the full stop (ASCII, ideographic, full-width, half-width
#: ideographic), the exclamation and the question mark (ASCII and full-width).
FULL_STOPS: str = ".。．｡!！?？"
#: Commas: ASCII and full-width, the ideographic enumeration comma and its
#: half-width form, the Arabic comma.
COMMAS: str = ",，、､،"
SEMICOLONS: str = ";"

#: Every mark the walk counts, each once: what any method here reads.
PUNCTUATION_MARKS: str = FULL_STOPS + COMMAS + SEMICOLONS

# The groups the flagship's block features count. The shipped model was
# fitted on exactly these (narrower than the groups above: no full-width
# full stop, no half-width marks, no Arabic comma), so they stay as they
# are until the model is retrained on others.
#: Stops counted by the ``stops`` feature.
MODEL_STOPS: str = ".。!?"
#: Commas counted by the ``commas`` feature (with :data:`SEMICOLONS`), and
#: by the Readability points.
MODEL_COMMAS: str = ",，、"
#: A block whose last character is one of these ends a sentence (``ends_stop``).
MODEL_SENTENCE_ENDS: str = ".!?。！？"
