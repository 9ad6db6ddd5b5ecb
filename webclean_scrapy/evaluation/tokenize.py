"""The one tokenizer every token-based metric uses.

Word metrics assume words are separated by spaces. Chinese and Japanese are
not, so ``\\w+`` would turn a whole CJK sentence into one "word" and make any
small extraction error look like a total miss of that sentence. Here each
Han, Hiragana, Katakana or Hangul character is a token of its own --
character-level scoring is the usual practice for these scripts -- while
every other script keeps ``\\w+`` word tokens.
Punctuation (CJK or not) is never a token. Case is kept, as in the public
article-extraction benchmark whose shingle F1 we report: a change of case is
a change of text.
"""

from __future__ import annotations

import re

#: Characters scored one by one: CJK ideographs (unified, extensions A-F,
#: compatibility), Hiragana, Katakana (incl. phonetic extensions and
#: half-width forms), Hangul syllables and jamo. CJK punctuation lives in
#: other blocks (U+3000-303F, U+FF00-FF65) and is not ``\\w``, so it drops out.
CJK_CHARS = (
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\u1100-\u11ff"  # Hangul jamo
    "\u3130-\u318f"  # Hangul compatibility jamo
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0003134f"  # CJK extensions B-G
)

#: One CJK character, or a run of word characters that are not CJK.
TOKEN_RE = re.compile(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+", re.UNICODE)


def tokenize(text: str | None) -> list[str]:
    """Word tokens of *text*; CJK text is split into characters.

    >>> tokenize("Hello, World 2024")
    ['Hello', 'World', '2024']
    >>> tokenize("東京タワーへ行く Tokyo")
    ['東', '京', 'タ', 'ワ', 'ー', 'へ', '行', 'く', 'Tokyo']
    """
    if not text:
        return []
    return TOKEN_RE.findall(text)
