"""Item pipelines: fill main-text fields from raw HTML, then filter the items.

:class:`WebcleanPipeline` extracts; :class:`MinTextFilterPipeline`, :class:`LanguageFilterPipeline`
and :class:`NearDuplicatePipeline` drop items, in that order after it (the add-on's priorities).
"""

from webclean_scrapy.pipelines.extraction import WebcleanPipeline
from webclean_scrapy.pipelines.filters import DROP_LOG_LEVELS, MinTextFilterPipeline
from webclean_scrapy.pipelines.language import LanguageFilterPipeline
from webclean_scrapy.pipelines.near_duplicates import NearDuplicatePipeline

__all__ = [
    "DROP_LOG_LEVELS",
    "LanguageFilterPipeline",
    "MinTextFilterPipeline",
    "NearDuplicatePipeline",
    "WebcleanPipeline",
]
