"""Near-duplicate texts: MinHash signatures and an LSH index of the texts kept.

One module for the logic :class:`~webclean_scrapy.pipelines.NearDuplicatePipeline`
(during a crawl) and ``webclean dedup`` (on a finished corpus, :func:`deduplicate`)
share. Needs the ``[dedup]`` extra (datasketch; redis for a shared index).

A text is reduced to its set of word shingles (``shingle`` consecutive
lowercase ``\\w+`` tokens, so re-wrapping, punctuation and whitespace do not
count), summarised by a :class:`datasketch.MinHash` of ``num_perm``
permutations. A :class:`datasketch.MinHashLSH` tuned to ``threshold`` (an
estimated Jaccard similarity of the shingle sets) finds the texts already kept
that are that close. Everything is seeded (datasketch's fixed seed, SHA-1 of
the shingles), so the same text has the same signature in every process and
every run: needed for a shared index and for a deterministic ``webclean dedup``.

The index lives in memory, or, given a Redis URL, in Redis through
datasketch's own Redis storage (``storage_config={"type": "redis", ...}``), so
every worker of a distributed crawl checks against the texts all workers kept.
Check-then-insert is not atomic across workers: two copies that reach two
workers in the same instant may both be kept (rare; ``webclean dedup`` on the
merged output removes them).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webclean_scrapy.errors import install_hint

#: Defaults of the settings (``WEBCLEAN_NEAR_DUPLICATE_*``) and of ``webclean dedup``.
DEFAULT_THRESHOLD = 0.6
DEFAULT_NUM_PERM = 128
DEFAULT_SHINGLE = 5
#: Prefix of every Redis key of a shared index.
DEFAULT_REDIS_KEY = "webclean:near_duplicates"
#: Fields naming a record of a corpus (the first present one): :func:`record_key`.
RECORD_KEY_FIELDS = ("url", "canonical_url", "source")

_TOKEN = re.compile(r"\w+")


class DedupUnavailableError(ImportError):
    """The ``[dedup]`` extra (datasketch; redis for a shared index) is not installed."""


def _datasketch() -> Any:
    try:
        import datasketch
    except ImportError as exc:
        raise DedupUnavailableError(f"near-duplicate detection needs datasketch: {install_hint('dedup')}") from exc
    return datasketch


def shingles(text: str, size: int = DEFAULT_SHINGLE) -> set[bytes]:
    """The word *size*-grams of *text* (lowercase ``\\w+`` tokens), UTF-8 encoded.

    A text of fewer than *size* tokens is one shingle (all its tokens); an
    empty text has none.
    """
    tokens = _TOKEN.findall(text.lower())
    if len(tokens) <= size:
        return {" ".join(tokens).encode("utf-8")} if tokens else set()
    return {" ".join(tokens[i : i + size]).encode("utf-8") for i in range(len(tokens) - size + 1)}


def redis_storage_config(url: str, key: str = DEFAULT_REDIS_KEY) -> dict[str, Any]:
    """datasketch's ``storage_config`` for a Redis URL (``redis://``, ``rediss://``, ``unix://``)."""
    try:
        from redis.connection import parse_url
    except ImportError as exc:
        raise DedupUnavailableError(f"a shared near-duplicate index needs redis: {install_hint('dedup')}") from exc
    params = dict(parse_url(url))
    connection_class = params.pop("connection_class", None)
    if "path" in params:
        params["unix_socket_path"] = params.pop("path")
    if connection_class is not None and "SSL" in connection_class.__name__:
        params["ssl"] = True
    return {"type": "redis", "basename": key.encode("utf-8"), "redis": params}


@dataclass(frozen=True, slots=True)
class Match:
    """A text found to be a near-copy of the kept text *of*."""

    of: Hashable


