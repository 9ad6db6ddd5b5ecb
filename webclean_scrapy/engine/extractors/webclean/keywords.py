"""What a page's markup says about each container, packed in one int.

The ``webclean`` extractor's structural evidence: HTML5 sectioning tags,
ARIA roles, ``itemprop``, and class/id tokens such as ``nav``, ``comment``
or ``article-body``. Every container holding text gets one *code* (see
below), computed in one forward pass over the containers (parents come
first) from the class/id/role/itemprop the document walk copied, with the
class/id keyword scans memoised across pages: a crawl sees the same
class strings over and over.
"""

from __future__ import annotations

import re
from array import array
from itertools import repeat
from typing import Any, TypeVar

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.tags import HEADING_TAGS

# -- container flags ---------------------------------------------------------
# One bit per kind of evidence; a block inherits the OR of its ancestors' bits.

#: The class/id keyword groups: name -> regular expression (lower case).
KEYWORD_GROUPS: dict[str, str] = {
    # Hidden by a stylesheet rule the walk cannot see.
    # ("hidden-xs", "d-none d-md-block" are responsive: visible somewhere.)
    # Whole words only. Every alternative of every group starts with a
    # literal letter, the look-behind after it ("h(?<![a-z-]h)" is "an h
    # with no letter or hyphen before it"), so the regex engine skips to the
    # positions where some keyword may start (docs/BENCHMARKS.md).
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
#: All groups as one flat alternation, in group order (no named groups: they
#: slow the engine down); which group matched is read off the matched text.
_KEYWORD_RE = re.compile("|".join(KEYWORD_GROUPS.values()))
_GROUP_PATTERNS = {name: re.compile(pattern) for name, pattern in KEYWORD_GROUPS.items()}
#: Matched text -> its group. Each group matches its own finite set of
#: words, none shared (so the first group matching the text alone is the
#: one that matched it in context): a few hundred entries at most.
_MATCH_GROUPS: dict[str, str] = {}


def _group_of(text: str) -> str:
    group = _MATCH_GROUPS.get(text)
    if group is None:
        group = _MATCH_GROUPS[text] = next(name for name, pattern in _GROUP_PATTERNS.items() if pattern.fullmatch(text))
    return group


#: When one class/id matches several groups ("comment-content"), the first
#: of these names the container; the innermost named ancestor of a block is
#: a feature of its own, so "sidebar" inside a page whose ``<body>`` says
#: "single-post" still counts.
_PRIORITY: tuple[str, ...] = (
    "kw_hidden",
    "kw_comment",
    "kw_related",
    "kw_social",
    "kw_ad",
    "kw_nav",
    "kw_foot",
    "kw_side",
    "kw_meta",
    "kw_strong",
    "kw_content",
)
INNER_NAMES: tuple[str, ...] = tuple("inner_" + name[3:] for name in _PRIORITY)

#: Tags whose presence among a block's ancestors is evidence by itself.
_TAG_FLAGS: dict[str, str] = {
    "article": "in_article",
    "main": "in_main",
    "nav": "in_nav",
    "aside": "in_aside",
    "footer": "in_footer",
    "header": "in_header",
    "form": "in_form",
    "ul": "in_list",
    "ol": "in_list",
    "dl": "in_list",
    "menu": "in_nav",
    "table": "in_table",
    "blockquote": "in_quote",
    "figure": "in_figure",
    "pre": "in_quote",
}
_ROLE_FLAGS: dict[str, str] = {
    "navigation": "in_nav",
    "menu": "in_nav",
    "menubar": "in_nav",
    "banner": "in_header",
    "contentinfo": "in_footer",
    "complementary": "in_aside",
    "main": "in_main",
    "article": "in_article",
    "dialog": "kw_social",
    "search": "in_form",
}

FLAG_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*KEYWORD_GROUPS, *_TAG_FLAGS.values(), *_ROLE_FLAGS.values()]))
_BIT = {name: 1 << i for i, name in enumerate(FLAG_NAMES)}
_TAG_BITS = {tag: _BIT[flag] for tag, flag in _TAG_FLAGS.items()}
_ROLE_BITS = {role: _BIT[flag] for role, flag in _ROLE_FLAGS.items()}
_STRONG = _BIT["kw_strong"]
_HIDDEN_BIT = _BIT["kw_hidden"]
_COMMENT_BIT = _BIT["kw_comment"]


