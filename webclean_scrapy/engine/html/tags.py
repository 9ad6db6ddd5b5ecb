"""The tag vocabulary of the walk: which elements cut the text, break it, or hold none of it.

The walk (:mod:`webclean_scrapy.engine.document`), the parser's depth repair
(:mod:`webclean_scrapy.engine.html.parsing`) and the readers of the walk's tables (the
renderer, the extractors) name elements by these sets, so they are kept apart from any
of them.
"""

from __future__ import annotations

import re

#: Tags that open a new string (Arias et al.: "structural tags such as <p>,
#: <table>, <br>, <div>, <h1>...") extended with HTML5 sectioning and list
#: elements. Text between two of them is one :class:`~webclean_scrapy.engine.views.Block`.
STRUCTURAL_TAGS: frozenset[str] = frozenset(
    """
    address article aside blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup hr
    html legend li main menu nav ol p pre section summary table tbody td tfoot th thead tr ul
    button label option textarea
    """.split()
)

#: Attributes the walk copies onto each :class:`~webclean_scrapy.engine.views.Container`
#: (``attributes``): what the markup says an element is. The walk is on the element anyway;
#: reading them back through lxml later costs a call per container.
DESCRIPTIVE_ATTRIBUTES: tuple[str, ...] = ("class", "id", "role", "itemprop")

#: Void structural tags: they cut the current string but hold no text.
BREAK_TAGS: frozenset[str] = frozenset({"br", "hr"})

#: Subtrees that are never rendered as text (or only as fallback text).
DROPPED_TAGS: frozenset[str] = frozenset(
    """
    script style noscript template head iframe object embed applet svg math canvas
    audio video map datalist select input
    """.split()
)

HEADING_TAGS: frozenset[str] = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

#: An inline style that hides its element: the walk drops such a subtree, and the renderer
#: leaves it out of a block's links and emphasis, by this one rule.
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
