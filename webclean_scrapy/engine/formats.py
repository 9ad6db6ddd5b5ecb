"""The output formats an extraction can be asked for, and their validation.

Kept apart from the renderer (:mod:`webclean_scrapy.engine.render`, which imports lxml
and numpy), so that checking a setting such as ``WEBCLEAN_FORMATS`` loads neither.
"""

from __future__ import annotations

from collections.abc import Iterable

from webclean_scrapy.errors import ExtractionError

#: What ``extract(..., output=...)`` and ``WEBCLEAN_FORMATS`` accept.
FORMATS: tuple[str, ...] = ("text", "markdown", "html")


def check_formats(formats: str | Iterable[str]) -> tuple[str, ...]:
    """*formats* (one name or several) validated, without ``"text"`` (always there)."""
    names = (formats,) if isinstance(formats, str) else tuple(formats)
    unknown = [name for name in names if name not in FORMATS]
    if unknown:
        raise ExtractionError(f"unknown output format(s) {', '.join(map(repr, unknown))}; known: {', '.join(FORMATS)}")
    return tuple(dict.fromkeys(name for name in names if name != "text"))
