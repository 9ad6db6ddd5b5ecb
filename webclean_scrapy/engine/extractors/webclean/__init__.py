"""``webclean``: the flagship (and ``"default"``) extractor.

Published single-signal methods (text density, text-to-tag ratio,
punctuation) each miss a different kind of boilerplate, and today's page
types (forums, product pages, listings, documentation, service pages) are
made of repeated units that a single densest region misses. This extractor
scores every block of the shared :class:`~webclean_scrapy.engine.document.Document`
with a gradient-boosted tree ensemble over

* the block's own shallow text features (length, link density,
  punctuation, neighbours: Kohlschütter's),
* the structural evidence its markup carries (HTML5 sectioning tags, ARIA
  roles, ``itemprop``, class/id tokens such as ``nav``, ``comment`` or
  ``article-body``: :mod:`.keywords`), Readability's choice of container,
* the page's structure: repeated siblings sharing a tag and class, their
  share of the page's text, depth, heading level, page-wide size and link
  density (:mod:`.features`),
* a learned score of the words the markup names the block's holder and
  ancestors with (:mod:`.lexicon`),

then, on the page types where it pays, lets the blocks at the same place in
repeated units (a thread's posts, a grid's cards) score as one group
(:mod:`.consensus`), applies the vetoes that markup alone justifies and
keeps the blocks above the trained threshold, read as runs
(:mod:`.continuity`), in document order, short repeats dropped.
Nothing is keyed to a site. The ensemble is fitted by
``benchmarks/train_webclean.py`` on all annotated datasets, validated by
domain-grouped cross-validation (docs/WEBCLEAN.md), and shipped in
``webclean_scrapy/data/webclean_model.json`` (:mod:`.model`).

Cost is linear in blocks plus containers: one pass over the containers
for their codes and structure, whole-column numpy operations for the
features, and the compiled tree walk (:mod:`webclean_scrapy.engine.trees`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.engine.extractors import register
from webclean_scrapy.engine.extractors.webclean.consensus import consensus_probabilities, structural_groups
from webclean_scrapy.engine.extractors.webclean.continuity import kept_runs, mostly_unlinked
from webclean_scrapy.engine.extractors.webclean.convention import follow_convention
from webclean_scrapy.engine.extractors.webclean.features import (
    BLOCK_FEATURES,
    LEXICON_AT,
    MODEL_FEATURES,
    PAGE_TYPES_AT,
    PageColumns,
    block_features,
    clear_group_memos,
    iter_block_matrices,
    repeated_texts,
)
from webclean_scrapy.engine.extractors.webclean.keywords import (
    CHROME_NIBBLES,
    COMMENT_AREA_BIT,
    HIDDEN_CODE,
    INNER_MASK,
    KIND_SHIFT,
    WIDGET_KIND,
    table_cells,
)
from webclean_scrapy.engine.extractors.webclean.keywords import clear_keyword_memos as _clear_keyword_memos
from webclean_scrapy.engine.extractors.webclean.lexicon import MarkupLexicon, block_words
from webclean_scrapy.engine.extractors.webclean.model import DEDUPLICATE_BELOW, VETOES, BlockModel, load_model
from webclean_scrapy.engine.memo import MemoKey
from webclean_scrapy.engine.options import boolean, integer, number
from webclean_scrapy.engine.page_type import HUB_PAGE_TYPES, PAGE_TYPES, clear_name_memos, page_type_of
from webclean_scrapy.engine.trace import Trace

__all__ = [
    "BLOCK_FEATURES",
    "DEDUPLICATE_BELOW",
    "HUB_ARTICLE_MIN",
    "HUB_LINK_SHARE_MAX",
    "MODEL_FEATURES",
    "MarkupLexicon",
    "VETOES",
    "BlockModel",
    "WebcleanExtractor",
    "block_features",
    "block_probabilities",
    "block_words",
    "clear_keyword_memos",
    "content_indexes",
    "load_model",
    "read_as_article",
    "reads_as_article",
    "select_blocks",
    "table_cells",
    "veto_masks",
    "vetoes_that_hold",
]


def clear_keyword_memos() -> None:
    """Empty every memo keyed by the words of a page's markup: the class/id
    keyword memos, the structure groups' (:mod:`.features`), the markup
    lexicon's per-value sums and the page type's class/id families
    (:func:`webclean_scrapy.engine.page_type.clear_name_memos`). What is left is
    the state of a process that has not seen any page yet: a page of a
    site it meets for the first time pays for every name it shows
    (``benchmarks/speed.py --cold`` counts that)."""
    _clear_keyword_memos()
    clear_group_memos()
    clear_name_memos()
    load_model().lexicon.forget()


def veto_masks(doc: Document) -> np.ndarray:
    """What markup alone can rule out, whatever the model says: one boolean
    row per :data:`VETOES` reason, in that order:

    * ``comment_area``: inside a readers' comment area (:mod:`.keywords`);
    * ``widget``: a form widget's label (button, option, legend...);
    * ``hidden``: a subtree a class names hidden (the stylesheet hides it;
      the walk only sees inline styles);
    * ``chrome``: an all-links block inside markup that names itself
      chrome (a share bar, a tag list, "related" links).

    Which apply depends on the predicted page type, chosen by
    cross-validation and shipped with the model
    (:meth:`BlockModel.vetoes_for`): a forum thread's posts are a comment
    area, a listing's cards are all-links blocks in "teaser" boxes, a
    service page's tabs are hidden until clicked."""
    if not len(doc.block_columns):
        return np.zeros((len(VETOES), 0), dtype=bool)
    return _veto_masks(PageColumns(doc))


