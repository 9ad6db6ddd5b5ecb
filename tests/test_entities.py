"""No XML entity tricks: external entities (XXE), entity expansion (billion
laughs) and XInclude do nothing in page extraction, sitemaps or feeds."""

from __future__ import annotations

import pytest
from scrapy.utils.sitemap import Sitemap

from webclean_scrapy import available_extractors, extract
from webclean_scrapy.spiders.news import feed_links

PASSWD = "/etc/passwd"
XXE_HTML = (
    f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY x SYSTEM "file://{PASSWD}">]>'
    "<html><body><p>Before &x; after, a paragraph of ordinary words for the extractor.</p></body></html>"
)
LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
    + "]>"
)
XINCLUDE = (
    f'<html xmlns:xi="http://www.w3.org/2001/XInclude"><body><p>Start of the text, then</p>'
    f'<xi:include href="file://{PASSWD}" parse="text"/><p>the end of the text.</p></body></html>'
)


def passwd_line() -> str:
    try:
        with open(PASSWD, encoding="utf-8") as f:
            return f.readline().strip()
    except OSError:
        pytest.skip("no /etc/passwd to leak")


@pytest.mark.parametrize("name", available_extractors())
def test_extraction_never_resolves_entities_or_xinclude(name):
    leaked = passwd_line()
    for page in (XXE_HTML, LAUGHS + "<html><body><p>&lol9; ordinary words</p></body></html>", XINCLUDE):
        text = extract(page.encode(), extractor=name).text
        assert leaked not in text and "lollollol" not in text


def test_sitemaps_and_feeds_never_resolve_entities():
    leaked = passwd_line()
    xxe = (
        f'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file://{PASSWD}">]>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.example/&x;</loc></url>'
        "</urlset>"
    ).encode()
    assert all(leaked not in entry.get("loc", "") for entry in Sitemap(xxe))
    laughs = (LAUGHS + "<rss><item><link>http://a.example/&lol9;</link></item></rss>").encode()
    assert all("lollollol" not in link for link in feed_links(laughs) or [])
