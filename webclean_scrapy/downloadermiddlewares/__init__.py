"""Scrapy downloader middlewares: extraction, charset, truncated bodies, the address guard, robots.txt, WARC recording.

The add-on (:class:`webclean_scrapy.Addon`) enables them at their priorities; each can also be
listed in ``DOWNLOADER_MIDDLEWARES`` by hand.
"""
