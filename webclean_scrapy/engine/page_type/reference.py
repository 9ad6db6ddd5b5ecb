"""The page signals' inner loops in Python: the reference definitions of
:mod:`webclean_scrapy.engine._signals`.

Each function here gives the output of the compiled one of the same name
(with its signature, but for :func:`price_starts`, which reads the price's
pieces from :mod:`.vocabulary` where the compiled scan is given them),
which is what :mod:`.signals` runs when the extension was built. These are the ones to read, the fallback on machines without a C
compiler, and the references the tests hold the compiled loops to, on
generated input and on real pages (as :mod:`webclean_scrapy.engine.html.walk` is for
the document walk).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import compress, repeat
from operator import itemgetter
from typing import Any

import numpy as np

from webclean_scrapy.engine.page_type.vocabulary import (
    PRICE_CODES,
    PRICE_SEPARATORS,
    PRICE_SUFFIX_SYMBOLS,
    PRICE_SYMBOLS,
)


def family_counts(name_counts: dict[str, int], name_bits: dict[str, int], groups: int) -> list[int]:
    """Per family (bit *k* of a name's *name_bits*, *k* below *groups*), the
    summed counts of the names carrying it. The reference for
    :func:`webclean_scrapy.engine._signals.family_counts`."""
    names = list(name_counts)
    bits = np.fromiter(map(name_bits.__getitem__, names), dtype=np.int64, count=len(names))
    counts = np.fromiter(name_counts.values(), dtype=np.int64, count=len(names))
    return (counts @ ((bits[:, None] >> np.arange(groups, dtype=np.int64)) & 1)).tolist()


def _present_hrefs(hrefs: list[str | None]) -> tuple[list[str], int]:
    """The non-empty ``href`` values of the ``<a>`` elements (*hrefs*:
    :func:`~webclean_scrapy.engine.html.elements.link_hrefs`), in order, and how many of them name a slug
    (``/how-to-fix-a-leaking-tap``: three hyphens or more in the last path
    segment; fewer than three in the whole address of more than 20
    characters rule a link out before its last segment is cut). Read by
    :func:`link_figures`."""
    present = list(filter(None, hrefs))
    slugs = [href for href in present if len(href) > 20 and href.count("-") >= 3]
    return present, sum(1 for href in slugs if href.rstrip("/").rsplit("/", 1)[-1].count("-") >= 3)


def link_figures(hrefs: list[str | None], fragments: list[bytes]) -> tuple[int, list[int]]:
    """How many of the ``<a>`` elements' non-empty ``href`` values (*hrefs*:
    :func:`~webclean_scrapy.engine.html.elements.link_hrefs`) name a slug (:func:`_present_hrefs`) and how
    often each of *fragments* (ASCII bytes) occurs in them lower-cased:
    counted over the joined addresses, one substring count per fragment.
    The reference for :func:`webclean_scrapy.engine._signals.link_figures`."""
    present, slugs = _present_hrefs(hrefs)
    joined = "\n".join(present).lower()
    return slugs, [joined.count(fragment.decode()) for fragment in fragments]


def unknown_names(names: dict[str, int], known: dict[str, int]) -> list[str]:
    """The keys of *names* not in *known*, in order. The reference for
    :func:`webclean_scrapy.engine._signals.unknown_names`."""
    return [name for name in names if name not in known]


def attribute_names(
    tags: list[str], attributes: list[dict[str, str]], heading_tags: frozenset[str]
) -> tuple[list[str], list[str], list[str], int, dict[str, int]]:
    """Per container its ``class`` value (``""`` without one); the ``role``
    and ``itemprop`` values (lower-cased) in document order; how many
    headings (*heading_tags*) have an ``id``; and each class / id name (the
    values lower-cased, split at whitespace) with how often it occurs. The
    reference for :func:`webclean_scrapy.engine._signals.attribute_names`.

    Ids, roles and itemprops sit on few containers: one loop over the
    containers with attributes gathers them. Each distinct value is split
    once, counted as often as it occurs (pages repeat their class values:
    a third are distinct).
    """
    classes = list(map(dict.get, attributes, repeat("class"), repeat("")))
    ids: list[str] = []
    roles: list[str] = []
    itemprops: list[str] = []
    heading_ids = 0
    for tag, a in compress(zip(tags, attributes), attributes):  # the containers with attributes
        if len(a) > ("class" in a):  # an id, role or itemprop
            if "id" in a:
                ids.append(a["id"])
                heading_ids += tag in heading_tags
            if "role" in a:
                roles.append(a["role"].lower())
            if "itemprop" in a:
                itemprops.append(a["itemprop"].lower())
    values = Counter(classes)
    values.update(ids)
    name_counts: dict[str, int] = {}
    seen = name_counts.get
    for value, times in values.items():
        for name in value.lower().split():
            name_counts[name] = seen(name, 0) + times
    return classes, roles, itemprops, heading_ids, name_counts


def group_numbers(items: list[int], parents: list[int], tags: list[str], classes: list[str]) -> np.ndarray:
    """Per item (a container index, three or more of them), the index of the
    first item sharing its parent, tag and class: its group's number (int64).
    The reference for :func:`webclean_scrapy.engine._signals.group_numbers`.

    ``setdefault`` keeps the first index, and the loop stays in C."""
    pick = itemgetter(*items)
    first_of: dict[tuple[int, str, str], int] = {}
    return np.fromiter(
        map(first_of.setdefault, zip(pick(parents), pick(tags), pick(classes)), items),
        dtype=np.int64,
        count=len(items),
    )


def numeric_blocks(texts: list[str]) -> int:
    """How many of *texts* are digits alone once ``,`` and ``.`` are taken
    out. The reference for :func:`webclean_scrapy.engine._signals.numeric_blocks`."""
    return sum(map(str.isdigit, [t.replace(",", "").replace(".", "") for t in texts]))


def phrase_counts(text: str, strip: str, phrases: dict[str, list[str]], longest: int) -> dict[str, int]:
    """How often each of *phrases*' keys is a whole line of *text*, the
    characters of *strip* stripped from both ends (*longest*: the longest
    key's length, which only the compiled scan needs). The reference for
    :func:`webclean_scrapy.engine._signals.phrase_counts`."""
    return Counter(filter(phrases.__contains__, map(str.strip, _lines(text), repeat(strip))))


#: The most characters of a short block (a label, a cue, a count).
SHORT = 40
#: A price: a currency symbol or code next to a number.
#: Written ``[symbols or digit]`` then a branch on which it was (a
#: lookbehind), the same matches as ``[symbols]\s?\d|\d[...]*(?:codes)``: a
#: pattern opening on a character set lets the regex engine skip to the
#: next candidate character in C instead of trying both branches at every
#: position.
#: Its pieces are :mod:`.vocabulary`'s, which the compiled scan is given.
PRICE = re.compile(
    rf"[{PRICE_SYMBOLS}\d](?:(?<=[{PRICE_SYMBOLS}])\s?\d"
    rf"|(?<=\d)[\d{PRICE_SEPARATORS}]*(?:[{PRICE_SUFFIX_SYMBOLS}]|{'|'.join(PRICE_CODES)}))"
)


def price_starts(text: str) -> list[int]:
    """Where the matches of :data:`PRICE` start in *text*. The reference
    for :func:`webclean_scrapy.engine._signals.price_starts`."""
    return [match.start() for match in PRICE.finditer(text)]


#: A byte table keeping ``a``-``z`` and turning every other byte into a space.
NOT_LOWER = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
_SINGLE_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def words(text: str) -> set[str]:
    """``set(re.findall("[a-z]{2,}", text))``, twice as fast: the UTF-8 bytes with
    everything but ``a``-``z`` turned into spaces (a non-ASCII character
    is only bytes of 0x80 and above), split, single letters dropped."""
    found = set(text.encode("utf-8", "surrogatepass").translate(NOT_LOWER).decode("ascii").split())
    found -= _SINGLE_LETTERS
    return found


def add_words(tokens: set[str], text: str, prefix: str) -> None:
    """Add *prefix* joined to each of :func:`words` of *text* to *tokens*.
    The reference for :func:`webclean_scrapy.engine._signals.add_words`."""
    tokens.update(map(prefix.__add__, words(text)))


def tag_codes(
    tags: list[str], parents: np.ndarray, codes: dict[str, int], layout: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Per container, its own tag code (``signals._OWN_CODES``, int8) and the
    ``signals._TAG_BITS`` of its tag and its ancestors' (the root's own
    excepted, int64); and how many containers have each of
    ``signals._COUNTED_TAGS``; *codes* is ``signals._TAG_CODES``, *layout*
    ``signals._TAG_LAYOUT``. The reference for
    :func:`webclean_scrapy.engine._signals.tag_codes` (one pass in C, as parents
    come before their children).

    One dictionary lookup per container, then the inheritance by pointer
    jumping: each round ORs in the flags of the ancestor 2**k levels up and
    then jumps twice as far, so ``log2(depth)`` numpy passes replace a
    Python loop over the containers.
    """
    own_shift, counted_shift, counted_size = layout
    values = np.fromiter(map(codes.get, tags, repeat(0)), dtype=np.int64, count=len(tags))
    counted = np.bincount(values >> counted_shift, minlength=counted_size + 1)[1:].tolist()
    own = ((values >> own_shift) & 7).astype(np.int8)
    flags = values & ((1 << own_shift) - 1)
    if len(tags):
        flags[0] = 0
    up = np.maximum(parents, 0)
    while up.any():
        flags |= flags[up]
        up = up[up]
    return own, flags, counted


def block_stats(
    chars: np.ndarray,
    anchors: np.ndarray,
    holders: np.ndarray,
    ends: np.ndarray,
    flags: np.ndarray,
    own: np.ndarray,
    parents: np.ndarray,
    share_bits: np.ndarray,
    texts: list[str],
) -> tuple[Any, ...]:
    """What :func:`~.signals.page_signals` sums and counts over the blocks (*chars*,
    *anchors*: their characters, all and linked; *holders*; *ends*: their
    full stops), with the containers' inherited *flags*, *own* tag codes
    and *parents* (as :func:`tag_codes` and the walk give them): the
    fields of ``signals._BlockStats``, in order, as a plain tuple.

    The reference for :func:`webclean_scrapy.engine._signals.block_stats` (one
    pass in C); every sum is of whole numbers, exact in any order.
    """
    chars = chars.astype(float)
    anchors = anchors.astype(float)
    linked = anchors >= 0.8 * chars
    short = chars <= SHORT
    prose = (chars >= 80) & (anchors < 0.3 * chars)
    above = parents[holders[prose]]
    mass = np.bincount(np.where(above >= 0, above, 0), weights=chars[prose], minlength=len(flags))
    block_flags = flags[holders]
    block_own = own[holders]
    # The characters under each flag: one product with the blocks' flag
    # bits, 65,536 blocks at a time: the blocks-by-flags matrix of a huge
    # page would take 100s of MB.
    under = np.zeros(len(share_bits))
    for start in range(0, len(chars), 65536):
        part = slice(start, start + 65536)
        under += chars[part] @ ((block_flags[part, None] & share_bits) != 0)
    headings = (block_flags & share_bits[-1]) != 0
    headline = linked & (anchors >= 25)
    priced = chars <= 60
    return (
        int(np.count_nonzero(linked)),
        int(chars[chars >= 150].sum()),
        int(chars[ends > 0].sum()),
        int(chars.max()),
        int(np.bincount(holders, weights=chars, minlength=len(flags)).max()),
        int(np.count_nonzero(short)),
        int(np.count_nonzero(prose)),
        int(mass.max()) if len(mass) else 0,
        [int(value) for value in under.tolist()],
        int(chars[block_own == 1].sum()),
        int(chars[block_own == 2].sum()),
        int(np.count_nonzero(headings)),
        int(np.count_nonzero(headings & linked)),
        int(np.count_nonzero(headline)),
        int(chars[headline].sum()),
        list(compress(texts, short.tolist())),
        list(compress(texts, (block_own == 3).tolist())),
        np.flatnonzero(priced),
        list(compress(texts, priced.tolist())),
        headings,
    )


def _lines(text: str, chunk: int = 1 << 20) -> Iterator[str]:
    """``text.split("\\n")``, a piece of about *chunk* characters at a time
    (a huge page's short blocks would otherwise be split into a list of
    millions of strings at once)."""
    start = 0
    while True:
        end = text.find("\n", start + chunk)
        if end < 0:
            yield from text[start:].split("\n")
            return
        yield from text[start:end].split("\n")
        start = end + 1


def repetition(
    own: np.ndarray,
    chars: np.ndarray,
    anchor_chars: np.ndarray,
    parents: np.ndarray,
    tags: list[str],
    classes: list[str],
    first_blocks: np.ndarray,
    last_blocks: np.ndarray,
    price_mask: np.ndarray,
    heading_blocks: np.ndarray,
    first_group: Callable[[list[int]], int],
) -> tuple[Any, ...] | None:
    """The groups of sibling containers sharing parent, tag and class
    (cards, posts, rows), of three or more holding text, from the
    containers' *own* tag codes, subtree *chars* and *anchor_chars*,
    *parents*, *tags*, *classes* and block ranges, and the blocks' price
    and heading masks (uint8); *first_group* picks among groups tied for
    the most text. None without a group; else how many groups, how many of
    five or more, the largest size; the top group (its first item), its
    size, characters and linked characters; and None when no member holds
    a block, else per member group the most members with a price, with a
    heading, with long unlinked text, those members' characters, members
    with links (up to 400 characters), short members with a price or a
    heading. The reference for :func:`webclean_scrapy.engine._signals.repetition`.
    """
    n = len(own)
    # Items: containers of a tag that can repeat (not p, h1-h3 or
    # ``signals._REPEAT_SKIP``) holding text, the root excepted. (A group's
    # members all have its tag; its empty ones never count, so only the
    # items are grouped.)
    candidate = ((own == 0) | (own == 2)) & (chars > 0)
    if n:
        candidate[0] = False
    items = np.flatnonzero(candidate)
    if len(items) < 3:
        return None
    group_of = group_numbers(items.tolist(), parents.tolist(), tags, classes)
    live = np.bincount(group_of, minlength=n)[group_of] >= 3
    if not live.any():
        return None
    items = items[live]
    gids = group_of[live]
    g_size = np.bincount(gids, minlength=n)
    g_chars = np.bincount(gids, weights=chars[items], minlength=n)
    g_anchor = np.bincount(gids, weights=anchor_chars[items], minlength=n)
    top = first_group(np.flatnonzero(g_chars == g_chars.max()).tolist())
    figures = (
        int(np.count_nonzero(g_size >= 3)),
        int(np.count_nonzero(g_size >= 5)),
        int(g_size.max()),
        top,
        int(g_size[top]),
        int(g_chars[top]),
        int(g_anchor[top]),
    )
    # Per member (an item holding blocks): prices, headings, long unlinked text.
    with_text = first_blocks[items] >= 0
    members = items[with_text]
    if not len(members):
        return (*figures, None)
    lo = first_blocks[members]
    hi = last_blocks[members] + 1

    def inside(mask: np.ndarray) -> np.ndarray:
        cum = np.concatenate(([0], np.cumsum(mask)))
        return cum[hi] - cum[lo]

    member_groups = gids[with_text]

    def best(per_member: np.ndarray) -> int:
        return int(np.bincount(member_groups, weights=per_member.astype(float)).max())

    has_price = inside(price_mask) > 0
    has_heading = inside(heading_blocks) > 0
    m_chars = chars[members].astype(float)
    m_links = anchor_chars[members].astype(float)
    long_items = (m_chars >= 150) & (m_links < 0.3 * m_chars)
    return (
        *figures,
        (
            best(has_price),
            best(has_heading),
            best(long_items),
            best(m_chars * long_items),
            best((m_links > 0) & (m_chars <= 400)),
            best((m_chars <= 200) & (has_price | has_heading)),
        ),
    )
