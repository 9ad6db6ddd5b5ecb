"""Property-based fuzzing of every extractor, both walks and the middleware.

A few seconds in CI: a small, derandomized number of generated pages
(:mod:`_fuzz` states the properties). ``benchmarks/fuzz.py`` runs the same
checks on as many pages as asked.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz import MARKUP, check_charset, check_extractors, check_markup, check_walks, make_middleware

#: CI: derandomized (the same pages on every run), no per-example deadline
#: (the machine is shared), small.
CI = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def middleware():
    return make_middleware()


@CI
@given(markup=MARKUP)
def test_generated_markup(markup: str, middleware) -> None:
    check_markup(markup, middleware)


@CI
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    """Raw bytes (binary or in any encoding): an Extraction or an ExtractionError."""
    check_extractors(data)
    check_walks(data.decode("utf-8", "replace"))
    check_charset(data)


@pytest.mark.parametrize(
    "markup",
    [
        "<div>" * 2100 + "x" + "<p>after</p>",
        "<p><font>" * 1200 + "tail",
        "x</html><p>hello</p>",
        "<table>" + "<tr><td>" * 900,
        "\ud800<p>\x00</p>",
    ],
)
def test_known_hostile_pages(markup: str, middleware) -> None:
    """The shapes the fuzzer found hard, pinned (also a quick smoke test)."""
    check_markup(markup, middleware)
