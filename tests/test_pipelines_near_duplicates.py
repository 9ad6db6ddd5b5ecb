"""The near-duplicate pipeline in-process: both items of a near copy are logged, and workers share the index in a real ``redis-server`` (``redis_url`` fixture)."""

from __future__ import annotations

import asyncio
import logging

import pytest

pytest.importorskip("py3langid")
pytest.importorskip("datasketch")

from scrapy.exceptions import DropItem  # noqa: E402
from scrapy.logformatter import LogFormatter  # noqa: E402
from scrapy.utils.misc import build_from_crawler  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from components import BASE, LANGUAGE_ROUTES, through_middleware  # noqa: E402
from pages import GAZETTE_STORY
from webclean_scrapy.items import CleanedPage  # noqa: E402
from webclean_scrapy.pipelines import NearDuplicatePipeline  # noqa: E402


def test_near_duplicate_pipeline_logs_both_items():
    crawler = get_crawler(spidercls=None, settings_dict={"WEBCLEAN_NEAR_DUPLICATE_THRESHOLD": 0.7})
    crawler.stats.open_spider()
    pipeline = NearDuplicatePipeline.from_crawler(crawler)

    async def run():
        kept = await pipeline.process_item({"url": "https://a.example/story", "text": GAZETTE_STORY})
        assert kept["url"] == "https://a.example/story"
        assert await pipeline.process_item({"url": "https://b.example/x", "text": ""})  # no text: passes
        with pytest.raises(DropItem) as dropped:
            await pipeline.process_item({"url": "https://b.example/copy", "text": GAZETTE_STORY + "\nShare this story"})
        return dropped.value

    exc = asyncio.run(run())
    pipeline.close_spider()
    assert exc.log_level == "DEBUG"
    message = LogFormatter().dropped({"url": "https://b.example/copy"}, exc, None, crawler.spider)
    assert message["level"] == logging.DEBUG
    logged = message["msg"] % message["args"]
    assert "https://a.example/story" in logged and "https://b.example/copy" in logged
    assert crawler.stats.get_value("webclean/dropped/near_duplicate") == 1
    assert crawler.stats.get_value("webclean/near_duplicates/kept") == 1


def test_workers_share_the_index_in_redis(make_crawler, redis_url):
    """A second worker's pipeline on the same Redis drops what the first one kept."""

    def texts_kept(paths: list[str]) -> tuple[list[str], dict]:
        crawler = make_crawler(WEBCLEAN_EXTRACTOR="density", WEBCLEAN_OFFLOAD="none", WEBCLEAN_REDIS_URL=redis_url)
        crawler.spider = crawler._create_spider("news")  # the index is the spider's
        responses = through_middleware(crawler, BASE, paths, routes=LANGUAGE_ROUTES)
        pipeline = build_from_crawler(NearDuplicatePipeline, crawler)

        async def run():
            kept = []
            for response in responses.values():
                try:
                    kept.append((await pipeline.process_item(CleanedPage.from_response(response)))["url"])
                except DropItem:
                    pass
            return kept

        kept = asyncio.run(run())
        pipeline.close_spider()
        return [url[len(BASE) :] for url in kept], crawler.stats.get_stats()

    kept, stats = texts_kept(["/en", "/de"])
    assert kept == ["/en", "/de"] and stats["webclean/near_duplicates/kept"] == 2
    kept, stats = texts_kept(["/syndicated", "/de"])
    assert kept == []
    assert stats["webclean/dropped/near_duplicate"] == 2 and "webclean/near_duplicates/kept" not in stats
    import redis

    keys = list(redis.Redis.from_url(redis_url).scan_iter())
    assert keys and all(key.startswith(b"news:webclean:near_duplicates") for key in keys), keys
