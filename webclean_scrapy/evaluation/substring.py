"""Longest common substring in linear time, via a suffix automaton.

The textbook dynamic programme is O(n*m): two 20,000-character texts would
cost 400 million Python steps. A suffix automaton of one text is built in
O(n) (amortised) and the other text is streamed through it in O(m), so a page
pair costs tens of milliseconds in pure Python. The automaton of a gold text
is kept (see :class:`~webclean_scrapy.evaluation.metrics.Text`) and reused for
every extractor scored against it, since building costs more than streaming.
"""

from __future__ import annotations


class SuffixAutomaton:
    """The minimal automaton accepting every substring of *text*."""

    __slots__ = ("trans", "link", "length")

    def __init__(self, text: str) -> None:
        trans: list[dict[str, int]] = [{}]
        link = [-1]
        length = [0]
        new_state, new_link, new_length = trans.append, link.append, length.append
        last = 0
        for ch in text:
            cur = len(length)
            new_state({})
            new_link(0)
            new_length(length[last] + 1)
            p = last
            while p != -1 and ch not in trans[p]:
                trans[p][ch] = cur
                p = link[p]
            if p != -1:
                q = trans[p][ch]
                if length[p] + 1 == length[q]:
                    link[cur] = q
                else:
                    clone = len(length)
                    new_state(trans[q].copy())
                    new_link(link[q])
                    new_length(length[p] + 1)
                    while p != -1 and trans[p].get(ch) == q:
                        trans[p][ch] = clone
                        p = link[p]
                    link[q] = clone
                    link[cur] = clone
            last = cur
        self.trans = trans
        self.link = link
        self.length = length

    def longest_common_substring(self, other: str) -> str:
        """The longest substring of *other* that is also one of the automaton's
        text (the first one in *other* when several tie)."""
        trans, link, length = self.trans, self.link, self.length
        state = matched = best = best_end = 0
        for i, ch in enumerate(other):
            while state and ch not in trans[state]:
                state = link[state]
                matched = length[state]
            nxt = trans[state].get(ch)
            if nxt is None:  # at the root and the character is not in the text
                matched = 0
                continue
            state = nxt
            matched += 1
            if matched > best:
                best = matched
                best_end = i + 1
        return other[best_end - best : best_end]


def longest_common_substring(a: str, b: str) -> str:
    """The longest string occurring in both *a* and *b*; ``""`` when they
    share no character.

    >>> longest_common_substring("the dog jumps over the brown fox",
    ...                          "the fox jumps over the brown dog")
    ' jumps over the brown '
    """
    if not a or not b:
        return ""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return SuffixAutomaton(short).longest_common_substring(long_)
