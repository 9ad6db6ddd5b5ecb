"""The strings pages put in their metadata, made comparable: whitespace, entities, case.

The bottom of :mod:`webclean_scrapy.engine.metadata`: every reader and field
cleans its values here, so a title, an author and a site name read from
JSON-LD, ``<meta>`` or microdata compare equal when they say the same.
"""

from __future__ import annotations

import html
import re
from typing import Any

_SPACE = re.compile(r"\s+")
_WORD_CHARS = re.compile(r"\w+")
#: A social-media handle (``@newsroom``): a site name to unwrap, no author.
HANDLE = re.compile(r"^@\w+$")


def clean(text: str) -> str:
    """Whitespace collapsed, and the HTML entities some pages leave in their
    attributes and JSON (``&amp;``, ``&#8217;``) decoded."""
    if "&" in text:
        text = html.unescape(text)
    return _SPACE.sub(" ", text).strip()


def value_text(value: Any) -> str | None:
    """A JSON-LD or microdata value as text: the first of a list, a node's
    ``@value`` or ``name``, a number written out; ``None`` for anything else."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value") or value.get("name")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = clean(str(value))
        return value or None
    return None


def name_key(text: str | None) -> str:
    """*text* without case, spaces or punctuation, to compare names with hosts."""
    return "".join(_WORD_CHARS.findall(text.lower())) if text else ""