#: The tag that directly holds a block, in a few classes.
_KINDS: dict[str, str] = {
    "p": "k_p",
    "li": "k_li",
    "dd": "k_li",
    "dt": "k_li",
    "td": "k_td",
    "th": "k_td",
    "pre": "k_pre",
    "blockquote": "k_pre",
    "caption": "k_caption",
    "figcaption": "k_caption",
    "button": "k_form",
    "label": "k_form",
    "option": "k_form",
    "textarea": "k_form",
    "legend": "k_form",
    "div": "k_div",
    "section": "k_div",
    "article": "k_div",
    "main": "k_div",
    "body": "k_div",
    **dict.fromkeys(HEADING_TAGS, "k_heading"),
}
KIND_NAMES: tuple[str, ...] = tuple(dict.fromkeys(["k_other", *_KINDS.values()]))
#: Table cells (the ``k_td`` kind): their text may repeat on a page and still
#: be content -- a column of "Optional", "Yes" or "—" is the table's data,
#: where a short text repeated elsewhere is mostly a template's chrome.
TABLE_CELL_TAGS = frozenset(tag for tag, kind in _KINDS.items() if kind == "k_td")


def table_cells(doc: Document, among: np.ndarray | None = None) -> np.ndarray:
    """Per block of *doc*: whether the element directly holding it is a
    table cell (:data:`TABLE_CELL_TAGS`; the block feature ``k_td``).

    With *among* (a boolean per block) only those blocks are looked at, the
    others read ``False``: the selection asks only about the blocks whose
    text repeats, and a page of a million blocks then makes no Python
    object per block."""
    tags = doc.container_columns.tags
    holders = doc.block_columns.holders
    looked_at = np.arange(len(holders)) if among is None else np.flatnonzero(among)
    cells = np.zeros(len(holders), dtype=bool)
    cells[looked_at] = np.fromiter(
        (tags[holder] in TABLE_CELL_TAGS for holder in holders[looked_at].tolist()), dtype=bool, count=len(looked_at)
    )
    return cells


#: Readability's paragraph containers and tag priors.
_READABILITY_SCORED = frozenset({"p", "pre", "td", "div", "section", "article", "main", "blockquote", "dd"})
READABILITY_TAG_PRIOR = {
    "div": 5,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "th": -5,
    **dict.fromkeys(HEADING_TAGS, -5),
}

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
# -- container codes ---------------------------------------------------------
# Everything the model knows about a container's markup is packed in one int
# (ints are not tracked by the garbage collector, tuples are, and a crawl
# extracts millions of pages), so per-block views are one numpy gather:
#
#   bits 0-3   innermost keyword group + 1 (0: none)          inherited
#   bits 4-7   kind of the tag (index in KIND_NAMES)           own
#   bit  8     inside a reader-comment area                    inherited
#   bit  9     Readability scores the paragraphs it holds      own
#   bits 10-   evidence bits (FLAG_NAMES)                      inherited
INNER_MASK = 15
KIND_SHIFT = 4
COMMENT_AREA_BIT = 1 << 8
READABILITY_BIT = 1 << 9
_EVIDENCE_SHIFT = 10
_INHERITED = ~(15 << KIND_SHIFT | READABILITY_BIT)
HIDDEN_CODE = _HIDDEN_BIT << _EVIDENCE_SHIFT
_COMMENT_CODE = _COMMENT_BIT << _EVIDENCE_SHIFT
_STRONG_CODE = _STRONG << _EVIDENCE_SHIFT | (_STRONG_RANK + 1)
_ROLE_CODES = {role: bit << _EVIDENCE_SHIFT for role, bit in _ROLE_BITS.items()}
#: The own part of a container's code, by tag (absent: ``k_other``, nothing).
_TAG_CODES: dict[str, int] = {
    tag: (
        _TAG_BITS.get(tag, 0) << _EVIDENCE_SHIFT
        | (KIND_NAMES.index(_KINDS[tag]) if tag in _KINDS else 0) << KIND_SHIFT
        | (READABILITY_BIT if tag in _READABILITY_SCORED else 0)
    )
    for tag in {*_TAG_BITS, *_KINDS, *_READABILITY_SCORED}
}
_HEADING_KIND = KIND_NAMES.index("k_heading")
#: Form widgets (button, label, option, textarea, legend): their text labels
#: a control, it is never prose.
WIDGET_KIND = KIND_NAMES.index("k_form")
#: Indexed by the innermost-group nibble: is an all-links block under it chrome?
CHROME_NIBBLES = np.array([rank - 1 in _CHROME_RANKS for rank in range(16)])

