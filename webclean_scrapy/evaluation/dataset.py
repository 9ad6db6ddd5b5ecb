"""Annotated datasets on disk: ``DIR/html/<id>.html.gz`` + ``DIR/truth.jsonl``.

``truth.jsonl`` holds one ``{"id", "url", "text"}`` object per line (the gold
main text). Some datasets say more per page (WCXB: ``page_type``, ``title``,
``author``, ``date``, and ``with`` / ``without`` lists of snippets the main
text must / must not contain); those fields are optional and kept on the
:class:`Page` when present. Pages are read as raw bytes, never decoded here:
our extractors detect the charset themselves, exactly as they would on a
crawled response.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class DatasetError(ValueError):
    """The directory is not a dataset in the expected layout."""


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    url: str | None
    gold: str
    path: Path
    #: The optional fields of richer datasets (None / empty when absent).
    page_type: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None
    #: Snippets the main text must contain (``with``) / must not contain (``without``).
    with_snippets: tuple[str, ...] = ()
    without_snippets: tuple[str, ...] = ()

    def read(self) -> bytes:
        """The page's raw bytes (gunzipped when stored as ``.gz``)."""
        data = self.path.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def load_dataset(directory: str | Path, limit: int | None = None) -> list[Page]:
    """The pages of a dataset in ``truth.jsonl`` order (the first *limit* ones).

    Pages whose HTML file is missing are skipped; a dataset with no usable
    page is an error.
    """
    root = Path(directory)
    truth = root / "truth.jsonl"
    if not truth.is_file():
        raise DatasetError(f"{root}: no truth.jsonl (expected DIR/truth.jsonl and DIR/html/<id>.html.gz)")
    pages: list[Page] = []
    with truth.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                page_id = str(record["id"])
            except (ValueError, KeyError, TypeError) as exc:
                raise DatasetError(f"{truth}:{number}: not a {{'id', 'url', 'text'}} record ({exc})") from exc
            path = next(
                (p for p in (root / "html" / f"{page_id}.html.gz", root / "html" / f"{page_id}.html") if p.is_file()),
                None,
            )
            if path is None:
                continue
            try:
                extra = _extra_fields(record)
            except (ValueError, TypeError) as exc:
                raise DatasetError(f"{truth}:{number}: {exc}") from exc
            pages.append(Page(page_id, record.get("url"), record.get("text") or "", path, **extra))
            if limit is not None and len(pages) >= limit:
                break
    if not pages:
        raise DatasetError(f"{root}: no page of truth.jsonl has its html/<id>.html(.gz) file")
    return pages


def _optional_string(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TypeError(f"{key!r} should be a string, got {type(value).__name__}")
    return value


def _snippets(record: dict[str, Any], key: str) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{key!r} should be a list of strings")
    return tuple(item for item in value if item.strip())  # a blank snippet is in every text


def _extra_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The optional per-page fields of *record*, as :class:`Page` keywords."""
    return {
        "page_type": _optional_string(record, "page_type"),
        "title": _optional_string(record, "title"),
        "author": _optional_string(record, "author"),
        "date": _optional_string(record, "date"),
        "with_snippets": _snippets(record, "with"),
        "without_snippets": _snippets(record, "without"),
    }


def dataset_name(directory: str | Path) -> str:
    return Path(directory).resolve().name
