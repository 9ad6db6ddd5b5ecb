"""Integrations with other engines, each behind its own extra (``webclean_scrapy.contrib.datatrove``)."""
