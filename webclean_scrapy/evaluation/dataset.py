"""Annotated datasets on disk: ``DIR/html/<id>.html.gz`` + ``DIR/truth.jsonl``.

``truth.jsonl`` holds one ``{"id", "url", "text"}`` object per line (the gold
main text). Pages are read as raw bytes, never decoded here: our extractors
detect the charset themselves, exactly as they would on a crawled response.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path


class DatasetError(ValueError):
    """The directory is not a dataset in the expected layout."""


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    url: str | None
    gold: str
    path: Path

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
            path = next((p for p in (root / "html" / f"{page_id}.html.gz", root / "html" / f"{page_id}.html")
                         if p.is_file()), None)
            if path is None:
                continue
            pages.append(Page(page_id, record.get("url"), record.get("text") or "", path))
            if limit is not None and len(pages) >= limit:
                break
    if not pages:
        raise DatasetError(f"{root}: no page of truth.jsonl has its html/<id>.html(.gz) file")
    return pages


def dataset_name(directory: str | Path) -> str:
    return Path(directory).resolve().name