def _veto_masks(page: PageColumns) -> np.ndarray:
    codes, chars, anchors = page.block_codes, page.chars, page.anchors
    return np.vstack(
        [
            codes & COMMENT_AREA_BIT != 0,
            codes >> KIND_SHIFT & 15 == WIDGET_KIND,
            codes & HIDDEN_CODE != 0,
            CHROME_NIBBLES[codes & INNER_MASK] & (anchors * 10 >= chars * 9),
        ]
    )


#: How a report names each of :data:`VETOES` to a user: what it drops...
VETO_WORDS = {
    "comment_area": "readers' comment areas",
    "widget": "form widget labels (buttons, options, legends)",
    "hidden": "blocks the page's classes mark hidden",
    "chrome": "navigation-like link blocks (share bars, tag lists, related links)",
}
#: ... and in a few words.
VETO_NOUNS = {
    "comment_area": "readers' comments",
    "widget": "form widget labels",
    "hidden": "hidden blocks",
    "chrome": "navigation-like blocks",
}


def _bridging(switch_cost: float) -> str:
    """A switch cost (:func:`.continuity.kept_runs`) in a word, for a report."""
    return "strong" if switch_cost >= 2 else "moderate" if switch_cost >= 1 else "light"


#: With ``comments=True``, a comment-area block of at least this many
#: characters, mostly not links, is kept whatever the model says.
COMMENT_MIN_CHARS = 80


#: The vetoes give way when together they would leave less than this share
#: of the characters the model keeps at the page's threshold: markup that
#: names the whole of what the model reads as content a "comment" area or
#: "hidden" is the page's own convention (a forum thread predicted an
#: article, a tabbed service page), not boilerplate.
VETOES_YIELD_BELOW = 0.1
#: ... unless what they leave holds a paragraph of prose this long: a short
#: article under a long comment thread is still the article.
VETOES_HOLD_PROSE = 80


def vetoes_that_hold(
    probabilities: np.ndarray,
    masks: np.ndarray,
    applied: tuple[str, ...],
    cut: float,
    chars: np.ndarray,
    anchors: np.ndarray | None = None,
) -> tuple[str, ...]:
    """The vetoes of *applied* that apply on this page: all of them, or none
    when together they would rule out all but :data:`VETOES_YIELD_BELOW` of
    the characters of the blocks whose *probabilities* (before the vetoes)
    reach *cut*. A page where the model keeps nothing keeps its vetoes (the
    fallback then chooses among the blocks they leave)."""
    if not applied:
        return applied
    kept = probabilities >= cut
    before = int(chars[kept].sum())
    if not before:
        return applied
    vetoed = np.logical_or.reduce([masks[VETOES.index(reason)] for reason in applied])
    left = kept & ~vetoed
    if int(chars[left].sum()) >= VETOES_YIELD_BELOW * before:
        return applied
    if anchors is not None and bool((left & (chars >= VETOES_HOLD_PROSE) & mostly_unlinked(anchors, chars)).any()):
        return applied
    return ()


