"""``webclean``: the flagship (and ``"default"``) extractor.

Published single-signal methods (text density, text-to-tag ratio,
punctuation) each miss a different kind of boilerplate on modern pages.
This extractor combines their signals with the structural evidence a page
carries -- HTML5 sectioning tags, ARIA roles, ``itemprop``, class/id tokens
such as ``nav``, ``comment`` or ``article-body`` -- in small logistic models
over the blocks of the shared :class:`~webclean_scrapy.document.Document`:

1. **Block model** (Kohlschütter's shallow features): a block's length, link
   density and punctuation, its neighbours' lengths and link densities, the
   tag that holds it, the evidence inherited from its ancestors (and which
   kind of class/id its *innermost* named ancestor has), and whether it lies
   in the container Readability's paragraph scoring would pick.
2. **Context model(s)**: the previous probabilities averaged over the block's
   neighbours and over its enclosing containers, plus whether the block lies
   inside the *densest content subtree* (the container maximising the
   probability-weighted text mass: Arias' densest region seen through the
   DOM). A heading or a short line inside an article body is kept because
   its context is content; a paragraph in a comment thread is dropped
   because its context is not.
3. **Vetoes** that markup alone justifies (:func:`veto`), then the blocks
   above the threshold, in document order, short repeats dropped.

Every signal is language-independent (character counts, never word
counts, so CJK text weighs what it should; CJK punctuation counts as
punctuation) and nothing is keyed to a site. The weights are learnt by
``benchmarks/train_webclean.py`` (split by dataset) and shipped in
``webclean_scrapy/data/webclean_model.json``, read once on first use.

Cost is linear in blocks plus containers. Everything is read from the
tables the document walk filled (:class:`~webclean_scrapy.document.BlockColumns`,
:class:`~webclean_scrapy.document.ContainerColumns`: counts, punctuation,
holders, parents, block ranges, and the class/id/role/itemprop read once
per text-holding container, with class/id keyword scans memoised across
pages), then whole-column numpy operations (Readability's sums are one
``ufunc.at``): no per-block object, no Python loop doing per-block
arithmetic, no XPath, no regular expression per block, no tree mutation.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..document import HEADING_TAGS, Container, Document
from ..extraction import Extractor
from . import register

# -- container flags ---------------------------------------------------------
# One bit per kind of evidence; a block inherits the OR of its ancestors' bits.

_KEYWORD_GROUPS: dict[str, str] = {
    # Hidden by a stylesheet rule the walk cannot see.
    # ("hidden-xs", "d-none d-md-block" are responsive: visible somewhere.)
    # Whole words only. Every alternative of every group starts with a
    # literal letter, the look-behind after it ("h(?<![a-z-]h)" is "an h
    # with no letter or hyphen before it"): then the regex engine can skip
    # to the positions where some keyword may start, twice as fast.
    "kw_hidden": r"h(?<![a-z-]h)(?:idden|ide)(?![a-z-])|i(?<![a-z-]i)nvisible(?![a-z-])"
                 r"|s(?<![a-z-]s)(?:r-only|creen-reader-text)(?![a-z-])|v(?<![a-z-]v)isually-hidden(?![a-z-])",
    # Navigation and page chrome.
    "kw_nav": r"nav|menu|breadcrumb|pagination|pager|paging|toolbar|skip|masthead|topbar|tabs",
    "kw_foot": r"foot|copyright|legal|disclaimer|bottom",
    "kw_side": r"sidebar|side-|aside|widget|rail|skyscraper|sidebox",
    "kw_ad": r"a(?<![a-z]a)ds?(?![a-z])|advert|sponsor|promo|dfp|banner|outbrain|taboola|commercial",
    "kw_comment": r"comment|disqus|respond|repl(?:y|ies)|discuss",
    "kw_related": r"related|recommend|popular|trending|teaser|read-?next|suggest|more-|latest|also",
    "kw_social": r"share|sharing|social|facebook|twitter|follow|subscri|newsletter|sign-?up|login|cookie|consent|gdpr|modal|popup",
    "kw_meta": r"byline|author|date|time|meta|tags?(?![a-z])|categor|caption|credit",
    "kw_strong": r"article-?body|articlebody|post-?body|entry-?content|post-?content|story-?body|article-?content|article-?text|main-?content|body-?text|story-?content",
    "kw_content": r"article|content|entry|post|story|text|main|blog|prose|hentry",
}
#: All groups as one flat alternation, in group order: named groups would
#: cost the engine 2x; which group matched is read off the matched text.
_KEYWORD_RE = re.compile("|".join(_KEYWORD_GROUPS.values()))
_GROUP_PATTERNS = {name: re.compile(pattern) for name, pattern in _KEYWORD_GROUPS.items()}
#: Matched text -> its group. Each group matches its own finite set of
#: words, none shared (so the first group matching the text alone is the
#: one that matched it in context): a few hundred entries at most.
_MATCH_GROUPS: dict[str, str] = {}


def _group_of(text: str) -> str:
    group = _MATCH_GROUPS.get(text)
    if group is None:
        group = _MATCH_GROUPS[text] = next(
            name for name, pattern in _GROUP_PATTERNS.items() if pattern.fullmatch(text))
    return group
#: When one class/id matches several groups ("comment-content"), the first
#: of these names the container; the innermost named ancestor of a block is
#: a feature of its own, so "sidebar" inside a page whose ``<body>`` says
#: "single-post" still counts.
_PRIORITY: tuple[str, ...] = (
    "kw_hidden", "kw_comment", "kw_related", "kw_social", "kw_ad", "kw_nav", "kw_foot", "kw_side",
    "kw_meta", "kw_strong", "kw_content",
)
INNER_NAMES: tuple[str, ...] = tuple("inner_" + name[3:] for name in _PRIORITY)

#: Tags whose presence among a block's ancestors is evidence by itself.
_TAG_FLAGS: dict[str, str] = {
    "article": "in_article", "main": "in_main", "nav": "in_nav", "aside": "in_aside",
    "footer": "in_footer", "header": "in_header", "form": "in_form", "ul": "in_list",
    "ol": "in_list", "dl": "in_list", "menu": "in_nav", "table": "in_table",
    "blockquote": "in_quote", "figure": "in_figure", "pre": "in_quote",
}
_ROLE_FLAGS: dict[str, str] = {
    "navigation": "in_nav", "menu": "in_nav", "menubar": "in_nav", "banner": "in_header",
    "contentinfo": "in_footer", "complementary": "in_aside", "main": "in_main",
    "article": "in_article", "dialog": "kw_social", "search": "in_form",
}

FLAG_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*_KEYWORD_GROUPS, *_TAG_FLAGS.values(), *_ROLE_FLAGS.values()]))
_BIT = {name: 1 << i for i, name in enumerate(FLAG_NAMES)}
_TAG_BITS = {tag: _BIT[flag] for tag, flag in _TAG_FLAGS.items()}
_ROLE_BITS = {role: _BIT[flag] for role, flag in _ROLE_FLAGS.items()}
_STRONG = _BIT["kw_strong"]
_HIDDEN_BIT = _BIT["kw_hidden"]
_COMMENT_BIT = _BIT["kw_comment"]


#: The tag that directly holds a block, in a few classes.
_KINDS: dict[str, str] = {
    "p": "k_p", "li": "k_li", "dd": "k_li", "dt": "k_li", "td": "k_td", "th": "k_td",
    "pre": "k_pre", "blockquote": "k_pre", "caption": "k_caption", "figcaption": "k_caption",
    "button": "k_form", "label": "k_form", "option": "k_form", "textarea": "k_form", "legend": "k_form",
    "div": "k_div", "section": "k_div", "article": "k_div", "main": "k_div", "body": "k_div",
    **{h: "k_heading" for h in HEADING_TAGS},
}
KIND_NAMES: tuple[str, ...] = tuple(dict.fromkeys(["k_other", *_KINDS.values()]))

#: Thermometer codes of length and link density: a linear model over them
#: is a free step function, the non-linearity Kohlschütter's trees found.
_CHAR_STEPS = (8, 16, 32, 64, 128, 256, 512)
_LD_STEPS = (0.1, 0.33, 0.66, 0.9)

#: Readability's paragraph containers and tag priors.
_RD_SCORED = frozenset({"p", "pre", "td", "div", "section", "article", "main", "blockquote", "dd"})
_RD_TAG_PRIOR = {
    "div": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3, "dl": -3,
    "dd": -3, "dt": -3, "li": -3, "form": -3, "th": -5, **{h: -5 for h in HEADING_TAGS},
}

#: Stage-1 features computed per block (dense), then per container (the
#: same for every block a container directly holds, so computed once).
BLOCK_DENSE: tuple[str, ...] = (
    "bias", "log_chars", "link_density", "log_prev", "log_next", "prev_ld", "next_ld",
    "stops", "commas", "ends_stop", "linked_short", "position", "duplicate",
    "rd_top", "rd_sibling", "rd_share",
)
CONTAINER_DENSE: tuple[str, ...] = (
    "log_parent", "parent_ld", "log_grand", "grand_ld", "parent_share", "doc_ld",
)
#: Stage-1 (block) feature names, in row order.
BLOCK_FEATURES: tuple[str, ...] = (
    *BLOCK_DENSE,
    *(f"chars_ge_{c}" for c in _CHAR_STEPS), *(f"ld_ge_{x}" for x in _LD_STEPS),
    *CONTAINER_DENSE, *KIND_NAMES, *INNER_NAMES, *FLAG_NAMES,
)
#: Stage-2 (context) feature names, in row order.
CONTEXT_FEATURES: tuple[str, ...] = (
    "bias", "logit", "win1", "win3", "win8", "up1", "up2", "up3", "up4",
    "in_best", "best_share", "log_chars", "link_density", "is_heading", "doc_mean",
    "log_doc_chars", "log_blocks",
)

_CHARS_AT = len(BLOCK_DENSE)
_LD_AT = _CHARS_AT + len(_CHAR_STEPS)
_CONTAINER_AT = _LD_AT + len(_LD_STEPS)
_KIND_AT = _CONTAINER_AT + len(CONTAINER_DENSE)
_INNER_AT = _KIND_AT + len(KIND_NAMES)
_PRIORITY_RANK = {name: rank for rank, name in enumerate(_PRIORITY)}
_CONTENT_RANK = _PRIORITY_RANK["kw_content"]
_META_RANK = _PRIORITY_RANK["kw_meta"]
_STRONG_RANK = _PRIORITY_RANK["kw_strong"]
_HIDDEN_RANK = _PRIORITY_RANK["kw_hidden"]
_COMMENT_RANK = _PRIORITY_RANK["kw_comment"]
#: Innermost groups under which an all-links block is chrome (comments are
#: not: some gold standards keep them, commenters' names linked).
_CHROME_RANKS = frozenset(r for r in range(_META_RANK) if r != _PRIORITY_RANK["kw_comment"])
#: Sentence ends (a block ending in one reads as prose). The stop and comma
#: densities count ". 。 ! ?" and ", ， 、 ;" (CJK's own included).
_STOPS = ".!?。！？"

# -- container codes ---------------------------------------------------------
# Everything the model knows about a container's markup is packed in one int
# (ints are not tracked by the garbage collector, tuples are, and a crawl
# extracts millions of pages), so per-block views are one numpy gather:
#
#   bits 0-3   innermost keyword group + 1 (0: none)          inherited
#   bits 4-7   kind of the tag (index in KIND_NAMES)           own
#   bit  8     inside a reader-comment area (comment_areas)    inherited
#   bit  9     Readability scores the paragraphs it holds      own
#   bits 10-   evidence bits (FLAG_NAMES)                      inherited
_INNER_MASK = 15
_KIND_SHIFT = 4
_AREA = 1 << 8
_RD = 1 << 9
_EVIDENCE_SHIFT = 10
_INHERITED = ~(15 << _KIND_SHIFT | _RD)
_HIDDEN_CODE = _HIDDEN_BIT << _EVIDENCE_SHIFT
_COMMENT_CODE = _COMMENT_BIT << _EVIDENCE_SHIFT
_STRONG_CODE = _STRONG << _EVIDENCE_SHIFT | (_STRONG_RANK + 1)
_ROLE_CODES = {role: bit << _EVIDENCE_SHIFT for role, bit in _ROLE_BITS.items()}
#: The own part of a container's code, by tag (absent: ``k_other``, nothing).
_TAG_CODES: dict[str, int] = {
    tag: (_TAG_BITS.get(tag, 0) << _EVIDENCE_SHIFT
          | (KIND_NAMES.index(_KINDS[tag]) if tag in _KINDS else 0) << _KIND_SHIFT
          | (_RD if tag in _RD_SCORED else 0))
    for tag in {*_TAG_BITS, *_KINDS, *_RD_SCORED}
}
_HEADING_KIND = KIND_NAMES.index("k_heading")
#: Form widgets (button, label, option, textarea, legend): their text labels
#: a control, it is never prose.
_WIDGET_KIND = KIND_NAMES.index("k_form")
#: Indexed by the innermost-group nibble: is an all-links block under it chrome?
_CHROME_NIBBLES = np.array([rank - 1 in _CHROME_RANKS for rank in range(16)])

#: class/id strings repeat within a page and across a site's pages: their
#: (evidence bits already in place in a code, innermost group, sign) is
#: memoised, bounded so a crawl cannot grow it.
_KEYWORD_CACHE: dict[str, tuple[int, int, int]] = {}
_KEYWORD_CACHE_SIZE = 50_000
#: A string seen for the first time is read token by token, and tokens
#: ("container", "row", "post-title") repeat across sites far more than whole
#: strings do: their (evidence bits, best group) is memoised as well. No
#: keyword pattern matches whitespace and the lookarounds treat a space as
#: the string's edge, so the tokens' matches are exactly the string's.
#: Values are packed in one int (``bits << 4 | rank + 1``), and the bound is
#: twice the strings' (tokens are short: about 13 MB when full), so that a
#: corpus run over thousands of sites keeps its vocabulary: the 2,920 dev
#: pages hold about 70,000 distinct tokens.
_TOKEN_CACHE: dict[str, int] = {}
_TOKEN_CACHE_SIZE = 2 * _KEYWORD_CACHE_SIZE


def clear_keyword_memos() -> None:
    """Empty the class/id keyword memos: the state of a process that has
    not seen any page yet (``benchmarks/speed.py --cold`` times that)."""
    _KEYWORD_CACHE.clear()
    _TOKEN_CACHE.clear()


def _token_keywords(token: str) -> int:
    """Evidence bits and best (lowest) group rank + 1 (0: none) of one
    lower-cased token, packed as ``bits << 4 | rank + 1``."""
    found = _TOKEN_CACHE.get(token)
    if found is None:
        bits, own = 0, -1
        for text in _KEYWORD_RE.findall(token):
            group = _group_of(text)
            bits |= _BIT[group]
            rank = _PRIORITY_RANK[group]
            if own < 0 or rank < own:
                own = rank
        found = bits << 4 | (own + 1)
        if len(_TOKEN_CACHE) >= _TOKEN_CACHE_SIZE:
            _TOKEN_CACHE.clear()
        _TOKEN_CACHE[token] = found
    return found


def _keywords(words: str) -> tuple[int, int, int]:
    """What a class/id string says: its evidence bits (shifted into code
    position), the group that names it first (-1: none) and the sign of
    that group (+1 content, -1 boilerplate, 0 neither or none)."""
    found = _KEYWORD_CACHE.get(words)
    if found is None:
        bits, own = 0, -1
        tokens = _TOKEN_CACHE.get
        for token in words.lower().split():
            packed = tokens(token)
            if packed is None:
                packed = _token_keywords(token)
            bits |= packed >> 4
            rank = (packed & 15) - 1
            if rank >= 0 and (own < 0 or rank < own):
                own = rank
        sign = 0 if own < 0 else 1 if own >= _STRONG_RANK else -1 if own < _META_RANK else 0
        found = (bits << _EVIDENCE_SHIFT, own, sign)
        if len(_KEYWORD_CACHE) >= _KEYWORD_CACHE_SIZE:
            _KEYWORD_CACHE.clear()
        _KEYWORD_CACHE[words] = found
    return found


def _container_flags(doc: Document) -> tuple[list[int], list[int]]:
    """The code (see above) of every container holding text, and the sign
    (+1 content, -1 boilerplate, 0) of each container's own class/id, both
    indexed like :class:`~webclean_scrapy.document.ContainerColumns`.
    Parents come first, so one forward pass suffices; containers without
    text are skipped (no block needs them; their entries stay 0). The
    class/id/role/itemprop are the ones the walk copied
    (``ContainerColumns.attributes``), and the rest is kept to a few int
    operations per container."""
    columns = doc.container_columns
    n = len(columns)
    # One more entry than containers: the root's parent (-1) reads it, 0.
    codes = [0] * (n + 1)
    signs = [0] * n
    chars_of = columns.chars.tolist()
    half_page = chars_of[0] / 2
    cached = _KEYWORD_CACHE.get
    inherited = _INHERITED
    parents = columns.parents.tolist()
    attributes_of = columns.attributes
    own_codes = list(map(_TAG_CODES.get, columns.tags, repeat(0, n)))
    for index in np.flatnonzero(columns.chars).tolist():
        code = own_codes[index] | codes[parents[index]] & inherited
        attributes = attributes_of[index]
        if attributes:
            chars = chars_of[index]
            cls = attributes.get("class")
            ident = attributes.get("id")
            role = attributes.get("role")
            itemprop = attributes.get("itemprop")
            if cls or ident:
                words = f"{cls} {ident}" if cls and ident else cls or ident
                evidence, own, sign = cached(words) or _keywords(words)  # type: ignore[arg-type]
                if own == _HIDDEN_RANK and chars > half_page:
                    # Most of the page "hidden": a class a script removes on load.
                    evidence &= ~_HIDDEN_CODE
                    own = -1
                code |= evidence
                if own >= 0:
                    if own == _COMMENT_RANK and chars <= half_page:
                        # Named first of all a comment thread, and not the whole
                        # page (a ``<body class="comments-open">``): a comment area.
                        code |= _AREA
                    # A generic "content"/"text" token below a negative one (the
                    # "text-container" of a comment box) does not cancel it.
                    if own != _CONTENT_RANK or not 0 < code & _INNER_MASK <= _META_RANK:
                        code = code & ~_INNER_MASK | (own + 1)
                    signs[index] = sign
            if role:
                code |= _ROLE_CODES.get(role.strip().lower(), 0)
            if itemprop and "articlebody" in itemprop.lower():
                code = code & ~_INNER_MASK | _STRONG_CODE
        codes[index] = code
    codes.pop()
    return codes, signs


#: Counts below this have their ``math.log1p`` in a table (512 KiB).
_LOG_TABLE_SIZE = 1 << 16


@lru_cache(maxsize=1)
def _log1p_table() -> np.ndarray:
    """``math.log1p(i)`` for every ``i < _LOG_TABLE_SIZE``, built on first use (a few ms)."""
    return np.array(list(map(math.log1p, range(_LOG_TABLE_SIZE))))


def _log1p(counts: np.ndarray) -> np.ndarray:
    """``math.log1p`` of character counts, bit for bit, as a table lookup:
    numpy's own log1p differs in the last bit for about 1% of values, and
    the training script's features (:func:`block_features`) stay the ones
    the shipped model was fitted on."""
    table = _log1p_table()
    index = counts.astype(np.intp)
    logs = table.take(np.minimum(index, _LOG_TABLE_SIZE - 1))
    beyond = index >= _LOG_TABLE_SIZE
    if beyond.any():
        logs[beyond] = list(map(math.log1p, counts[beyond].tolist()))
    return logs


class _Page:
    """The per-block and per-container arrays the model stages read,
    gathered from a :class:`Document` once (one attribute read per object
    and field) so that every feature after is a whole-column numpy
    operation: at ~150 blocks a page, a numpy call costs what three Python
    list items do, so per-block Python loops would dominate."""

    __slots__ = (
        "doc", "n", "texts", "chars", "anchors", "lds", "logs", "holder", "signs", "block_codes",
        "prefix_chars", "parent", "lineage", "first", "last", "cchars", "canchors",
    )

    def __init__(self, doc: Document) -> None:
        blocks = doc.block_columns
        containers = doc.container_columns
        self.doc = doc
        self.n = len(blocks)
        self.texts = blocks.texts
        self.chars = blocks.chars.astype(float)
        self.anchors = blocks.anchor_chars.astype(float)
        self.lds = self.anchors / self.chars
        self.logs = _log1p(self.chars)
        #: Block -> index of the container directly holding it.
        self.holder = blocks.holders
        codes, self.signs = _container_flags(doc)
        #: Block -> its holder's code.
        self.block_codes = np.array(codes, dtype=np.int64)[self.holder]
        self.prefix_chars = np.zeros(self.n + 1)
        self.chars.cumsum(out=self.prefix_chars[1:])
        #: Container -> its parent's index (the root's own: 0).
        self.parent = parent = np.maximum(containers.parents, 0)
        #: Block -> its holder and the holder's three nearest ancestors (the
        #: root repeating), one column each.
        lineage = np.empty((self.n, 4), dtype=np.intp)
        lineage[:, 0] = node = self.holder
        for k in range(1, 4):
            lineage[:, k] = node = parent[node]
        self.lineage = lineage
        #: Block range of each container's subtree (both -1 without text).
        self.first = containers.first_blocks
        self.last = containers.last_blocks
        #: Each container's subtree characters, all and inside links.
        self.cchars = containers.chars.astype(float)
        self.canchors = containers.anchor_chars.astype(float)


# -- stage 1: blocks -----------------------------------------------------------

def _marks(page: _Page) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per block: the number of stops (". 。 ! ?"), of commas (", ， 、",
    what Readability counts) and of semicolons, and whether the text ends
    in a sentence end (:data:`_STOPS`). The walk counted every mark once
    (:attr:`~webclean_scrapy.document.BlockColumns.marks`)."""
    blocks = page.doc.block_columns
    ends = np.fromiter([text[-1] in _STOPS for text in page.texts], dtype=bool, count=page.n)
    return blocks.count(".。!?"), blocks.count(",，、"), blocks.count(";"), ends


