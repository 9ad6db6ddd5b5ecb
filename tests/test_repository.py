"""The repository's text tells what the code does, not how it came to be.

Words of the development history (work periods, numbered tracker entries)
mean nothing to a reader of a release; what they stood for is said in
plain words where it matters (a measurement, the reason for a rule). The
check covers what a reader sees: the README, the docs, the package, its
tests and its benchmarks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Where the words are looked for: files, or directories (their text files, recursively).
CHECKED = ("README.md", "docs", "webclean_scrapy", "tests", "benchmarks")

#: Text files by suffix. Not read: compiled modules, images, the C that Cython generates (a copy of the
#: ``.pyx``), and the trained models (``.json``), whose vocabulary is words of web pages, not of this project.
TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".md", ".txt", ".toml", ".cfg", ".html", ".css", ".xml", ".jsonl", ".sh"}

#: The development-history words: a work period, and a numbered tracker entry.
HISTORY = {
    "work period": re.compile(r"(?i)\bsession\b"),
    "numbered tracker entry": re.compile(r"(?i)\bissue\s*#?\d+"),
}

#: ``relative/path:line`` of the hits accepted anyway: none.
ALLOWED: frozenset[str] = frozenset()


def text_files() -> list[Path]:
    files = []
    for name in CHECKED:
        path = REPO_ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts
            )
    return files


def test_the_checked_tree_is_there():
    """The check reads the files it means to: the package and the tests at least (a wrong root finds nothing)."""
    files = {path.relative_to(REPO_ROOT).as_posix() for path in text_files()}
    assert "tests/test_repository.py" in files and "webclean_scrapy/__init__.py" in files


@pytest.mark.parametrize("kind", sorted(HISTORY))
def test_no_development_history(kind):
    pattern = HISTORY[kind]
    hits = []
    for path in text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(REPO_ROOT).as_posix()}:{number}"
            if pattern.search(line) and where not in ALLOWED:
                hits.append(f"{where}: {line.strip()[:120]}")
    assert not hits, f"{len(hits)} lines name a {kind}:\n" + "\n".join(hits)
