"""The page signals: one vector of :data:`STRUCTURE_FEATURES` and the word
tokens of a walked page, what the page-type classifier reads.

:func:`page_signals` reads a :class:`~webclean_scrapy.engine.document.Document`
the walk already made -- no second parse, no tree mutation:

* **declared semantics**: schema.org types from JSON-LD (``@type``, read
  with a regular expression, so broken JSON still counts) and microdata
  (``itemtype``), a few JSON-LD keys (``offers``, ``itemListElement``...),
  ``og:type`` and the ``article:*`` / ``product:*`` meta properties, and
  the software that made the page (``generator``, script and stylesheet
  addresses: Shopify, Discourse, Sphinx, WordPress...);
* **the URL** (tracking parameters such as ``srsltid`` or ``utm_*``
  dropped): path depth, slug shape, digits, a date, file extension, query,
  and path / host tokens by family (``/products/``, ``/t/``, ``/docs/``,
  ``/collections/``, ``/tag/``, ``/services/``, ``forum.``, ``docs.``...);
* **markup**: structural tag counts and the share of the text under each
  (``<article>``, ``<nav>``, ``<pre>``, tables, lists, headings, forms),
  ``<code>``, ``<time>``, ``<img>``, ``<input>``, ``<select>`` counts,
  links by target, class/id keyword families (``price``, ``cart``, ``post``,
  ``reply``, ``toc``, ``card``, ``filter``, ``hero``...);
* **repetition**: sibling containers sharing parent, tag and class (cards,
  posts, result rows): the largest group, the one holding most text, how
  many of a group's members carry a price, a heading or long unlinked
  text;
* **text**: length, link density, punctuation, the share of the largest
  text holder, headings that are links, headline-length links, prices
  (a currency symbol or code next to a number), years, prose mass and
  whole short blocks that are a known cue (``Add to cart``, ``Reply``,
  ``On this page``, ``Read more``, ``Sort by``, ``Contact us``...);
* **tokens**: the words of the URL path, the title, the meta description,
  the ``h1``-``h3`` headings, the short blocks and the class/id names,
  which the token model (:class:`~.model.TokenModel`) scores.

The word lists are :mod:`.vocabulary`'s. The inner loops are compiled
(:mod:`webclean_scrapy.engine._signals`) when the extension was built, and
:mod:`.reference` otherwise: the same functions in Python.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import accumulate, compress, pairwise
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

import numpy as np
from lxml import etree

from webclean_scrapy.engine.document import Document, text_length
from webclean_scrapy.engine.html.elements import ELEMENT_TAGS, ITER_TAGS, attribute_survey, link_hrefs, tagged_elements
from webclean_scrapy.engine.page_type.reference import NOT_LOWER
from webclean_scrapy.engine.page_type.reference import price_starts as _reference_price_starts
from webclean_scrapy.engine.page_type.vocabulary import (
    CLASS_GROUPS,
    HOST_GROUPS,
    LD_KEYS,
    LINK_KINDS,
    PHRASES,
    PLATFORMS,
    PRICE_CODES,
    PRICE_SEPARATORS,
    PRICE_SUFFIX_SYMBOLS,
    PRICE_SYMBOLS,
    SCHEMA_GROUPS,
    URL_GROUPS,
)
from webclean_scrapy.engine.text.marks import COMMAS, FULL_STOPS

try:  # the inner loops, compiled (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import add_words as _add_words
    from webclean_scrapy.engine._signals import attribute_names as _attribute_names
    from webclean_scrapy.engine._signals import block_stats as _block_stats
    from webclean_scrapy.engine._signals import family_counts as _family_counts
    from webclean_scrapy.engine._signals import link_figures as _link_figures
    from webclean_scrapy.engine._signals import numeric_blocks as _numeric_blocks
    from webclean_scrapy.engine._signals import phrase_counts as _phrase_counts
    from webclean_scrapy.engine._signals import price_starts as _compiled_price_starts
    from webclean_scrapy.engine._signals import repetition as _repetition
    from webclean_scrapy.engine._signals import tag_codes as _tag_codes
    from webclean_scrapy.engine._signals import unknown_names as _unknown_names
except ImportError:  # pragma: no cover - a build without a C compiler
    from webclean_scrapy.engine.page_type.reference import add_words as _add_words
    from webclean_scrapy.engine.page_type.reference import attribute_names as _attribute_names
    from webclean_scrapy.engine.page_type.reference import block_stats as _block_stats
    from webclean_scrapy.engine.page_type.reference import family_counts as _family_counts
    from webclean_scrapy.engine.page_type.reference import link_figures as _link_figures
    from webclean_scrapy.engine.page_type.reference import numeric_blocks as _numeric_blocks
    from webclean_scrapy.engine.page_type.reference import phrase_counts as _phrase_counts
    from webclean_scrapy.engine.page_type.reference import repetition as _repetition
    from webclean_scrapy.engine.page_type.reference import tag_codes as _tag_codes
    from webclean_scrapy.engine.page_type.reference import unknown_names as _unknown_names

    _compiled_price_starts = None

# -- fast substring tests ------------------------------------------------------

#: Trigram hashes are this many bits: a table small enough to stay in
#: cache (a 64 KiB one costs more to clear and fill than it saves), large
#: enough to rule out most words.
_TRIGRAM_BITS = 14


def _trigrams(data: bytes) -> np.ndarray:
    """A :data:`_TRIGRAM_BITS`-bit hash of each byte trigram of *data*, one
    per position (none when shorter than 3 bytes)."""
    raw = np.frombuffer(data, dtype=np.uint8).astype(np.uint16)
    return ((raw[:-2] << 7) ^ (raw[1:-1] << 4) ^ raw[2:]) & ((1 << _TRIGRAM_BITS) - 1)


class _Substrings:
    """A fixed list of ASCII words of three or more characters, and which of
    them may occur in a text.

    A word occurs in a text only if each of its byte trigrams occurs in the
    text's UTF-8 (a non-ASCII character is bytes of 0x80 and above): one
    numpy pass over the text marks its (hashed) trigrams, one lookup
    tells which words have them all. The few candidates left are then
    tested with ``in`` / ``str.find``, exactly; most words are ruled out
    without a search of their own, which matters with a hundred words.
    """

    __slots__ = ("words", "_trigrams")

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(words)
        if any(len(w) < 3 or not w.isascii() for w in self.words):
            raise ValueError("only ASCII words of three or more characters")
        width = max(map(len, self.words)) - 2
        # Each word's trigrams, padded with its first one.
        rows = [_trigrams(w.encode()).tolist() for w in self.words]
        self._trigrams = np.array([row + row[:1] * (width - len(row)) for row in rows], dtype=np.uint16)

    def candidates(self, text: str) -> list[bool]:
        """Per word: might it occur in *text* (False: it does not)."""
        seen = np.zeros(1 << _TRIGRAM_BITS, dtype=bool)
        seen[_trigrams(text.encode("utf-8", "surrogatepass"))] = True
        return np.all(seen[self._trigrams], axis=1).tolist()


# -- tables made from the vocabulary: declared semantics, the URL --------------

_SCHEMA_OF: dict[str, str] = {name: group for group, names in SCHEMA_GROUPS.items() for name in names}
_LD_TYPE = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')
_LD_KEY = re.compile(r'"(' + "|".join(LD_KEYS) + r')"\s*:')
_WORD = re.compile(r"[A-Za-z]+")
_PLATFORM_WORDS = _Substrings(sorted({word for words in PLATFORMS.values() for word in words}))
_URL_GROUP_NAMES = tuple(URL_GROUPS)
_URL_TOKEN_BITS: dict[str, int] = {}
for _bit, _name in enumerate(_URL_GROUP_NAMES):
    for _token in URL_GROUPS[_name]:
        _URL_TOKEN_BITS[_token] = _URL_TOKEN_BITS.get(_token, 0) | (1 << _bit)
_HOST_GROUP_NAMES = tuple(HOST_GROUPS)
_TRACKING = re.compile(r"^(?:utm_\w+|srsltid|gclid|fbclid|msclkid|mc_\w+|_ga|ref|ref_|source|igshid|yclid)$", re.I)
_SEGMENT_WORDS = re.compile(r"[a-z]+|\d+")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_DATE_IN_PATH = re.compile(r"/(?:19|20)\d\d(?:[/-](?:0?[1-9]|1[0-2])\b)?")
_ID_LIKE = re.compile(r"\d{4,}|[a-z]*\d+[a-z]+\d+|[A-Z0-9]{8,}")
# -- class/id names by keyword family ------------------------------------------

_CLASS_GROUP_NAMES = tuple(CLASS_GROUPS)


def _class_keywords() -> dict[str, int]:
    """Each class/id keyword and the bits of the families holding it (bit
    *i*: the *i*-th of :data:`_CLASS_GROUP_NAMES`). A keyword containing
    another of its family adds nothing (``username`` holds ``user``) and is
    left out: a name has a family when it contains one of the family's words."""
    keywords: dict[str, int] = {}
    for bit, group in enumerate(_CLASS_GROUP_NAMES):
        words = CLASS_GROUPS[group]
        for word in words:
            if not any(other != word and other in word for other in words):
                keywords[word] = keywords.get(word, 0) | (1 << bit)
    return keywords


