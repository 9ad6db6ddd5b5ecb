"""Near-duplicate detection (``webclean_scrapy.dedup``): shingles, the MinHash index, the index shared in a real ``redis-server``, and ``webclean dedup``."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("py3langid")
pytest.importorskip("datasketch")


from pages import FRENCH, GAZETTE_STORY, GERMAN
from webclean_scrapy.cli import main  # noqa: E402
from webclean_scrapy.dedup import NearDuplicateIndex, shingles  # noqa: E402


def test_shingles():
    assert shingles("One, two; THREE four five six", 5) == {b"one two three four five", b"two three four five six"}
    assert shingles("a b", 5) == {b"a b"} and shingles(" ,. ", 5) == set()


def test_index_finds_near_copies_only():
    index = NearDuplicateIndex(threshold=0.8)
    assert index.check("a", GAZETTE_STORY) is None
    assert index.check("b", GAZETTE_STORY.upper().replace("\n", "  ")).of == "a"  # re-wrapped, other case
    assert index.check("c", GAZETTE_STORY.replace("eleven", "twelve")).of == "a"  # lightly edited
    assert index.check("d", GERMAN) is None and index.check("e", FRENCH) is None
    assert index.check("f", "") is None and index.kept == 3
    with pytest.raises(ValueError):
        NearDuplicateIndex(threshold=1.5)


def test_shared_index_in_redis(redis_url):
    """Two workers' indexes on one Redis: each sees what the other kept."""
    import redis

    first = NearDuplicateIndex(redis_url=redis_url, redis_key="test")
    second = NearDuplicateIndex(redis_url=redis_url, redis_key="test")
    assert first.check("https://a.example/story", GAZETTE_STORY) is None
    assert second.check("https://b.example/copy", GAZETTE_STORY + " Read more.").of == "https://a.example/story"
    assert second.check("https://c.example/de", GERMAN) is None
    assert first.check("https://d.example/de", GERMAN).of == "https://c.example/de"
    client = redis.Redis.from_url(redis_url)
    assert any(key.startswith(b"test:") for key in client.scan_iter())
    # Another key (another spider) is another index.
    assert NearDuplicateIndex(redis_url=redis_url, redis_key="other").check("x", GAZETTE_STORY) is None


# -- webclean dedup ---------------------------------------------------------------------------
def corpus_lines() -> list[str]:
    records = [
        {"url": "https://a.example/story", "text": GAZETTE_STORY},
        {"url": "https://b.example/copy", "text": GAZETTE_STORY.replace("eleven", "twelve") + "\nShare this"},
        {"url": "https://c.example/cut", "text": GAZETTE_STORY[: int(len(GAZETTE_STORY) * 0.9)]},
        {"url": "https://d.example/de", "text": GERMAN},
        {"url": "https://e.example/fr", "text": FRENCH},
        {"source": "f.html", "text": ""},
        {"url": "https://g.example/no-text"},
    ]
    return [json.dumps(record, ensure_ascii=False) for record in records]


def test_dedup_cli_is_deterministic(tmp_path, capsys):
    lines = corpus_lines()
    outputs = []
    for seed in range(4):
        shuffled = lines[:]
        random.Random(seed).shuffle(shuffled)
        (tmp_path / "in.jsonl").write_text("\n".join(shuffled) + "\n", encoding="utf-8")
        out = tmp_path / f"out{seed}.jsonl"
        assert main(["dedup", str(tmp_path / "in.jsonl"), "-o", str(out), "--dropped", str(tmp_path / "d.jsonl")]) == 0
        outputs.append(out.read_bytes())
    assert len(set(outputs)) == 1
    kept = [json.loads(line) for line in outputs[0].decode().splitlines()]
    # The longest copy of the story is kept; the other two are dropped, and named with it.
    assert [r.get("url") or r.get("source") for r in kept] == [
        "f.html",
        "https://b.example/copy",
        "https://d.example/de",
        "https://e.example/fr",
        "https://g.example/no-text",
    ]
    dropped = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text().splitlines()]
    assert dropped == [
        {"key": "https://a.example/story", "near_duplicate_of": "https://b.example/copy"},
        {"key": "https://c.example/cut", "near_duplicate_of": "https://b.example/copy"},
    ]
    assert "7 records, kept 5, dropped 2" in capsys.readouterr().err


def test_dedup_cli_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(corpus_lines()[0] + "\n{not json\n", encoding="utf-8")
    assert main(["dedup", str(bad), "-o", str(tmp_path / "out.jsonl")]) == 1
    assert "bad.jsonl:2: not JSON" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()
    assert main(["dedup", str(tmp_path / "missing.jsonl")]) == 1
    assert main(["dedup", str(bad), "--threshold", "2"]) == 2