def block_probabilities(
    doc: Document,
    comments: bool = False,
    trace: Trace | None = None,
    threshold: float | None = None,
) -> np.ndarray:
    """The content probability of each block of *doc*, vetoes applied (0).

    The model sees each block's :data:`BLOCK_FEATURES`, its markup lexicon
    score (:mod:`.lexicon`) and its page's page-type probabilities
    (:func:`webclean_scrapy.engine.page_type.page_type_of`); on the page types
    whose policy asks for it, the blocks of each repeated unit's group then
    score their group's mean (:mod:`.consensus`: a thread's posts are kept
    or dropped together); then the :data:`VETOES` the model ships for the
    predicted type apply,
    unless together they would leave almost nothing of what the model keeps
    at *threshold* (default: the predicted type's; :func:`vetoes_that_hold`).
    Readers' comment areas are content on a forum thread and vetoed on
    most other pages, as today's benchmarks want; with *comments* true
    they are never vetoed and their prose blocks (:data:`COMMENT_MIN_CHARS`,
    mostly not links) are kept, as some gold standards (Dragnet's) want.

    *trace* receives the model's probabilities before the vetoes (series
    ``model``, after the group consensus where it applies, with a fact
    naming its weight), the vetoes applied as reasons (``veto: chrome``...)
    and as the fact listing them for the page type, and the page type."""
    if trace is not None:
        trace.units("block", len(doc.block_columns))
    if not len(doc.block_columns):
        return np.zeros(0)
    page = PageColumns(doc)
    kind, types = page_type_of(doc)
    return _under_policy(doc, page, _model_probabilities(doc, page, types), kind, comments, trace, threshold)


def _model_probabilities(doc: Document, page: PageColumns, types: np.ndarray) -> np.ndarray:
    """The ensemble's probability of each block (no policy applied yet)."""
    model = load_model()
    # Scored a chunk of rows at a time: the whole matrix of a page of a
    # million blocks would take a gigabyte (:func:`iter_block_matrices`).
    probabilities = np.empty(page.n)
    lexicon = model.lexicon.block_scores(doc)
    for start, rows in iter_block_matrices(page, len(MODEL_FEATURES)):
        rows[:, LEXICON_AT] = lexicon[start : start + len(rows)]
        rows[:, PAGE_TYPES_AT:] = types
        probabilities[start : start + len(rows)] = model.probabilities(rows)
        del rows
    return probabilities


def _under_policy(
    doc: Document,
    page: PageColumns,
    probabilities: np.ndarray,
    kind: str,
    comments: bool,
    trace: Trace | None,
    threshold: float | None,
) -> np.ndarray:
    """*probabilities* (the model's, left as they are) under the policy of
    page type *kind*: its group consensus, then its vetoes."""
    model = load_model()
    weight = model.consensus_for(kind)
    if weight > 0:
        probabilities = consensus_probabilities(probabilities, structural_groups(doc), page.chars, weight)
        if trace is not None:
            trace.fact(
                f"group consensus on {kind} pages",
                weight,
                "blocks of the same layout decided together",
                f"on {kind} pages (weight {weight:g}): blocks built alike, such as a listing's cards, "
                + ("share one probability" if weight >= 1 else "have their probabilities drawn together"),
            )
    else:
        probabilities = probabilities.copy()
    masks = _veto_masks(page)
    applied = model.vetoes_for(kind)
    if comments:
        # Readers' comments that read as prose are content.
        in_area = masks[VETOES.index("comment_area")]
        probabilities[in_area & (page.chars >= COMMENT_MIN_CHARS) & mostly_unlinked(page.anchors, page.chars)] = 1.0
        applied = tuple(reason for reason in applied if reason != "comment_area")
    cut = model.threshold_for(kind) if threshold is None else threshold
    holding = vetoes_that_hold(probabilities, masks, applied, cut, page.chars, page.anchors)
    if trace is not None:
        _trace_vetoes(trace, probabilities, masks, applied, holding, kind, comments, page)
    for reason in holding:
        probabilities[masks[VETOES.index(reason)]] = 0.0
    return probabilities