_LOWER_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
#: Keywords of letters only: one occurs in a name only within one of the
#: name's runs of letters (``product`` in ``product-card__title``).
_LETTER_KEYWORDS: tuple[tuple[str, int], ...] = tuple(
    (word, bits) for word, bits in sorted(_class_keywords().items()) if set(word) <= _LOWER_LETTERS
)
_LETTER_WORDS = _Substrings(word for word, _ in _LETTER_KEYWORDS)
#: The others (``add-to-cart``, ``md-``), searched for in the names
#: themselves; with the indexes of their families.
_SPANNING_KEYWORDS: tuple[tuple[bytes, list[int]], ...] = tuple(
    (word.encode(), [bit for bit in range(len(_CLASS_GROUP_NAMES)) if bits >> bit & 1])
    for word, bits in sorted(_class_keywords().items())
    if not set(word) <= _LOWER_LETTERS
)
_FAMILY_SHIFTS = np.arange(len(_CLASS_GROUP_NAMES), dtype=np.int64)
#: Family bits of the letter runs seen so far by the reference
#: (:func:`_python_name_families`; the same words recur across pages and
#: sites: ``product``, ``card``, ``title``, ``wrapper``); emptied when it
#: grows past :data:`_RUN_CACHE_SIZE`.
_RUN_BITS: dict[str, int] = {}
_RUN_CACHE_SIZE = 1 << 16


def _letter_run_bits(runs: list[str]) -> list[int]:
    """Per run of letters, the family bits of the letter keywords it contains.

    One ``str.find`` per keyword (those :data:`_LETTER_WORDS` does not rule
    out) over the runs joined by spaces, each hit mapped back to its run,
    the search going on from the next run.
    """
    text = " ".join(runs)
    starts = list(accumulate([len(run) + 1 for run in runs], initial=0))
    bits = [0] * len(runs)
    find = text.find
    for word, word_bits in compress(_LETTER_KEYWORDS, _LETTER_WORDS.candidates(text)):
        at = find(word)
        while at >= 0:
            k = bisect_right(starts, at) - 1
            bits[k] |= word_bits
            at = find(word, starts[k + 1])
    return bits


