"""Search engines the ``harvest`` spider can page through.

Two kinds:

* ``searxng`` -- a SearXNG instance's JSON API: ``GET /search?q=...&format=json&pageno=N``,
  result URLs in ``results[].url``. The instance must allow the JSON format
  (``search: formats: [html, json]`` in its ``settings.yml``).
* HTML result pages, declared in the ``WEBCLEAN_SEARCH_ENGINES`` setting, no
  code needed::

      WEBCLEAN_SEARCH_ENGINES = {
          "mysearch": {
              "url": "https://search.example/search?q={query}&p={page}",
              "result_selector": "a.result-link",   # CSS, or XPath starting with / or (
              "first_page": 1,                      # value of {page} on the first page
              "page_step": 1,                       # added per page (10 for offset-style URLs)
              "result_param": None,                 # take the URL from this query parameter
          },                                        # of each link (redirect wrappers)
      }

  A selector may pick elements (their ``href`` is used) or attribute values
  (``a.r::attr(href)``, ``//a/@href``). Relative links are resolved against
  the result page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote_plus, urlencode, urlsplit

from webclean_scrapy.settings import WebcleanSettings
from webclean_scrapy.spiders.base import parse_url

if TYPE_CHECKING:
    from scrapy.http import Response
    from scrapy.settings import BaseSettings


def read_result_page(engine: SearchEngine, body: bytes, url: str, content_type: str | None) -> list[str]:
    """*engine*'s result URLs on the result page *body*, rebuilt as a response.

    What the ``harvest`` spider runs where pages are extracted
    (:meth:`Offloader.run <webclean_scrapy.offload.Offloader.run>`: a worker
    process by default), so a result page is never parsed on the reactor
    thread; plain arguments, so it crosses the process boundary.
    """
    from scrapy.http import HtmlResponse, TextResponse

    headers = {"Content-Type": content_type} if content_type else None
    cls = HtmlResponse if isinstance(engine, HtmlResultsEngine) else TextResponse
    return engine.result_urls(cls(url, body=body, headers=headers))


class SearchEngineError(ValueError):
    """An engine is unknown or misconfigured."""


class SearchEngine:
    """Builds result-page URLs and reads result URLs, in rank order, from them."""

    name: str = ""

    def page_url(self, query: str, index: int) -> str:
        """URL of the *index*-th (0-based) result page for *query*."""
        raise NotImplementedError

    def result_urls(self, response: Response) -> list[str]:
        """Result URLs on one result page, in the engine's order (may raise on garbage)."""
        raise NotImplementedError


@dataclass
class SearxngEngine(SearchEngine):
    """SearXNG's JSON API (``format=json``, 1-based ``pageno``)."""

    search_url: str
    name: str = "searxng"

    def page_url(self, query: str, index: int) -> str:
        separator = "&" if urlsplit(self.search_url).query else "?"
        return f"{self.search_url}{separator}{urlencode({'q': query, 'format': 'json', 'pageno': index + 1})}"

    def result_urls(self, response: Response) -> list[str]:
        data = json.loads(response.body)
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise ValueError("SearXNG answer has no 'results' list")
        return [r["url"] for r in results if isinstance(r, dict) and isinstance(r.get("url"), str)]


@dataclass
class HtmlResultsEngine(SearchEngine):
    """An engine whose result pages are HTML, described by a URL template and a selector."""

    url: str
    result_selector: str
    name: str = "html"
    first_page: int = 1
    page_step: int = 1
    result_param: str | None = None

    def __post_init__(self) -> None:
        if "{query}" not in self.url:
            raise SearchEngineError(f"search engine {self.name!r}: 'url' needs a {{query}} placeholder")
        if not self.result_selector:
            raise SearchEngineError(f"search engine {self.name!r}: 'result_selector' is required")

    def page_url(self, query: str, index: int) -> str:
        page = self.first_page + index * self.page_step
        return self.url.replace("{query}", quote_plus(query)).replace("{page}", str(page))

    def result_urls(self, response: Response) -> list[str]:
        selector = self.result_selector
        is_xpath = selector.lstrip().startswith(("/", "("))
        selected = response.xpath(selector) if is_xpath else response.css(selector)
        urls = []
        for sel in selected:
            value = sel.root if isinstance(sel.root, str) else sel.attrib.get("href")
            if not value:
                continue
            url = response.urljoin(value.strip())
            if self.result_param:
                wrapped = parse_qs(urlsplit(url).query).get(self.result_param)
                if not wrapped:
                    continue
                url = wrapped[0]
            urls.append(url)
        return urls


def _checked_url(url: Any, name: str) -> str:
    """*url* checked like the news spider's start URLs (a missing scheme means ``https://``)."""
    try:
        return parse_url(url, name)
    except ValueError as exc:
        raise SearchEngineError(str(exc)) from None


def get_engine(name: str, settings: BaseSettings, search_url: str | None = None) -> SearchEngine:
    """The engine called *name*: ``searxng`` or an entry of ``WEBCLEAN_SEARCH_ENGINES``.

    *search_url* (``-a search_url=``) is the SearXNG endpoint, or replaces an
    HTML engine's ``url`` template.
    """
    webclean_settings = WebcleanSettings.from_settings(settings)
    configured: dict[str, Any] = webclean_settings.search_engines
    if name in configured:
        config = dict(configured[name])
        if search_url:
            config["url"] = _checked_url(search_url, "-a search_url")
        elif "url" in config:
            config["url"] = _checked_url(config["url"], f"WEBCLEAN_SEARCH_ENGINES[{name!r}]['url']")
        unknown = set(config) - {"url", "result_selector", "first_page", "page_step", "result_param"}
        if unknown:
            raise SearchEngineError(f"search engine {name!r}: unknown key(s) {', '.join(sorted(unknown))}")
        try:
            return HtmlResultsEngine(
                name=name,
                url=str(config["url"]),
                result_selector=str(config.get("result_selector") or ""),
                first_page=int(config.get("first_page", 1)),
                page_step=int(config.get("page_step", 1)),
                result_param=config.get("result_param"),
            )
        except KeyError as exc:
            raise SearchEngineError(f"search engine {name!r}: missing {exc.args[0]!r}") from None
    if name == "searxng":
        url = search_url or webclean_settings.searxng_url
        if not url:
            raise SearchEngineError(
                "the searxng engine needs -a search_url=http://HOST/search (or the WEBCLEAN_SEARXNG_URL setting)"
            )
        return SearxngEngine(search_url=_checked_url(url, "-a search_url" if search_url else "WEBCLEAN_SEARXNG_URL"))
    known = ", ".join(sorted({"searxng", *configured}))
    raise SearchEngineError(
        f"unknown search engine {name!r}; known: {known} (add HTML engines with the WEBCLEAN_SEARCH_ENGINES setting)"
    )