def _trace_vetoes(
    trace: Trace,
    probabilities: np.ndarray,
    masks: np.ndarray,
    applied: tuple[str, ...],
    holding: tuple[str, ...],
    kind: str,
    comments: bool,
    page: PageColumns,
) -> None:
    """Record the model's view of the page before the vetoes apply."""
    trace.series["model"] = probabilities.copy()
    trace.fact("page type", kind, "page type the rules follow")
    trace.fact(
        f"vetoes applied on {kind} pages",
        ", ".join(applied) or "none",
        f"dropped whatever the model says, on {kind} pages",
        "; ".join(VETO_WORDS[reason] for reason in applied) or "nothing",
    )
    if holding != applied:
        trace.fact(
            "vetoes gave way",
            f"{', '.join(applied)} would leave under {VETOES_YIELD_BELOW:.0%} of what the model keeps",
            "blocks dropped whatever the model says: set aside on this page",
            f"dropping {'; '.join(VETO_WORDS[reason] for reason in applied)} would leave under "
            f"{VETOES_YIELD_BELOW:.0%} of the text the model keeps",
        )
    if comments:
        in_area = masks[VETOES.index("comment_area")]
        trace.reason(
            in_area & (page.chars >= COMMENT_MIN_CHARS) & mostly_unlinked(page.anchors, page.chars),
            "comments=True: readers' comment that reads as prose",
        )
    for reason in holding:
        trace.reason(masks[VETOES.index(reason)], f"veto: {reason}")
    for reason in VETOES:
        if reason not in holding and masks[VETOES.index(reason)].any():
            why = "gave way on this page" if reason in applied else f"not applied on {kind} pages"
            matching = np.flatnonzero(masks[VETOES.index(reason)]).tolist()[:50]
            trace.fact(
                f"veto {reason} ({why}) matches blocks",
                matching,
                f"{VETO_NOUNS[reason]} dropped",
                ("set aside on this page" if reason in applied else f"not applied on {kind} pages")
                + f"; it would drop block{'s' if len(matching) > 1 else ''} {', '.join(map(str, matching))}",
            )


#: A page predicted a hub (:data:`~webclean_scrapy.engine.page_type.HUB_PAGE_TYPES`)
#: whose kept text is at most this share links...
HUB_LINK_SHARE_MAX = 0.1
#: ... and whose article probability is at least this is read as an article.
HUB_ARTICLE_MIN = 0.1


def reads_as_article(
    kind: str, types: np.ndarray, kept: Sequence[int] | np.ndarray, chars: np.ndarray, anchors: np.ndarray
) -> bool:
    """Whether a page predicted the hub type *kind* (a listing or a
    collection) is extracted as an article all the same: the blocks its
    own policy keeps (*kept*) are nearly free of links
    (:data:`HUB_LINK_SHARE_MAX`) and its page-type probabilities *types*
    give an article a fair chance (:data:`HUB_ARTICLE_MIN`).

    A listing's main text is its items, and an item is a link: linked
    headlines, titles, "read more". A news article framed by sidebars of
    headlines (the usual layout of 2007-2013, still that of many archives)
    looks like a listing to the page-type classifier, but what the model
    keeps of it is a run of unlinked paragraphs: the article policy, which
    keeps less of the framing, is the one for it, and the extraction reports the page an ``article``
    (:meth:`WebcleanExtractor.reported_page_type`)."""
    if kind not in HUB_PAGE_TYPES or not len(kept) or types[PAGE_TYPES.index("article")] < HUB_ARTICLE_MIN:
        return False
    kept_chars = int(chars[kept].sum())
    return kept_chars > 0 and int(anchors[kept].sum()) <= HUB_LINK_SHARE_MAX * kept_chars


