"""Article or hub? A small scored rule set over signals every news page carries.

A news crawl fetches many pages that are not stories: the home page,
sections, tag and author pages, pagination. They are how the crawl finds
stories, but their "main text" is a list of teasers, so the ``news`` spider
follows them and emits items only for articles.

Each rule looks at one signal and adds or subtracts points; a page is an
article when the sum reaches :data:`ARTICLE_THRESHOLD`. The signals, strongest
first:

==========================  ======  ===============================================
signal                      points  why
==========================  ======  ===============================================
``og:type`` = article       +3      publishers set it for link previews
predicted page type         +2/-2   article / listing or collection
                                    (:mod:`webclean_scrapy.engine.page_type`: a
                                    classifier over the whole page's markup,
                                    URL and words, 90% accurate on today's
                                    pages)
``og:type`` other           -1      ``website`` is what CMSs put on listings
JSON-LD article type        +3      ``NewsArticle``, ``Article``, ``BlogPosting``...
                                    at top level or in ``@graph``
JSON-LD listing type        -2      ``CollectionPage``, ``ItemList``... (only when
                                    no article type is present)
date in the URL path        +2      ``/2024/05/12/``, ``/2024-05-12-``
long slug                   +1      last segment of 4+ words, 20+ characters
numeric id                  +1      a 5+ digit segment or query value
hub URL                     -3      home page, ``/tag/``, ``/category/``,
                                    ``/section/``, ``/author/``, ``/page/2``,
                                    ``?page=2``
one-segment URL             -1      ``/world/``: section-shaped, no slug/date/id
main text >= 1500 chars     +1      stories are long
main text < 300 chars       -2      too little to be a story
main text 30%+ linked       -2      a listing: its text is linked headlines
                                    (:func:`linked_share`; 15%+: -1)
main text <= 5% linked      +1      a story: a few inline links at most
prose >= 60% of main text   +1      paragraphs (:func:`prose_share`; <= 20%: -1)
listed as a story           +2      a listing of the site links to the page with
                                    a teaser headline that is its title (the
                                    crawl knows it: :func:`headline_matches`)
==========================  ======  ===============================================

Characters are counted without whitespace. The link density is that of the
extracted text, not of the whole page: a site's menu inflates the page's
link text on every page and made short stories into hubs. Each rule is a
plain function of :class:`PageSignals`, so the rule set is easy to test and
to extend; ``benchmarks/news_rules.py`` measures it on ``wcxb-dev``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from lxml import etree

from webclean_scrapy.engine.page_type import HUB_PAGE_TYPES

#: A page scoring at least this many points is an article.
ARTICLE_THRESHOLD = 2

#: schema.org types that mark one story (compared lower-cased).
ARTICLE_TYPES: frozenset[str] = frozenset(
    """
    article newsarticle blogposting reportagenewsarticle analysisnewsarticle opinionnewsarticle
    reviewnewsarticle backgroundnewsarticle askpublicnewsarticle liveblogposting techarticle
    scholarlyarticle report satiricalarticle
    """.split()
)
#: schema.org types that mark a listing of stories.
LISTING_TYPES: frozenset[str] = frozenset({"collectionpage", "itemlist", "searchresultspage", "profilepage"})

#: Path segments that introduce listings.
HUB_SEGMENTS: frozenset[str] = frozenset(
    """
    tag tags category categories section sections topic topics author authors archive archives
    label labels search page
    """.split()
)
#: Query parameters that paginate a listing.
PAGINATION_PARAMS: frozenset[str] = frozenset({"page", "p", "paged", "pg", "pagenum", "start", "offset"})

#: JSON-LD blocks larger than this are not parsed (they are data dumps, not page metadata).
MAX_JSONLD_CHARS = 200_000

_DATE = re.compile(r"/(?:19|20)\d\d(?:/(?:0?[1-9]|1[0-2])(?:/(?:0?[1-9]|[12]\d|3[01]))?/|-\d\d-\d\d)")
_NUMERIC_ID = re.compile(r"(?<![0-9])[0-9]{5,}(?![0-9])")
_INDEX_PAGE = re.compile(r"^(?:index|default|home)\.(?:html?|php|aspx?)$", re.I)
_EXTENSION = re.compile(r"\.(?:html?|php|aspx?|jsp|cms)$", re.I)


def nonspace_chars(text: str) -> int:
    """Characters of *text* other than whitespace."""
    return len("".join(text.split()))


@dataclass(frozen=True, slots=True)
class PageSignals:
    """What the rules look at, gathered from one parsed page."""

    url: str
    og_type: str | None = None
    jsonld_types: frozenset[str] = frozenset()
    #: Non-whitespace characters of the extracted main text.
    text_chars: int = 0
    #: Non-whitespace characters inside all ``<a>`` elements of the page.
    link_chars: int = 0
    #: The predicted page type (``Extraction.page_type``), if known.
    page_type: str | None = None
    #: Share of the main text's word characters that are the text of a link
    #: (:func:`linked_share`): high on a listing, whose text is headlines.
    text_link_share: float = 0.0
    #: Share of the main text in prose lines (:func:`prose_share`).
    prose_share: float = 0.0
    #: A listing of the site links to the page with a headline that is its title
    #: (:func:`headline_matches`; known to a crawl, not to a single page).
    listed_as_story: bool = False

    @classmethod
    def from_selector(
        cls, selector: Any, url: str, text: str, page_type: str | None = None, *, listed_as_story: bool = False
    ) -> PageSignals:
        """Read the signals from a parsel/Scrapy selector of the page (no reparse).

        *text* is the extracted main text (``Extraction.text``), *page_type*
        its ``Extraction.page_type``.
        """
        return cls.from_root(selector.root, url, text, page_type, listed_as_story=listed_as_story)

    @classmethod
    def from_root(
        cls,
        root: Any,
        url: str,
        text: str,
        page_type: str | None = None,
        *,
        listed_as_story: bool = False,
        anchors: Sequence[str] | None = None,
    ) -> PageSignals:
        """Read the signals from the page's lxml root (what extraction workers hold).

        *anchors*: the text of every ``<a>`` of the page, in document order
        (``" ".join(a.itertext())``), when the caller walked them already
        (:func:`~webclean_scrapy.offload.outline.page_outline` does, for the links).
        """
        og_type = next(iter(_OG_TYPE(root)), None)
        if anchors is None:
            anchors = [" ".join(a.itertext()) for a in root.iter("a")] if hasattr(root, "iter") else []
        return cls(
            url=url,
            og_type=str(og_type).strip().lower() if og_type else None,
            jsonld_types=frozenset(jsonld_types(str(b) for b in _JSONLD(root))),
            text_chars=nonspace_chars(text),
            link_chars=sum(nonspace_chars(a) for a in anchors),
            text_link_share=linked_share(text, anchors),
            prose_share=prose_share(text),
            page_type=page_type,
            listed_as_story=listed_as_story,
        )


_OG_TYPE = etree.XPath('//meta[@property="og:type" or @name="og:type"]/@content')
_JSONLD = etree.XPath('//script[contains(@type, "ld+json")]/text()')


#: Links shorter than this (in words) are not matched in the main text: "World", "Read more"
#: are navigation words that also occur in prose; headlines are longer.
MIN_LINK_WORDS = 3
_WORD = re.compile(r"\w+")


def linked_share(text: str, anchors: Iterable[str]) -> float:
    """The share of *text*'s word characters that belong to one of *anchors* (link texts).

    A listing's main text is mostly its teasers' linked headlines; a story's
    has a few inline links at most. This is the link density of the
    extracted text itself, unlike the whole page's, which a large menu
    inflates on every page of a site. Links of :data:`MIN_LINK_WORDS` words
    or more are matched as whole word sequences, in one pass over the text
    (an index on each link's first words), so the cost is linear.
    """
    index: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for anchor in anchors:
        anchor_words = tuple(_WORD.findall(anchor.lower()))
        if len(anchor_words) >= MIN_LINK_WORDS:
            index.setdefault(anchor_words[:MIN_LINK_WORDS], set()).add(anchor_words)
    words = _WORD.findall(text.lower())
    total = sum(map(len, words))
    if not index or not total:
        return 0.0
    linked = 0
    i, end = 0, len(words) - MIN_LINK_WORDS + 1
    while i < end:
        candidates = index.get(tuple(words[i : i + MIN_LINK_WORDS]))
        match = (
            max((c for c in candidates if tuple(words[i : i + len(c)]) == c), key=len, default=None)
            if candidates
            else None
        )
        if match is None:
            i += 1
            continue
        linked += sum(map(len, match))
        i += len(match)
    return linked / total


#: A line of the main text this long (characters), ending a sentence, is prose.
PROSE_LINE_CHARS = 100
_SENTENCE_END = re.compile(r"[.!?\u2026\u3002][\"'\u201d\u2019)\]]*\s*$")


def prose_share(text: str) -> float:
    """The share of *text* (non-space characters) in lines of prose: long lines that end a sentence.

    A story is paragraphs; a listing is headlines, dates and one-line
    teasers. Lines are the extractor's blocks (``Extraction.text`` puts one
    block per line).
    """
    total = nonspace_chars(text)
    if not total:
        return 0.0
    prose = sum(
        nonspace_chars(line)
        for line in text.splitlines()
        if len(line) >= PROSE_LINE_CHARS and _SENTENCE_END.search(line)
    )
    return prose / total


_LETTERS = re.compile(r"[^\W\d_]+")


def headline_word_list(text: str) -> list[str]:
    """The words of a headline or title, in order, lower-cased (digits and punctuation dropped)."""
    return _LETTERS.findall(text.lower())


def headline_words(text: str) -> set[str]:
    return set(headline_word_list(text))


def headline_matches(anchor: str, title: str) -> bool:
    """Whether a link's text names a page with this *title*: 3+ shared words, covering
    most (60%) of the shorter of the two (teasers add a kicker or drop the site name)."""
    a, t = headline_words(anchor), headline_words(title)
    shared = len(a & t)
    return shared >= MIN_LINK_WORDS and shared >= 0.6 * min(len(a), len(t))


def jsonld_types(blocks: Iterable[str]) -> Iterator[str]:
    """Lower-cased ``@type`` values of the top-level JSON-LD nodes (and ``@graph`` members).

    Nested nodes are ignored on purpose: an article names its publisher (an
    ``Organization``), and a listing may embed the ``NewsArticle`` teasers it
    lists. Malformed JSON is skipped.
    """
    for block in blocks:
        if len(block) > MAX_JSONLD_CHARS:
            continue
        try:
            data = json.loads(block, strict=False)
        except ValueError:
            continue
        nodes = data if isinstance(data, list) else [data]
        for node in nodes:
            if not isinstance(node, dict):
                continue
            graph = node.get("@graph")
            members = [node] + (graph if isinstance(graph, list) else [])
            for member in members:
                if not isinstance(member, dict):
                    continue
                kind = member.get("@type")
                for name in kind if isinstance(kind, list) else [kind]:
                    if isinstance(name, str):
                        yield name.rsplit("/", 1)[-1].lower()


# -- the rules ----------------------------------------------------------


#: The last segment of a section's folder address: one word of letters.
_SECTION_WORD = re.compile(r"[^\W\d_]{2,30}")


def _path_segments(url: str) -> list[str]:
    return [s for s in urlsplit(url).path.split("/") if s]


def rule_og_type(s: PageSignals) -> int:
    if s.og_type is None:
        return 0
    return 3 if s.og_type == "article" or s.og_type.endswith(":article") else -1


def rule_jsonld(s: PageSignals) -> int:
    if s.jsonld_types & ARTICLE_TYPES:
        return 3
    return -2 if s.jsonld_types & LISTING_TYPES else 0


def rule_url_date(s: PageSignals) -> int:
    return 2 if _DATE.search(urlsplit(s.url).path + "/") else 0


def _last_slug(url: str) -> str:
    segments = _path_segments(url)
    return _EXTENSION.sub("", segments[-1]) if segments else ""


def rule_url_slug(s: PageSignals) -> int:
    slug = _last_slug(s.url)
    words = [w for w in re.split(r"[-_+]", slug) if w]
    return 1 if len(words) >= 4 and len(slug) >= 20 else 0


def rule_url_id(s: PageSignals) -> int:
    parts = urlsplit(s.url)
    values = [v for _, v in parse_qsl(parts.query)]
    return 1 if any(_NUMERIC_ID.search(x) for x in [parts.path, *values]) else 0


def is_hub_url(url: str) -> bool:
    """Whether *url* is shaped like a listing: the home page, ``/tag/...``, ``/page/2``, ``?page=2``..."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if not segments or (len(segments) == 1 and _INDEX_PAGE.match(segments[0]) and not parts.query):
        return True  # the home page (``/index.php?id=123`` is a page of a site without pretty URLs)
    lowered = [s.lower() for s in segments]
    for i, segment in enumerate(lowered):
        if segment == "page":  # /page/2 is pagination, "page" alone may be a slug word
            if i + 1 < len(lowered) and lowered[i + 1].isdigit():
                return True
        elif segment in HUB_SEGMENTS:
            return True
    return any(k.lower() in PAGINATION_PARAMS and v.isdigit() for k, v in parse_qsl(parts.query))


