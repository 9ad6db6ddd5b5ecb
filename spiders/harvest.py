"""The ``harvest`` spider (:class:`webclean_scrapy.spiders.HarvestSpider`) in this project."""

from webclean_scrapy.spiders import harvest


class HarvestSpider(harvest.HarvestSpider):
    __doc__ = harvest.HarvestSpider.__doc__