#: Where :func:`content_indexes` notes on the document that it read the
#: page as an article (:func:`read_as_article`).
_READ_AS_ARTICLE: MemoKey[bool] = MemoKey("webclean_read_as_article")


def read_as_article(doc: Document) -> bool:
    """Whether the last :func:`content_indexes` of *doc* extracted it under
    the article policy although it was predicted a hub (:func:`reads_as_article`):
    the extraction then reports the page an ``article``."""
    return bool(doc.memo.get(_READ_AS_ARTICLE))


def content_indexes(
    doc: Document,
    threshold: float | None = None,
    deduplicate: int | None = None,
    comments: bool = False,
    trace: Trace | None = None,
    include_title: bool = False,
    include_captions: bool = False,
) -> list[int]:
    """The indexes of the content blocks of *doc*, in document order.

    A block whose text was already kept is dropped when it is shorter than
    *deduplicate* characters (``0``: always dropped; ``-1``: never;
    ``None``: the shipped rule of the page's type), unless it is
    a table cell (:func:`.keywords.table_cells`). With the shipped
    thresholds (*threshold* ``None``), a page predicted a listing or a
    collection whose kept text is nearly free of links is extracted under
    the article policy (:func:`reads_as_article`), and *doc* says so
    (:func:`read_as_article`). With the shipped thresholds the
    article-body convention (:mod:`.convention`) then drops the headline repeated at the start
    (unless *include_title*), furniture lines ("Advertisement", a share
    bar) and, on an article, a section of teasers after the body, bylines
    and datelines before it, and figure captions and photo credits
    (*include_captions* keeps those).
    *trace*: see :class:`WebcleanExtractor`."""
    return _content_blocks(doc, threshold, deduplicate, comments, trace, include_title, include_captions).tolist()


def _content_blocks(
    doc: Document,
    threshold: float | None = None,
    deduplicate: int | None = None,
    comments: bool = False,
    trace: Trace | None = None,
    include_title: bool = False,
    include_captions: bool = False,
) -> np.ndarray:
    """:func:`content_indexes` as an array (what :meth:`WebcleanExtractor.extract_text`
    joins without making a Python int per kept block)."""
    if trace is not None:
        trace.units("block", len(doc.block_columns))
    if not len(doc.block_columns):
        if trace is not None:
            trace.confidence = 0.0
        return np.zeros(0, dtype=np.intp)
    kind, types = page_type_of(doc)
    page = PageColumns(doc)
    scores = _model_probabilities(doc, page, types)
    rereads = threshold is None and kind in HUB_PAGE_TYPES
    kept = _kept_under(doc, page, scores, kind, threshold, deduplicate, comments, None if rereads else trace)
    as_article = rereads and reads_as_article(kind, types, kept, page.chars, page.anchors)
    doc.memo.set(_READ_AS_ARTICLE, as_article)
    if as_article:
        if trace is not None:
            trace.fact(
                f"read as an article (predicted {kind})",
                f"kept text at most {HUB_LINK_SHARE_MAX:.0%} links, article probability "
                f"{types[PAGE_TYPES.index('article')]:.2f}",
                "read as an article",
                f"predicted a {kind} page, but at most {HUB_LINK_SHARE_MAX:.0%} of the text kept is links "
                f"(article probability {types[PAGE_TYPES.index('article')]:.2f}): the article rules apply",
            )
        kept = _kept_under(doc, page, scores, "article", threshold, deduplicate, comments, trace)
    elif rereads and trace is not None:  # the first reading went untraced: trace it now
        kept = _kept_under(doc, page, scores, kind, threshold, deduplicate, comments, trace)
    if threshold is not None:  # a hand-set threshold asks for the model's own selection
        return kept
    article = as_article or kind == "article"
    return _under_convention(doc, kept, include_title, include_captions, article, trace)


#: How the report names each convention rule (:mod:`.convention`).
_CONVENTION_WORDS = {
    "caption": "figure captions",
    "credit": "photo credits",
    "headline": "headline repeated from the title",
    "furniture": "advert, share and read-more lines",
    "teasers": "teaser sections for other pages",
    "byline": "bylines and datelines",
}