def rule_page_type(s: PageSignals) -> int:
    if s.page_type == "article":
        return 2
    return -2 if s.page_type in HUB_PAGE_TYPES else 0


def rule_hub_url(s: PageSignals) -> int:
    return -3 if is_hub_url(s.url) else 0


def rule_section_url(s: PageSignals) -> int:
    """A section's address: one segment (``/sport``), or a folder named by one word (``/news/local/``)."""
    segments = _path_segments(s.url)
    if is_hub_url(s.url) or not segments:
        return 0
    folder = urlsplit(s.url).path.endswith("/") and _SECTION_WORD.fullmatch(segments[-1]) is not None
    if len(segments) != 1 and not folder:
        return 0
    if rule_url_slug(s) or rule_url_id(s) or rule_url_date(s):
        return 0
    return -1


def rule_text_length(s: PageSignals) -> int:
    if s.text_chars >= 1500:
        return 1
    return -2 if s.text_chars < 300 else 0


def rule_link_density(s: PageSignals) -> int:
    if s.text_link_share >= 0.3:
        return -2
    if s.text_link_share >= 0.15:
        return -1
    return 1 if s.text_link_share <= 0.05 else 0


def rule_prose(s: PageSignals) -> int:
    if s.prose_share >= 0.6:
        return 1
    return -1 if s.prose_share <= 0.2 else 0