def _python_name_families(names: list[str]) -> list[int]:
    """Per class/id name, the bits of the families (:data:`_CLASS_GROUP_NAMES`)
    one of whose keywords it contains. The reference for the compiled scan
    (:data:`_NAME_MATCHER`), and the path without a C compiler.

    The names are cut into runs of letters -- the words, looked up once per
    run and remembered (:data:`_RUN_BITS`) -- mapped back to their names
    with numpy over the UTF-8 of the names joined by spaces (a name holds
    no whitespace; a non-ASCII character is bytes of 0x80 and above).
    """
    data = " ".join(names).encode("utf-8", "surrogatepass")
    runs = data.translate(NOT_LOWER).decode("ascii").split()
    cache = _RUN_BITS
    missing = list(set(runs).difference(cache))
    if missing:
        cache.update(zip(missing, _letter_run_bits(missing)))
    bits = np.fromiter(map(cache.__getitem__, runs), dtype=np.int64, count=len(runs))
    if len(cache) > _RUN_CACHE_SIZE:
        cache.clear()
    raw = np.frombuffer(data, dtype=np.uint8)
    name_of = np.cumsum(raw == 32, dtype=np.int32)  # the name each byte belongs to
    has = np.zeros((len(names), len(_CLASS_GROUP_NAMES)), dtype=bool)
    hits = np.flatnonzero(bits)
    if len(hits):
        letter = (raw >= 97) & (raw <= 122)
        starts = letter.copy()
        starts[1:] &= ~letter[:-1]
        run, family = np.nonzero((bits[hits, None] >> _FAMILY_SHIFTS) & 1)
        has[name_of[np.flatnonzero(starts)[hits[run]]], family] = True
    for word, families in _SPANNING_KEYWORDS:
        at = data.find(word)
        while at >= 0:
            has[name_of[at], families] = True
            at = data.find(word, at + 1)
    return (has @ (1 << _FAMILY_SHIFTS)).tolist()


#: Every class/id keyword, compiled into one scan of a name's characters
#: (``LiteralMatcher.each_contained``: a family's bit for each keyword the
#: name contains, overlaps included); ``None`` without the extension.
_NAME_MATCHER: Any = None
_name_families: Callable[[list[str]], list[int]] = _python_name_families


try:  # the compiled scan (an optional extension: see setup.py)
    from webclean_scrapy.engine._features import LiteralMatcher as _LiteralMatcher

    _NAME_MATCHER = _LiteralMatcher([(word, (), bits, 0) for word, bits in sorted(_class_keywords().items())])
    _name_families = _NAME_MATCHER.each_contained
except ImportError:  # pragma: no cover - a build without a C compiler
    pass


#: Per class/id name seen so far: its family bits (:func:`_name_families`),
#: made once (not again on each page). Pages and sites repeat their names;
#: emptied past :data:`_RUN_CACHE_SIZE` entries.
_NAME_BITS: dict[str, int] = {}


def clear_name_memos() -> None:
    """Empty the memos of the class/id names and letter runs seen so far
    (:data:`_NAME_BITS`, :data:`_RUN_BITS`): the state of a process that
    has read no page
    (:func:`webclean_scrapy.engine.extractors.webclean.clear_keyword_memos`
    calls it)."""
    _NAME_BITS.clear()
    _RUN_BITS.clear()


def _class_names(name_counts: dict[str, int]) -> tuple[list[int], set[str]]:
    """Per class family (:data:`_CLASS_GROUP_NAMES` order), how many
    class/id names (counting repeats) contain one of its keywords; and the
    words of the names (:func:`.reference.words`) as ``c_`` tokens.
    Each distinct name's families are read once (:func:`_name_families`)
    and remembered. The words are read from the names joined, on every
    page: one compiled pass (:func:`_add_words`) costs about what looking
    up a remembered tuple of words per name did, and a name never seen
    before makes no set and no tuple of its own (the dearest part of a
    first visit's page signals)."""
    words: set[str] = set()
    if not name_counts:
        return [0] * len(_CLASS_GROUP_NAMES), words
    if len(_NAME_BITS) > _RUN_CACHE_SIZE:
        _NAME_BITS.clear()
    missing = _unknown_names(name_counts, _NAME_BITS)
    if missing:
        _NAME_BITS.update(zip(missing, _name_families(missing)))
    _add_words(words, " ".join(name_counts), "c_")
    return _family_counts(name_counts, _NAME_BITS, len(_CLASS_GROUP_NAMES)), words


# -- short blocks: phrases, prices, years --------------------------------------

_PHRASE_OF: dict[str, list[str]] = {}
for _name, _phrases in PHRASES.items():
    for _phrase in _phrases:
        _PHRASE_OF.setdefault(_phrase, []).append(_name)
_PHRASE_GROUP_NAMES = tuple(PHRASES)
#: Whole short blocks only: a block that *is* the phrase, give or take
#: digits, punctuation and a colon (``Reply``, ``Add to cart``, ``12 replies``).
_PHRASE_STRIP = " \t0123456789.,:;!?()[]{}#|/\\-–—•·*+=<>\"'«»“”‘’…→←↓↑›‹»"
_LONGEST_PHRASE = max(map(len, _PHRASE_OF))


def _price_starts(text: str) -> list[int]:
    """:func:`.reference.price_starts`, compiled when it was built: a scan
    for the few characters a price opens with, where the regular
    expression tried its character set at every position."""
    if _compiled_price_starts is None:
        return _reference_price_starts(text)
    return _compiled_price_starts(text, PRICE_SYMBOLS, PRICE_SEPARATORS, PRICE_SUFFIX_SYMBOLS, PRICE_CODES)


#: ``\b(?:19[89]\d|20[0-4]\d)\b``, with the opening boundary checked after
#: the first digit (a lookbehind), so the engine skips to the next 1 or 2.
_YEAR_TEXT = re.compile(r"(?:1(?<!\w1)9[89]|2(?<!\w2)0[0-4])\d(?!\w)")
# -- tags, as bits and codes ---------------------------------------------------

