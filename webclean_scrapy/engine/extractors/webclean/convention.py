"""The article-body convention, applied to the blocks the model kept.

The model is fitted on golds that disagree: most older sets keep the
headline, some keep figure captions, a few keep the byline. The convention
this extractor follows is the article body's (the ScrapingHub benchmark,
``articleBody`` of zyte-common-items, trafilatura's default): the headline
belongs in ``title``, not in ``text``; captions and photo credits, bylines
and datelines, and the page's furniture lines ("Advertisement", "Read
more", a share bar) are not main text. The model cannot learn a convention
its golds do not agree on, so after it has chosen the blocks this pass
drops, from the kept ones only, what the convention leaves out. Each rule
(:data:`RULES`) can be measured alone; :data:`APPLIED_RULES` are those the
extractor applies by default:

* ``credit`` (on articles): a photo credit line ("Photo: ...", "(Image:
  GETTY)", "Foto: dpa") or a short caption that ends on its credit
  ("... Photograph: Jane Doe/Reuters", "... /Getty Images");
* ``headline``: the first kept blocks when they repeat the page's title or
  its first ``<h1>`` (normalised words equal, or the title is the headline
  plus a site name);
* ``furniture``: a short line (at most :data:`FURNITURE_MAX_WORDS` words)
  that is only furniture in one of many languages ("Advertisement",
  "Anzeige", "Continue reading below", "Read more", "Most read"), a share
  bar ("Share: Post Email", "Facebook Twitter Email"), and the blocks of a
  small box an advert label names;
* ``caption`` (on articles): a block
  inside ``<figcaption>``, inside a small ``<figure>`` (not in a code
  listing, a table, a quote or a list), or inside a container whose
  class/id names a caption or a credit;
* ``byline`` (on articles): a short block among the first kept ones that
  reads as a byline ("By" and a capitalised name) or a dateline
  ("Published ..." with a date, or a block that is mostly a date and a
  time); the byline's name and date are the ``author`` and ``date`` fields.

Every rule is a general signal -- markup structure, the repeated-title
test, a lexicon of short lines, the position before the body -- never one
site's markup. Only the kept blocks are looked at (a few dozen on a
page), except the advert labels, found among the short blocks by a
whole-column length test first.

Each rule's Python test decides. When the extension is built
(:mod:`._convention`), one compiled pass over the kept blocks first
leaves the short-line rules' tests only the blocks they may accept (most
fail on a character or a word: ``LineScreen``), the caption walk is
compiled, and the advert labels are looked for only near the kept
blocks; the rules give positions as lists (:func:`convention_positions`),
as on most pages they drop nothing or a handful.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice

import numpy as np

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extractors.webclean.keywords import literal_alternatives

try:
    import webclean_scrapy.engine.extractors.webclean._convention as _compiled
except ImportError:  # no C compiler at install: the Python walk and tests, same decisions
    _compiled = None

#: A page keeping more blocks than this is not read as an article by the
#: caption and teaser rules (a 50,000-paragraph page is a dump, not a story).
ARTICLE_MAX_BLOCKS = 20_000
#: The rules, each measured on its own (docs/WEBCLEAN.md, "What counts as main text").
RULES: tuple[str, ...] = ("caption", "credit", "headline", "furniture", "teasers", "byline")
#: The rules applied by default: all of them. Furniture, credits and teasers
#: raise precision on today's articles at no cost beyond noise on any
#: annotated set; the headline, figure captions and bylines follow the
#: convention whatever the older golds say (Readability's gold keeps captions
#: on half its pages, CleanPortalEval's in caption boxes, Dragnet's and
#: L3S-GN1's the byline and the dateline).
APPLIED_RULES: tuple[str, ...] = RULES

# -- shared helpers ------------------------------------------------------------

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The lower-case ``\\w+`` words of *text*: what two texts must share
    to be "the same line" whatever their punctuation and case."""
    return _WORD.findall(text.lower())


def first_words(text: str, count: int) -> list[str]:
    """The first *count* of :func:`words`, without a list of all of them
    (a 10 MB paragraph holds two million)."""
    return [match.group() for match in islice(_WORD.finditer(text.lower()), count)]


# -- captions --------------------------------------------------------------------

#: A class/id that names a caption or a photo credit ("wp-caption-text",
#: "image-credit", "cutline"); "credit-card" and the like are not credits.
_CAPTION_NAME = re.compile(r"caption|cutline|credit(?!s?-?(?:card|score|union|limit|line))")
#: A word each name :data:`_CAPTION_NAME` accepts holds: the compiled walk
#: reads the others' names no further.
_CAPTION_NAME_WORDS = ("caption", "cutline", "credit")
#: A ``<figure>`` holding more text than this is a layout box, not a picture's.
FIGURE_MAX_CHARS = 300
#: A caption container holding more text than this is not a caption.
CAPTION_MAX_CHARS = 1500
#: How far up from a block's holder a figure or caption is looked for.
CAPTION_DEPTH = 8
#: Tags under a figure whose text is the figure's content (a code
#: listing, a data table, a pull quote, a list), not its caption.
_FIGURE_CONTENT_TAGS = frozenset({"pre", "code", "table", "blockquote", "ul", "ol", "dl"})