def rule_listed(s: PageSignals) -> int:
    return 2 if s.listed_as_story else 0


Rule = Callable[[PageSignals], int]

#: The rule set, by name (the names appear in :attr:`Verdict.reasons`).
RULES: dict[str, Rule] = {
    "og_type": rule_og_type,
    "jsonld": rule_jsonld,
    "page_type": rule_page_type,
    "url_date": rule_url_date,
    "url_slug": rule_url_slug,
    "url_id": rule_url_id,
    "hub_url": rule_hub_url,
    "section_url": rule_section_url,
    "text_length": rule_text_length,
    "link_density": rule_link_density,
    "prose": rule_prose,
    "listed": rule_listed,
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The classification of one page, with the rules that fired."""

    is_article: bool
    score: int
    #: ``"rule:+points"`` for every rule that scored, in rule order.
    reasons: tuple[str, ...]

    @property
    def kind(self) -> str:
        return "article" if self.is_article else "hub"


def classify(
    signals: PageSignals, *, threshold: int = ARTICLE_THRESHOLD, rules: dict[str, Rule] | None = None
) -> Verdict:
    """Score *signals* with *rules* (default :data:`RULES`)."""
    score = 0
    reasons = []
    for name, rule in (rules or RULES).items():
        points = rule(signals)
        if points:
            score += points
            reasons.append(f"{name}:{points:+d}")
    return Verdict(score >= threshold, score, tuple(reasons))


def content_fingerprint(text: str, title: str = "") -> str:
    """A hash of the title and main text that ignores case and whitespace, for duplicate detection.

    The title is part of it because two stories can extract to the same
    text when the extractor keeps only what their pages share (a short
    story beside a longer "about us" box or teaser list; an empty text):
    without it the second story was a false duplicate. Real duplicates (a
    print copy, a URL variant without ``rel=canonical``) are served by the
    same template with the same title.
    """
    normalised = " ".join(title.lower().split()) + "\n" + " ".join(text.lower().split())
    return hashlib.sha1(normalised.encode("utf-8")).hexdigest()
