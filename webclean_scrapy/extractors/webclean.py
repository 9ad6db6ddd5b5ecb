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

Cost is linear in blocks plus containers: four attribute reads per text-
holding *container* (class/id keyword scans memoised across pages), a few
``str.count`` calls and a handful of column-wise list passes per *block*;
no XPath, no regular expression per block, no tree mutation.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate
from importlib import resources
from typing import Any

from ..document import HEADING_TAGS, Block, Container, Document
from ..extraction import Extractor
from . import register

# -- container flags ---------------------------------------------------------
# One bit per kind of evidence; a block inherits the OR of its ancestors' bits.

_KEYWORD_GROUPS: dict[str, str] = {
    # Hidden by a stylesheet rule the walk cannot see.
    # ("hidden-xs", "d-none d-md-block" are responsive: visible somewhere.)
    "kw_hidden": r"(?<![a-z-])(?:hidden|hide|invisible|sr-only|visually-hidden|screen-reader-text)(?![a-z-])",
    # Navigation and page chrome.
    "kw_nav": r"nav|menu|breadcrumb|pagination|pager|paging|toolbar|skip|masthead|topbar|tabs",
    "kw_foot": r"foot|copyright|legal|disclaimer|bottom",
    "kw_side": r"sidebar|side-|aside|widget|rail|skyscraper|sidebox",
    "kw_ad": r"(?<![a-z])ads?(?![a-z])|advert|sponsor|promo|dfp|banner|outbrain|taboola|commercial",
    "kw_comment": r"comment|disqus|respond|repl(?:y|ies)|discuss",
    "kw_related": r"related|recommend|popular|trending|teaser|read-?next|suggest|more-|latest|also",
    "kw_social": r"share|sharing|social|facebook|twitter|follow|subscri|newsletter|sign-?up|login|cookie|consent|gdpr|modal|popup",
    "kw_meta": r"byline|author|date|time|meta|tags?(?![a-z])|categor|caption|credit",
    "kw_strong": r"article-?body|articlebody|post-?body|entry-?content|post-?content|story-?body|article-?content|article-?text|main-?content|body-?text|story-?content",
    "kw_content": r"article|content|entry|post|story|text|main|blog|prose|hentry",
}
_KEYWORD_RE = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _KEYWORD_GROUPS.items()))
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
_KIND_INDEX = {tag: _KIND_AT + KIND_NAMES.index(kind) for tag, kind in _KINDS.items()}
_OTHER_KIND = _KIND_AT
_INNER_AT = _KIND_AT + len(KIND_NAMES)
_FLAG_AT = _INNER_AT + len(INNER_NAMES)
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

#: class/id strings repeat within a page and across a site's pages: their
#: (bits, innermost group) is memoised, bounded so a crawl cannot grow it.
_KEYWORD_CACHE: dict[str, tuple[int, int]] = {}
_KEYWORD_CACHE_SIZE = 50_000


def _keywords(words: str) -> tuple[int, int]:
    found = _KEYWORD_CACHE.get(words)
    if found is None:
        bits, own = 0, -1
        for match in _KEYWORD_RE.finditer(words.lower()):
            group = match.lastgroup
            bits |= _BIT[group]  # type: ignore[index]
            rank = _PRIORITY_RANK[group]  # type: ignore[index]
            if own < 0 or rank < own:
                own = rank
        found = (bits, own)
        if len(_KEYWORD_CACHE) >= _KEYWORD_CACHE_SIZE:
            _KEYWORD_CACHE.clear()
        _KEYWORD_CACHE[words] = found
    return found