_CREDIT_WORDS = (
    r"photo(?:graph)?s?|images?|pictures?|pics?|credits?|illustrations?|video|"
    r"foto(?:s|grafie|grafía)?|bild(?:er)?|imagen(?:es)?|crédits?|cr[ée]dito|фото"
)
#: A line that opens as a credit: "Photo: ...", "(Image: GETTY)", "Photo by ...", "Foto: dpa".
_CREDIT_OPENING = re.compile(rf"^\(?\s*(?:{_CREDIT_WORDS})\s*(?:credit\s*)?(?::|：|\||/|by\b|von\b|de\b)", re.I)
#: A caption that closes on its credit: "... Photograph: Jane Doe/Reuters", "... (Photo: AP)".
_CREDIT_CLOSING = re.compile(
    rf"(?:\(\s*(?:{_CREDIT_WORDS})\s*:[^()]{{1,80}}\)|(?:{_CREDIT_WORDS})\s*:\s*[^.!?:]{{1,80}})\s*$", re.I
)
#: Picture agencies a caption credits, as a caption ends with them.
_AGENCY_CLOSING = re.compile(
    r"(?:getty\s*images|ap\s*photo[^.!?]{0,40}|afp(?:\s*via\s*getty\s*images)?|reuters|shutterstock|"
    r"istock(?:photo)?|alamy|pa\s*(?:wire|images|media)|epa(?:-efe)?|dpa|anp|ansa|efe)\s*\)?\s*$",
    re.I,
)
#: A word each alternative of :data:`_AGENCY_CLOSING` holds, anywhere in the tail: one scan, cheaper
#: than the anchored search, which runs only when it finds one.
_AGENCY_HINT = re.compile("getty|photo|afp|reuters|shutterstock|istock|alamy|wire|images|media|epa|dpa|anp|ansa|efe")
#: Credit lines are short.
CREDIT_MAX_CHARS = 300
#: A caption ending on an agency's name is shorter still.
_AGENCY_MAX_CHARS = 150


@lru_cache(maxsize=4096)
def names_caption(names: str) -> bool:
    """Whether a container's class and id words (*names*) name a caption or a credit."""
    return bool(_CAPTION_NAME.search(names.lower()))


#: The closing credits are at most this long: they are looked for in the
#: text's tail (a search anchored at the end still scans from the start).
_CLOSING_TAIL = 200
_AGENCY_TAIL = 64


def credit_line(text: str) -> bool:
    """Whether *text* is a photo credit, or a caption that ends on one."""
    if len(text) > CREDIT_MAX_CHARS:
        return False
    if _CREDIT_OPENING.match(text):
        return True
    # A sentence of prose ends with a stop; a caption's credit does not.
    # Both closing credits name their source after a colon.
    if ":" in text:
        tail = text[-_CLOSING_TAIL:]
        if _may_close_on_credit(tail) and _CREDIT_CLOSING.search(tail):
            return True
    if len(text) > _AGENCY_MAX_CHARS:
        return False
    tail = text[-_AGENCY_TAIL:].lower()
    # No agency's name ends on a stop (nor does ")" and spaces after one).
    if tail.rstrip()[-1:] in _STOPS:
        return False
    return _AGENCY_HINT.search(tail) is not None and _AGENCY_CLOSING.search(tail) is not None


_STOPS = frozenset(".!?")


def _may_close_on_credit(tail: str) -> bool:
    """Whether :data:`_CREDIT_CLOSING` can match *tail*, from its punctuation
    alone: a bracketed credit ends the text with ")"; the other is after the
    last colon, with no stop after it. Most prose fails this, and the
    (slower) search is not made."""
    colon = tail.rfind(":")
    if colon < 0:
        return False
    after = tail[colon + 1 :]
    return tail.rstrip()[-1:] == ")" or not ("." in after or "!" in after or "?" in after)


def _credit_word_ends() -> tuple[frozenset[str], frozenset[str], int]:
    """The first and the last characters of every credit word
    (:data:`_CREDIT_WORDS` spelt out, lower-cased), as many as the shortest
    holds, at most three: where those of a line, ASCII, are none of them, no
    credit word opens or closes, and the compiled screen
    (``_convention.CreditScreen``) does not run the expressions there."""
    spelt = [text.lower() for text, _, _ in literal_alternatives(_CREDIT_WORDS)]
    width = min(3, *map(len, spelt))
    return frozenset(text[:width] for text in spelt), frozenset(text[-width:] for text in spelt), width


_CREDIT_PREFIXES, _CREDIT_SUFFIXES, _CREDIT_WORD_WIDTH = _credit_word_ends()
#: The words :data:`_AGENCY_HINT` looks for.
_AGENCY_HINTS = tuple(text for text, _, _ in literal_alternatives(_AGENCY_HINT.pattern))
#: :func:`credit_line`'s screen, compiled when built (``_convention.CreditScreen``).
_CREDIT_SCREEN = (
    None
    if _compiled is None
    else _compiled.CreditScreen(
        CREDIT_MAX_CHARS,
        _CREDIT_PREFIXES,
        _CREDIT_SUFFIXES,
        _CREDIT_WORD_WIDTH,
        _CREDIT_OPENING.match,
        _CLOSING_TAIL,
        _AGENCY_MAX_CHARS,
        _AGENCY_TAIL,
        _AGENCY_HINTS,
        _AGENCY_HINT.search,
    )
)


#: What a container is to the caption rule (:func:`in_caption`).
_PLAIN, _CONTENT, _FIGCAPTION, _FIGURE, _NAMED = range(5)


def _caption_kind(doc: Document, node: int) -> int:
    tag = doc.container_columns.tags[node]
    if tag == "figcaption":
        return _FIGCAPTION
    if tag == "figure":
        return _FIGURE
    names = doc.container_columns.attributes[node]
    if names and names_caption(f"{names.get('class', '')} {names.get('id', '')}"):
        return _NAMED
    return _CONTENT if tag in _FIGURE_CONTENT_TAGS else _PLAIN


def in_caption(doc: Document, holder: int, kinds: dict[int, int] | None = None) -> bool:
    """Whether a block held by container *holder* is a caption: inside a
    ``<figcaption>``, a small ``<figure>`` (not under a code listing, a
    table, a quote or a list within it) or a container whose class/id
    names a caption (:func:`names_caption`) of caption size. *kinds*
    memoises what each container is, for the calls of one page."""
    containers = doc.container_columns
    parents, chars = containers.parents, containers.lengths
    if kinds is None:
        kinds = {}
    node, content = holder, False
    for _ in range(CAPTION_DEPTH):
        if node < 0:
            return False
        kind = kinds.get(node)
        if kind is None:
            kind = kinds[node] = _caption_kind(doc, node)
        if kind == _FIGCAPTION or kind == _NAMED:
            return int(chars[node]) <= CAPTION_MAX_CHARS
        if kind == _FIGURE:
            return not content and int(chars[node]) <= FIGURE_MAX_CHARS
        content = content or kind == _CONTENT
        node = int(parents[node])
    return False


