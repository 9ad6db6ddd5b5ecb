"""The compiled walk extension (:mod:`webclean_scrapy.engine.html._walk`), or ``None``.

The extension is optional: an install without a C compiler has none, and every pass it
speeds up has a Python reference that gives the same results. Its readers (the document's
walk, the element survey, the column stores) import it from here, so that where it is
missing is decided once.
"""

from __future__ import annotations

from lxml import etree

try:
    import webclean_scrapy.engine.html._walk as compiled_walk
except ImportError:  # not built (no C compiler at install): the Python references run
    compiled_walk = None


def reads_natively(root: etree._Element, enabled: bool = True) -> bool:
    """Whether the compiled passes can read *root*: *enabled*, the extension built, and
    *root* an lxml HTML tree (the compiled walk reads libxml2's nodes directly)."""
    return enabled and compiled_walk is not None and bool(compiled_walk.is_html_tree(root))
