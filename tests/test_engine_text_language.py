"""Language detection: the compiled byte automaton gives py3langid's own answers."""

from __future__ import annotations

import gc
import gzip
from pathlib import Path

import numpy as np
import pytest

from webclean_scrapy.engine.text.language import MIN_LETTERS, SAMPLE_CHARS, _half_to_single, _load, detect_language

py3langid = pytest.importorskip("py3langid.langid")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

TEXTS = [
    "The quick brown fox jumps over the lazy dog, again and again, until it is tired.",
    "Der schnelle braune Fuchs springt über den faulen Hund, immer wieder.",
    "Le renard brun rapide saute par-dessus le chien paresseux, encore et encore.",
    "Быстрая коричневая лиса прыгает через ленивую собаку снова и снова.",
    "日本語のテキストです。これは言語識別のテストのための文章です。",
    "中文段落，测试。这是一个用于语言识别测试的句子。",
    "ALL CAPITALS TEXT IS LOWERED BY PY3LANGID BEFORE IT IS READ, SO THIS TOO.",
    "Café naïve résumé \u0301 combining marks, NFC-normalised first " * 3,
    "\U0001f600 emoji and 12345 numbers 67890 with few words here and there",
    "x",
    "",
]


def reference():
    return py3langid.LanguageIdentifier.from_model_file(py3langid.MODEL_FILE, norm_probs=True)


def test_the_compiled_automaton_is_used_when_built() -> None:
    try:
        import webclean_scrapy.engine.text._langid  # noqa: F401
    except ImportError:
        pytest.skip("webclean_scrapy.engine.text._langid was not built")
    identifier = _load()
    assert type(identifier).__name__ == "CompiledAutomaton" and identifier._tables is not None
    # py3langid's two lists of ~100,000 ints are replaced by the arrays the
    # compiled walk reads: a full garbage collection has them to walk no more.
    assert identifier._rowbase is identifier._tables[1] and identifier.tk_output is identifier._tables[2]
    assert len(gc.get_referents(identifier._rowbase)) + len(gc.get_referents(identifier.tk_output)) < 10
    assert list(identifier._rowbase) == reference()._rowbase


def test_same_scores_as_py3langid() -> None:
    ours, theirs = _load(), reference()
    texts = list(TEXTS)
    if DATA.is_dir():
        for path in sorted(DATA.glob("*/html/*.html.gz"))[::97]:
            texts.append(gzip.decompress(path.read_bytes()).decode("utf-8", "replace")[-SAMPLE_CHARS:])
    for text in texts:
        assert ours.classify(text) == theirs.classify(text), text[:60]
        assert ours._decide(text).tobytes() == theirs._decide(text).tobytes()  # bit for bit


def test_sparse_rows_are_py3langids_counts_and_rows() -> None:
    """``_langid.sparse_rows`` against its reference, py3langid's
    ``visit_counts`` and the gather of its ``_sparse_score``: the same
    counts and float32 rows, in the same order, bit for bit, from the
    whole table and from strided ones (``set_languages`` keeps a subset
    of its columns)."""
    _langid = pytest.importorskip("webclean_scrapy.engine.text._langid")
    ours, theirs = _load(), reference()
    texts = [*TEXTS, "".join(map(chr, range(32, 2000))), "word " * 1000]
    full = ours.nb_ptc
    for table in (full, full[:, ::3], full[:, ::-1]):
        for text in texts:
            data = ours._encode(text)
            found = _langid.sparse_rows(*ours._tables, data, table.view(np.uint16), _half_to_single())
            visits = py3langid.visit_counts(theirs.tk_nextmove, theirs._rowbase, theirs.tk_output, data)
            if not visits:
                assert found is None
                continue
            counts, rows = found
            assert counts.tobytes() == np.fromiter(visits.values(), dtype=np.float32, count=len(visits)).tobytes()
            assert rows.tobytes() == table[list(visits)].astype(np.float32).tobytes()


def test_the_side_by_side_walk_is_a_single_walk_on_any_automaton() -> None:
    """The compiled walk cuts a long text into stretches walked side by
    side, each warmed up on the bytes before it. On an automaton whose
    state depends on the whole past (here: the parity of the ``a`` bytes
    read, and a counter of bytes modulo 5), a warm-up lands in the wrong
    state, and that stretch must be walked again: the outputs are still
    those of one walk from the start, in order."""
    _langid = pytest.importorskip("webclean_scrapy.engine.text._langid")
    from array import array

    states = 10  # parity (2) x position modulo 5
    nextmove = array("I", [0] * (states * 256))
    for state in range(states):
        parity, position = divmod(state, 5)
        for byte in range(256):
            nextmove[state * 256 + byte] = (parity ^ (byte == ord("a"))) * 5 + (position + 1) % 5
    rowbase = array("q", [state << 8 for state in range(states)])
    output = array("i", [-1, 3, -1, 8, 1, 6, -1, 2, 9, -1])
    table = np.arange(10 * 4, dtype=np.float16).reshape(10, 4)

    def one_walk(data: bytes) -> dict[int, int]:
        counts: dict[int, int] = {}
        state = 0
        for byte in data:
            state = nextmove[rowbase[state] + byte]
            if output[state] >= 0:
                counts[output[state]] = counts.get(output[state], 0) + 1
        return counts

    rng = np.random.default_rng(7)
    for size in (0, 1, 100, 511, 512, 513, 1000, 4099):
        for alphabet in (b"ab", b"abc ", bytes(range(256))):
            data = bytes(rng.choice(list(alphabet), size=size).astype(np.uint8))
            expected = one_walk(data)
            visits = _langid.visit_counts(nextmove, rowbase, output, data)
            assert list((visits or {}).items()) == list(expected.items())
            found = _langid.sparse_rows(nextmove, rowbase, output, data, table.view(np.uint16), _half_to_single())
            if not expected:
                assert found is None
                continue
            counts, rows = found
            assert list(counts) == list(expected.values())
            assert rows.tobytes() == table[list(expected)].astype(np.float32).tobytes()


def test_sparse_rows_refuse_features_past_the_table() -> None:
    """A feature past the table's rows raises, as numpy's gather does; the
    counting walk (``visit_counts``), which reads no table, counts it."""
    _langid = pytest.importorskip("webclean_scrapy.engine.text._langid")
    ours = _load()
    data = ours._encode(TEXTS[0])
    assert _langid.visit_counts(*ours._tables, data)
    with pytest.raises(IndexError, match="past the table"):
        _langid.sparse_rows(*ours._tables, data, ours.nb_ptc[:1].view(np.uint16), _half_to_single())


def test_too_few_letters_give_no_language() -> None:
    assert detect_language("1234 5678 " * 50) == (None, None)
    assert detect_language("a1" * (MIN_LETTERS - 1)) == (None, None)
    assert detect_language("a1" * MIN_LETTERS)[0] is not None
    assert detect_language("The quick brown fox jumps over the lazy dog.")[0] == "en"