def _under_convention(
    doc: Document,
    kept: np.ndarray,
    include_title: bool,
    include_captions: bool,
    article: bool,
    trace: Trace | None,
) -> np.ndarray:
    """*kept* under the article-body convention (:func:`.convention.follow_convention`):
    the model was fitted on golds that disagree on headlines, captions and
    bylines, so what the convention leaves out is dropped after it chose.
    *trace* keeps what is left and gives each dropped block its rule as its reason."""
    followed, dropped = follow_convention(doc, kept, include_title, include_captions, article)
    if trace is not None and dropped:
        trace.keep(followed)
        reasons = trace.reasons
        if reasons is not None:
            for rule, indexes in dropped.items():
                for i in indexes.tolist():
                    reasons[i] = f"convention: {rule}"
        counts = {rule: len(indexes) for rule, indexes in dropped.items()}
        trace.fact(
            "convention",
            counts,
            "left out as not article body",
            ", ".join(f"{_CONVENTION_WORDS.get(rule, rule)}: {count}" for rule, count in counts.items()),
        )
    return followed


def _kept_under(
    doc: Document,
    page: PageColumns,
    scores: np.ndarray,
    kind: str,
    threshold: float | None,
    deduplicate: int | None,
    comments: bool,
    trace: Trace | None,
) -> np.ndarray:
    """The blocks kept under the policy of page type *kind*, given the
    model's *scores*: their indexes, as an array (a hub's first reading is
    held while the second is made; a list would hold a Python int per block)."""
    model = load_model()
    cut = model.threshold_for(kind) if threshold is None else threshold
    repeats = model.deduplicate_for(kind) if deduplicate is None else deduplicate
    probabilities = _under_policy(doc, page, scores, kind, comments, trace, cut)
    if trace is not None:
        trace.fact(
            "threshold" if threshold is not None else f"threshold for {kind} pages",
            cut,
            "content probability a block needs to be kept",
            f"{cut:.2f} ({'the threshold option' if threshold is not None else f'on {kind} pages'}): the model "
            "rates each block from 0 (boilerplate) to 1 (main text) and keeps those rated at least this",
        )
        trace.fact(
            f"repeats dropped on {kind} pages" if deduplicate is None else "repeats dropped",
            "none" if repeats < 0 else f"under {repeats} characters" if repeats else "every one",
            "repeated text dropped",
            "none: a block that repeats a kept block's text is kept too"
            if repeats < 0
            else f"a block that repeats a kept block's text, when under {repeats} characters"
            if repeats
            else "every block that repeats a kept block's text",
        )
    return select_blocks(
        page.texts,
        page.chars,
        page.anchors,
        probabilities,
        cut,
        repeats,
        fallback=threshold is None,
        trace=trace,
        switch_cost=model.switch_cost_for(kind) if threshold is None else 0.0,
        repeatable=table_cells(doc, among=page.repeated) if repeats >= 0 else None,
        repeated=page.repeated,
    )


#: A page with no block above the threshold still has its main text when
#: its best block holds prose: at least this many characters, mostly not
#: links. A page with fewer characters than this in all is kept whole.
FALLBACK_MIN_CHARS = 200


