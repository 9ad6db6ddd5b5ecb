"""Drop items whose main text is a near-copy of one already kept."""

from __future__ import annotations

import concurrent.futures
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from webclean_scrapy.offload.offloader import await_concurrent
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings
from webclean_scrapy.stats import WebcleanStats

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class NearDuplicatePipeline(WebcleanComponent):
    """Drop items whose ``text`` is a near-copy of the text of an item already kept.

    Catches what URL-based duplicate filters miss: a syndicated article under
    another site's boilerplate, the same page under other URLs, a lightly
    edited or truncated copy. Texts are compared by MinHash LSH over word
    shingles (:mod:`webclean_scrapy.dedup`, the ``[dedup]`` extra)
    at ``WEBCLEAN_NEAR_DUPLICATE_THRESHOLD`` (estimated Jaccard similarity).

    The first item with a text is kept, the later near-copies are dropped with
    a DEBUG line naming both URLs; stats ``webclean/dropped/near_duplicate``
    and ``webclean/near_duplicates/kept``. Items without text pass and are
    not indexed. With ``WEBCLEAN_REDIS_URL`` the index is in Redis under
    ``WEBCLEAN_NEAR_DUPLICATE_KEY`` (per spider by default) and shared by
    every worker of a distributed crawl, and by later runs. Put it after
    :class:`WebcleanPipeline` and the filters.
    """

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        super().__init__(crawler, settings)
        from webclean_scrapy.dedup import NearDuplicateIndex

        spider = getattr(crawler, "spider", None)
        name = getattr(spider, "name", None) or getattr(getattr(crawler, "spidercls", None), "name", "") or "webclean"
        self.index = NearDuplicateIndex(
            threshold=settings.near_duplicate_threshold,
            num_perm=settings.near_duplicate_num_perm,
            shingle=settings.near_duplicate_shingle,
            redis_url=settings.redis_url,
            redis_key=settings.near_duplicate_key % {"spider": name},
        )
        self.stats = WebcleanStats(crawler.stats)
        # One thread: the signature (CPU) and the Redis round trips stay off the
        # reactor, and checks run one at a time, so check-then-keep is atomic
        # within this process.
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="webclean-dedup")

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        adapter = ItemAdapter(item)
        text = adapter.get("text")
        if not text:
            return item
        key = adapter.get("url") or adapter.get("canonical_url") or f"item-{id(item)}"
        match = await await_concurrent(self._executor.submit(self.index.check, key, text))
        if match is None:
            self.stats.kept_text()
            return item
        self.stats.dropped("near_duplicate")
        raise DropItem(f"near-duplicate of {match.of}: {key}", log_level="DEBUG")