#: class/id strings repeat within a page and across a site's pages: their
#: (evidence bits already in place in a code, innermost group, sign) is
#: memoised, bounded so a crawl cannot grow it.
_KEYWORD_CACHE: dict[str, tuple[int, int, int]] = {}
_KEYWORD_CACHE_SIZE = 50_000
#: Without the compiled scan, a string seen for the first time is read
#: token by token by the regular expression, and tokens ("container",
#: "row", "post-title") repeat across sites far more than whole strings do:
#: their (evidence bits, best group) is memoised as well. No keyword
#: pattern matches whitespace and the lookarounds treat a space as the
#: string's edge, so the tokens' matches are exactly the string's (which
#: the compiled scan, :data:`_KEYWORD_MATCHER`, reads whole, without this
#: memo). Values are packed in one int (``bits << 4 | rank + 1``); the
#: bound is twice the strings', so that a corpus run over thousands of
#: sites keeps its vocabulary (sizes: docs/BENCHMARKS.md).
_TOKEN_CACHE: dict[str, int] = {}
_TOKEN_CACHE_SIZE = 2 * _KEYWORD_CACHE_SIZE


def clear_keyword_memos() -> None:
    """Empty this module's class/id keyword memos: its part of
    :func:`webclean_scrapy.engine.extractors.webclean.clear_keyword_memos`, which
    empties every memo keyed by markup words (the state of a process that
    has not seen any page yet: ``benchmarks/speed.py --cold``)."""
    _KEYWORD_CACHE.clear()
    _TOKEN_CACHE.clear()
    _MATCH_GROUPS.clear()


_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