def _mask(size: int, positions: list[int]) -> np.ndarray:
    """*size* booleans, true at *positions*: a rule's drops as :func:`convention_drops` gives them."""
    out = np.zeros(size, dtype=bool)
    out[positions] = True
    return out


def _int64(kept: np.ndarray) -> np.ndarray:
    """*kept* as the compiled loops read it (no copy when it already is)."""
    return np.ascontiguousarray(kept, dtype=np.int64)


def caption_positions(doc: Document, kept: np.ndarray) -> list[int]:
    """The positions in *kept* of the blocks markup makes captions
    (:func:`in_caption`; compiled when built: :mod:`._convention`)."""
    if _compiled is not None:
        containers = doc.container_columns
        found: list[int] = _compiled.caption_positions(
            _int64(kept),
            doc.block_columns.holders,
            containers.parents,
            containers.lengths,
            containers.tags,
            containers.attributes,
            names_caption,
            _CAPTION_NAME_WORDS,
            _FIGURE_CONTENT_TAGS,
            CAPTION_DEPTH,
            CAPTION_MAX_CHARS,
            FIGURE_MAX_CHARS,
        )
        return found
    holders = doc.block_columns.holders[kept].tolist()
    # Kept blocks share a few dozen holders and their ancestors: each is looked at once.
    kinds: dict[int, int] = {}
    found_in = {holder: in_caption(doc, holder, kinds) for holder in set(holders)}
    return [position for position, holder in enumerate(holders) if found_in[holder]]


