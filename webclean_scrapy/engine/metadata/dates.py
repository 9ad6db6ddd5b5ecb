"""The page's publication and modification dates, as ISO 8601.

``YYYY-MM-DD``, or the datetime exactly as the page gave it when it was
already ISO (its local date is the page's publication day; converting to UTC
would move it). Sources, most precise first (measured on wcxb-dev,
docs/EVALUATION.md): a day in the URL path (``/2025/09/04/``,
``/2025-09-04-``), the explicit ``<meta>`` names, JSON-LD, ``<time
datetime>``, microdata, then a date printed next to the heading. Our own
sources beat htmldate on wcxb-dev at a hundredth of its cost, so htmldate is
opt-in (the ``dates`` extra), asked only when none of them gave a date.
"""

from __future__ import annotations

import re
from datetime import date as _date
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.html.elements import tagged_elements
from webclean_scrapy.engine.metadata.jsonld import JsonLd
from webclean_scrapy.engine.metadata.meta import MetaValues

#: ``/2025/09/04/``, ``/2025-09-04``, ``/20250904/``, ``/2025/09/`` in a URL path.
_URL_DATE = re.compile(
    r"/((?:19|20)\d\d)[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:[/_.-]|$)"
    r"|/((?:19|20)\d\d)/(0[1-9]|1[0-2])/"
)
_ISO = re.compile(
    r"^\s*((?:19|20)\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])"
    r"(?:([T ])([0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d+)?)?)\s*(Z|[+-][0-2]\d:?[0-5]\d)?)?"
)
_ISO_ANYWHERE = re.compile(r"\b((?:19|20)\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b()()()")
#: What every date pattern of :func:`_text_date` holds: a year of 1900-2099
#: (``_ISO_ANYWHERE``, ``_SLASHED``, ``_TEXT_DATES``, ``_NUMERIC_DATE``). A
#: block without one ("5 comments", "10:42") is passed over with one search.
_HAS_YEAR = re.compile(r"(?:19|20)\d\d")
_SLASHED = re.compile(r"\b((?:19|20)\d\d)[/.](0?[1-9]|1[0-2])[/.](0?[1-9]|[12]\d|3[01])\b")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "january jan janvier januar enero gennaio",
            "february feb feb. février februar febrero febbraio",
            "march mar mars märz marzo",
            "april apr avril abril aprile",
            "may mai mayo maggio",
            "june jun juin juni junio giugno",
            "july jul juillet juli julio luglio",
            "august aug août agosto",
            "september sep sept septembre settembre septiembre",
            "october oct octobre oktober octubre ottobre",
            "november nov novembre noviembre",
            "december dec décembre dezember diciembre dicembre",
        ),
        1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_TEXT_DATES = (
    # September 4, 2025 / Sep. 4th 2025
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.I), (3, 1, 2)),
    # 4 September 2025 / 4. September 2025
    (
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+(?:de\s+)?({_MONTH})\.?,?\s+(?:de\s+)?((?:19|20)\d\d)\b", re.I
        ),
        (3, 2, 1),
    ),
)
#: Class / id words of a ``<time>`` or element that holds the publication date.
_PUBLISHED_HINT = re.compile(r"publish|posted|entry-date|post-date|article-date|dateline|byline|date", re.I)
_UPDATED_HINT = re.compile(r"updated|modified|last-?edit", re.I)


def publication_date(
    doc: Document, ld: JsonLd, meta: MetaValues, micro: dict[str, Any], use_htmldate: bool = False
) -> str | None:
    """*doc*'s publication date from the first source that gives one (*use_htmldate*:
    htmldate's when none does)."""
    found = (
        _url_date(doc.url or doc.canonical_url or "")
        or _first_date(meta.values("date"))
        or _iso_date(ld.date)
        or _time_date(tagged_elements(doc)["time"])
        or _iso_date(micro.get("datepublished"))
        or _iso_date(micro.get("datecreated"))
        or _text_date(doc)
    )
    if found is None and use_htmldate:
        found = _htmldate(doc)
    return found


def modification_date(ld: JsonLd, meta: MetaValues, micro: dict[str, Any]) -> str | None:
    """The page's last modification date: JSON-LD, the ``<meta>`` names, then microdata."""
    return (
        _iso_date(ld.date_modified) or _first_date(meta.values("date_modified")) or _iso_date(micro.get("datemodified"))
    )