#: Structural tags whose text share is a feature (the block's holder or any
#: ancestor), as bits of one per-container mask.
_FLAG_TAGS: tuple[str, ...] = (
    "article",
    "main",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "table",
    "pre",
    "blockquote",
    "li",
    "dl",
    "figure",
    "section",
    "button",
    "details",
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_HEADING_TAGS = frozenset(_HEADINGS)
_TAG_BITS: dict[str, int] = {tag: 1 << i for i, tag in enumerate(_FLAG_TAGS)}
_HEADING_BIT = 1 << len(_FLAG_TAGS)
_TAG_BITS.update(dict.fromkeys(_HEADINGS, _HEADING_BIT))
#: The bits whose text share is a feature: :data:`_FLAG_TAGS`', then headings'.
_SHARE_BITS = np.array([_TAG_BITS[tag] for tag in _FLAG_TAGS] + [_HEADING_BIT], dtype=np.int64)
_COUNTED_TAGS: tuple[str, ...] = (
    "article",
    "section",
    "nav",
    "aside",
    "header",
    "footer",
    "main",
    "form",
    "button",
    "label",
    "textarea",
    "table",
    "tr",
    "td",
    "th",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "pre",
    "blockquote",
    "figure",
    "figcaption",
    "details",
    "summary",
    "p",
    "fieldset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
)
#: :data:`LINK_KINDS`' fragments in order (as ASCII bytes), and where each kind's are.
_LINK_FRAGMENTS: list[bytes] = [fragment.encode() for fragments in LINK_KINDS.values() for fragment in fragments]
_LINK_FRAGMENT_SPANS: dict[str, tuple[int, int]] = dict(
    zip(LINK_KINDS, pairwise(accumulate(map(len, LINK_KINDS.values()), initial=0)))
)
_REPEAT_SKIP = frozenset({"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt", "option"})


#: Headings whose words are tokens (``h_`` prefix).
_TOKEN_HEADINGS = frozenset({"h1", "h2", "h3"})
# -- feature names -------------------------------------------------------------

#: The hand-made features (everything but the token model's scores).
STRUCTURE_FEATURES: tuple[str, ...] = (
    *(f"schema_{g}" for g in SCHEMA_GROUPS),
    "schema_types",
    "jsonld_blocks",
    "microdata_types",
    *(f"ld_{k}" for k in LD_KEYS),
    "og_article",
    "og_product",
    "og_website",
    "og_other",
    "meta_article",
    "meta_product",
    "meta_itemprop_price",
    "twitter_large_image",
    "twitter_labels",
    "meta_description_chars",
    *(f"platform_{f}" for f in PLATFORMS),
    "url_depth",
    "url_path_chars",
    "url_last_chars",
    "url_last_hyphens",
    "url_last_digits",
    "url_last_numeric",
    "url_id_like",
    "url_digit_segments",
    "url_year",
    "url_date",
    "url_html",
    "url_php",
    "url_trailing_slash",
    "url_root",
    "url_query",
    "url_query_page",
    "url_query_search",
    "url_query_id",
    "url_subdomains",
    *(f"url_{g}" for g in _URL_GROUP_NAMES),
    *(f"url_parent_{g}" for g in _URL_GROUP_NAMES),
    *(f"url_first_{g}" for g in _URL_GROUP_NAMES),
    *(f"host_{g}" for g in _HOST_GROUP_NAMES),
    "title_chars",
    "title_separators",
    "title_docs",
    "title_forum",
    "title_shop",
    "title_news",
    *(f"tag_{t}" for t in _COUNTED_TAGS),
    *(f"el_{t}" for t in ITER_TAGS),
    "el_time_datetime",
    "el_input_number",
    "el_input_search",
    "el_input_checkbox",
    "el_input_radio",
    "el_input_visible",
    "el_img_per_kchar",
    "el_time_per_kchar",
    "slug_links",
    "slug_links_per_kchar",
    *(f"links_{k}" for k in LINK_KINDS),
    "heading_ids",
    *(f"share_{t}" for t in _FLAG_TAGS),
    "share_heading",
    "share_p",
    "share_div",
    *(f"class_{g}" for g in _CLASS_GROUP_NAMES),
    *(f"class_{g}_rate" for g in _CLASS_GROUP_NAMES),
    "role_main",
    "role_navigation",
    "itemprop_count",
    "itemprop_price",
    "itemprop_author",
    "itemprop_text",
    "containers",
    "blocks",
    "chars",
    "link_density",
    "link_blocks",
    "mean_block_chars",
    "median_block_chars",
    "long_block_share",
    "sentence_share",
    "marks_per_kchar",
    "commas_per_kchar",
    "max_block_share",
    "max_holder_share",
    "numeric_blocks",
    "short_block_share",
    "prose_chars",
    "prose_share",
    "prose_blocks",
    "prices",
    "price_blocks",
    "prices_per_kchar",
    "price_distinct",
    "years_in_text",
    "time_ago",
    *(f"phrase_{g}" for g in _PHRASE_GROUP_NAMES),
    "headings",
    "headings_per_kchar",
    "heading_mean_chars",
    "h1_count",
    "linked_headings",
    "linked_heading_share",
    "headline_links",
    "headline_link_share",
    "headline_links_per_kchar",
    "rep_groups",
    "rep_groups5",
    "rep_max_size",
    "rep_top_share",
    "rep_top_size",
    "rep_top_link_density",
    "rep_top_item_chars",
    "rep_top_li",
    "rep_top_article",
    "rep_price_items",
    "rep_heading_items",
    "rep_long_items",
    "rep_long_share",
    "rep_linked_items",
    "rep_img_like_items",
)
_INDEX: dict[str, int] = {name: i for i, name in enumerate(STRUCTURE_FEATURES)}


def _at(names: Iterable[str]) -> np.ndarray:
    """The positions of *names* in :data:`STRUCTURE_FEATURES`: a family of
    features (one per tag, per class group...) is written by one assignment
    instead of a name built and looked up per member, on every page."""
    return np.array([_INDEX[name] for name in names], dtype=np.intp)


_TAG_AT = _at(f"tag_{tag}" for tag in _COUNTED_TAGS)
_CLASS_AT = _at(f"class_{group}" for group in _CLASS_GROUP_NAMES)
_CLASS_RATE_AT = _at(f"class_{group}_rate" for group in _CLASS_GROUP_NAMES)
_SHARE_AT = _at(f"share_{tag}" for tag in _FLAG_TAGS)
_PHRASE_AT = _at(f"phrase_{group}" for group in _PHRASE_GROUP_NAMES)
_EL_AT = _at(f"el_{tag}" for tag in ELEMENT_TAGS)
_LINKS_AT = _at(f"links_{kind}" for kind in _LINK_FRAGMENT_SPANS)
_SCHEMA_AT = _at(f"schema_{group}" for group in SCHEMA_GROUPS)
_LD_AT = _at(f"ld_{key}" for key in LD_KEYS)
_PLATFORM_AT = _at(f"platform_{family}" for family in PLATFORMS)
_HOST_AT = _at(f"host_{name}" for name in HOST_GROUPS)
_URL_AT = _at(f"url_{name}" for name in _URL_GROUP_NAMES)
_URL_PARENT_AT = _at(f"url_parent_{name}" for name in _URL_GROUP_NAMES)
_URL_FIRST_AT = _at(f"url_first_{name}" for name in _URL_GROUP_NAMES)
#: Bit *k* of a URL token's groups is :data:`_URL_GROUP_NAMES`' *k*-th.
_URL_BIT_SHIFTS = np.arange(len(_URL_GROUP_NAMES), dtype=np.int64)


# -- the signals ---------------------------------------------------------------


def _url_features(f: np.ndarray, url: str, tokens: set[str]) -> None:
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
    except ValueError:
        return
    x = _INDEX
    host = host[4:] if host.startswith("www.") else host
    labels = host.split(".")
    f[x["url_subdomains"]] = max(0, len(labels) - 2)
    host_words = {w for label in labels[:-1] for w in label.split("-")}
    f[_HOST_AT] = [not host_words.isdisjoint(words) for words in HOST_GROUPS.values()]
    path = parts.path or "/"
    lowered = path.lower()
    _add_words(tokens, lowered, "u_")
    segments = [s for s in lowered.split("/") if s]
    f[x["url_depth"]] = len(segments)
    f[x["url_path_chars"]] = len(path)
    f[x["url_root"]] = not segments
    f[x["url_trailing_slash"]] = path.endswith("/") and bool(segments)
    last = segments[-1] if segments else ""
    stem = last.rsplit(".", 1)[0] if "." in last else last
    f[x["url_html"]] = last.endswith((".html", ".htm", ".shtml"))
    f[x["url_php"]] = last.endswith((".php", ".asp", ".aspx", ".jsp", ".cgi", ".do"))
    f[x["url_last_chars"]] = len(stem)
    f[x["url_last_hyphens"]] = stem.count("-") + stem.count("_")
    f[x["url_last_digits"]] = sum(map(str.isdigit, stem))
    f[x["url_last_numeric"]] = stem.isdigit()
    f[x["url_id_like"]] = sum(1 for s in path.split("/") if s and _ID_LIKE.search(s))
    f[x["url_digit_segments"]] = sum(1 for s in segments if s.isdigit())
    f[x["url_year"]] = any(_YEAR.match(s) for s in segments)
    f[x["url_date"]] = bool(_DATE_IN_PATH.search(path))
    query = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)]
    f[x["url_query"]] = len(query)
    keys = {k.lower() for k in query}
    f[x["url_query_page"]] = bool(keys & {"page", "p", "pg", "start", "offset", "sort", "order", "orderby"})
    f[x["url_query_search"]] = bool(keys & {"q", "s", "query", "search", "keyword", "keywords", "k", "term"})
    f[x["url_query_id"]] = bool(
        keys
        & {
            "id",
            "t",
            "f",
            "topic",
            "thread",
            "tid",
            "pid",
            "product_id",
            "item",
            "itemid",
            "productid",
            "article",
            "cat",
            "category",
            "c",
        }
    )
    bits_of = _URL_TOKEN_BITS.get
    everywhere = 0
    for s in segments:
        b = bits_of(s, 0)
        if len(s) > 1:
            for w in _SEGMENT_WORDS.findall(s):
                if len(w) > 1:
                    b |= bits_of(w, 0)
        everywhere |= b
    parent = bits_of(segments[-2], 0) if len(segments) >= 2 else 0
    first = bits_of(segments[0], 0) if len(segments) >= 2 else 0
    f[_URL_AT] = (everywhere >> _URL_BIT_SHIFTS) & 1
    f[_URL_PARENT_AT] = (parent >> _URL_BIT_SHIFTS) & 1
    f[_URL_FIRST_AT] = (first >> _URL_BIT_SHIFTS) & 1