def _duplicates(texts: list[str]) -> np.ndarray:
    """Which blocks' exact text occurs more than once on the page."""
    counts = Counter(texts)
    if len(counts) == len(texts):
        return np.zeros(len(texts), dtype=bool)
    return np.fromiter(map(counts.__getitem__, texts), dtype=np.intp, count=len(texts)) > 1


#: Readability's share of a paragraph's points for the container's parent
#: (level 0), grandparent, and so on: 1, 1/2, then 1/(3 * level).
_RD_DIVISORS = np.array([1.0, 2.0, 6.0, 9.0, 12.0])


def _readability(page: _Page, commas: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Readability's choice of article container, as block features.

    Arc90/Mozilla Readability scores each paragraph (1 + commas + one point
    per 100 characters, up to 3) into its parent, half into its grandparent
    and a third per level above, up to five levels; containers start from a
    tag prior and +-25 for their class/id, and end multiplied by
    ``1 - link density``. Blocks inside the best container, or inside a
    sibling scoring at least a fifth of it, get a flag.

    The shares are added one at a time in Readability's own order
    (paragraph by paragraph, nearest ancestor first): summed otherwise, a
    near-tie (4.0 against 3.9999999999999996) can flip.
    """
    n = page.n
    in_top = np.zeros(n)
    in_sibling = np.zeros(n)
    scored = np.flatnonzero((page.chars >= 25) & (page.block_codes & _RD != 0))
    if not scored.size:
        return in_top, in_sibling, 0.0
    points = 1.0 + commas[scored] + np.minimum(page.chars[scored] // 100, 3.0)
    # The five ancestors each paragraph scores into (-1 past the root) and
    # its share for each, in Readability's order: paragraph by paragraph,
    # nearest ancestor first.
    nc = len(page.parent)
    up = np.empty(nc + 1, dtype=np.intp)
    up[:nc] = page.parent
    up[0] = up[nc] = -1
    chain = np.empty((scored.size, len(_RD_DIVISORS)), dtype=np.intp)
    node = up[page.holder[scored]]
    for level in range(len(_RD_DIVISORS)):
        chain[:, level] = node
        node = up[node]
    shares = points[:, None] / _RD_DIVISORS
    reached = chain >= 0
    nodes = chain[reached]
    touched = np.zeros(nc, dtype=bool)
    touched[nodes] = True
    scored_nodes = np.flatnonzero(touched)
    tags = page.doc.container_columns.tags
    tag_prior = _RD_TAG_PRIOR
    signs = page.signs
    final = np.zeros(nc)
    final[scored_nodes] = [tag_prior.get(tags[i], 0) + 25 * signs[i] for i in scored_nodes.tolist()]
    # ufunc.at adds one share at a time, in order: Readability's own sums.
    np.add.at(final, nodes, shares[reached])
    final[scored_nodes] *= 1 - page.canchors[scored_nodes] / page.cchars[scored_nodes]
    best = float(final.max())
    if best <= 0.0:
        return in_top, in_sibling, 0.0
    # A tie goes to the container scored first, as in Readability's walk.
    top = min(np.flatnonzero(final == best).tolist(), key=lambda i: int((nodes == i).argmax()))
    first, last = page.first.tolist(), page.last.tolist()
    in_top[first[top]:last[top] + 1] = 1.0
    parents = page.doc.container_columns.parents
    if parents[top] >= 0:
        threshold = max(10.0, best * 0.2)
        texts = page.texts
        chars, anchors = page.cchars, page.canchors
        for sibling in np.flatnonzero(parents == parents[top]).tolist():
            if sibling == top or first[sibling] < 0:
                continue
            keep = final[sibling] >= threshold
            if not keep and tags[sibling] == "p":
                ld = anchors[sibling] / chars[sibling] if chars[sibling] else 1.0
                keep = (chars[sibling] > 80 and ld < 0.25) or (ld == 0 and texts[last[sibling]][-1] in _STOPS)
            if keep:
                in_sibling[first[sibling]:last[sibling] + 1] = 1.0
    return in_top, in_sibling, page.cchars[top] / (page.cchars[0] or 1)


_CHAR_STEP_ARRAY = np.array(_CHAR_STEPS, dtype=float)
_LD_STEP_ARRAY = np.array(_LD_STEPS)
#: The binary stage-1 features (kind, innermost group, evidence bits) as
#: ``code & mask == value`` tests, one column each.
_BINARY_MASKS = np.array(
    [15 << _KIND_SHIFT] * len(KIND_NAMES) + [_INNER_MASK] * len(INNER_NAMES)
    + [1 << (_EVIDENCE_SHIFT + j) for j in range(len(FLAG_NAMES))], dtype=np.int64)
_BINARY_VALUES = np.array(
    [k << _KIND_SHIFT for k in range(len(KIND_NAMES))] + [r + 1 for r in range(len(INNER_NAMES))]
    + [1 << (_EVIDENCE_SHIFT + j) for j in range(len(FLAG_NAMES))], dtype=np.int64)


_BLOCK_AT = {name: j for j, name in enumerate(BLOCK_FEATURES)}


def _block_matrix(page: _Page) -> np.ndarray:
    """Stage-1 feature rows (:data:`BLOCK_FEATURES`), one per block."""
    n = page.n
    at = _BLOCK_AT
    chars, logs, lds = page.chars, page.logs, page.lds
    stops, commas, semicolons, ends_stop = _marks(page)
    matrix = np.zeros((n, len(BLOCK_FEATURES)), order="F")  # written column by column
    # Per block; the neighbours past either end count as empty and all links.
    matrix[:, at["bias"]] = 1.0
    matrix[:, at["log_chars"]] = logs
    matrix[:, at["link_density"]] = lds
    matrix[1:, at["log_prev"]] = logs[:-1]
    matrix[:-1, at["log_next"]] = logs[1:]
    matrix[1:, at["prev_ld"]] = lds[:-1]
    matrix[0, at["prev_ld"]] = 1.0
    matrix[:-1, at["next_ld"]] = lds[1:]
    matrix[-1, at["next_ld"]] = 1.0
    matrix[:, at["stops"]] = np.minimum(stops * 40.0 / chars, 3.0)
    matrix[:, at["commas"]] = np.minimum((commas + semicolons) * 40.0 / chars, 3.0)
    matrix[:, at["ends_stop"]] = ends_stop
    matrix[:, at["linked_short"]] = np.where(chars < 40, lds, 0.0)
    matrix[:, at["position"]] = np.arange(n) / n
    matrix[:, at["duplicate"]] = _duplicates(page.texts)
    matrix[:, at["rd_top"]], matrix[:, at["rd_sibling"]], matrix[:, at["rd_share"]] = _readability(page, commas)
    matrix[:, _CHARS_AT:_LD_AT] = chars[:, None] >= _CHAR_STEP_ARRAY
    matrix[:, _LD_AT:_CONTAINER_AT] = lds[:, None] >= _LD_STEP_ARRAY
    # Per holding container (:data:`CONTAINER_DENSE`): its parent's and
    # grandparent's (themselves at the root) size, at least 1, and links.
    doc_chars = page.cchars[0] or 1
    elders = page.lineage[:, 1:3]
    size = np.maximum(page.cchars[elders], 1.0)
    matrix[:, [at["log_parent"], at["log_grand"]]] = _log1p(size)
    matrix[:, [at["parent_ld"], at["grand_ld"]]] = page.canchors[elders] / size
    matrix[:, at["parent_share"]] = size[:, 0] / doc_chars
    matrix[:, at["doc_ld"]] = page.canchors[0] / doc_chars
    # The holder's kind, innermost named group and evidence bits.
    matrix[:, _KIND_AT:] = page.block_codes[:, None] & _BINARY_MASKS == _BINARY_VALUES
    return matrix


def block_features(doc: Document) -> list[list[float]]:
    """Stage-1 feature rows, one per block (:data:`BLOCK_FEATURES`); the
    training script's view of what :func:`_block_probabilities` scores."""
    if not len(doc.block_columns):
        return []
    return _block_matrix(_Page(doc)).tolist()


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, exactly 0 below -30 and 1 above 30."""
    p = 1.0 / (1.0 + np.exp(-np.maximum(z, -31.0)))
    p[z < -30.0] = 0.0
    p[z > 30.0] = 1.0
    return p


def _block_probabilities(doc: Document | _Page, weights: list[float] | np.ndarray) -> np.ndarray:
    """Stage-1 probabilities: the :func:`block_features` rows scored."""
    page = doc if isinstance(doc, _Page) else _Page(doc)
    return _sigmoid(_block_matrix(page) @ np.asarray(weights, dtype=float))


def _score(rows: list[list[float]], weights: list[float]) -> list[float]:
    """Probabilities of materialised rows (the training script's view)."""
    matrix = np.array(rows, dtype=float).reshape(len(rows), len(weights))
    return _sigmoid(matrix @ np.asarray(weights, dtype=float)).tolist()


# -- stage 2: context ----------------------------------------------------------

def _window_means(weighted: ArrayLike, prefix_w: ArrayLike, prefix_c: ArrayLike, chars: ArrayLike,
                  radius: ArrayLike) -> np.ndarray:
    """Character-weighted mean probability of the *radius* blocks either side
    (the block itself excluded; 0.5 when they hold no text), from prefix
    sums: O(n) for any radius. *radius* may be an array of radii: one
    column each, computed together."""
    n = len(chars)
    radius = np.asarray(radius)
    shape = (n, *([1] * radius.ndim))
    at = np.arange(n).reshape(shape)
    hi = np.minimum(at + (radius + 1), n)
    lo = np.maximum(at - radius, 0)
    prefix_w = np.asarray(prefix_w, dtype=float)
    prefix_c = np.asarray(prefix_c, dtype=float)
    mass = prefix_c[hi] - prefix_c[lo] - np.asarray(chars, dtype=float).reshape(shape)
    total = prefix_w[hi] - prefix_w[lo] - np.asarray(weighted, dtype=float).reshape(shape)
    some = mass > 0
    return np.where(some, total / np.where(some, mass, 1.0), 0.5)


_WINDOW_RADII = np.array([1, 3, 8])
#: Stage-2 features that are the same for every block of a page.
_PAGE_CONTEXT = frozenset({"bias", "best_share", "doc_mean", "log_doc_chars", "log_blocks"})
_CONTEXT_AT = {name: j for j, name in enumerate(CONTEXT_FEATURES)}


def _context_matrix(page: _Page, probs: np.ndarray) -> np.ndarray:
    """Stage-2 feature rows (:data:`CONTEXT_FEATURES`), one per block."""
    n = page.n
    at = _CONTEXT_AT
    matrix = np.empty((n, len(CONTEXT_FEATURES)), order="F")  # column writes
    chars = page.chars
    weighted = probs * chars
    prefix_w = np.zeros(n + 1)
    weighted.cumsum(out=prefix_w[1:])
    prefix_c = page.prefix_chars
    # Probability mass of every container's subtree: its blocks are a range.
    size = page.cchars
    has_text = size > 0
    mass = np.where(has_text, prefix_w[page.last + 1] - prefix_w[page.first], 0.0)
    # The densest subtree: the container maximising 2 * mass - size (ties
    # to the later one, the innermost of a chain holding the same blocks).
    net = np.where(has_text, 2.0 * mass - size, 0.0)
    last = len(net) - 1 - int(net[::-1].argmax())
    best = last if net[last] > 0.0 else -1
    total = float(prefix_c[-1]) or 1.0
    clipped = np.minimum(np.maximum(probs, 1e-4), 0.9999)
    matrix[:, at["bias"]] = 1.0
    matrix[:, at["logit"]] = np.log(clipped / (1 - clipped))
    matrix[:, at["win1"]:at["win8"] + 1] = _window_means(weighted, prefix_w, prefix_c, chars, _WINDOW_RADII)
    # Mean probability of the block's container and three ancestors (the
    # root repeats when the chain is shorter).
    matrix[:, at["up1"]:at["up4"] + 1] = (mass / np.where(has_text, size, 1.0))[page.lineage]
    matrix[:, at["in_best"]] = 0.0
    if best >= 0:
        matrix[page.first[best]:page.last[best] + 1, at["in_best"]] = 1.0
    matrix[:, at["best_share"]] = size[best] / total if best >= 0 else 0.0
    matrix[:, at["log_chars"]] = page.logs
    matrix[:, at["link_density"]] = page.lds
    matrix[:, at["is_heading"]] = page.block_codes >> _KIND_SHIFT & 15 == _HEADING_KIND
    matrix[:, at["doc_mean"]] = float(prefix_w[-1]) / total
    matrix[:, at["log_doc_chars"]] = math.log1p(total)
    matrix[:, at["log_blocks"]] = math.log1p(n)
    return matrix


def context_features(doc: Document, probs: list[float]) -> list[list[float] | float]:
    """Stage-2 features (:data:`CONTEXT_FEATURES`), one list per feature
    (a float for the page-level ones; :func:`as_rows` makes rows of them)."""
    if not len(doc.block_columns):
        return []
    matrix = _context_matrix(_Page(doc), np.asarray(probs, dtype=float))
    return [float(matrix[0, j]) if name in _PAGE_CONTEXT else matrix[:, j].tolist()
            for j, name in enumerate(CONTEXT_FEATURES)]


def as_rows(columns: list[list[float] | float], n: int) -> list[list[float]]:
    """Feature columns (constant ones as a float) as one row per block."""
    return [list(row) for row in zip(*(c if isinstance(c, list) else [c] * n for c in columns))]


# -- vetoes --------------------------------------------------------------------

def _vetoed(codes: np.ndarray, chars: np.ndarray, anchors: np.ndarray, comments: bool) -> np.ndarray:
    """Which blocks :func:`veto` zeroes, from their holders' codes."""
    killed = ((codes >> _KIND_SHIFT & 15 == _WIDGET_KIND) | (codes & _HIDDEN_CODE != 0)
              | (_CHROME_NIBBLES[codes & _INNER_MASK] & (anchors * 10 >= chars * 9)))
    if not comments:
        killed |= (codes & _COMMENT_CODE != 0) & (codes & _AREA != 0)
    return killed


def veto(doc: Document, probs: list[float], flags: list[int], comments: bool = False) -> None:
    """Zero the probability of blocks that markup alone rules out, whatever
    their neighbours say: form widgets' labels, subtrees a class names
    hidden (the stylesheet hides them; the walk only sees inline styles),
    all-links blocks inside markup that names itself chrome (a share
    bar, a tag list, "related" links), and readers' comment threads
    (:func:`comment_areas`) unless *comments* is true. *flags* are
    :func:`_container_flags`' codes."""
    blocks = doc.block_columns
    codes = np.array(flags, dtype=np.int64)[blocks.holders]
    for i in np.flatnonzero(_vetoed(codes, blocks.chars, blocks.anchor_chars, comments)).tolist():
        probs[i] = 0.0


def comment_areas(doc: Document) -> Callable[[Container], bool]:
    """A predicate: is a container (one holding text) inside a reader-comment area?

    A comment area is the nearest container whose own class/id names it
    first of all a comment thread (``comments``, ``commentlist``,
    ``disqus_thread``, ``respond``...) and that holds at most half of the
    page's text: a ``<body class="... comments-open">`` or an article
    wrapper so named is not one. Readers' comments are not the page's main
    text in today's article benchmarks, whatever the neighbouring blocks
    look like. Computed with the other container codes, in one pass.
    """
    codes = _container_flags(doc)[0]
    return lambda container: bool(codes[container.index] & _AREA)


@lru_cache(maxsize=1)
def load_model() -> dict[str, Any]:
    """The shipped weights, read once on first use."""
    text = resources.files("webclean_scrapy").joinpath("data/webclean_model.json").read_text("utf-8")
    model = json.loads(text)
    if model.get("block_features") != list(BLOCK_FEATURES) or model.get("context_features") != list(CONTEXT_FEATURES):
        raise RuntimeError("webclean_model.json does not match this extractor's features; re-run benchmarks/train_webclean.py")
    return model


@lru_cache(maxsize=1)
def _model_arrays() -> tuple[np.ndarray, tuple[np.ndarray, ...], float]:
    """The shipped weights as numpy vectors (block, each context stage) and the threshold."""
    model = load_model()
    return (np.array(model["block_weights"], dtype=float),
            tuple(np.array(w, dtype=float) for w in model["context_weights"]), model["threshold"])


#: Repeats shorter than this many characters are dropped (see ``deduplicate``).
DEDUPLICATE_BELOW = 100


def content_indexes(doc: Document, threshold: float | None = None,
                    deduplicate: int = DEDUPLICATE_BELOW, comments: bool = False) -> list[int]:
    """The indexes of the content blocks of *doc*, in document order.

    A block whose text was already kept is dropped when it is shorter than
    *deduplicate* characters (``0``: always dropped; ``-1``: never)."""
    n = len(doc.block_columns)
    if not n:
        return []
    block_weights, context_weights, model_cut = _model_arrays()
    page = _Page(doc)
    final = _block_probabilities(page, block_weights)
    for weights in context_weights:
        final = _sigmoid(_context_matrix(page, final) @ weights)
    final[_vetoed(page.block_codes, page.chars, page.anchors, comments)] = 0.0
    cut = model_cut if threshold is None else threshold
    top = float(final.max())
    if threshold is None and 0.0 < top < cut and n <= 3:
        # A bare text snippet or a one-line page: its text is the content.
        # (Larger pages where nothing looks like content are mostly hubs,
        # errors or consent walls, where an empty result is right.)
        cut = 1e-9
    kept = np.flatnonzero(final >= cut).tolist()
    if deduplicate < 0:
        return kept
    texts = page.texts
    chars = doc.block_columns.chars
    seen: set[str] = set()
    unique = []
    for i in kept:
        text = texts[i]
        if text in seen and (not deduplicate or chars[i] < deduplicate):
            continue
        seen.add(text)
        unique.append(i)
    return unique


@register
class WebcleanExtractor(Extractor):
    """Block classifier over structural, link, length and punctuation
    evidence, refined by context; see the module docstring."""

    name = "webclean"
    #: ``threshold``: minimum content probability of a kept block (``None``:
    #: the tuned value shipped with the model). Lower keeps more text.
    #: ``deduplicate``: drop a block whose exact text was already kept when
    #: it is shorter than this many characters -- a caption shown twice, a
    #: repeated "Share" bar, a mobile copy of a menu. Longer paragraphs that
    #: a page really repeats stay, as every gold standard keeps them (the
    #: Mozilla reader-view set loses 0.03 shingle F1 otherwise). ``0``
    #: drops every repeat, ``-1`` none.
    #: ``comments``: keep readers' comment threads (dropped by default, as
    #: in today's article benchmarks; some corpora, such as Dragnet's gold
    #: standard, count them as content).
    defaults = {"threshold": None, "deduplicate": DEDUPLICATE_BELOW, "comments": False}

    def extract_text(self, doc: Document) -> str:
        o = self.options
        return doc.block_columns.text(content_indexes(doc, o["threshold"], o["deduplicate"], bool(o["comments"])))
