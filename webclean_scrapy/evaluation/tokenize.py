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

from webclean_scrapy.engine.text.scripts import CJK_CHARS

#: One CJK character (:data:`webclean_scrapy.engine.text.scripts.CJK_CHARS`: ideographs,
#: kana, Hangul), or a run of word characters that are not CJK. CJK
#: punctuation is not among them and is not ``\\w``: it drops out.
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