def _element_features(
    f: np.ndarray,
    itemtypes: list[str],
    tokens: set[str],
    found: dict[str, list[etree._Element]],
    hrefs: list[str | None],
) -> None:
    """The few tags outside the container table (the head's meta / link /
    script among them), as :func:`tagged_elements` sorted them by tag:
    JSON-LD, meta, platform, inline counts; the links' addresses
    (*hrefs*, :func:`link_hrefs`); and the microdata types (*itemtypes*).
    Each tag's elements are read by a loop of its own.
    """
    x = _INDEX
    f[x["el_a"]] = len(hrefs)
    f[_EL_AT] = [len(found[tag]) for tag in ELEMENT_TAGS]

    # Links to slug-named pages (``/how-to-fix-a-leaking-tap``): what lists
    # of articles (or products) link to. Fewer than three hyphens in the
    # whole address rule a link out before its last segment is cut.
    f[x["slug_links"]], counts = _link_figures(hrefs, _LINK_FRAGMENTS)
    f[_LINKS_AT] = [sum(counts[start:stop]) for start, stop in _LINK_FRAGMENT_SPANS.values()]

    schema: Counter[str] = Counter()
    ld_keys: Counter[str] = Counter()
    platform_text: list[str] = []
    jsonld = type_count = 0
    for el in found["script"]:
        kind = el.get("type")
        if kind and "ld+json" in kind:
            text = el.text
            if text:
                jsonld += 1
                for match in _LD_TYPE.findall(text):
                    for word in _WORD.findall(match):
                        type_count += 1
                        group = _SCHEMA_OF.get(word.lower())
                        if group:
                            schema[group] += 1
                ld_keys.update(_LD_KEY.findall(text))
        else:
            src = el.get("src")
            if src:
                platform_text.append(src)
    for el in found["meta"]:
        prop = el.get("property") or el.get("name")
        if prop:
            prop = prop.lower()
            if prop == "og:type":
                content = (el.get("content") or "").lower()
                if "article" in content or "blog" in content:
                    f[x["og_article"]] = 1
                elif "product" in content:
                    f[x["og_product"]] = 1
                elif content == "website":
                    f[x["og_website"]] = 1
                elif content:
                    f[x["og_other"]] = 1
            elif prop.startswith("article:"):
                f[x["meta_article"]] += 1
            elif prop.startswith(("product:", "og:price", "og:availability")):
                f[x["meta_product"]] += 1
            elif prop == "twitter:card":
                f[x["twitter_large_image"]] = "large" in (el.get("content") or "")
            elif prop.startswith(("twitter:label", "twitter:data")):
                f[x["twitter_labels"]] += 1
            elif prop == "generator":
                platform_text.append(el.get("content") or "")
            elif prop == "description":
                content = el.get("content") or ""
                f[x["meta_description_chars"]] = text_length(content)
                _add_words(tokens, content.lower(), "m_")
        else:
            itemprop = el.get("itemprop")
            if itemprop and "price" in itemprop.lower():
                f[x["meta_itemprop_price"]] += 1
    for el in found["link"]:
        href = el.get("href")
        if href and (el.get("rel") or "").lower() in ("stylesheet", "preload", "modulepreload"):
            platform_text.append(href)
    inputs = Counter((el.get("type") or "text").lower() for el in found["input"])
    f[x["el_time_datetime"]] = sum(1 for el in found["time"] if el.get("datetime"))

    microdata = 0
    for itemtype in itemtypes:
        for word in itemtype.split():
            microdata += 1
            group = _SCHEMA_OF.get(word.rstrip("/").rsplit("/", 1)[-1].lower())
            if group:
                schema[group] += 1
    f[_SCHEMA_AT] = [schema.get(group, 0) for group in SCHEMA_GROUPS]
    f[x["schema_types"]] = type_count + microdata
    f[x["microdata_types"]] = microdata
    f[x["jsonld_blocks"]] = jsonld
    f[_LD_AT] = [ld_keys.get(key, 0) for key in LD_KEYS]
    f[x["el_input_number"]] = inputs["number"]
    f[x["el_input_search"]] = inputs["search"]
    f[x["el_input_checkbox"]] = inputs["checkbox"]
    f[x["el_input_radio"]] = inputs["radio"]
    f[x["el_input_visible"]] = len(found["input"]) - inputs["hidden"]
    if platform_text:
        f[_PLATFORM_AT] = _platform_counts(" ".join(platform_text).lower())


