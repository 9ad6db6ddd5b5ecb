"""What several ``webclean`` commands share: exit statuses, error lines, option values, reading a page.

Kept in one module so every command reports a failure, parses ``--option``
and reads an input file the same way, and the command modules never import
each other.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from webclean_scrapy.errors import ExtractionError

#: The path that names standard input.
STDIN = "-"

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def error(message: str) -> None:
    """A ``webclean: ...`` line on stderr: the one form every failure takes."""
    print(f"webclean: {message}", file=sys.stderr)


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are JSON when they parse as JSON (numbers,
    booleans, lists), plain strings otherwise."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options


def positive_int(value: str) -> int:
    """argparse type: its message names the option (``argument -j/--jobs: expected
    a positive integer, got 'abc'``), not this function."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def open_output(path: str | None) -> IO[str]:
    """The file *path* for writing, or stdout made UTF-8 (the records are UTF-8
    whatever the terminal's locale)."""
    if path is None:
        stream = sys.stdout
        if (getattr(stream, "encoding", "utf-8") or "").lower().replace("-", "") != "utf8" and hasattr(
            stream, "reconfigure"
        ):
            stream.reconfigure(encoding="utf-8")
        return stream
    return open(path, "w", encoding="utf-8")


class UnreadableFileError(OSError):
    """An input file could not be read; the message is the short reason."""


def read_source(source: str) -> bytes:
    """The bytes of one input file; :class:`UnreadableFileError` otherwise."""
    try:
        return Path(source).read_bytes()
    except IsADirectoryError:
        raise UnreadableFileError("is a directory") from None
    except FileNotFoundError:
        raise UnreadableFileError("no such file") from None
    except OSError as exc:
        raise UnreadableFileError(exc.strerror or str(exc)) from None


def read_page(data: bytes) -> bytes:
    """Gunzip when the bytes are gzip (whatever the file is called)."""
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ExtractionError(f"not a valid gzip file ({exc})") from exc
    return data