def _container_flags(doc: Document) -> tuple[dict[Container, int], dict[Container, int]]:
    """Inherited evidence bits and innermost keyword group (an index in
    :data:`INNER_NAMES`, -1 for none) of every container holding text,
    packed in one int (:func:`_unpack`: ints are not tracked by the garbage
    collector, tuples are, and a crawl extracts millions of pages), and the
    sign (+1 content, -1 boilerplate) of each container's own class/id.
    Parents come first in :attr:`Document.containers`, so one forward pass
    suffices; containers without text are skipped (no block needs them)."""
    flags: dict[Container, int] = {}
    signs: dict[Container, int] = {}
    half_page = doc.containers[0].chars / 2
    tag_bits = _TAG_BITS
    keywords = _keywords
    for container in doc.containers:
        if not container.chars:
            continue
        parent = container.parent
        if parent is not None:
            code = flags[parent]
            bits, inner = code >> 4, (code & 15) - 1
        else:
            bits, inner = 0, -1
        bits |= tag_bits.get(container.tag, 0)
        items = container.element.items()  # one call; most elements have no attributes
        if not items:
            flags[container] = bits << 4 | (inner + 1)
            continue
        cls = ident = role = itemprop = None
        for name, value in items:
            if name == "class":
                cls = value
            elif name == "id":
                ident = value
            elif name == "role":
                role = value
            elif name == "itemprop":
                itemprop = value
        if cls or ident:
            own_bits, own = keywords(f"{cls} {ident}" if cls and ident else cls or ident)
            if own_bits & _HIDDEN_BIT and container.chars > half_page:
                # Most of the page "hidden": a class a script removes on load.
                own_bits &= ~_HIDDEN_BIT
                own = -1 if own == _HIDDEN_RANK else own
            bits |= own_bits
            # A generic "content"/"text" token below a negative one (the
            # "text-container" of a comment box) does not cancel it.
            if own >= 0 and not (own == _CONTENT_RANK and 0 <= inner < _META_RANK):
                inner = own
            if own >= 0:
                signs[container] = 1 if own >= _STRONG_RANK else -1 if own < _META_RANK else 0
        if role:
            bits |= _ROLE_BITS.get(role.strip().lower(), 0)
        if itemprop and "articlebody" in itemprop.lower():
            bits |= _STRONG
            inner = _PRIORITY_RANK["kw_strong"]
        flags[container] = bits << 4 | (inner + 1)
    return flags, signs


def _unpack(code: int) -> tuple[int, int]:
    """(evidence bits, innermost group) from a :func:`_container_flags` value."""
    return code >> 4, (code & 15) - 1


