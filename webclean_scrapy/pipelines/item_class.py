"""The item pipeline that gives a crawl's pages the class ``WEBCLEAN_ITEM_CLASS`` names.

With ``WEBCLEAN_ITEM_CLASS = "zyte_common_items.Article"`` (or
``"zyte_common_items.PageContent"``, ``"dict"``, any item class's dotted
path) the ``news`` and ``harvest`` spiders' :class:`~webclean_scrapy.items.CleanedPage`
items, and the items :class:`~webclean_scrapy.pipelines.WebcleanPipeline`
filled from raw HTML, leave the pipelines as items of that class
(:func:`webclean_scrapy.items.convert_item`; the zyte mapping is
:mod:`webclean_scrapy.contrib.zyte`).

Why a pipeline of its own, placed last (:data:`ITEM_CLASS_ORDER`), rather than
the spiders yielding the class: the spiders' duplicate and canonical-URL logic,
:class:`~webclean_scrapy.pipelines.MinTextFilterPipeline`,
:class:`~webclean_scrapy.pipelines.LanguageFilterPipeline` and
:class:`~webclean_scrapy.pipelines.NearDuplicatePipeline` read webclean's
fields (``text``, ``detected_language``, ``canonical_url``); an ``Article``
has ``articleBody`` instead, and the filters would let every one through.
Converted after them, the items are filtered as usual and every pipeline
after :data:`ITEM_CLASS_ORDER`, and the feed exports, get the chosen class.

What is converted: :class:`~webclean_scrapy.items.CleanedPage` items, and
dicts that carry webclean's output (a ``text`` and an ``extractor`` key, as
``WebcleanPipeline`` sets them). Items of other classes (a project's own
``scrapy.Item``, dataclass or attrs items) and items already of the chosen
class pass unchanged: their class is the project's choice. Without the
setting the pipeline is left out (``NotConfigured``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webclean_scrapy.items import CleanedPage, convert_item, load_item_class
from webclean_scrapy.settings import WebcleanComponent, WebcleanSettings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: After the filters (400, 410) and ``NearDuplicatePipeline`` (420 in the docs), before a
#: project's storage pipelines (conventionally 500 and up).
ITEM_CLASS_ORDER = 450

#: Stats key counting converted items.
CONVERTED_STAT = "webclean/item_class/converted"


class ItemClassPipeline(WebcleanComponent):
    """Convert cleaned pages to ``WEBCLEAN_ITEM_CLASS`` (see the module docstring)."""

    def __init__(self, crawler: Crawler, settings: WebcleanSettings) -> None:
        from scrapy.exceptions import NotConfigured

        super().__init__(crawler, settings)
        item_class = load_item_class(settings.item_class)
        if item_class is None:
            raise NotConfigured  # the usual case (the add-on lists it always): no message
        self.item_class: type = item_class

    @staticmethod
    def is_cleaned_page(item: Any) -> bool:
        """Whether *item* is webclean's output: a ``CleanedPage``, or a dict the extraction filled."""
        if isinstance(item, CleanedPage):
            return True
        return type(item) is dict and "text" in item and "extractor" in item

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if isinstance(item, self.item_class) or not self.is_cleaned_page(item) or not isinstance(item, Mapping):
            return item
        converted = convert_item(item, self.item_class)
        self.crawler.stats.inc_value(CONVERTED_STAT)
        return converted
