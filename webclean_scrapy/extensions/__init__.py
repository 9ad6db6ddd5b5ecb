"""Scrapy extensions: crawl-wide behaviour that is neither a middleware nor a pipeline."""