def remember(memo: dict[_Key, _Value], key: _Key, value: _Value, limit: int) -> _Value:
    """Store and return *value* under *key* in a memo of at most *limit*
    entries, emptied when full: a crawl over many sites meets new class/id
    tokens without end, and an unbounded memo would grow with them."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


def _token_keywords(token: str) -> int:
    """Evidence bits and best (lowest) group rank + 1 (0: none) of one
    lower-cased token, packed as ``bits << 4 | rank + 1``."""
    found = _TOKEN_CACHE.get(token)
    if found is None:
        found = remember(_TOKEN_CACHE, token, _python_token_keywords(token), _TOKEN_CACHE_SIZE)
    return found


def _python_token_keywords(token: str) -> int:
    """:func:`_token_keywords` by the regular expression: the reference of
    the compiled scan (:data:`_KEYWORD_MATCHER`)."""
    bits, own = 0, -1
    for text in _KEYWORD_RE.findall(token):
        group = _group_of(text)
        bits |= _BIT[group]
        rank = _PRIORITY_RANK[group]
        if own < 0 or rank < own:
            own = rank
    return bits << 4 | (own + 1)


def _keywords(words: str) -> tuple[int, int, int]:
    """What a class/id string says: its evidence bits (shifted into code
    position), the group that names it first (-1: none) and the sign of
    that group (+1 content, -1 boilerplate, 0 neither or none). The
    reference of the compiled reading (``_signals.string_keywords``), and
    the reading without a C compiler."""
    found = _KEYWORD_CACHE.get(words)
    if found is None:
        bits, own = 0, -1
        for token in words.lower().split():
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


def class_keywords(words: str) -> tuple[frozenset[str], str | None, int]:
    """What a class/id string says (``"comment-content main"``): the
    :data:`KEYWORD_GROUPS` it names, the one that names it first (the
    innermost group a block inherits, :data:`INNER_NAMES` order; ``None``:
    none) and its sign as Readability weighs class names (+1 content, -1
    boilerplate, 0 neither)."""
    evidence, own, sign = _keywords(words)
    bits = evidence >> _EVIDENCE_SHIFT
    groups = frozenset(name for name in KEYWORD_GROUPS if bits & _BIT[name])
    return groups, (_PRIORITY[own] if own >= 0 else None), sign


#: Containers read per slice by :func:`container_codes`.
_FLAGS_SLICE = 1 << 16


def container_codes(doc: Document, compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The code (see above) of every container holding text, and the sign
    (+1 content, -1 boilerplate, 0) of each container's own class/id, both
    indexed like :class:`~webclean_scrapy.engine.columns.ContainerColumns`.
    Parents come first, so one forward pass suffices; containers without
    text are skipped (no block needs them; their entries stay 0). The
    class/id/role/itemprop are the ones the walk copied
    (``ContainerColumns.attributes``), and the rest is kept to a few int
    operations per container. The same loop runs compiled when it was
    built (:func:`webclean_scrapy.engine._signals.container_flags`; this one is
    its reference, ``compiled=False``). Returned as arrays (int64 codes,
    int8 signs): held for the whole scoring, lists of Python ints would
    take 16 bytes a container and more (a code above 256 is an object of
    its own)."""
    columns = doc.container_columns
    if compiled and _compiled_flags is not None and _KEYWORD_MATCHER is not None:
        return _compiled_flags(
            columns.tags, columns.attributes, columns.parents, columns.lengths, _TAG_CODES, _KEYWORD_CACHE,
            _KEYWORD_MATCHER.fold, _ROLE_CODES, _FLAG_LAYOUT,
        )  # fmt: skip
    n = len(columns)
    # One more code than containers: the root's parent, -1, reads it, 0.
    # Lists are the fastest to read and write item by item; on a page of
    # more containers than a slice, arrays of the returned types (a list
    # holds a pointer and, for a code above 256, an object per container).
    small = n <= _FLAGS_SLICE
    codes: list[int] | array[int] = [0] * (n + 1) if small else array("q", bytes(8 * (n + 1)))
    signs: list[int] | array[int] = [0] * n if small else array("b", bytes(n))
    column_chars = columns.lengths
    half_page = int(column_chars[0]) / 2 if n else 0.0
    cached = _KEYWORD_CACHE.get
    inherited = _INHERITED
    tag_code = _TAG_CODES.get
    tags = columns.tags
    attributes_of = columns.attributes
    held = np.flatnonzero(column_chars)
    # The containers holding text, a slice at a time: lists of a million
    # indexes, parents and sizes would outweigh the arrays made here.
    for at in range(0, len(held), _FLAGS_SLICE):
        indexes = held[at : at + _FLAGS_SLICE]
        parents = columns.parents[indexes].tolist()
        sizes = column_chars[indexes].tolist()
        indexes_list = indexes.tolist()
        own_codes = map(tag_code, map(tags.__getitem__, indexes_list), repeat(0))
        for index, parent, chars, own_code in zip(indexes_list, parents, sizes, own_codes):
            code = own_code | codes[parent] & inherited
            attributes = attributes_of[index]
            if attributes:
                cls = attributes.get("class")
                ident = attributes.get("id")
                role = attributes.get("role")
                itemprop = attributes.get("itemprop")
                if cls or ident:
                    words = f"{cls} {ident}" if cls and ident else cls or ident
                    evidence, own, sign = cached(words) or _keywords(words)
                    if own == _HIDDEN_RANK and chars > half_page:
                        # Most of the page "hidden": a class a script removes on load.
                        evidence &= ~HIDDEN_CODE
                        own = -1
                    code |= evidence
                    if own >= 0:
                        if own == _COMMENT_RANK and chars <= half_page:
                            # Named first of all a comment thread, and not the whole
                            # page (a ``<body class="comments-open">``): a comment area.
                            code |= COMMENT_AREA_BIT
                        # A generic "content"/"text" token below a negative one (the
                        # "text-container" of a comment box) does not cancel it.
                        if own != _CONTENT_RANK or not 0 < code & INNER_MASK <= _META_RANK:
                            code = code & ~INNER_MASK | (own + 1)
                        signs[index] = sign
                if role:
                    code |= _ROLE_CODES.get(role.strip().lower(), 0)
                if itemprop and "articlebody" in itemprop.lower():
                    code = code & ~INNER_MASK | _STRONG_CODE
            codes[index] = code
    if isinstance(codes, array) and isinstance(signs, array):  # read as they are, no copy
        return np.frombuffer(codes, dtype=np.int64)[:n], np.frombuffer(signs, dtype=np.int8)
    return np.array(codes, dtype=np.int64)[:n], np.array(signs, dtype=np.int8)