def select_blocks(
    texts: list[str],
    chars: np.ndarray,
    anchor_chars: np.ndarray,
    probabilities: np.ndarray,
    cut: float,
    deduplicate: int = DEDUPLICATE_BELOW,
    fallback: bool = True,
    trace: Trace | None = None,
    switch_cost: float = 0.0,
    repeatable: np.ndarray | None = None,
    repeated: np.ndarray | None = None,
) -> np.ndarray:
    """The kept blocks, given their probabilities: the indexes (an array: on
    a page of a million blocks a list is a million Python ints) of those
    reaching *cut*, in document order, repeats shorter than *deduplicate* characters
    dropped (``0``: every repeat; ``-1``: none) except the blocks
    *repeatable* marks (table cells: a column's repeated values are its
    data). The training script scores its thresholds through this same
    function. *chars* and *anchor_chars* are the blocks' lengths
    (:attr:`~webclean_scrapy.engine.columns.BlockColumns.lengths`: characters,
    a CJK one counting for two), as every length here. *repeated* says
    which blocks' text occurs more than once on the page
    (:attr:`.features.PageColumns.repeated`; made from *texts* when not
    given): only those can be a repeat.

    With *fallback*, a page where no block reaches *cut* keeps every block
    scoring at least half of its best prose block (:data:`FALLBACK_MIN_CHARS`
    characters or more, mostly not links), if it has one: an empty result
    is right for hubs, error pages and consent walls, but a short article
    (a few hundred characters straight inside a ``<div>``) must not come
    out empty. And a page whose blocks hold fewer than
    :data:`FALLBACK_MIN_CHARS` characters in all is kept whole (every block
    the vetoes leave): there is no chrome on it worth cutting a line of its
    text for, and the model's evidence (lengths, shares, neighbours) says
    little on a page that small.

    With a *switch_cost* above 0 the blocks are read as runs
    (:func:`.continuity.kept_runs`): a block a little under *cut* between
    kept ones stays, one a little over it alone among dropped ones goes,
    and a mostly-link block under *cut* (a footer's link row) is never
    swept into a run.
    The shipped policies set it per predicted page type; a hand-set
    threshold reads no runs.

    *trace* receives the probabilities as scores against *cut*, the kept
    blocks, the reasons (duplicate, small page, runs, fallback, threshold) and, as its
    confidence, the page's highest probability."""
    fell_back = None
    small_page = fallback and 0 < int(chars.sum()) < FALLBACK_MIN_CHARS
    reaching = probabilities >= cut
    runs = None
    if small_page:
        kept = np.flatnonzero(probabilities > 0)
    elif switch_cost > 0 and reaching.any():
        runs = kept_runs(probabilities, chars, cut, switch_cost, anchor_chars)
        kept = np.flatnonzero(runs)
    else:
        kept = np.flatnonzero(reaching)
    if not len(kept) and fallback:  # (a small page has no 200-character block: nothing to fall back on)
        prose = (chars >= FALLBACK_MIN_CHARS) & mostly_unlinked(anchor_chars, chars) & (probabilities > 0)
        if prose.any():
            fell_back = float(probabilities[prose].max()) / 2
            kept = np.flatnonzero(probabilities >= fell_back)
    if deduplicate < 0:
        unique = kept
    else:
        unique = _without_repeats(
            texts, chars, kept, deduplicate, repeatable, repeated_texts(texts) if repeated is None else repeated
        )
    if trace is not None:
        kept_list, unique_list = kept.tolist(), unique.tolist()
        trace.score(probabilities, "content probability", cut)
        trace.keep(unique_list)
        trace.reason(sorted(set(kept_list) - set(unique_list)), "a repeat of a kept block's text")
        if small_page:
            trace.fact("small page", f"under {FALLBACK_MIN_CHARS} characters of text in all: kept whole")
            trace.reason(unique_list, "small page: every block the vetoes leave")
        if runs is not None:
            trace.fact(
                "switch cost",
                switch_cost,
                "gaps bridged between kept paragraphs",
                f"{_bridging(switch_cost)} (switch cost {switch_cost:g}): a block a little under the threshold "
                "between kept ones is kept, and one a little over it alone among dropped ones is dropped",
            )
            trace.reason(np.flatnonzero(runs & ~reaching), "continuity: below the threshold, kept within a run")
            trace.reason(
                np.flatnonzero(reaching & ~runs), "continuity: at or above the threshold, dropped outside the runs"
            )
        if fell_back is not None:
            trace.fact(
                "fallback",
                f"no block reached {cut}: kept those at or above {fell_back:.3f}, "
                "half the best prose block's probability",
                "no block reached the threshold",
                f"kept the blocks rated at least {fell_back:.3f}, half the best paragraph's probability, "
                "so that a short article does not come out empty",
            )
            trace.reason(unique_list, "fallback: at least half the best prose block's probability")
            trace.reason(slice(None), "below the fallback's cut")
        trace.reason(unique_list, "probability at or above the threshold")
        trace.reason(slice(None), "probability below the threshold")
        trace.confidence = float(probabilities.max()) if len(probabilities) else 0.0
    return unique


