"""The ``news`` spider (:class:`webclean_scrapy.spiders.NewsSpider`) in this project."""

from webclean_scrapy.spiders import news


class NewsSpider(news.NewsSpider):
    __doc__ = news.NewsSpider.__doc__
