"""The progress bar of long ``webclean`` runs (``extract``, ``eval``).

Drawn on stderr, so stdout stays the records alone; shown on a terminal
from :data:`PROGRESS_THRESHOLD` inputs on, or whenever ``--progress`` asks.
"""

from __future__ import annotations

import sys
import time
from typing import IO

#: Show a progress bar (on a terminal) from this many files on.
PROGRESS_THRESHOLD = 20


def want_progress(total: int, forced: bool) -> bool:
    """Whether a run over *total* inputs draws a bar (*forced*: ``--progress``)."""
    return forced or (total > PROGRESS_THRESHOLD and sys.stderr.isatty())


class Progress:
    """A one-line progress bar on stderr; a no-op when disabled."""

    def __init__(self, total: int, enabled: bool, stream: IO[str] | None = None, width: int = 30) -> None:
        self.total = total
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self._drawn = 0.0
        self._line = ""

    def advance(self, step: int = 1) -> None:
        self.done += step
        if not self.enabled:
            return
        now = time.monotonic()
        if self.done < self.total and now - self._drawn < 0.1:
            return
        self._drawn = now
        filled = self.width * self.done // self.total
        self._line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {100 * self.done // self.total}%"
        )
        self.stream.write("\r" + self._line)
        self.stream.flush()

    def message(self, text: str) -> None:
        """Print a line on stderr above the bar."""
        if self._line:
            self.stream.write("\r" + " " * len(self._line) + "\r")
        print(text, file=self.stream)
        if self._line:
            self.stream.write(self._line)
        self.stream.flush()

    def close(self) -> None:
        if self._line:
            self.stream.write("\n")
            self.stream.flush()
            self._line = ""