def _readability_columns(doc: Document, signs: dict[Container, int]) -> list[list[float] | float]:
    """Readability's choice of article container, as block features.

    Arc90/Mozilla Readability scores each paragraph (1 + commas + one point
    per 100 characters, up to 3) into its parent, half into its grandparent
    and a third per level above, up to five levels; containers start from a
    tag prior and +-25 for their class/id, and end multiplied by
    ``1 - link density``. Blocks inside the best container, or inside a
    sibling scoring at least a fifth of it, get a flag.
    """
    blocks = doc.blocks
    n = len(blocks)
    score: dict[Container, float] = {}
    scored_tags = _RD_SCORED
    tag_prior = _RD_TAG_PRIOR
    for block in blocks:
        c = block.chars
        if c < 25 or block.container.tag not in scored_tags:
            continue
        text = block.text
        points = 1 + text.count(",") + text.count("，") + text.count("、") + min(c // 100, 3)
        node = block.container.parent
        level = 0
        while node is not None and level < 5:
            current = score.get(node)
            if current is None:
                current = tag_prior.get(node.tag, 0) + 25 * signs.get(node, 0)
            score[node] = current + (points if level == 0 else points / 2 if level == 1 else points / (3 * level))
            node = node.parent
            level += 1
    top = None
    best = 0.0
    final: dict[Container, float] = {}
    for node, value in score.items():
        value *= 1 - node.anchor_chars / node.chars if node.chars else 0.0
        final[node] = value
        if value > best:
            top, best = node, value
    in_top = [0.0] * n
    in_sibling = [0.0] * n
    if top is None:
        return [in_top, in_sibling, 0.0]
    in_top[top.first_block:top.last_block + 1] = [1.0] * (top.last_block + 1 - top.first_block)
    if top.parent is not None:
        threshold = max(10.0, best * 0.2)
        for sibling in top.parent.children:
            if sibling is top or sibling.first_block < 0:
                continue
            keep = final.get(sibling, 0.0) >= threshold
            if not keep and sibling.tag == "p":
                ld = sibling.anchor_chars / sibling.chars if sibling.chars else 1.0
                keep = (sibling.chars > 80 and ld < 0.25) or (
                    ld == 0 and blocks[sibling.last_block].text[-1] in _STOPS)
            if keep:
                in_sibling[sibling.first_block:sibling.last_block + 1] = (
                    [1.0] * (sibling.last_block + 1 - sibling.first_block))
    return [in_top, in_sibling, top.chars / (doc.containers[0].chars or 1)]


def _block_columns(doc: Document, signs: dict[Container, int]) -> list[list[float] | float]:
    """The per-block part of the stage-1 features (:data:`BLOCK_DENSE`), one
    list per feature: column-wise list comprehensions are several times
    cheaper in Python than a row object per block."""
    blocks = doc.blocks
    n = len(blocks)
    log = math.log1p
    chars = [b.chars for b in blocks]
    texts = [b.text for b in blocks]
    lds = [b.anchor_chars / c for b, c in zip(blocks, chars)]
    logs = [log(c) for c in chars]
    counts: dict[str, int] = {}
    for text in texts:
        counts[text] = counts.get(text, 0) + 1
    stops = [min((t.count(".") + t.count("。") + t.count("!") + t.count("?")) * 40.0 / c, 3.0)
             for t, c in zip(texts, chars)]
    commas = [min((t.count(",") + t.count("，") + t.count("、") + t.count(";")) * 40.0 / c, 3.0)
              for t, c in zip(texts, chars)]
    enders = _STOPS
    return [
        1.0, logs, lds, [0.0, *logs[:-1]], [*logs[1:], 0.0], [1.0, *lds[:-1]], [*lds[1:], 1.0],
        stops, commas, [1.0 if t[-1] in enders else 0.0 for t in texts],
        [ld if c < 40 else 0.0 for ld, c in zip(lds, chars)], [i / n for i in range(n)],
        [1.0 if counts[t] > 1 else 0.0 for t in texts],
        *_readability_columns(doc, signs),
    ]


def _dot_columns(columns: list[list[float] | float], weights: list[float], n: int) -> list[float]:
    """``sum_k weights[k] * columns[k][i]`` for every i, column by column; a
    column given as a single float is the same for every block."""
    constant = 0.0
    z = None
    for column, w in zip(columns, weights):
        if not w:
            continue
        if isinstance(column, float):
            constant += w * column
        elif z is None:
            z = [w * x for x in column]
        else:
            z = [a + w * x for a, x in zip(z, column)]
    if z is None:
        return [constant] * n
    return [a + constant for a in z] if constant else z


def as_rows(columns: list[list[float] | float], n: int) -> list[list[float]]:
    """Feature columns (constant ones as a float) as one row per block."""
    return [list(row) for row in zip(*(c if isinstance(c, list) else [c] * n for c in columns))]


def _container_dense(container: Container, doc_chars: int, doc_ld: float) -> list[float]:
    """The per-container numeric stage-1 features (:data:`CONTAINER_DENSE`)."""
    parent = container.parent or container
    grand = parent.parent or parent
    pc = parent.chars or 1
    gc = grand.chars or 1
    return [math.log1p(pc), parent.anchor_chars / pc, math.log1p(gc), grand.anchor_chars / gc,
            pc / doc_chars, doc_ld]


def _binary_indices(tag: str, bits: int, inner: int) -> list[int]:
    """Row indices of the binary stage-1 features a container sets."""
    ones = [_KIND_INDEX.get(tag, _OTHER_KIND)]
    if inner >= 0:
        ones.append(_INNER_AT + inner)
    j = _FLAG_AT
    while bits:
        if bits & 1:
            ones.append(j)
        bits >>= 1
        j += 1
    return ones


def _page_parts(doc: Document):
    top = doc.containers[0]
    doc_chars = top.chars or 1
    flags, signs = _container_flags(doc)
    return flags, signs, doc_chars, top.anchor_chars / doc_chars


def block_features(doc: Document) -> list[list[float]]:
    """Stage-1 feature rows, one per block (:data:`BLOCK_FEATURES`); the
    training script's view. :func:`_block_probabilities` computes the same
    scores without materialising the rows."""
    if not doc.blocks:
        return []
    flags, signs, doc_chars, doc_ld = _page_parts(doc)
    width = len(BLOCK_FEATURES)
    rows = []
    for block, dense in zip(doc.blocks, as_rows(_block_columns(doc, signs), len(doc.blocks))):
        row = dense + [0.0] * (width - len(dense))
        c, ld = block.chars, dense[2]
        for j, step in enumerate(_CHAR_STEPS):
            if c >= step:
                row[_CHARS_AT + j] = 1.0
        for j, step in enumerate(_LD_STEPS):
            if ld >= step:
                row[_LD_AT + j] = 1.0
        container = block.container
        row[_CONTAINER_AT:_KIND_AT] = _container_dense(container, doc_chars, doc_ld)
        for j in _binary_indices(container.tag, *_unpack(flags[container])):
            row[j] = 1.0
        rows.append(row)
    return rows


def _sigmoid(z: float) -> float:
    if z < -30.0:
        return 0.0
    if z > 30.0:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def _block_probabilities(doc: Document, weights: list[float],
                         flags: dict[Container, int] | None = None) -> list[float]:
    """Stage-1 probabilities, equal to scoring :func:`block_features` rows,
    but with the container part computed once per container and the
    thermometer codes read from cumulative weight tables. *flags*, when
    given, receives the containers' evidence bits."""
    page_flags, signs, doc_chars, doc_ld = _page_parts(doc)
    if flags is not None:
        flags.update(page_flags)
    flags = page_flags
    char_table = [0.0]
    for w in weights[_CHARS_AT:_LD_AT]:
        char_table.append(char_table[-1] + w)
    ld_table = [0.0]
    for w in weights[_LD_AT:_CONTAINER_AT]:
        ld_table.append(ld_table[-1] + w)
    w_container = weights[_CONTAINER_AT:_KIND_AT]
    container_score: dict[Container, float] = {}
    binary_score: dict[int, float] = {}
    w_log_parent, w_parent_ld, w_log_grand, w_grand_ld, w_share, w_doc_ld = w_container
    doc_term = w_doc_ld * doc_ld
    kind_index = _KIND_INDEX
    log1p = math.log1p
    blocks = doc.blocks
    columns = _block_columns(doc, signs)
    z = _dot_columns(columns, weights[:_CHARS_AT], len(blocks))
    lds = columns[2]
    for i, block in enumerate(blocks):
        container = block.container
        part = container_score.get(container)
        if part is None:
            # The binary part depends on (tag kind, flags) only, which repeat
            # across containers: score each combination once. (The same
            # features as :func:`_container_dense` and :func:`_binary_indices`,
            # inlined: no per-container list.)
            kind = kind_index.get(container.tag, _OTHER_KIND)
            key = flags[container] << 8 | kind
            binary = binary_score.get(key)
            if binary is None:
                binary = binary_score[key] = sum(
                    weights[j] for j in _binary_indices(container.tag, *_unpack(flags[container])))
            parent = container.parent or container
            grand = parent.parent or parent
            pc = parent.chars or 1
            gc = grand.chars or 1
            part = (binary + doc_term + w_log_parent * log1p(pc) + w_parent_ld * parent.anchor_chars / pc
                    + w_log_grand * log1p(gc) + w_grand_ld * grand.anchor_chars / gc + w_share * pc / doc_chars)
            container_score[container] = part
        z[i] += (part + char_table[bisect_right(_CHAR_STEPS, block.chars)]
                 + ld_table[bisect_right(_LD_STEPS, lds[i])])
    sigmoid = _sigmoid
    return [sigmoid(v) for v in z]


def _score(rows: list[list[float]], weights: list[float]) -> list[float]:
    """Reference scorer over materialised rows (the training script's view);
    the tests check :func:`_block_probabilities` against it."""
    sigmoid = _sigmoid
    mul = float.__mul__
    return [sigmoid(sum(map(mul, row, weights))) for row in rows]


def _window_means(weighted: list[float], prefix_w: list[float], prefix_c: list[float],
                  chars: list[int], radius: int) -> list[float]:
    """Character-weighted mean probability of the *radius* blocks either side
    (the block itself excluded), from prefix sums: O(n) for any radius, in
    list comprehensions over shifted prefix lists rather than indexing."""
    n = len(chars)
    pad = min(radius, n)
    # prefix[min(i + radius + 1, n)] and prefix[max(i - radius, 0)] for every i.
    w_hi = (prefix_w[radius + 1:] + [prefix_w[n]] * pad)[:n]
    c_hi = (prefix_c[radius + 1:] + [prefix_c[n]] * pad)[:n]
    w_lo = [0.0] * pad + prefix_w[:n - pad]
    c_lo = [0.0] * pad + prefix_c[:n - pad]
    return [(wh - wl - m) / (ch - cl - c) if ch - cl - c > 0 else 0.5
            for wh, wl, m, ch, cl, c in zip(w_hi, w_lo, weighted, c_hi, c_lo, chars)]


def context_features(doc: Document, probs: list[float]) -> list[list[float]]:
    """Stage-2 features (:data:`CONTEXT_FEATURES`), one list per feature
    (a float for the page-level ones; :func:`as_rows` makes rows of them)."""
    blocks = doc.blocks
    n = len(blocks)
    if not n:
        return []
    chars = [b.chars for b in blocks]
    weighted = [p * c for p, c in zip(probs, chars)]
    # Probability mass per container subtree, children before parents.
    mass: dict[Container, float] = {}
    for block, m in zip(blocks, weighted):
        container = block.container
        mass[container] = mass.get(container, 0.0) + m
    best = None
    best_net = 0.0
    for container in reversed(doc.containers):
        size = container.chars
        if not size:
            continue
        m = mass.get(container, 0.0)
        net = 2.0 * m - size
        if net > best_net:
            best, best_net = container, net
        parent = container.parent
        if parent is not None:
            mass[parent] = mass.get(parent, 0.0) + m
    total = sum(chars) or 1
    doc_mean = mass.get(doc.containers[0], 0.0) / total
    lo, hi = (best.first_block, best.last_block) if best is not None else (-1, -2)
    best_share = best.chars / total if best is not None else 0.0
    log_doc_chars = math.log1p(total)
    log_blocks = math.log1p(n)
    prefix_w = [0.0, *accumulate(weighted)]
    prefix_c = [0.0, *accumulate(chars)]
    w1 = _window_means(weighted, prefix_w, prefix_c, chars, 1)
    w3 = _window_means(weighted, prefix_w, prefix_c, chars, 3)
    w8 = _window_means(weighted, prefix_w, prefix_c, chars, 8)
    # Mean probability of the block's container and three ancestors (the
    # root repeats when the chain is shorter).
    mean: dict[Container, float] = {}
    up1, up2, up3, up4 = ups = ([], [], [], [])
    for block in blocks:
        node = block.container
        for column in ups:
            value = mean.get(node)
            if value is None:
                value = mean[node] = mass.get(node, 0.0) / node.chars
            column.append(value)
            node = node.parent or node
    log = math.log
    clipped = [1e-4 if p < 1e-4 else 0.9999 if p > 0.9999 else p for p in probs]
    in_best = [0.0] * n
    if best is not None:
        in_best[lo:hi + 1] = [1.0] * (hi + 1 - lo)
    log1p = math.log1p
    return [
        1.0, [log(p / (1 - p)) for p in clipped], w1, w3, w8, up1, up2, up3, up4,
        in_best, best_share, [log1p(c) for c in chars], [b.anchor_chars / b.chars for b in blocks],
        [1.0 if b.container.tag in HEADING_TAGS else 0.0 for b in blocks], doc_mean,
        log_doc_chars, log_blocks,
    ]


def _context_probabilities(doc: Document, probs: list[float], weights: list[float]) -> list[float]:
    sigmoid = _sigmoid
    return [sigmoid(v) for v in _dot_columns(context_features(doc, probs), weights, len(probs))]


#: Tags of form widgets: their text labels a control, it is never prose.
_WIDGET_TAGS = frozenset({"button", "label", "option", "textarea", "legend"})


def veto(doc: Document, probs: list[float], flags: dict[Container, int], comments: bool = False) -> None:
    """Zero the probability of blocks that markup alone rules out, whatever
    their neighbours say: form widgets' labels, subtrees a class names
    hidden (the stylesheet hides them; the walk only sees inline styles),
    all-links blocks inside markup that names itself chrome (a share
    bar, a tag list, "related" links), and readers' comment threads
    (:func:`comment_areas`) unless *comments* is true."""
    widget_tags = _WIDGET_TAGS
    chrome = _CHROME_RANKS
    in_comments = comment_areas(doc) if not comments else None
    for i, block in enumerate(doc.blocks):
        container = block.container
        code = flags[container]
        if (container.tag in widget_tags or code >> 4 & _HIDDEN_BIT
                or ((code & 15) - 1 in chrome and block.anchor_chars * 10 >= block.chars * 9)):
            probs[i] = 0.0
        elif in_comments is not None and code >> 4 & _COMMENT_BIT and in_comments(container):
            probs[i] = 0.0


def comment_areas(doc: Document):
    """A predicate: is a container inside a reader-comment area?

    A comment area is the nearest container whose own class/id names it
    first of all a comment thread (``comments``, ``commentlist``,
    ``disqus_thread``, ``respond``...) and that holds at most half of the
    page's text: a ``<body class="... comments-open">`` or an article
    wrapper so named is not one. Readers' comments are not the page's main
    text in today's article benchmarks, whatever the neighbouring blocks
    look like. Memoised per container: linear over the page.
    """
    half = doc.containers[0].chars / 2 if doc.containers else 0
    memo: dict[Container, bool] = {}

    def own_is_comment(node: Container) -> bool:
        if node.chars > half:
            return False
        get = node.element.get
        words = " ".join(filter(None, (get("class"), get("id"))))
        return bool(words) and _keywords(words)[1] == _COMMENT_RANK

    def in_comments(container: Container) -> bool:
        path = []
        node: Container | None = container
        result = False
        while node is not None:
            known = memo.get(node)
            if known is not None:
                result = known
                break
            path.append(node)
            if own_is_comment(node):
                result = True
                break
            node = node.parent
        for seen in path:
            memo[seen] = result
        return result

    return in_comments


@lru_cache(maxsize=1)
def load_model() -> dict[str, Any]:
    """The shipped weights, read once on first use."""
    text = resources.files("webclean_scrapy").joinpath("data/webclean_model.json").read_text("utf-8")
    model = json.loads(text)
    if model.get("block_features") != list(BLOCK_FEATURES) or model.get("context_features") != list(CONTEXT_FEATURES):
        raise RuntimeError("webclean_model.json does not match this extractor's features; re-run benchmarks/train_webclean.py")
    return model


#: Repeats shorter than this many characters are dropped (see ``deduplicate``).
DEDUPLICATE_BELOW = 100


def select_blocks(doc: Document, threshold: float | None = None,
                  deduplicate: int = DEDUPLICATE_BELOW, comments: bool = False) -> list[Block]:
    """The content blocks of *doc*, in document order.

    A block whose text was already kept is dropped when it is shorter than
    *deduplicate* characters (``0``: always dropped; ``-1``: never)."""
    blocks = doc.blocks
    if not blocks:
        return []
    model = load_model()
    flags: dict[Container, int] = {}
    final = _block_probabilities(doc, model["block_weights"], flags)
    for weights in model["context_weights"]:
        final = _context_probabilities(doc, final, weights)
    veto(doc, final, flags, comments)
    cut = model["threshold"] if threshold is None else threshold
    top = max(final)
    if threshold is None and 0.0 < top < cut and len(blocks) <= 3:
        # A bare text snippet or a one-line page: its text is the content.
        # (Larger pages where nothing looks like content are mostly hubs,
        # errors or consent walls, where an empty result is right.)
        cut = 1e-9
    seen: set[str] = set()
    kept = []
    for block, p in zip(blocks, final):
        if p >= cut:
            if deduplicate >= 0:
                if block.text in seen and (not deduplicate or block.chars < deduplicate):
                    continue
                seen.add(block.text)
            kept.append(block)
    return kept


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
        return doc.text_of(select_blocks(doc, o["threshold"], o["deduplicate"], bool(o["comments"])))
