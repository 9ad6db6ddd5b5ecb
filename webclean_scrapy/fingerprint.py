"""URL canonicalisation for crawls: one key per resource, however it is linked.

News sites link the same story as ``/story?utm_source=rss``,
``/story#comments`` and ``/story?fbclid=...``. Tracking parameters never
change what the server sends, so they are dropped before a URL is requested
or compared; everything else (query order, percent-encoding, case of the
host) is normalised by w3lib's :func:`~w3lib.url.canonicalize_url`, the same
function Scrapy's request fingerprint uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from scrapy.utils.request import fingerprint
from w3lib.url import canonicalize_url

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self  # typing.Self: Python 3.11

#: Query parameters that only identify a campaign, a click or a share.
TRACKING_PARAMS: frozenset[str] = frozenset(
    """
    fbclid gclid gclsrc dclid gbraid wbraid msclkid yclid igshid twclid ttclid li_fat_id
    mc_cid mc_eid _ga _gl _hsenc _hsmi mkt_tok oly_anon_id oly_enc_id vero_id vero_conv
    __twitter_impression ref_src ref_url s_cid cmpid ocid ncid spm sr_share smid
    """.split()
)
#: Prefixes of tracking parameter families (Google Analytics, Matomo/Piwik, HubSpot ads...).
TRACKING_PREFIXES: tuple[str, ...] = ("utm_", "pk_", "mtm_", "hsa_", "at_")


def is_tracking_param(name: str) -> bool:
    name = name.lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


def strip_tracking(url: str, *, keep_fragment: bool = False) -> str:
    """*url* without tracking parameters (and without its fragment, by default).

    The remaining query is kept byte for byte, in its order, so the URL still
    requests exactly what the site linked.
    """
    parts = urlsplit(url)
    query = parts.query
    if query:
        kept = [
            pair for pair in query.split("&") if pair and not is_tracking_param(unquote_plus(pair.partition("=")[0]))
        ]
        query = "&".join(kept)
    fragment = parts.fragment if keep_fragment else ""
    if query == parts.query and fragment == parts.fragment:
        return url
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, fragment))


def canonical_key(url: str) -> str:
    """The comparison key of *url*: tracking parameters and fragment dropped, then canonicalised."""
    return canonicalize_url(strip_tracking(url))


def site_of(url: str) -> str:
    """The site a URL belongs to: its host, lower-cased, without a leading ``www.``.

    ``www.example.com`` and ``example.com`` are one site; other subdomains
    (``blog.example.com``) and ports are not considered.
    """
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


class TrackingParamsFingerprinter:
    """Scrapy's request fingerprint, computed on the URL without tracking parameters.

    Set as ``REQUEST_FINGERPRINTER_CLASS`` so the dupefilter (and the HTTP
    cache) treat ``/a?utm_source=x`` and ``/a`` as one request, including
    URLs that arrive through redirects or user input, which the spiders do
    not rewrite themselves.
    """

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def __init__(self, crawler: Crawler | None = None) -> None:
        self.crawler = crawler

    def fingerprint(self, request: Request) -> bytes:
        stripped = strip_tracking(request.url, keep_fragment=True)
        if stripped != request.url:
            request = request.replace(url=stripped)
        return fingerprint(request)
