"""Page processing without Scrapy: bytes to a parsed document, its page type and metadata, the
extractors, and the one-call :func:`~webclean_scrapy.engine.api.extract`.

Nothing here imports Scrapy or Twisted (tests/test_imports.py checks it), so the engine serves
the CLI, datatrove and any Python program as well as a crawl.
"""