def _python_platform_counts(text: str) -> list[int]:
    """Per :data:`PLATFORMS` family, how many of its words *text* contains:
    the words :data:`_PLATFORM_WORDS` does not rule out, searched for. The
    reference for the compiled scan (:data:`_PLATFORM_MATCHERS`)."""
    present = set(compress(_PLATFORM_WORDS.words, _PLATFORM_WORDS.candidates(text)))
    return [sum(1 for word in words if word in present and word in text) for words in PLATFORMS.values()]


#: The platform words, a bit each, in matchers of at most 63 words
#: (``LiteralMatcher.each_contained``: every word a text contains, in one
#: scan of its characters, where the trigram filter made a table of 16,384
#: flags and a few numpy passes a page); ``None`` without the extension.
_PLATFORM_MATCHERS: Any = None
#: Per family, the bits of its words in each matcher.
_PLATFORM_MASKS: list[tuple[int, ...]] = []


def _platform_counts(text: str) -> list[int]:
    """:func:`_python_platform_counts`, by the compiled matchers when they were built."""
    if _PLATFORM_MATCHERS is None:
        return _python_platform_counts(text)
    found = [matcher.each_contained([text])[0] for matcher in _PLATFORM_MATCHERS]
    return [sum((bits & mask).bit_count() for bits, mask in zip(found, masks)) for masks in _PLATFORM_MASKS]


def _platform_matchers(words: tuple[str, ...]) -> tuple[Any, list[tuple[int, ...]]]:
    """The compiled matchers of *words* (63 a matcher, a bit each) and, per
    :data:`PLATFORMS` family, the bits of its words in each."""
    groups = [words[at : at + 63] for at in range(0, len(words), 63)]
    matchers = tuple(_LiteralMatcher([(word, (), 1 << k, 0) for k, word in enumerate(group)]) for group in groups)
    masks = [
        tuple(sum(1 << k for k, word in enumerate(group) if word in family) for group in groups)
        for family in PLATFORMS.values()
    ]
    return matchers, masks


if _NAME_MATCHER is not None:  # the extension was built (see setup.py)
    _PLATFORM_MATCHERS, _PLATFORM_MASKS = _platform_matchers(_PLATFORM_WORDS.words)


_TITLE_DOCS = re.compile(r"\b(?:documentation|docs|api|reference|manual|guide|tutorial|handbook|sdk)\b", re.I)
_TITLE_FORUM = re.compile(r"\b(?:forums?|threads?|community|questions?|discussions?|board)\b|\?", re.I)
_TITLE_SHOP = re.compile(r"\b(?:buy|shop|store|price|sale|online shop|kaufen|acheter|comprar)\b", re.I)
_TITLE_NEWS = re.compile(r"\b(?:news|blog|magazine|daily|times|post|journal)\b", re.I)
#: Per container tag: 1 paragraph, 2 div, 3 h1-h3 (token headings), 4 any
#: other tag never counted as a repeated item (:data:`_REPEAT_SKIP`; 1 and 3
#: are not either).
_OWN_CODES: dict[str, int] = {
    "p": 1,
    "div": 2,
    **dict.fromkeys(_TOKEN_HEADINGS, 3),
    **{t: 4 for t in _REPEAT_SKIP if t not in ("p", "h1", "h2", "h3")},
}
#: Per tag, its :data:`_TAG_BITS`, its :data:`_OWN_CODES` above them and
#: above those, 1 + its index in :data:`_COUNTED_TAGS` (0: not counted).
_OWN_SHIFT = 24
_COUNTED_SHIFT = 32
_TAG_CODES: dict[str, int] = {
    tag: (
        _TAG_BITS.get(tag, 0)
        | _OWN_CODES.get(tag, 0) << _OWN_SHIFT
        | (_COUNTED_TAGS.index(tag) + 1 if tag in _COUNTED_TAGS else 0) << _COUNTED_SHIFT
    )
    for tag in {*_TAG_BITS, *_OWN_CODES, *_COUNTED_TAGS}
}