def container_codes_and_keys(
    doc: Document, group_memo: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int] | None:
    """:func:`container_codes`, and the block features' structure keys from
    the same reading of each container's class and id (per container
    holding text: its group bits in *group_memo*, its (tag, class) key
    number, and the number of keys; see
    :func:`webclean_scrapy.engine._signals.container_flags_and_keys`): one
    pass over a page's attribute tables instead of two. ``None`` without
    the compiled loop (the two passes then run in Python)."""
    if _compiled_flags_and_keys is None or _KEYWORD_MATCHER is None:
        return None
    columns = doc.container_columns
    return _compiled_flags_and_keys(
        columns.tags, columns.attributes, columns.parents, columns.lengths, _TAG_CODES, _KEYWORD_CACHE,
        _KEYWORD_MATCHER.fold, _ROLE_CODES, _FLAG_LAYOUT, group_memo,
    )  # fmt: skip


#: What :func:`webclean_scrapy.engine._signals.container_flags` needs of the code
#: layout (and :func:`_keywords`' memo bound).
_FLAG_LAYOUT = (
    _INHERITED, _HIDDEN_RANK, HIDDEN_CODE, _COMMENT_RANK, COMMENT_AREA_BIT, _CONTENT_RANK, INNER_MASK, _META_RANK, _STRONG_CODE,
    _STRONG_RANK, _EVIDENCE_SHIFT, _KEYWORD_CACHE_SIZE,
)  # fmt: skip
try:  # the regular expression parser (Python 3.11 renamed it)
    import re._parser as _re_parser
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _re_parser
try:  # the compiled loop (an optional extension: see setup.py)
    from webclean_scrapy.engine._signals import container_flags as _compiled_flags
    from webclean_scrapy.engine._signals import container_flags_and_keys as _compiled_flags_and_keys
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_flags = _compiled_flags_and_keys = None


#: An alternative of a regular expression spelled out: its literal text,
#: its lookarounds as ``(offset, negate, charsets)`` (see
#: :class:`webclean_scrapy.engine._features.LiteralMatcher`) and the number of the
#: capturing group that closes last in it (``None``: none).
Alternative = tuple[str, tuple[tuple[int, bool, tuple[tuple[tuple[int, int], ...], ...]], ...], int | None]


def literal_alternatives(pattern: str) -> list[Alternative]:
    """Every string *pattern* can match, with its lookarounds, in the order
    in which ``re`` tries them at a position (the depth-first order of its
    backtracking: branches in order, an optional part with it first).
    Only what the keyword patterns use is read: literals, alternations,
    groups, ``?`` and fixed-width lookarounds of character classes;
    anything else raises ``ValueError``."""
    return [(text, tuple(assertions), group) for text, assertions, group in _expand(_re_parser.parse(pattern))]


