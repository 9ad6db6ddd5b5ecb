"""This repository's Scrapy project: the library's spiders, registered for ``scrapy crawl``."""