def _without_repeats(
    texts: list[str],
    chars: np.ndarray,
    kept: np.ndarray,
    deduplicate: int,
    repeatable: np.ndarray | None,
    repeated: np.ndarray,
) -> np.ndarray:
    """*kept* without the blocks whose text an earlier kept block has,
    shorter than *deduplicate* characters (``0``: whatever their length),
    unless *repeatable* marks them. Only a block whose text occurs more than
    once on the page (*repeated*) can be one, so only those are read: a
    page of a million distinct paragraphs makes no set of a million texts."""
    looked_at = np.flatnonzero(repeated[kept])
    if not len(looked_at):
        return kept
    seen: set[str] = set()
    keep = np.ones(len(kept), dtype=bool)
    for position, i in zip(looked_at.tolist(), kept[looked_at].tolist()):
        text = texts[i]
        if text in seen and (not deduplicate or chars[i] < deduplicate):
            if repeatable is None or not repeatable[i]:
                keep[position] = False
                continue
        seen.add(text)
    return kept[keep]


@register
class WebcleanExtractor(Extractor):
    """Block classifier over text, markup and page-structure evidence; see
    the module docstring."""

    name = "webclean"
    #: ``threshold``: minimum content probability of a kept block (``None``:
    #: the tuned values shipped with the model, one per predicted page
    #: type, with the fallback, the small-page rule, the runs of
    #: :mod:`.continuity` and the article-body convention of
    #: :mod:`.convention` that go with them). Lower keeps more text.
    #: ``deduplicate``: drop a block whose exact text was already kept when
    #: it is shorter than this many characters -- a caption shown twice, a
    #: repeated "Share" bar, a mobile copy of a menu. ``None`` (default): the
    #: rule shipped with the model for the page's predicted type -- articles,
    #: listings and documentation keep a longer paragraph the page repeats
    #: (:data:`DEDUPLICATE_BELOW`), forum, product, collection and service
    #: pages keep every text once (cross-validated). ``0`` drops every
    #: repeat, ``-1`` none. A table cell is never dropped as a repeat: a
    #: column of "Yes", "Optional" or "—" is the table's data.
    #: ``comments``: do not let a readers' comment area count against its
    #: blocks (by default the model decides, and it drops comment threads
    #: under articles, as today's benchmarks do, while keeping forum posts).
    #: ``include_title``: keep the headline when the text repeats it at its
    #: start (by default it is dropped: it is the extraction's ``title``).
    #: ``include_captions``: keep an article's figure captions and photo
    #: credits ("Photo: ...", "(Image: GETTY)"); by default both are
    #: dropped, as the article-body convention has it (:mod:`.convention`,
    #: which also drops furniture lines such as "Advertisement" or a share bar).
    defaults = {
        "threshold": None,
        "deduplicate": None,
        "comments": False,
        "include_title": False,
        "include_captions": False,
    }
    rules = {
        "threshold": number(0, optional=True),
        "deduplicate": integer(-1, optional=True),
        "comments": boolean(),
        "include_title": boolean(),
        "include_captions": boolean(),
    }

    def extract_text(self, doc: Document, trace: Trace | None = None) -> str:
        """The kept blocks' text. *trace* (:mod:`webclean_scrapy.engine.trace`)
        receives each block's content probability (vetoes applied) against
        the threshold, the model's probability before the vetoes (series
        ``model``), the reason of each decision (``veto: <name>`` of
        :data:`VETOES`, below the threshold, a repeat, the fallback), the
        page type with its probabilities, and as confidence the page's
        highest block probability."""
        o = self.options
        kept = _content_blocks(
            doc,
            o["threshold"],
            o["deduplicate"],
            bool(o["comments"]),
            trace,
            bool(o["include_title"]),
            bool(o["include_captions"]),
        )
        return doc.block_columns.text(kept)

    def reported_page_type(self, doc: Document, predicted: str) -> str:
        """``article`` for a page predicted a listing or a collection that
        :meth:`extract_text` read as an article (:func:`read_as_article`):
        a news story framed by sidebars of headlines is a story to whoever
        sorts pages by kind. Else the classifier's *predicted* type."""
        return "article" if read_as_article(doc) else predicted
