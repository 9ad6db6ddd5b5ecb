"""The fields of an extraction a caller may leave out, and their validation.

``extract(html, fields=...)`` and ``WEBCLEAN_FIELDS`` name the fields wanted
besides the core every extraction fills (:data:`CORE_FIELDS`); the work
behind a field no one asked for is not done, and the field keeps its empty
value. Kept apart from :mod:`webclean_scrapy.engine.extraction` (which
imports lxml and numpy), so that checking a setting loads neither.
"""

from __future__ import annotations

from collections.abc import Iterable

from webclean_scrapy.errors import ExtractionError

#: Filled on every call: the text, and what the extractor reads anyway (the
#: page type is one of the ``webclean`` extractor's inputs; the declared
#: language is one attribute of ``<html>`` or ``<meta>``).
CORE_FIELDS: tuple[str, ...] = (
    "text",
    "extractor",
    "url",
    "language",
    "page_type",
    "page_type_confidence",
    "truncated",
)
#: Read by the metadata readers (:mod:`webclean_scrapy.engine.metadata`), all in
#: one pass: the same names, in the same order, as its ``METADATA_FIELDS``.
METADATA_FIELDS: tuple[str, ...] = (
    "title",
    "author",
    "date",
    "date_modified",
    "sitename",
    "description",
    "tags",
    "image",
    "canonical_url",
)
#: Given by the language-identification model (:mod:`webclean_scrapy.engine.text.language`).
LANGUAGE_FIELDS: tuple[str, ...] = ("detected_language", "language_confidence")
#: Rendered from the kept blocks (:mod:`webclean_scrapy.engine.render`), as ``output=`` asks.
FORMAT_FIELDS: tuple[str, ...] = ("markdown", "html")
#: What ``fields=`` may name (besides the core, accepted and always filled).
OPTIONAL_FIELDS: tuple[str, ...] = METADATA_FIELDS + LANGUAGE_FIELDS + FORMAT_FIELDS
#: Names that stand for several fields.
FIELD_GROUPS: dict[str, tuple[str, ...]] = {"metadata": METADATA_FIELDS}


def check_fields(fields: str | Iterable[str] | None) -> frozenset[str] | None:
    """The optional fields *fields* names (a name, a group of :data:`FIELD_GROUPS`,
    or several), validated; ``None`` (every field) stays ``None``, so the
    default call takes the path it always took. Core fields may be named
    and change nothing."""
    if fields is None:
        return None
    names = (fields,) if isinstance(fields, str) else tuple(fields)
    wanted: set[str] = set()
    unknown = []
    for name in names:
        if not isinstance(name, str):
            unknown.append(name)
        elif name in FIELD_GROUPS:
            wanted.update(FIELD_GROUPS[name])
        elif name in OPTIONAL_FIELDS:
            wanted.add(name)
        elif name not in CORE_FIELDS:
            unknown.append(name)
    if unknown:
        known = ", ".join((*FIELD_GROUPS, *OPTIONAL_FIELDS, *CORE_FIELDS))
        raise ExtractionError(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {known}")
    return frozenset(wanted)