def _median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of whole numbers (below 2**53), from a
    partition: np.median's own checks cost more than the work on a page's
    few hundred blocks. The mean of two whole numbers is exact, the same
    float np.median gives."""
    size = len(values)
    middle = size // 2
    if size % 2:
        return float(np.partition(values, middle)[middle])
    low, high = np.partition(values, (middle - 1, middle))[middle - 1 : middle + 1].tolist()
    return (low + high) / 2


#: What :func:`_tag_codes` needs of the code layout: the shifts of the own
#: codes and of the counted tags' numbers, and how many tags are counted.
_TAG_LAYOUT = (_OWN_SHIFT, _COUNTED_SHIFT, len(_COUNTED_TAGS))


class _BlockStats(NamedTuple):
    """What :func:`page_signals` sums and counts over the blocks in one pass
    (:func:`.reference.block_stats`, compiled as ``_signals.block_stats``),
    by name: characters are the blocks' text lengths."""

    #: Blocks with 80% of their text in links.
    linked: int
    #: Characters of the blocks of 150 or more; of the blocks with a full stop.
    long_chars: int
    sentence_chars: int
    #: Characters of the largest block; of the holder whose blocks sum most.
    max_chars: int
    max_holder_chars: int
    #: Blocks of up to :data:`.reference.SHORT` characters.
    short: int
    #: Prose blocks (80+ characters, under 30% linked), and the largest
    #: prose summed per container above its holder.
    prose_blocks: int
    prose_mass: int
    #: Characters under each of the share bits (a list, the heading bit last).
    flag_chars: list[int]
    #: Characters in paragraphs; in divs (the holders' own tag codes).
    p_chars: int
    div_chars: int
    #: Heading blocks, and the linked ones.
    heading_blocks: int
    linked_headings: int
    #: Headline links (linked, 25+ linked characters) and their characters.
    headline_links: int
    headline_chars: int
    #: The short blocks' texts; the ``h1``-``h3`` blocks' texts.
    short_texts: list[str]
    heading_texts: list[str]
    #: The blocks of up to 60 characters (int64 indexes) and their texts.
    priced: np.ndarray
    priced_texts: list[str]
    #: Which blocks are headings (bool).
    heading_mask: np.ndarray


def page_signals(doc: Document, url: str | None = None) -> tuple[np.ndarray, frozenset[str]]:
    """The :data:`STRUCTURE_FEATURES` vector of a walked page (float64,
    finite) and its word tokens (``u_`` URL path, ``t_`` title, ``m_`` meta
    description, ``h_`` headings, ``s_`` short blocks, ``c_`` class/id
    names), which
    :class:`~.model.TokenModel` scores. Never modifies the tree."""
    f = np.zeros(len(STRUCTURE_FEATURES))
    tokens: set[str] = set()
    x = _INDEX
    url = url or doc.url or doc.canonical_url
    if url:
        _url_features(f, url, tokens)
    found = tagged_elements(doc)
    _element_features(f, attribute_survey(doc)[0], tokens, found, link_hrefs(doc))

    title = doc.title or ""
    _add_words(tokens, title.lower(), "t_")
    f[x["title_chars"]] = text_length(title)
    f[x["title_separators"]] = sum(title.count(s) for s in (" | ", " - ", " – ", " — ", " :: ", " » ", " · "))
    f[x["title_docs"]] = bool(_TITLE_DOCS.search(title))
    f[x["title_forum"]] = bool(_TITLE_FORUM.search(title))
    f[x["title_shop"]] = bool(_TITLE_SHOP.search(title))
    f[x["title_news"]] = bool(_TITLE_NEWS.search(title))

    cc = doc.container_columns
    bc = doc.block_columns
    tags = cc.tags
    n = len(tags)
    own, flags, counted = _tag_codes(tags, cc.parents, _TAG_CODES, _TAG_LAYOUT)
    tag_counts = dict(zip(_COUNTED_TAGS, counted))
    f[_TAG_AT] = counted
    f[x["h1_count"]] = tag_counts["h1"]
    headings = sum(tag_counts[h] for h in _HEADINGS)
    f[x["headings"]] = headings

    # Class / id keyword families (and tokens), role and itemprop.
    classes, roles, itemprops, heading_ids, name_counts = _attribute_names(tags, cc.attributes, _HEADING_TAGS)
    family_counts, words = _class_names(name_counts)
    tokens.update(words)
    f[_CLASS_AT] = family_counts
    f[_CLASS_RATE_AT] = [named / n for named in family_counts]
    f[x["role_main"]] = roles.count("main")
    f[x["role_navigation"]] = roles.count("navigation")
    f[x["heading_ids"]] = heading_ids
    f[x["itemprop_count"]] = len(itemprops)
    f[x["itemprop_price"]] = sum(("price" in p or "offer" in p) for p in itemprops)
    f[x["itemprop_author"]] = sum(("author" in p or "creator" in p) for p in itemprops)
    f[x["itemprop_text"]] = sum(p in ("text", "articlebody", "description", "reviewbody") for p in itemprops)

    total = float(cc.lengths[0]) if n else 0.0
    texts = bc.texts
    m = len(texts)
    f[x["containers"]] = n
    f[x["blocks"]] = m
    f[x["chars"]] = total
    f[x["el_img_per_kchar"]] = f[x["el_img"]] * 1000.0 / (total + 100.0)
    f[x["el_time_per_kchar"]] = f[x["el_time"]] * 1000.0 / (total + 100.0)
    f[x["slug_links_per_kchar"]] = f[x["slug_links"]] * 1000.0 / (total + 100.0)
    if m == 0 or total <= 0:
        return f, frozenset(tokens)
    ends = bc.count(FULL_STOPS)
    s = _BlockStats._make(
        _block_stats(bc.lengths, bc.anchor_lengths, bc.holders, ends, flags, own, cc.parents, _SHARE_BITS, texts)
    )
    f[x["link_density"]] = float(cc.anchor_lengths[0]) / total
    f[x["link_blocks"]] = float(s.linked) / m
    f[x["mean_block_chars"]] = total / m
    f[x["median_block_chars"]] = _median(bc.lengths)
    f[x["long_block_share"]] = float(s.long_chars) / total
    f[x["sentence_share"]] = float(s.sentence_chars) / total
    f[x["marks_per_kchar"]] = float(ends.sum()) * 1000.0 / total
    f[x["commas_per_kchar"]] = float(bc.count(COMMAS).sum()) * 1000.0 / total
    f[x["max_block_share"]] = float(s.max_chars) / total
    f[x["max_holder_share"]] = float(s.max_holder_chars) / total
    f[x["short_block_share"]] = float(s.short) / m
    # Prose: unlinked blocks of 80+ characters, summed per container above
    # their holder (an article body holds its paragraphs; teasers and
    # feature blurbs are spread over many containers).
    if s.prose_blocks:
        f[x["prose_chars"]] = float(s.prose_mass)
        f[x["prose_share"]] = float(s.prose_mass) / total
        f[x["prose_blocks"]] = s.prose_blocks

    # The text under each inherited tag flag (of the holder and its
    # ancestors, the root's own excepted) and under each own tag code.
    f[_SHARE_AT] = [under / total for under in s.flag_chars[: len(_FLAG_TAGS)]]
    f[x["share_heading"]] = s.flag_chars[-1] / total
    f[x["share_p"]] = float(s.p_chars) / total
    f[x["share_div"]] = float(s.div_chars) / total
    f[x["headings_per_kchar"]] = headings * 1000.0 / total
    if headings:
        f[x["heading_mean_chars"]] = s.flag_chars[-1] / headings
    f[x["linked_headings"]] = s.linked_headings
    f[x["linked_heading_share"]] = s.linked_headings / max(1, s.heading_blocks)
    f[x["headline_links"]] = s.headline_links
    f[x["headline_link_share"]] = float(s.headline_chars) / total
    f[x["headline_links_per_kchar"]] = f[x["headline_links"]] * 1000.0 / total

    # Short blocks: cues, numbers, dates, phones; heading and short-block tokens.
    short_texts = s.short_texts
    short_text = "\n".join(short_texts).lower()
    _add_words(tokens, short_text, "s_")
    heading_text = " ".join(s.heading_texts).lower()
    _add_words(tokens, heading_text, "h_")
    # Whole short blocks that are a phrase, counted (only those: a count of
    # every distinct block would hold a huge page's texts twice).
    blocks = _phrase_counts(short_text, _PHRASE_STRIP, _PHRASE_OF, _LONGEST_PHRASE)
    phrase_groups: Counter[str] = Counter()
    for phrase in blocks.keys() & _PHRASE_OF.keys():
        for group in _PHRASE_OF[phrase]:
            phrase_groups[group] += blocks[phrase]
    f[_PHRASE_AT] = [phrase_groups.get(group, 0) for group in _PHRASE_GROUP_NAMES]
    f[x["numeric_blocks"]] = _numeric_blocks(short_texts) / m
    f[x["years_in_text"]] = len(_YEAR_TEXT.findall(short_text))
    f[x["time_ago"]] = short_text.count(" ago")

    # Prices in blocks of at most 60 characters (labels, not prose): one
    # regex pass over their joined text, matches mapped back to blocks.
    price_mask = np.zeros(m, dtype=bool)
    prices = 0
    priced = s.priced
    if len(priced):
        joined = "\n".join(s.priced_texts)
        starts = _price_starts(joined)
        prices = len(starts)
        if starts:
            # Each match's line: the newlines between one match and the next
            # counted in turn (no array of the text's size).
            lines = []
            line = previous = 0
            for start in starts:
                line += joined.count("\n", previous, start)
                previous = start
                lines.append(line)
            price_mask[priced[lines]] = True
            f[x["price_distinct"]] = len({texts[i] for i in np.flatnonzero(price_mask).tolist()})
    f[x["prices"]] = prices
    f[x["prices_per_kchar"]] = prices * 1000.0 / total
    f[x["price_blocks"]] = int(np.count_nonzero(price_mask))

    _repetition_features(f, cc, classes, own, total, price_mask, s.heading_mask)
    return f, frozenset(tokens)