def caption_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether markup makes it a caption (:func:`caption_positions`)."""
    return _mask(len(kept), caption_positions(doc, kept))


def credit_candidates(doc: Document, kept: np.ndarray) -> list[int]:
    """The positions in *kept* of the blocks :func:`credit_line` may accept:
    those short enough to be a credit, and when the screen was compiled
    only those it cannot rule out (``_convention.CreditScreen``: the first
    and last characters of the credit words, a colon, the closing
    punctuation, an agency's word)."""
    if _SCREEN is None:
        return np.flatnonzero(doc.block_columns.chars[kept] <= CREDIT_MAX_CHARS).tolist()
    return _screened(doc, kept, credit=True)[0]


def credit_positions(doc: Document, kept: np.ndarray, candidates: list[int] | None = None) -> list[int]:
    """The positions in *kept* of the photo credits (:func:`credit_line`,
    read on *candidates* only: :func:`credit_candidates` unless the pass
    read them already)."""
    texts = doc.block_columns.texts
    if candidates is None:
        candidates = credit_candidates(doc, kept)
    return [position for position in candidates if credit_line(texts[kept.item(position)])]


def credit_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether its text is a photo credit (:func:`credit_positions`)."""
    return _mask(len(kept), credit_positions(doc, kept))


def _opening_with(
    texts: list[str], indexes: np.ndarray | None, chars: np.ndarray, longest: int, words: frozenset[str]
) -> list[int]:
    """The positions in *indexes* (block indexes; ``None``: every block) of
    the blocks of at most *longest* characters (*chars*) whose first word
    (:data:`_WORD`, lower-cased) is one of *words*: the only blocks a rule
    whose lines all open with one of *words* need read. The reference of
    the compiled ``_convention.opening_with``, which reads the short blocks
    without a Python call each."""
    blocks = range(len(texts)) if indexes is None else indexes.tolist()
    found = []
    for position, block in enumerate(blocks):
        if chars[block] <= longest:
            first = _WORD.search(texts[block].lower())
            if first is not None and first.group() in words:
                found.append(position)
    return found


def opening_with(
    texts: list[str], indexes: np.ndarray | None, chars: np.ndarray, longest: int, words: frozenset[str]
) -> list[int]:
    """:func:`_opening_with`, compiled when it was built."""
    if _compiled is None:
        return _opening_with(texts, indexes, chars, longest, words)
    found: list[int] = _compiled.opening_with(
        texts, None if indexes is None else _int64(indexes), chars, longest, words, initials(words)
    )
    return found


@lru_cache(maxsize=16)
def initials(words: frozenset[str]) -> bytes:
    """One flag per ASCII character: whether it opens one of *words*. The
    compiled screens read an ASCII text's first character against them
    and make no string of a first word that opens none."""
    first = {word[0] for word in words if word}
    return bytes(chr(code) in first for code in range(128))


# -- the headline ------------------------------------------------------------------

#: The headline is looked for among this many first kept blocks...
HEADLINE_AMONG = 4
#: ... before this many characters of kept text (a kicker, a section label).
HEADLINE_BEFORE_CHARS = 400
#: A title longer than the headline must be the headline plus a site name:
#: the headline holds at least this share of its words.
HEADLINE_MIN_SHARE = 0.5


def headline_candidates(doc: Document) -> list[list[str]]:
    """The words of the texts a headline repeats: the page's title
    (og:title, else its first ``<h1>``, else ``<title>``) and its first
    ``<h1>`` (a site name around the headline is :func:`repeats_title`'s)."""
    read = words if _compiled is None else _all_words
    candidates = [read(doc.title)]
    columns = doc.container_columns
    try:
        h1 = columns.tags.index("h1")
    except ValueError:
        pass
    else:
        first = columns.first_blocks.item(h1)
        if first >= 0:
            candidates.append(read(" ".join(doc.block_columns.texts[first : columns.last_blocks.item(h1) + 1])))
    return [c for c in candidates if c]


def _all_words(text: str) -> list[str]:
    """:func:`words`, compiled (every word: a text holds fewer than it has characters, plus one)."""
    found: list[str] = _compiled.first_words(text, len(text) + 1)
    return found


def repeats_title(block: list[str], candidates: list[list[str]]) -> bool:
    """Whether the words *block* are one of *candidates*, or their start or
    end with at least :data:`HEADLINE_MIN_SHARE` of their words (the title
    "Headline | Site" and the headline "Headline")."""
    if not block:
        return False
    size = len(block)
    for candidate in candidates:
        if block == candidate:
            return True
        if size < len(candidate) and size >= 3 and size >= HEADLINE_MIN_SHARE * len(candidate):
            if candidate[:size] == block or candidate[-size:] == block:
                return True
    return False


def headline_positions(doc: Document, kept: np.ndarray) -> list[int]:
    """The positions in *kept* of the headline, repeated at the start of the text."""
    candidates = headline_candidates(doc)
    if not candidates:
        return []
    texts, lengths = doc.block_columns.texts, doc.block_columns.lengths
    # A block with more words than every candidate repeats none: one word more than the longest is enough to say so.
    enough = max(map(len, candidates)) + 1
    read = first_words if _compiled is None else _compiled.first_words
    found = []
    before = 0
    for position in range(min(HEADLINE_AMONG, len(kept))):
        if before >= HEADLINE_BEFORE_CHARS:
            break
        i = kept.item(position)
        if repeats_title(read(texts[i], enough), candidates):
            found.append(position)
        else:
            before += lengths.item(i)
    return found


def headline_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether it is the headline, repeated at the start of the text (:func:`headline_positions`)."""
    return _mask(len(kept), headline_positions(doc, kept))


# -- furniture lines ---------------------------------------------------------------

#: A furniture line has at most this many words.
FURNITURE_MAX_WORDS = 6
#: Lines that are only furniture, as :func:`words` joined by spaces.
FURNITURE_LINES: frozenset[str] = frozenset(
    {
        # advertising labels
        "advertisement", "advertisements", "advertising", "advert", "ad", "ads", "sponsored",
        "sponsored content", "paid content", "paid post", "promoted", "promoted content",
        "story continues below advertisement", "article continues below advertisement",
        "continue reading below", "continue reading below advertisement", "story continues below",
        "article continues below", "content continues below", "continue reading the main story",
        "anzeige", "werbung", "publicité", "publicite", "publicidad", "anuncio", "pubblicità",
        "pubblicita", "advertentie", "reklame", "reklama", "реклама", "mainos", "annons", "annonse",
        "reklam", "διαφήμιση", "広告", "广告", "광고", "إعلان", "פרסומת", "advertorial",
        # read more, most read, related
        "read more", "read more here", "see more", "show more", "view more", "more", "read next",
        "read this next", "up next", "most read", "most popular", "most viewed", "trending",
        "trending now", "more stories", "more news", "more from", "related", "related articles",
        "related stories", "related content", "related posts", "related news", "related topics",
        "you may also like", "you might also like", "recommended", "recommended for you",
        "recommended stories", "don t miss", "also read", "read also", "see also",
        "mehr lesen", "weiterlesen", "mehr zum thema", "lesen sie auch", "auch interessant",
        "meistgelesen", "meistgelesene artikel", "das könnte sie auch interessieren",
        "lire la suite", "lire aussi", "à lire aussi", "a lire aussi", "les plus lus", "sur le même sujet",
        "leer más", "leer mas", "lea también", "lee también", "más leídas", "mas leidas", "lo más leído",
        "leggi anche", "leggi di più", "più letti", "i più letti", "lees meer", "lees ook", "meest gelezen",
        "leia mais", "leia também", "mais lidas", "czytaj więcej", "czytaj także", "najczęściej czytane",
        "читать далее", "читайте также", "читать также", "популярное", "läs mer", "læs mere", "les mer",
        "devamını oku", "daha fazla", "阅读更多", "相关文章", "続きを読む", "関連記事",
        "подробнее", "читать полностью", "новости партнеров", "czytaj też", "zobacz też", "zobacz także",
        "διαβάστε επίσης", "διαβάστε περισσότερα", "δείτε επίσης", "σχετικά άρθρα", "查看更多", "点击查看",
        "更多精彩", "延伸阅读", "推荐阅读",
        # share and follow
        "share", "share this", "share this article", "share this story", "share this post",
        "share this page", "share article", "share story", "share on facebook", "share on twitter",
        "share via email", "tweet", "follow us", "follow us on", "teilen", "artikel teilen", "partager",
        "partager cet article", "compartir", "compartir en", "condividi", "delen", "dela", "del",
        "udostępnij", "поделиться", "compartilhe", "compartilhar", "paylaş", "分享",
        "поделитесь", "подписывайтесь", "udostępnij artykuł", "κοινοποίηση", "μοιραστείτε", "分享到",
        # newsletters
        "sign up for our newsletter", "subscribe to our newsletter", "sign up to our newsletter",
        "newsletter", "newsletter sign up", "sign up", "subscribe", "subscribe now",
        "get the newsletter", "newsletter abonnieren", "jetzt abonnieren", "abonnez vous",
        "inscrivez vous à notre newsletter", "suscríbete", "suscribete", "iscriviti alla newsletter",
        # paywall prompts
        "subscribe to keep reading", "subscribe to continue reading", "subscribe to read more",
        "subscribe to read the full article", "subscribe now log in", "subscribe or log in",
        "already a subscriber", "already a subscriber log in", "already a subscriber sign in",
        "log in", "sign in", "log in to continue", "sign in to continue", "jetzt weiterlesen",
        "abonnieren und weiterlesen", "déjà abonné", "déjà abonné connectez vous", "ya eres suscriptor",
        # comments and printing
        "print", "print this article", "print article", "email this article", "comments",
        "leave a comment", "view comments", "show comments", "post a comment", "add a comment",
        "kommentare", "commentaires", "comentarios", "commenti", "reacties", "комментарии",
        "advertisement scroll to continue", "scroll to continue with content", "skip advertisement",
    }
)  # fmt: skip
#: Words a share bar is made of: the invitation and the networks.
_SHARE_OPENERS = frozenset(
    {"share", "sharing", "shares", "teilen", "partager", "compartir", "condividi", "delen", "dela",
     "udostępnij", "поделиться", "compartilhe", "compartilhar", "paylaş", "分享"}
)  # fmt: skip
_SHARE_NETWORKS = frozenset(
    {"facebook", "twitter", "x", "whatsapp", "linkedin", "pinterest", "reddit", "email", "e", "mail",
     "print", "telegram", "messenger", "tumblr", "flipboard", "sms", "threads", "bluesky", "mastodon",
     "post", "tweet", "copy", "link", "url", "pocket", "xing", "vk", "weibo", "line", "viber"}
)  # fmt: skip
_SHARE_FILLERS = frozenset({"this", "article", "story", "page", "on", "via", "by", "to", "or", "and", "the", "it"})
#: A box an advert label names holds at most this many characters
#: (its label and the advert's line or two) and this many blocks.
AD_BOX_MAX_CHARS = 500
AD_BOX_MAX_BLOCKS = 4
#: Labels that name an advert box.
_AD_LABELS = frozenset(
    {"advertisement", "advertisements", "advertising", "advert", "ad", "sponsored", "anzeige", "werbung",
     "publicité", "publicite", "publicidad", "anuncio", "pubblicità", "pubblicita", "advertentie",
     "reklame", "reklama", "реклама", "mainos", "annons", "annonse", "reklam", "広告", "广告", "광고"}
)  # fmt: skip
_AD_LABEL_MAX_CHARS = max(len(label) for label in _AD_LABELS)


def share_bar(line: list[str]) -> bool:
    """Whether the words *line* are only a share bar: "Share: Post Email",
    "Share this article Facebook Twitter", "Facebook Twitter Email"."""
    if not line or len(line) > 2 * FURNITURE_MAX_WORDS:
        return False
    networks = openers = 0
    for word in line:  # the three vocabularies are disjoint: a word outside them all ends it
        if word in _SHARE_NETWORKS:
            networks += 1
        elif word in _SHARE_OPENERS:
            openers += 1
        elif word not in _SHARE_FILLERS:
            return False
    return (openers >= 1 and networks >= 1) or networks >= 2 and line[0] in _SHARE_NETWORKS


#: The first word of every furniture line and of every share bar: a line
#: opening with another word is neither, and its other words are not read.
_FURNITURE_FIRST_WORDS = frozenset(
    {line.split(" ")[0] for line in FURNITURE_LINES} | _SHARE_OPENERS | _SHARE_NETWORKS | _SHARE_FILLERS
)


def furniture_line(text: str) -> bool:
    """Whether *text* is a short line that is only furniture (:data:`FURNITURE_LINES`, :func:`share_bar`)."""
    lowered = text.lower()
    first = _WORD.search(lowered)
    if first is None or first.group() not in _FURNITURE_FIRST_WORDS:
        return False
    line = _WORD.findall(lowered)
    if len(line) <= FURNITURE_MAX_WORDS and " ".join(line) in FURNITURE_LINES:
        return True
    return share_bar(line)


def ad_label(text: str) -> bool:
    """Whether *text* is an advert label (:data:`_AD_LABELS`): its words are one label."""
    # A label is one word: a text whose first word is none is not one, and its other words are not read.
    lowered = text.lower()
    first = _WORD.search(lowered)
    return first is not None and first.group() in _AD_LABELS and " ".join(_WORD.findall(lowered)) in _AD_LABELS


def ad_box_ranges(doc: Document, labels: list[int] | None = None) -> list[tuple[int, int]]:
    """The first and last blocks of each small box an advert label names
    (the label's holder, or its parent when the label has a holder of its
    own): the advert beside its "Advertisement" label. The labels are found
    among the blocks short enough to be one and opening with a label
    (:func:`opening_with`), so a long page reads a handful of texts; or
    among *labels* (block indexes), when the caller knows where the boxes
    it looks for may be."""
    blocks, containers = doc.block_columns, doc.container_columns
    texts = blocks.texts
    if labels is None:
        labels = opening_with(texts, None, blocks.chars, _AD_LABEL_MAX_CHARS, _AD_LABELS)
    found = []
    for i in labels:
        if not ad_label(texts[i]):
            continue
        box = int(blocks.holders[i])
        for _ in range(2):
            first, last = int(containers.first_blocks[box]), int(containers.last_blocks[box])
            if last > first:
                break
            box = int(containers.parents[box])
            if box < 0:
                break
        if box < 0:
            continue
        first, last = int(containers.first_blocks[box]), int(containers.last_blocks[box])
        if last - first < AD_BOX_MAX_BLOCKS and int(containers.lengths[box]) <= AD_BOX_MAX_CHARS:
            found.append((first, last))
    return found


def ad_boxes(doc: Document) -> np.ndarray:
    """Per block of *doc*: whether it lies in a small box an advert label names (:func:`ad_box_ranges`)."""
    return _in_ranges(len(doc.block_columns), ad_box_ranges(doc))


def _in_ranges(size: int, ranges: list[tuple[int, int]]) -> np.ndarray:
    """*size* booleans, true from the first to the last index of each of *ranges*."""
    out = np.zeros(size, dtype=bool)
    for first, last in ranges:
        out[first : last + 1] = True
    return out


#: No furniture line or share bar holds more characters than this.
FURNITURE_MAX_CHARS = 160
#: The first word of every furniture line, and the words of a share bar:
#: the compiled screen's two tests (``_convention.LineScreen``).
_FURNITURE_LINE_FIRST_WORDS = frozenset(line.split(" ")[0] for line in FURNITURE_LINES)
_SHARE_BAR_WORDS = _SHARE_OPENERS | _SHARE_NETWORKS | _SHARE_FILLERS


def furniture_candidates(doc: Document, kept: np.ndarray) -> tuple[list[int], list[int] | None]:
    """The positions in *kept* of the blocks :func:`furniture_line` may
    accept: short ones opening with a furniture line's (or a share bar's)
    first word (:func:`opening_with`); when compiled, also only those with
    few enough words for a line, or only a share bar's words (a line
    opening with "the", a share bar's filler, is nearly always prose).
    And the blocks an advert label of a box holding a kept block may be
    (``None``: every block, :func:`ad_box_ranges`); when compiled, only
    those no farther from a kept block than a box holds blocks."""
    blocks = doc.block_columns
    if _SCREEN is None:
        return opening_with(blocks.texts, kept, blocks.chars, FURNITURE_MAX_CHARS, _FURNITURE_FIRST_WORDS), None
    _, lines, _, labels = _screened(doc, kept, furniture=True, labels=True)
    return lines, labels


def furniture_positions(
    doc: Document, kept: np.ndarray, candidates: tuple[list[int], list[int] | None] | None = None
) -> list[int]:
    """The positions in *kept* of the furniture lines (:func:`furniture_line`)
    and of the blocks in an advert's box (:func:`ad_box_ranges`), read on
    *candidates* only (:func:`furniture_candidates` unless the pass read
    them already)."""
    texts = doc.block_columns.texts
    lines, labels = furniture_candidates(doc, kept) if candidates is None else candidates
    found = [position for position in lines if furniture_line(texts[kept.item(position)])]
    boxes = ad_box_ranges(doc, labels)
    if not boxes:
        return found
    inside = np.flatnonzero(_in_ranges(len(doc.block_columns), boxes)[kept]).tolist()
    return sorted(set(found).union(inside))


def furniture_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether it is a furniture line or in an advert's box (:func:`furniture_positions`)."""
    return _mask(len(kept), furniture_positions(doc, kept))


# -- teaser sections -----------------------------------------------------------------

#: Headings that open a section of teasers for other pages: "Related stories",
#: "Most read", "More from <the site>".
TEASER_HEADINGS: frozenset[str] = frozenset(
    {
        "read next", "read this next", "up next", "what to read next", "most read", "most popular",
        "most viewed", "popular", "popular now", "trending", "trending now", "more stories", "more news",
        "latest", "latest news", "latest stories", "latest articles", "top stories", "editor s picks",
        "editors picks", "related", "related articles", "related stories", "related content",
        "related posts", "related news", "related reading", "you may also like", "you might also like",
        "you may be interested in", "recommended", "recommended for you", "recommended stories",
        "don t miss", "also read", "read also", "more on this story", "more on this topic",
        "mehr zum thema", "lesen sie auch", "auch interessant", "meistgelesen", "meistgelesene artikel",
        "das könnte sie auch interessieren", "weitere artikel", "lire aussi", "à lire aussi",
        "a lire aussi", "les plus lus", "sur le même sujet", "à lire également", "articles similaires",
        "lea también", "lee también", "más leídas", "mas leidas", "lo más leído", "noticias relacionadas",
        "te puede interesar", "también te puede interesar", "leggi anche", "più letti", "i più letti",
        "articoli correlati", "potrebbe interessarti", "lees ook", "meest gelezen", "meer nieuws",
        "gerelateerde artikelen", "leia também", "mais lidas", "notícias relacionadas",
        "czytaj także", "zobacz też", "zobacz także", "najczęściej czytane", "powiązane artykuły",
        "читайте также", "по теме", "похожие статьи", "самое читаемое", "новости по теме", "популярное",
        "другие новости", "последние новости", "материалы по теме", "рекомендуем", "czytaj też", "polecamy",
        "najnowsze", "διαβάστε επίσης", "δείτε επίσης", "σχετικά άρθρα", "δημοφιλή", "τελευταία νέα",
        "相关文章", "相关阅读", "相关新闻", "延伸阅读", "推荐阅读", "热门推荐", "猜你喜欢", "関連記事", "おすすめ記事",
        "관련 기사",
    }
)  # fmt: skip
#: ... and those that name what follows: "More from Northgate", "Mehr aus Berlin".
_TEASER_OPENINGS = re.compile(
    r"^(?:more|latest|most read|top stories) (?:from|in|on|about)\b|^(?:mehr|neues|weitere) (?:aus|zu|von)\b|"
    r"^(?:plus|d autres articles) (?:de|d|sur)\b|^más (?:de|sobre)\b|^altro da\b|^meer (?:uit|over)\b|"
    r"^(?:ещё|еще|больше) (?:из|о)\b"
)
#: The first words of :data:`_TEASER_OPENINGS`' lines (each alternative's words before its first space).
_TEASER_OPENING_WORDS = frozenset(
    {"more", "latest", "most", "top", "mehr", "neues", "weitere", "plus", "d", "más", "altro", "meer",
     "ещё", "еще", "больше"}
)  # fmt: skip
#: The first word of every teaser heading: a line opening with another is none
#: (the compiled screen reads no other, ``_convention.LineScreen``).
_TEASER_FIRST_WORDS = frozenset(heading.split(" ")[0] for heading in TEASER_HEADINGS) | _TEASER_OPENING_WORDS
#: A teaser heading is at most this long (six words; "Das könnte Sie auch interessieren" is 29).
TEASER_HEADING_MAX_CHARS = 60
#: A teaser heading comes after this many characters of kept text: the body has begun.
TEASERS_AFTER_CHARS = 200
#: Its section links to other pages: at least this share of the characters
#: after the heading is link text, in at least this many blocks.
TEASER_LINK_SHARE = 0.15
TEASER_MIN_LINKS = 2


def teaser_heading(text: str) -> bool:
    """Whether *text* is a heading that opens teasers for other pages."""
    line = words(text)
    if not line or len(line) > FURNITURE_MAX_WORDS:
        return False
    joined = " ".join(line)
    return joined in TEASER_HEADINGS or bool(_TEASER_OPENINGS.match(joined))


def teaser_candidates(doc: Document, kept: np.ndarray) -> list[int]:
    """The positions in *kept* of the blocks :func:`teaser_heading` may
    accept where the teaser rule looks: short ones after
    :data:`TEASERS_AFTER_CHARS` of kept text; when compiled, only those
    opening with a teaser heading's first word (:data:`_TEASER_FIRST_WORDS`)."""
    blocks = doc.block_columns
    if _SCREEN is None:
        lengths = blocks.lengths[kept]
        before = np.cumsum(lengths) - lengths
        short = blocks.chars[kept] <= TEASER_HEADING_MAX_CHARS
        return np.flatnonzero((before >= TEASERS_AFTER_CHARS) & short).tolist()
    return _screened(doc, kept, teasers=True)[2]


def teaser_positions(doc: Document, kept: np.ndarray, candidates: list[int] | None = None) -> list[int]:
    """The positions in *kept* of the blocks in a section of teasers after
    the body. The section is the box its heading opens (the nearest container
    around the heading whose first block is the heading and which holds
    more), and it must link out: teasers are links to other pages. A
    heading in no such box is left to the furniture lines. The headings are
    read among *candidates* (:func:`teaser_candidates` unless the pass read
    them already)."""
    blocks, containers = doc.block_columns, doc.container_columns
    found: set[int] = set()
    end = -1
    for position in teaser_candidates(doc, kept) if candidates is None else candidates:
        i = kept.item(position)
        if i <= end or not teaser_heading(blocks.texts[i]):
            continue
        box = int(blocks.holders[i])
        for _ in range(CAPTION_DEPTH):
            if box < 0 or int(containers.first_blocks[box]) != i:
                box = -1
                break
            if int(containers.last_blocks[box]) > i:
                break
            box = int(containers.parents[box])
        if box < 0 or int(containers.last_blocks[box]) <= i:
            continue
        last = int(containers.last_blocks[box])
        chars, anchors = blocks.chars[i + 1 : last + 1], blocks.anchor_chars[i + 1 : last + 1]
        if int(np.count_nonzero(anchors)) < TEASER_MIN_LINKS or anchors.sum() < TEASER_LINK_SHARE * chars.sum():
            continue
        found.update(np.flatnonzero((kept >= i) & (kept <= last)).tolist())
        end = last
    return sorted(found)


def teaser_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether it lies in a section of teasers after the body (:func:`teaser_positions`)."""
    return _mask(len(kept), teaser_positions(doc, kept))


# -- bylines and datelines -------------------------------------------------------

#: A byline or dateline is looked for among this many first kept blocks...
BYLINE_AMONG = 6
#: ... before this many characters of kept text (the body has begun)...
BYLINE_BEFORE_CHARS = 600
#: ... and is at most this long.
BYLINE_MAX_CHARS = 200
BYLINE_MAX_WORDS = 16

#: "By" and a capitalised name, in a few languages (case kept: "by the
#: river" is not a byline; the name may be all capitals).
_BYLINE = re.compile(
    r"^(?:[Bb]y|BY|[Vv]on|VON|[Pp]ar|PAR|[Pp]or|POR|[Dd]oor|DOOR|[Pp]rzez|Автор)\s*:?\s+[A-ZÀ-ÖØ-ÞА-Я]"
)
#: A byline does not end as a sentence does ("By then, the roads had closed.").
_SENTENCE_END = re.compile(r"(?:[a-z]{3}[.!?]|[!?])\s*$")
_DATELINE = re.compile(
    r"^(?:published|updated|posted|last\s+updated|last\s+modified|modified|first\s+published|"
    r"veröffentlicht|aktualisiert|erstellt|stand|publié|mis\s+à\s+jour|publicado|actualizado|"
    r"pubblicato|aggiornato|gepubliceerd|bijgewerkt|opublikowano|zaktualizowano|опубликовано|обновлено)\b",
    re.I,
)
_DATE_WORDS = frozenset(
    {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
        "january", "february", "march", "april", "june", "july", "august", "september", "october",
        "november", "december", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "am", "pm",
        "gmt", "utc", "bst", "cet", "cest", "est", "edt", "et", "pt", "pst", "pdt", "at", "on", "of",
        "updated", "published", "posted", "ago", "hours", "hour", "minutes", "min", "mins", "days",
        "day", "yesterday", "today", "h", "uhr", "le", "à", "de", "del", "um", "den",
        "januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "janvier",
        "février", "mars", "avril", "juin", "juillet", "août", "septembre", "octobre", "novembre",
        "décembre", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
        "septiembre", "octubre", "noviembre", "diciembre",
    }
)  # fmt: skip


#: Months and weekdays, a date's named words.
_DATE_NAMES = _DATE_WORDS - frozenset(
    {"am", "pm", "gmt", "utc", "bst", "cet", "cest", "est", "edt", "et", "pt", "pst", "pdt", "at", "on", "of",
     "updated", "published", "posted", "ago", "hours", "hour", "minutes", "min", "mins", "days", "day",
     "yesterday", "today", "h", "uhr", "le", "à", "de", "del", "um", "den", "mar", "may", "sun", "sat"}
)  # fmt: skip


def byline_text(text: str) -> bool:
    """Whether *text* reads as a byline ("By Jane Doe, Reuters"), a dateline
    ("PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: ...") or a bare date
    and time: short, and not a sentence (a byline does not end on a stop)."""
    if len(text) > BYLINE_MAX_CHARS:
        return False
    line = words(text)
    if not line or len(line) > BYLINE_MAX_WORDS:
        return False
    if _DATELINE.match(text) and any(ch.isdigit() for ch in text):
        return True
    if _BYLINE.match(text):
        return not _SENTENCE_END.search(text)
    return mostly_date(line, text)


#: A date or a time in figures: "19.11.2019", "2019-11-19", "10:48", a year.
_DATE_FIGURES = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}:\d{2}|\b(?:19|20)\d{2}\b")


def mostly_date(line: list[str], text: str) -> bool:
    """Whether the words *line* of *text* are a date and time and little
    else: a date in figures or a month's or a weekday's name with a
    number, every other word a date's ("Tue, Nov 19, 2019 10:48 GMT")."""
    if len(line) < 2 or not any(word.isdigit() for word in line):
        return False
    named = any(word in _DATE_NAMES for word in line)
    if not named and not _DATE_FIGURES.search(text):
        return False
    return sum(word.isdigit() or word in _DATE_WORDS for word in line) >= 0.8 * len(line)


def byline_positions(doc: Document, kept: np.ndarray) -> list[int]:
    """The positions in *kept* of the bylines and datelines before the body."""
    texts, lengths = doc.block_columns.texts, doc.block_columns.lengths
    found = []
    before = 0
    for position, i in enumerate(kept[:BYLINE_AMONG].tolist()):
        if before >= BYLINE_BEFORE_CHARS:
            break
        if byline_text(texts[i]):
            found.append(position)
        else:
            before += int(lengths[i])
    return found


def byline_drops(doc: Document, kept: np.ndarray) -> np.ndarray:
    """Per kept block: whether it is a byline or dateline before the body (:func:`byline_positions`)."""
    return _mask(len(kept), byline_positions(doc, kept))


# -- the pass ------------------------------------------------------------------------

#: The short-line rules' screen, compiled when built (``_convention.LineScreen``).
_SCREEN = (
    None
    if _CREDIT_SCREEN is None
    else _compiled.LineScreen(
        _CREDIT_SCREEN,
        FURNITURE_MAX_CHARS,
        _FURNITURE_LINE_FIRST_WORDS,
        _SHARE_BAR_WORDS,
        FURNITURE_MAX_WORDS,
        initials(_FURNITURE_FIRST_WORDS),
        TEASERS_AFTER_CHARS,
        TEASER_HEADING_MAX_CHARS,
        _TEASER_FIRST_WORDS,
        initials(_TEASER_FIRST_WORDS),
        _AD_LABEL_MAX_CHARS,
        _AD_LABELS,
        initials(_AD_LABELS),
        AD_BOX_MAX_BLOCKS - 1,
    )
)


def _screened(
    doc: Document,
    kept: np.ndarray,
    credit: bool = False,
    furniture: bool = False,
    teasers: bool = False,
    labels: bool = False,
) -> tuple[list[int], list[int], list[int], list[int]]:
    """:data:`_SCREEN`'s candidates for the rules asked for (none for the others):
    the credits', the furniture lines', the teaser headings' and the advert labels'."""
    blocks, screen = doc.block_columns, _SCREEN
    if screen is None:
        raise RuntimeError("the compiled screen is not built")
    found: tuple[list[int], list[int], list[int], list[int]] = screen.candidates(
        blocks.texts, _int64(kept), blocks.chars, blocks.lengths, credit, furniture, teasers, labels
    )
    return found


def convention_positions(
    doc: Document,
    kept: np.ndarray,
    include_title: bool = False,
    include_captions: bool = False,
    article: bool = True,
    rules: tuple[str, ...] = APPLIED_RULES,
) -> dict[str, list[int]]:
    """Per rule of *rules* (of :data:`RULES`) that applies, the positions
    in *kept* (block indexes in document order), ascending, of the blocks
    the rule drops (each rule looks at all of *kept*, so a rule's own
    effect can be measured alone). *include_title* keeps the headline.
    *include_captions* keeps captions and credit lines. Captions, credits,
    teaser sections and bylines are only dropped on an *article*: on a
    collection or a listing a figure's caption is the item's own text (a
    gallery's works, a catalogue's products), and a forum post's "by" line
    is the post's."""
    if not len(kept):
        return {}
    drops: dict[str, list[int]] = {}
    captions = article and not include_captions
    # No article keeps this many blocks: on such a page the rules that walk the markup of every
    # kept block are skipped, so its memory stays that of the scoring.
    walk = len(kept) <= ARTICLE_MAX_BLOCKS
    credit = captions and "credit" in rules
    furniture = "furniture" in rules
    teasers = article and walk and "teasers" in rules
    # The short-line rules' candidates, read in one pass when compiled.
    screened = None
    if _SCREEN is not None and (credit or furniture or teasers):
        screened = _screened(doc, kept, credit, furniture, teasers, furniture)
    if captions and walk and "caption" in rules:
        drops["caption"] = caption_positions(doc, kept)
    if credit:
        drops["credit"] = credit_positions(doc, kept, None if screened is None else screened[0])
    if "headline" in rules and not include_title:
        drops["headline"] = headline_positions(doc, kept)
    if furniture:
        drops["furniture"] = furniture_positions(doc, kept, None if screened is None else (screened[1], screened[3]))
    if teasers:
        drops["teasers"] = teaser_positions(doc, kept, None if screened is None else screened[2])
    if article and "byline" in rules:
        drops["byline"] = byline_positions(doc, kept)
    return drops


def convention_drops(
    doc: Document,
    kept: np.ndarray,
    include_title: bool = False,
    include_captions: bool = False,
    article: bool = True,
    rules: tuple[str, ...] = APPLIED_RULES,
) -> dict[str, np.ndarray]:
    """Per rule of *rules* that applies, a boolean per kept block saying
    whether the rule drops it (:func:`convention_positions`)."""
    positions = convention_positions(doc, kept, include_title, include_captions, article, rules)
    return {rule: _mask(len(kept), found) for rule, found in positions.items()}


def follow_convention(
    doc: Document,
    kept: np.ndarray,
    include_title: bool = False,
    include_captions: bool = False,
    article: bool = True,
    rules: tuple[str, ...] = APPLIED_RULES,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """*kept* without what :func:`convention_positions` drops, and the dropped
    block indexes per rule. A page the convention would empty keeps its
    blocks: a page that is only a caption is that caption. The rules'
    positions are read as lists: on most pages they drop nothing, or a
    handful, and a numpy call per rule cost more than that."""
    positions = convention_positions(doc, kept, include_title, include_captions, article, rules)
    dropped = set().union(*positions.values())
    if not dropped or len(dropped) == len(kept):
        return kept, {}
    keep = np.ones(len(kept), dtype=bool)
    keep[list(dropped)] = False
    return kept[keep], {rule: kept[found] for rule, found in positions.items() if found}