class NearDuplicateIndex:
    """The texts kept so far; :meth:`check` tells whether a new one is a near-copy.

    *redis_url* ``None`` keeps the index in memory (one process); otherwise in
    Redis under keys starting with *redis_key*, shared by every index opened
    on the same URL and key with the same *threshold* and *num_perm*.
    """

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        num_perm: int = DEFAULT_NUM_PERM,
        shingle: int = DEFAULT_SHINGLE,
        redis_url: str | None = None,
        redis_key: str = DEFAULT_REDIS_KEY,
    ) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"the near-duplicate threshold must be in (0, 1], got {threshold}")
        if num_perm < 16:
            raise ValueError(f"num_perm must be at least 16, got {num_perm}")
        if shingle < 1:
            raise ValueError(f"the shingle size must be at least 1, got {shingle}")
        datasketch = _datasketch()
        self._minhash_class = datasketch.MinHash
        self.threshold = threshold
        self.num_perm = num_perm
        self.shingle = shingle
        storage = None
        if redis_url:
            # The parameters are part of the key: indexes built with other bands never mix.
            storage = redis_storage_config(redis_url, f"{redis_key}:{threshold}:{num_perm}:{shingle}:")
        self._lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm, storage_config=storage)
        # One MinHash object re-used for the permutations (computed once per index).
        template = self._minhash_class(num_perm=num_perm)
        self._permutations = template.permutations
        self._scheme = getattr(template, "scheme", None)
        self.kept = 0

    def signature(self, text: str) -> Any | None:
        """The MinHash of *text*'s shingles; ``None`` for a text without words."""
        grams = shingles(text, self.shingle)
        if not grams:
            return None
        extra = {"scheme": self._scheme} if self._scheme is not None else {}
        minhash = self._minhash_class(num_perm=self.num_perm, permutations=self._permutations, **extra)
        minhash.update_batch(list(grams))
        return minhash

    def find(self, signature: Any) -> Hashable | None:
        """The key of a kept text that *signature* is a near-copy of (the smallest, for
        a stable answer when several are), or ``None``."""
        found = self._lsh.query(signature)
        return min(found, key=str) if found else None

    def add(self, key: Hashable, signature: Any) -> None:
        """Record the kept text *key*."""
        self._lsh.insert(key, signature, check_duplication=False)
        self.kept += 1

    def check(self, key: Hashable, text: str) -> Match | None:
        """A :class:`Match` if *text* is a near-copy of a kept text; otherwise
        *text* is kept under *key* and ``None`` is returned. Texts without
        words are neither matched nor kept."""
        signature = self.signature(text)
        if signature is None:
            return None
        kept = self.find(signature)
        if kept is not None:
            return Match(kept)
        self.add(key, signature)
        return None


def record_key(record: Mapping[str, Any]) -> str:
    """What names *record* in a corpus: its first non-empty :data:`RECORD_KEY_FIELDS`, else ``""``."""
    return next((str(record[name]) for name in RECORD_KEY_FIELDS if record.get(name)), "")


@dataclass(frozen=True, slots=True)
class Deduplicated:
    """What :func:`deduplicate` kept and dropped."""

    #: The kept lines, sorted by key, then line.
    kept: list[str]
    #: ``(key, key of the kept record it is a near-copy of)`` per dropped record.
    dropped: list[tuple[str, Hashable]]


def deduplicate(records: Sequence[tuple[str, str, str]], index: NearDuplicateIndex) -> Deduplicated:
    """The ``(key, text, line)`` *records* of a corpus without their near-duplicates, deterministically.

    Records are considered longest text first (ties: smaller key, then
    smaller line), each kept unless its text is a near-copy of one kept
    before, so of a set of copies the fullest is kept. The kept lines are
    sorted by key, then line: the result depends on the set of records
    only, not on their order, and a corpus deduplicated twice is the same.
    """
    kept: list[tuple[str, str]] = []
    dropped: list[tuple[str, Hashable]] = []
    for number, (key, text, line) in enumerate(sorted(records, key=lambda r: (-len(r[1]), r[0], r[2]))):
        match = index.check((key, number), text)
        if match is None:
            kept.append((key, line))
        else:
            dropped.append((key, match.of[0] if isinstance(match.of, tuple) else match.of))
    return Deduplicated([line for _, line in sorted(kept)], dropped)
