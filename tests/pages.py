"""Page builders the tests share: small HTML pages made for the purpose, each laid out like one kind of real site.

One module, so that a page several tests need is written once; each builder
returns exactly the markup its tests were written against, so their
assertions (kept and dropped blocks, word counts) hold.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from http_server import TestSite


#: Fixed sample pages the tests read, one file each (the builders below make the pages that vary).
SAMPLE_DATA = Path(__file__).resolve().parent / "sample_data"


def sample_page(name: str) -> str:
    """The text of ``tests/sample_data/<name>`` (UTF-8, as written)."""
    return (SAMPLE_DATA / name).read_text(encoding="utf-8")


def sample_bytes(name: str) -> bytes:
    """The bytes of ``tests/sample_data/<name>``, for a test that serves or parses bytes as they are."""
    return (SAMPLE_DATA / name).read_bytes()


WORDS = "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 \u201cquoted\u201d words of a paragraph long enough to be kept."


def charset_page(head: str = "", extra: str = "") -> str:
    return (
        f"<html><head>{head}<title>Title</title></head><body><article><h1>Heading</h1>"
        f"<p>{WORDS} First.</p>{extra}<p>{WORDS} Second, with more words in it.</p></article></body></html>"
    )


#: One news paragraph per language, and the legacy charsets a page in it was
#: published in before UTF-8 (a probe of real pages: 37 such pages, 9 right under
#: the old Windows-1252 fallback, 35 under the browser's detector).
LEGACY_PAGES = {
    "ru": (
        "Городской совет во вторник утвердил новый план велосипедных дорожек после дебатов, "
        "которые длились почти четыре часа. По словам мэра, работы начнутся летом.",
        ["cp1251", "koi8-r", "iso-8859-5"],
    ),
    "el": (
        "Το δημοτικό συμβούλιο ενέκρινε την Τρίτη το νέο σχέδιο ποδηλατοδρόμων, μετά από "
        "συζήτηση που διήρκεσε σχεδόν τέσσερις ώρες.",
        ["cp1253"],
    ),
    "ar": (
        "وافق المجلس البلدي يوم الثلاثاء على الخطة الجديدة لمسارات الدراجات، بعد نقاش استمر قرابة أربع ساعات.",
        ["cp1256"],
    ),
    "ja": (
        "市議会は火曜日、約四時間に及ぶ議論の末、新しい自転車道計画を承認した。市長によると、工事は夏に始まる。",
        ["shift_jis", "euc-jp"],
    ),
    "zh": ("市议会周二在经过近四个小时的辩论后批准了新的自行车道计划。市长表示，工程将于夏季开始。", ["gbk"]),
    "ko": ("시의회는 화요일 거의 네 시간에 걸친 토론 끝에 새로운 자전거 도로 계획을 승인했다.", ["euc-kr"]),
    "pl": (
        "Rada miasta zatwierdziła we wtorek nowy plan ścieżek rowerowych, po debacie, która trwała "
        "prawie cztery godziny. Według prezydenta prace rozpoczną się latem.",
        ["cp1250", "iso-8859-2"],
    ),
    "tr": (
        "Belediye meclisi salı günü yaklaşık dört saat süren bir tartışmanın ardından yeni bisiklet "
        "yolu planını onayladı.",
        ["cp1254"],
    ),
    # Western pages stay Windows-1252, curly quotes and all.
    "de": (
        "Der Stadtrat hat am Dienstag den neuen Radverkehrsplan beschlossen. „Das ist ein großer "
        "Schritt für unsere Straßen“, sagte die Bürgermeisterin über die Brücke.",
        ["cp1252"],
    ),
    "pt": (
        "A câmara municipal aprovou na terça-feira o novo plano de ciclovias, após um debate que "
        "durou quase quatro horas. A oposição não ficou satisfeita com a decisão.",
        ["cp1252"],
    ),
}


def legacy_page(text: str) -> str:
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(6))
    return (
        f"<html><head><title>News</title></head><body><ul>{nav}</ul>"
        f"<article><h1>News</h1><p>{text}</p><p>{text}</p></article></body></html>"
    )


#: Czech in Windows-1250, which differs from ISO-8859-2 in a few letters and
#: signs (0xA9 is "©" in one and "Š" in the other): without a hint the
#: detector takes this page for ISO-8859-2.
CZECH_TEXT = (
    "Městské zastupitelstvo v úterý schválilo nový plán cyklostezek po debatě, která trvala téměř "
    "čtyři hodiny. Podle primátora práce začnou v létě a budou stát asi dvanáct milionů korun. "
    "Obyvatelé jsou spokojeni, ale majitelé obchodů mají obavy z úbytku parkovacích míst."
)

CZECH_PAGE = (
    f"<html><head><title>{CZECH_TEXT[:40]}</title></head><body><h1>{CZECH_TEXT[:50]}</h1><p>{CZECH_TEXT}</p>"
    f"<p>{CZECH_TEXT}</p><footer>© 2024 Example Media · <a href='/privacy'>Privacy</a></footer></body></html>"
)


HEADLINE = "Câmara aprova o plano de ciclovias após debate"


def headline_page(text: str, headline: str = HEADLINE, head: str = "") -> str:
    return (
        f"<html><head>{head}<title>{headline}</title></head><body><nav><a href='/'>Início</a></nav>"
        f"<article><h1>{headline}</h1><p>{text}</p><p>{text}</p></article></body></html>"
    )


def layout_page(nav: list[str], title: str, paragraphs: list[str], side: list[str], footer: str) -> bytes:
    links = "".join(f'<li><a href="/c{i}">{name}</a></li>' for i, name in enumerate(nav))
    popular = "".join(f'<li><a href="/s{i}">{name}</a></li>' for i, name in enumerate(side))
    body = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    return (
        f'<html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f'<div class="header"><ul class="nav">{links}</ul></div>'
        f'<div class="main"><h1>{title}</h1>{body}</div>'
        f'<div class="sidebar"><ul>{popular}</ul></div>'
        f'<div class="footer">{footer}</div></body></html>'
    ).encode()


ARTICLE_P1 = (
    "The river authority confirmed on Tuesday that the old stone bridge will close for repairs, "
    "after engineers found cracks in two of its seven arches during a routine inspection."
)

ARTICLE_P2 = (
    "Traffic will be diverted through the northern ring road, which the council says can absorb "
    "the extra cars, although residents of the valley fear long queues at the morning peak."
)

ARTICLE_P3 = (
    "Work is expected to take eleven weeks. The authority said the repairs would keep the bridge's "
    "historic appearance, using stone from the same quarry that supplied the original builders."
)


def gazette_article(title: str = "Old bridge to close for repairs", lang: str = "en") -> str:
    nav = "".join(f'<li><a href="/section/{i}">Section {i}</a></li>' for i in range(12))
    side = "".join(f'<li><a href="/more/{i}">More story {i} you may like</a></li>' for i in range(8))
    return f"""<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">