def _iso_date(value: Any, search: bool = False) -> str | None:
    """*value* as an ISO 8601 date or datetime string, or ``None``; with
    *search*, a date anywhere in the text (ISO, ``YYYY/MM/DD`` or with a
    month name), else only one the value starts with (any of those forms)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 1e8:
        from datetime import datetime, timezone

        try:
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, timezone.utc).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    match = (_ISO_ANYWHERE.search if search else _ISO.match)(value)
    if match:
        year, month, day, sep, clock, zone = match.groups()
        day_iso = _valid(year, month, day)
        if day_iso is None:
            return None
        if clock:
            zone = zone or ""
            if zone and zone != "Z" and ":" not in zone:
                zone = f"{zone[:3]}:{zone[3:]}"
            return f"{day_iso}T{clock}{zone}"
        return day_iso
    match = _SLASHED.search(value)
    if match:
        return _valid(*match.groups())
    for pattern, (y, m, d) in _TEXT_DATES:
        match = pattern.search(value)
        if match:
            groups = match.groups()
            month = _MONTHS.get(groups[m - 1].lower().rstrip("."))
            if month:
                return _valid(groups[y - 1], str(month), groups[d - 1])
    return None


def _valid(year: str, month: str, day: str) -> str | None:
    try:
        found = _date(int(year), int(month), int(day))
    except ValueError:
        return None
    if found.year < 1995 or found > _date.today().replace(year=_date.today().year + 1):
        return None
    return found.isoformat()


def _first_date(values: list[str]) -> str | None:
    for value in values:
        found = _iso_date(value)
        if found:
            return found
    return None


def _time_date(times: list[etree._Element]) -> str | None:
    """The publication date a ``<time datetime>`` gives: one marked as such
    (``pubdate``, ``itemprop``, a class saying published), else the first
    one not marked as an update."""
    first = None
    for el in times:
        value = el.get("datetime")
        if not value:
            continue
        hints = " ".join(
            filter(
                None,
                (
                    el.get("class"),
                    el.get("itemprop"),
                    el.getparent().get("class") if el.getparent() is not None else None,
                ),
            )
        )
        if _UPDATED_HINT.search(hints):
            continue
        if el.get("pubdate") is not None or _PUBLISHED_HINT.search(hints):
            found = _iso_date(value)
            if found:
                return found
        if first is None:
            first = value
    return _iso_date(first) if first else None


#: How many blocks around the page's heading are read for a visible date
#: (a byline sits just above or below it).
_TEXT_DATE_BEFORE, _TEXT_DATE_AFTER = 8, 40
#: Longer blocks are prose, whose dates are what the text is about.
_TEXT_DATE_BLOCK_CHARS = 160
_NUMERIC_DATE = re.compile(r"\b(0?[1-9]|[12]\d|3[01])[/.](0?[1-9]|[12]\d|3[01])[/.]((?:19|20)\d\d)\b")


def _text_date(doc: Document) -> str | None:
    """A date printed in a short block next to the page's first ``<h1>``
    (or at the top of the page when it has none): the byline's."""
    columns = doc.container_columns
    try:
        h1 = columns.tags.index("h1")
        start = max(int(columns.first_blocks[h1]), 0)
    except ValueError:
        start = 0
    texts = doc.block_columns.texts[max(start - _TEXT_DATE_BEFORE, 0) : start + _TEXT_DATE_AFTER]
    for text in texts:
        if len(text) > _TEXT_DATE_BLOCK_CHARS or not _HAS_YEAR.search(text):
            continue
        found = _iso_date(text, search=True)
        if found is None:
            match = _NUMERIC_DATE.search(text)
            if match:
                first, second, year = match.groups()
                found = _valid(year, first, second) if int(first) <= 12 else _valid(year, second, first)
        if found:
            return found
    return None


def _url_date(url: str) -> str | None:
    match = _URL_DATE.search(urlsplit(url).path) if url else None
    if match is None:
        return None
    year, month, day, year2, month2 = match.groups()
    if year:
        return _valid(year, month, day)
    return None  # a month without a day is no publication day


def _htmldate(doc: Document) -> str | None:
    """htmldate's publication date (its own parse of the page: ~100x the
    cost of everything else here, hence opt-in)."""
    from htmldate import find_date  # ImportError: the "dates" extra is not installed

    try:
        return find_date(doc.source, url=doc.url, original_date=True, extensive_search=True)
    except Exception:  # htmldate reads any markup; a failure is no date
        return None