def _expand(items: list) -> list[tuple[str, list, int | None]]:
    """The alternatives of a parsed sequence, in the order ``re`` tries them."""
    done: list[tuple[str, list, int | None]] = [("", [], None)]
    for op, value in items:
        options = _options(str(op), value)
        done = [
            (
                text + more,
                [*assertions, *((at + len(text), negate, sets) for at, negate, sets in extra)],
                inner or group,
            )
            for text, assertions, group in done
            for more, extra, inner in options
        ]
    return done


def _options(op: str, value: Any) -> list[tuple[str, list, int | None]]:
    """The alternatives of one parsed item (see :func:`_expand`)."""
    if op == "LITERAL":
        return [(chr(value), [], None)]
    if op == "IN" and all(str(kind) == "LITERAL" for kind, _ in value):
        return [(chr(code), [], None) for _, code in value]
    if op == "BRANCH":
        return [option for branch in value[1] for option in _expand(branch)]
    if op == "SUBPATTERN":
        number, _, _, inner = value
        return [(text, assertions, number or group) for text, assertions, group in _expand(inner)]
    if op in ("MAX_REPEAT", "MIN_REPEAT") and value[:2] == (0, 1):
        present = _expand(value[2])
        return [*present, ("", [], None)] if op == "MAX_REPEAT" else [("", [], None), *present]
    if op in ("ASSERT", "ASSERT_NOT"):
        direction, body = value
        sets = tuple(_charset(str(kind), item) for kind, item in body)
        return [("", [(-len(sets) if direction < 0 else 0, op == "ASSERT_NOT", sets)], None)]
    raise ValueError(f"not a literal alternation: {op}")


def _charset(kind: str, item: Any) -> tuple[tuple[int, int], ...]:
    """One character of a lookaround as code point ranges."""
    if kind == "LITERAL":
        return ((item, item),)
    if kind == "IN" and all(str(k) in ("LITERAL", "RANGE") for k, _ in item):
        return tuple((v, v) if str(k) == "LITERAL" else v for k, v in item)
    raise ValueError(f"not a character class: {kind}")


def _keyword_matcher() -> object:
    """The compiled scan of :data:`_KEYWORD_RE`, each alternative carrying
    its group's bit and rank (the group :func:`_group_of` names for its
    text, as the reference reads it)."""
    alternatives = []
    for text, assertions, _ in literal_alternatives(_KEYWORD_RE.pattern):
        group = _group_of(text)
        alternatives.append((text, assertions, _BIT[group], _PRIORITY_RANK[group]))
    return LiteralMatcher(alternatives)


#: :data:`_KEYWORD_RE`'s scan, compiled when it was built: its ``fold`` of
#: a lower-cased class/id string gives the evidence bits and best rank that
#: :func:`_token_keywords` gives token by token (the same values:
#: ``tests/test_engine_extractors_webclean_features.py``). ``None`` without a C compiler, or
#: if the patterns ever use more than :func:`literal_alternatives` reads:
#: :func:`container_codes` then runs its reference.
_KEYWORD_MATCHER: Any = None
try:  # the compiled scan (an optional extension: see setup.py)
    from webclean_scrapy.engine._features import LiteralMatcher

    _KEYWORD_MATCHER = _keyword_matcher()
except ImportError:  # pragma: no cover - a build without a C compiler
    LiteralMatcher = None
except ValueError:  # pragma: no cover - a pattern literal_alternatives does not read
    pass


#: The binary features of a code (kind, innermost group, evidence bits) as
#: ``code & mask == value`` tests, one column each: KIND_NAMES, INNER_NAMES,
#: then FLAG_NAMES.
BINARY_MASKS = np.array(
    [15 << KIND_SHIFT] * len(KIND_NAMES)
    + [INNER_MASK] * len(INNER_NAMES)
    + [1 << (_EVIDENCE_SHIFT + j) for j in range(len(FLAG_NAMES))],
    dtype=np.int64,
)
BINARY_VALUES = np.array(
    [k << KIND_SHIFT for k in range(len(KIND_NAMES))]
    + [r + 1 for r in range(len(INNER_NAMES))]
    + [1 << (_EVIDENCE_SHIFT + j) for j in range(len(FLAG_NAMES))],
    dtype=np.int64,
)