<title>{title} | Valley Gazette</title><link rel="canonical" href="/news/bridge">
<script>var tracking = "do not extract me";</script><style>body {{ color: red }}</style></head>
<body><header><nav><ul>{nav}</ul></nav></header>
<main><article><h1>{title}</h1><p class="byline">By A. Reporter</p>
<p>{ARTICLE_P1}</p><p>{ARTICLE_P2}</p><p>{ARTICLE_P3}</p></article>
<aside><h3>Related</h3><ul>{side}</ul></aside></main>
<footer><p>Copyright Valley Gazette. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>"""


def deep_page(depth: int = 5000) -> str:
    return (
        "<html><body><h1>Deep page</h1><p>"
        + ARTICLE_P1
        + "</p>"
        + "<div>" * depth
        + "lost in the depths"
        + "</div>" * depth
        + "</body></html>"
    )


def chrome_page(body: str, lang: str = "en", chrome: str = "Valley Gazette", title: str = "Story") -> str:
    nav = "".join(f'<li><a href="/{chrome}/{i}">{chrome} section {i}</a></li>' for i in range(6))
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><nav><ul>{nav}</ul></nav><main><article><h1>{title}</h1>"
        + "".join(f"<p>{p}</p>" for p in body.split("\n"))
        + f"</article></main><footer><p>Copyright {chrome}. All rights reserved.</p></footer></body></html>"
    )


def plain_article(title: str, words: str) -> str:
    paragraphs = "".join(
        f"<p>{words} This paragraph number {i} of the page tells the story in plain words, with enough "
        f"sentences to read as an article rather than a listing of links.</p>"
        for i in range(4)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><main><article><h1>{title}</h1>{paragraphs}</article></main></body></html>"
    )


def refresh_page(target: str) -> str:
    return f'<html><head><meta http-equiv="refresh" content="0; url={target}"></head><body>Moved</body></html>'


def topic_page(title: str, topic: str) -> str:
    body = "".join(
        f"<p>{sentence}</p>"
        for sentence in (
            f"This page is about {topic}, and the first paragraph explains why the topic matters to "
            f"the people who read about it every week.",
            f"The second paragraph of the page about {topic} adds detail, examples and a short history "
            f"of how the subject developed over the years.",
            f"Finally the page about {topic} closes with advice for readers who want to learn more.",
        )
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f'<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><h1>{title}</h1>{body}'
        f"</main><footer>Footer links and copyright</footer></body></html>"
    )


def br_page(*strings: str) -> str:
    """Strings separated by ``<br>``: consecutive strings are 1 position apart,
    and each extra ``<br>`` (an empty string) adds 1 to the distance."""
    return "<html><body>" + "<br>".join(strings) + "</body></html>"


COURIER_NAV = (
    '<header><nav><a href="/">Home</a> <a href="/section/world/">World</a> '
    '<a href="/section/science/">Science</a> <a href="/tag/energy/">Energy</a> '
    '<a href="/about/">About us</a></nav></header>'
    '<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy/">Privacy</a></div>'
)

COURIER_FOOTER = (
    '<footer><a href="/about/">About us</a> <a href="/privacy/">Privacy</a> <p>(c) Valley Courier</p></footer>'
)


def story_paragraphs(topic: str, place: str, person: str) -> list[str]:
    return [
        f"Plans for {topic} in {place} moved a step closer this week after a long debate that "
        f"filled the council chamber and spilled into the corridor outside.",
        f"{person}, who has followed the proposal since the first consultation, said residents had "
        f"asked detailed questions about cost, timing and who would look after {topic} once finished.",
        f"Officials in {place} published a summary of the responses, noting that most people supported "
        f"the idea in principle but wanted clearer answers about disruption during the works.",
        f"A further public meeting on {topic} is expected before the summer, and the final decision "
        f"will be taken by the full council once the revised figures are available.",
        f"\u201cWe want to get this right rather than get it done quickly,\u201d {person} said, adding that "
        f"the people of {place} would be kept informed at every stage of the process.",
    ]


def courier_article(
    title: str,
    paragraphs: list[str],
    *,
    canonical: str | None = None,
    og: bool = True,
    jsonld: str | None = None,
    related: tuple[str, ...] = (),
    feed: bool = False,
    charset: str = "utf-8",
) -> str:
    head = [f'<meta charset="{charset}">', f"<title>{title} | Valley Courier</title>"]
    if og:
        head.append('<meta property="og:type" content="article">')
    if canonical:
        head.append(f'<link rel="canonical" href="{canonical}">')
    if jsonld:
        head.append(f'<script type="application/ld+json">{jsonld}</script>')
    if feed:
        head.append('<link rel="alternate" type="application/rss+xml" href="/feed.xml">')
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    rel = "".join(f'<li><a href="{href}">Related story</a></li>' for href in related)
    return (
        f'<!DOCTYPE html><html lang="en"><head>{"".join(head)}</head><body>{COURIER_NAV}'
        f'<div class="ad">Advertisement</div><main><article><h1>{title}</h1>'
        f'<p class="byline">By Staff Reporter</p>{body}</article>'
        f"<aside><h2>Related</h2><ul>{rel}</ul></aside>"
        f'<section class="comments"><h2>Comments</h2><p>Great news!</p></section></main>{COURIER_FOOTER}'
        "</body></html>"
    )


def courier_hub(title: str, links: list[str], *, extra_head: str = "") -> str:
    teasers = "".join(
        f'<li><a href="{href}">A headline for the story at {href.strip("/")[-30:]}</a> <span>Short teaser.</span></li>'
        for href in links
    )
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta property="og:type" content="website">{extra_head}</head><body>{COURIER_NAV}<h1>{title}</h1>'
        f"<ul>{teasers}</ul>{COURIER_FOOTER}</body></html>"
    )


MENU = "".join(f'<li><a href="/section-{i}">Section number {i} of the site</a></li>' for i in range(40))

MENU_FOOTER = "<footer>" + "".join(f"<span>Office {i}: Monday to Friday, 9 to 5</span>" for i in range(8)) + "</footer>"


def menu_page(body: str) -> str:
    return f"<html><head><title>t</title></head><body><nav><ul>{MENU}</ul></nav>{body}{MENU_FOOTER}</body></html>"


DAILY_PARAGRAPHS = [
    "The river flooded the lower town on Tuesday night, and by morning the water had reached the steps of the old "
    "market hall, where volunteers were stacking sandbags against the doors.",
    "Officials said the levee, built in 1962 and repaired twice since, had held for most of its length, but a "
    "section near the railway bridge gave way shortly after midnight, releasing water into three streets.",
    "Residents described a slow, quiet rise rather than a wave. Many had time to move cars and furniture upstairs, "
    "although several shops on the main street lost their entire stock, according to the chamber of commerce.",
    "The regional government has promised an inquiry into the maintenance of the levee, and engineers are expected "
    "to inspect the damaged section later this week, once the water has fallen below the warning level.",
]

DAILY_NAV = ["Home", "World", "Politics", "Business", "Technology", "Science", "Sport", "Weather"]

DAILY_RELATED = [
    "Storm season starts early this year",
    "Ten tips for protecting your basement",
    "Why insurance premiums keep rising",
    "Mayor announces new budget",
]


def daily_article(body: str = "", extra_head: str = "") -> str:
    nav = "".join(f'<li><a href="/{w.lower()}">{w}</a></li>' for w in DAILY_NAV)
    related = "".join(f'<li><a href="/r{i}">{t}</a></li>' for i, t in enumerate(DAILY_RELATED))
    paragraphs = "".join(f"<p>{p}</p>" for p in DAILY_PARAGRAPHS)
    return f"""<!DOCTYPE html><html lang="en"><head><title>Flood in the lower town</title>
    <style>.x {{ color: red; }} body {{ margin: 0 }}</style>{extra_head}
    <script>var tracking = {{"id": 42}}; function track() {{ return 1; }}</script></head>
    <body>
      <header class="site-header"><a href="/">Daily Example</a><nav class="main-nav"><ul>{nav}</ul></nav></header>
      <div class="cookie-banner">We use cookies to improve your experience. <a href="/ok">Accept all</a></div>
      <main><article class="article">
        <h1>Flood in the lower town</h1>
        <div class="byline">By Jane Doe</div>
        {paragraphs}
        {body}
        <div class="share-tools"><a href="/fb">Share on Facebook</a> <a href="/tw">Share on Twitter</a></div>
      </article>
      <aside class="sidebar"><h3>Related stories</h3><ul>{related}</ul>
        <div class="ad-slot">Advertisement</div></aside>
      <section id="comments" class="comments"><h3>3 comments</h3>
        <div class="comment"><p>First! <a href="/u/bob">bob</a></p></div>
        <div class="comment"><p>Great article, thanks for sharing. <a href="/u/al">al</a></p></div>
      </section></main>
      <footer class="site-footer"><p>Copyright 2024 Daily Example. All rights reserved.</p>
        <ul><li><a href="/about">About us</a></li><li><a href="/privacy">Privacy policy</a></li>
        <li><a href="/terms">Terms of use</a></li><li><a href="/contact">Contact</a></li></ul></footer>
    </body></html>"""


OG_PARAGRAPH = (
    "The council met on Tuesday evening to discuss the bridge, the budget and the new "
    "library, and residents spoke for over an hour about traffic on the main road. "
)


def og_article(title: str, extra: str = "") -> str:
    body = "".join(f"<p>{title}: {OG_PARAGRAPH * 3}</p>" for _ in range(6))
    return (
        f'<html><head><title>{title}</title><meta property="og:type" content="article"></head>'
        f"<body><h1>{title}</h1>{extra}{body}</body></html>"
    )


A1 = "/2024/05/02/council-approves-new-harbour-wall/"

A2 = "/2024/05/03/river-survey-finds-returning-otters/"

A3 = "/2024/05/04/library-extends-weekend-hours/"

A4 = "/2024/05/05/ferry-timetable-changes-for-summer/"

A5 = "/science/48213/telescope-volunteers-map-meteor-shower"

A6 = "/2024/05/06/bakery-wins-regional-bread-award/"

A7 = "/2024/05/07/cafe-owners-welcome-market-square-plan/"

A8 = "/2024/05/08/school-orchestra-tours-three-cities/"

A9 = "/2024/05/09/harvest-fair-draws-record-crowds/"

PRINT_A1 = "/print" + A1

ARTICLES = [A1, A2, A3, A4, A5, A6, A7, A8, A9 + "?from=home"]

CHARSET_TEXT = "\u201cCaf\u00e9 owners\u201d \u2014 in Z\u00fcrich style \u2014 pay \u20ac5"


def build_news_site(site: TestSite) -> None:
    base = "{{BASE}}"
    add = site.add
    add("/robots.txt", f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n", "text/plain")
    add(
        "/sitemap_index.xml",
        '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{base}/sitemap-news.xml</loc></sitemap>"
        f"<sitemap><loc>{base}/sitemap-pages.xml.gz</loc></sitemap>"
        f"<sitemap><loc>{base}/sitemap-broken.xml</loc></sitemap></sitemapindex>",
        "application/xml",
    )
    add(
        "/sitemap-news.xml",
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
        f"<url><loc>{base}{A1}</loc><news:news><news:title>Wall</news:title></news:news></url>"
        f"<url><loc>{base}{A2}?utm_source=sitemap&amp;utm_medium=xml</loc></url></urlset>",
        "application/xml",
    )
    pages = (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site.base_url}/section/world/</loc></url><url><loc>{site.base_url}{A5}</loc></url>"
        "</urlset>"
    )
    add("/sitemap-pages.xml.gz", gzip.compress(pages.encode()), "application/gzip")
    add("/sitemap-broken.xml", "<<this is &not; a sitemap", "application/xml")
    add(
        "/feed.xml",
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Valley Courier</title>'
        f"<item><title>Library</title><link>{base}{A3}</link></item>"
        f"<item><title>Bakery</title><link>{base}{A6}?utm_source=rss</link></item></channel></rss>",
        "application/rss+xml",
    )
    add("/atom-broken.xml", "this is not a feed at all", "application/atom+xml")

    add(
        "/",
        courier_hub(
            "Valley Courier",
            [
                "/section/world/",
                "/section/science/",
                "/tag/energy/",
                A1,
                A2 + "#comments",
                A3 + "?utm_source=home&utm_medium=web",
                "/old-story",
                "/files/annual-report.pdf",
                "/download/brochure",
                "/missing-story/",
                f"http://localhost:{site.port}/offsite-page/",
                "/private/members-only-briefing/",
                A9 + "?from=home",
            ],
            extra_head='<link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml">',
        ),
    )
    add("/section/world/", courier_hub("World", [A1, A2, "/section/world/page/2/"]))
    add("/section/world/page/2/", courier_hub("World, page 2", [A7]))
    add(
        "/section/science/",
        courier_hub(
            "Science",
            [A8 + "?from=section", A1],
            extra_head='<link rel="alternate" type="application/atom+xml" href="/atom-broken.xml">',
        ),
    )
    add("/tag/energy/", courier_hub("Tag: energy", [A1, A3]))
    add("/about/", courier_hub("About us", []))
    add("/privacy/", courier_hub("Privacy", []))

    graph = json.dumps(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebSite", "name": "Valley Courier"},
                {"@type": "WebPage"},
                {"@type": "NewsArticle", "headline": "Otters", "publisher": {"@type": "Organization"}},
            ],
        }
    )
    a1 = courier_article(
        "Council approves new harbour wall",
        story_paragraphs("the new harbour wall", "Eastport", "Mayor Ruth Allen"),
        canonical=base + A1,
        jsonld='{"@type": "NewsArticle"}',
        related=(PRINT_A1, A2),
        feed=True,
    )
    add(A1, a1)
    add(PRINT_A1, a1.replace(f'<link rel="canonical" href="{base}{A1}">', ""))
    add(
        A2,
        courier_article(
            "River survey finds returning otters",
            story_paragraphs("the otter survey", "the Dee valley", "Dr Priya Nair"),
            canonical=base + A2,
            og=False,
            jsonld=graph,
        ),
    )
    add(
        A3,
        courier_article(
            "Library extends weekend hours",
            story_paragraphs("longer library hours", "Millbrook", "Librarian Tom Okafor"),
            og=False,
        ),
    )
    add("/old-story", b"", status=301, Location=site.url(A4))
    add(
        A4,
        courier_article(
            "Ferry timetable changes for summer",
            story_paragraphs("the summer ferry timetable", "Port Carrow", "Captain Ines Moreau"),
            canonical=base + A4,
        ),
    )
    add(
        A5,
        courier_article(
            "Telescope volunteers map meteor shower",
            story_paragraphs("the meteor mapping project", "the hill observatory", "Astronomer Lena Fisk"),
            canonical=base + A5,
        ),
    )
    add(
        A6,
        courier_article(
            "Bakery wins regional bread award",
            story_paragraphs("the award-winning sourdough", "Kettleby", "Baker Sam Whitlock"),
            canonical=base + A6,
            og=False,
            jsonld='[{"@type": "BlogPosting"}]',
        ),
    )
    charset_page = courier_article(
        "Cafe owners welcome market square plan",
        [
            CHARSET_TEXT + " for a coffee and a pastry on the square, and they hope the new "
            "plan for the market keeps it that way for the traders who open early every "
            "morning of the week."
        ]
        + story_paragraphs("the market square", "Old Town", "Chef Marta Silva"),
        canonical=base + A7,
        charset="iso-8859-1",
    )
    add(
        A7, charset_page.replace("{{BASE}}", site.base_url).encode("cp1252"), "text/html; charset=iso-8859-1"
    )  # mislabelled: cp1252 bytes (curly quotes, euro sign)
    add(
        A8,
        courier_article(
            "School orchestra tours three cities",
            story_paragraphs("the orchestra tour", "Brackenfield", "Conductor Yusuf Adeyemi"),
            canonical=base + A8,
        ),
    )
    # Its canonical URL is forbidden by robots.txt: the variant itself becomes the item.
    add(
        A9,
        courier_article(
            "Harvest fair draws record crowds",
            story_paragraphs("the harvest fair", "Hollins Green", "Organiser Beth Carey"),
            canonical=base + "/private" + A9,
        ),
    )
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    add("/download/brochure", pdf, "application/pdf")
    add("/files/annual-report.pdf", pdf, "application/pdf")
    add("/private/members-only-briefing/", courier_article("Secret", story_paragraphs("x", "y", "z")))
    add("/offsite-page/", courier_article("Offsite", story_paragraphs("offsite", "elsewhere", "Someone")))


# -- dataset runner ----------------------------------------------------------
def make_dataset(root, pages, extra=None):
    """*pages*: (id, html bytes, gold); *extra*: id -> more truth.jsonl fields."""
    (root / "html").mkdir(parents=True)
    with open(root / "truth.jsonl", "w", encoding="utf-8") as truth:
        for page_id, html, gold in pages:
            (root / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html))
            record = {"id": page_id, "url": None, "text": gold, **(extra or {}).get(page_id, {})}
            truth.write(json.dumps(record) + "\n")
    return root


SEARCH_PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def searxng_results(urls: list[str]) -> str:
    return json.dumps(
        {
            "query": "the",
            "number_of_results": 0,
            "results": [{"url": u, "title": u, "content": "", "engine": "fake"} for u in urls],
        }
    )


def build_search_site(site: TestSite) -> None:
    """A fake SearXNG API (three result pages as JSON) and the result pages it lists: five articles, a PDF, a dead link."""
    b = site.base_url
    for name in ("one", "four", "five", "six", "seven"):
        site.add(f"/r/{name}", topic_page(f"Result {name}", f"the number {name}"))
    site.add("/r/paper.pdf", SEARCH_PDF, "application/pdf")
    site.add("/robots.txt", "User-agent: *\nDisallow: /search\n", "text/plain")
    site.add(
        "/search?q=the&format=json&pageno=1",
        searxng_results(
            [f"{b}/r/one", f"{b}/r/paper.pdf", f"{b}/r/gone", f"{b}/r/four", f"{b}/r/one?utm_source=searx"]
        ),
        "application/json",
    )
    site.add(
        "/search?q=the&format=json&pageno=2",
        searxng_results([f"{b}/r/five", f"{b}/r/four#top", "javascript:void(0)", f"{b}/r/six", f"{b}/r/seven"]),
        "application/json",
    )
    site.add("/search?q=the&format=json&pageno=3", searxng_results([f"{b}/r/eight"]), "application/json")


#: Every kind of part the document model reads or drops: head, navigation, comments, hidden elements, a list, a table.
PARTS_PAGE = sample_page("document-parts.html")


GERMAN = (
    "Die Stadtverwaltung hat am Dienstag bestätigt, dass die alte Steinbrücke wegen Reparaturen "
    "geschlossen wird. Ingenieure hatten bei einer Routineprüfung Risse in zwei der sieben Bögen gefunden. "
    "Der Verkehr wird über die nördliche Umgehungsstraße umgeleitet, doch die Anwohner des Tals fürchten "
    "lange Staus im morgendlichen Berufsverkehr. Die Arbeiten sollen elf Wochen dauern."
)

FRENCH = (
    "La mairie a confirmé mardi que le vieux pont de pierre sera fermé pour travaux, après que des "
    "ingénieurs ont découvert des fissures dans deux de ses sept arches lors d'une inspection de routine. "
    "La circulation sera déviée par le périphérique nord, mais les habitants de la vallée craignent de "
    "longs bouchons aux heures de pointe. Les travaux devraient durer onze semaines."
)

# -- near-duplicates -------------------------------------------------------------------------
GAZETTE_STORY = "\n".join((ARTICLE_P1, ARTICLE_P2, ARTICLE_P3))


DAY = "/2025/03/07/"


def attribute_bomb(count: int) -> str:
    # Quoted ">" inside the values must not hide the attributes from the screen.
    attributes = " ".join(f'data-a{i}=">"' for i in range(count))
    return og_article("Bombed story", extra=f"<div {attributes}>inside the bomb</div>")


def build_archive_site(site: TestSite, count: int = 60, per_page: int = 5) -> list[str]:
    """A news site of *count* articles, listed *per_page* a page by paginated section hubs (the sections
    of the courier's menu); the article paths. Deep: crawl it with ``max_depth`` above ``count / per_page / 3 + 1``."""
    sections = ["/section/world/", "/section/science/", "/tag/energy/"]
    words = ["harbour", "library", "bridge", "orchard", "tramway", "museum", "reservoir", "market"]
    articles = [f"/2024/06/{i:03d}/plans-for-the-{words[i % len(words)]}-number-{i}/" for i in range(count)]
    for i, path in enumerate(articles):
        topic = f"the {words[i % len(words)]} project number {i}"
        site.add(path, courier_article(f"Council weighs {topic}", story_paragraphs(topic, f"Ward {i}", "Ada Byrne")))
    for s, section in enumerate(sections):
        mine = articles[s :: len(sections)]
        pages = [mine[k : k + per_page] for k in range(0, len(mine), per_page)]
        for n, listed in enumerate(pages):
            path = section if n == 0 else f"{section}page/{n + 1}/"
            more = [f"{section}page/{n + 2}/"] if n + 1 < len(pages) else []
            site.add(path, courier_hub(f"{section.strip('/')} page {n + 1}", [*listed, *more]))
    site.add("/", courier_hub("Valley Courier archive", sections))
    for path in ("/about/", "/privacy/"):
        site.add(path, courier_hub(path.strip("/"), []))
    return articles