def _first_group(tied: list[int], parents: list[int], tags: list[str], classes: list[str]) -> int:
    """Of groups tied for the most text (each named by its first item), the
    one whose (parent, tag, class) appears first among all the containers,
    empty ones included: the group the first of them would be numbered by a
    grouping of every container. Ties are rare; the scan runs only then."""
    if len(tied) == 1:
        return tied[0]
    named = {(parents[g], tags[g], classes[g]): g for g in tied}
    return next(named[key] for key in zip(parents, tags, classes) if key in named)


def _repetition_features(
    f: np.ndarray,
    cc: Any,
    classes: list[str],
    own: np.ndarray,
    total: float,
    price_mask: np.ndarray,
    heading_blocks: np.ndarray,
) -> None:
    """Sibling containers sharing parent, tag and class (cards, posts,
    rows), in groups of three or more holding text (:func:`_repetition`)."""
    x = _INDEX
    tags = cc.tags
    found = _repetition(
        own,
        cc.lengths,
        cc.anchor_lengths,
        cc.parents,
        tags,
        classes,
        cc.first_blocks,
        cc.last_blocks,
        price_mask.view(np.uint8),
        heading_blocks.view(np.uint8),
        lambda tied: _first_group(tied, cc.parents.tolist(), tags, classes),
    )
    if found is None:
        return
    groups, groups5, max_size, top, top_size, top_chars, top_anchor, per_member = found
    f[x["rep_groups"]] = groups
    f[x["rep_groups5"]] = groups5
    f[x["rep_max_size"]] = max_size
    f[x["rep_top_share"]] = top_chars / total
    f[x["rep_top_size"]] = top_size
    f[x["rep_top_link_density"]] = top_anchor / top_chars if top_chars else 0.0
    f[x["rep_top_item_chars"]] = top_chars / max(1, top_size)
    f[x["rep_top_li"]] = tags[top] == "li"
    f[x["rep_top_article"]] = tags[top] == "article"
    if per_member is None:
        return
    price_items, heading_items, long_items, long_chars, linked_items, img_like_items = per_member
    f[x["rep_price_items"]] = price_items
    f[x["rep_heading_items"]] = heading_items
    f[x["rep_long_items"]] = long_items
    f[x["rep_long_share"]] = long_chars / total
    f[x["rep_linked_items"]] = linked_items
    f[x["rep_img_like_items"]] = img_like_items
