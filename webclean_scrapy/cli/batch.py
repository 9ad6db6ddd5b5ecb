"""Batch runs of ``webclean extract``: input lists, the end-of-run summary, the exit status.

Kept apart from :mod:`webclean_scrapy.cli`'s argument parsing so the
bookkeeping of a run (what was read, what came out, what failed) is one
small, testable piece:

- :func:`read_input_list`: ``--input-list FILE``, one path per line;
- :func:`check_gzip_name`: a file named ``.gz`` must be gzip;
- :class:`RunSummary`: pages, empty, failed, characters in and out, page
  types; printed on stderr at the end of every run, and the exit status.

Exit status, as ``make`` and ``make -k`` have it: the first input that
fails stops the run (``--keep-going``: every input is tried), and any failure
makes the status non-zero either way, so a script or a scheduler sees that
something was lost without reading stderr.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from webclean_scrapy.errors import ExtractionError

#: Leading bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"


class InputListError(ValueError):
    """An ``--input-list`` file cannot be read; the message says which and why."""


def parse_input_list(lines: Iterator[str] | list[str]) -> list[str]:
    """Paths from the lines of an input list: one per line, surrounding
    blanks stripped; blank lines and lines starting with ``#`` are skipped
    (a ``#`` later in a line is part of the path)."""
    paths = []
    for line in lines:
        entry = line.strip()
        if entry and not entry.startswith("#"):
            paths.append(entry)
    return paths


def read_input_list(name: str, stdin: IO[str] | None = None) -> list[str]:
    """The paths listed in the file *name* (``-``: standard input).

    Relative paths are taken from the current directory, as ``tar -T`` and
    ``wget -i`` do. Raises :class:`InputListError` when the list cannot be
    read or is not text.
    """
    if name == "-":
        return parse_input_list((stdin or sys.stdin).read().splitlines())
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputListError(f"input list {name}: no such file") from None
    except IsADirectoryError:
        raise InputListError(f"input list {name}: is a directory") from None
    except UnicodeDecodeError:
        raise InputListError(f"input list {name}: not UTF-8 text") from None
    except OSError as exc:
        raise InputListError(f"input list {name}: {exc.strerror or exc}") from None
    return parse_input_list(text.splitlines())


def check_gzip_name(source: str, data: bytes) -> None:
    """Refuse a file named ``*.gz`` whose bytes are not gzip.

    Reading it as HTML would pass off a damaged or mislabelled archive as a
    page of binary noise (or, worse, of plausible text); the name promised
    gzip, so the mismatch is an error.
    """
    if source.lower().endswith(".gz") and not data.startswith(GZIP_MAGIC):
        raise ExtractionError("named .gz but not gzip")


def _count(number: int, unit: str) -> str:
    return f"{number:,} {unit}{'' if number == 1 else 's'}"


@dataclass
class RunSummary:
    """What a ``webclean extract`` run read and wrote, for its last lines on stderr.

    A *page* is one extraction: a file, or one HTML record of a WARC file.
    ``chars_in`` counts the characters of the decoded HTML, ``chars_out`` those
    of the extracted text; ``page_types`` counts the pages whose extractor
    told their type.
    """

    pages: int = 0
    empty: int = 0
    failed: int = 0
    chars_in: int = 0
    chars_out: int = 0
    page_types: Counter[str] = field(default_factory=Counter)
    #: Set when the run stopped at a failure (no ``--keep-going``).
    stopped: bool = False

    def extracted(self, record: dict[str, Any], chars_in: int) -> None:
        """Count one page that came out (possibly empty)."""
        self.pages += 1
        text = record.get("text") or ""
        self.chars_in += chars_in
        self.chars_out += len(text)
        if not text:
            self.empty += 1
        # A near-empty page nothing names has no type; the summary counts it as "none".
        self.page_types[record.get("page_type") or "none"] += 1

    def failure(self) -> None:
        """Count one page that could not be read or extracted."""
        self.pages += 1
        self.failed += 1

    @property
    def exit_status(self) -> int:
        """0 when every page came out (empty ones included), 1 otherwise."""
        return 1 if self.failed else 0

    def lines(self) -> list[str]:
        """The summary, one line per topic, without a prefix."""
        ok = self.pages - self.failed
        lines = [f"{_count(self.pages, 'page')}: {ok:,} extracted ({self.empty:,} empty), {self.failed:,} failed"]
        ratio = f" ({100 * self.chars_out / self.chars_in:.1f}%)" if self.chars_in else ""
        lines.append(f"characters: {self.chars_in:,} in, {self.chars_out:,} out{ratio}")
        if self.page_types:
            ordered = sorted(self.page_types.items(), key=lambda item: (-item[1], item[0]))
            lines.append("page types: " + ", ".join(f"{name} {count:,}" for name, count in ordered))
        if self.stopped:
            lines.append("stopped at the first failure; --keep-going tries every input")
        return lines
