"""The output formats an extraction can be asked for, and their validation.

Kept apart from the renderer (:mod:`webclean_scrapy.engine.render`, which imports lxml
and numpy), so that checking a setting such as ``WEBCLEAN_FORMATS`` loads neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Markup:
    """The inline markup the Markdown and clean HTML outputs keep besides
    their block structure; all off by default (the outputs are then exactly
    the block structure). trafilatura's ``include_links``,
    ``include_formatting`` and ``include_images``.

    ``links``: ``[text](url)`` / ``<a href>``, the address made absolute
    against the page's URL or its ``<base href>``; ``javascript:``, empty
    and fragment-only targets are left as their text. ``formatting``:
    ``*em*``, ``**strong**`` and inline ``code``. ``images``:
    ``![alt](src)`` / ``<img>`` of the kept blocks and of the figures they
    are in. A plain frozen value: it travels to worker processes.
    """

    links: bool = False
    formatting: bool = False
    images: bool = False

    def __bool__(self) -> bool:
        return self.links or self.formatting or self.images

    def __reduce__(self) -> tuple[type[Markup], tuple[bool, bool, bool]]:
        # Sent with each page a worker process extracts: three flags pickle in a
        # third of the time of a dataclass's state.
        return Markup, (self.links, self.formatting, self.images)


#: No inline markup: the outputs' default.
NO_MARKUP = Markup()
