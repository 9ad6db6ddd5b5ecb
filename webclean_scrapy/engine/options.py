"""Rules for extractor options: each extractor declares its rules once, in
:attr:`Extractor.rules <webclean_scrapy.Extractor.rules>`, and the base class
checks every option against them when the extractor is built.

So a bad value (``threshold="x"``, ``deduplicate=None``, ``coefficient=nan``,
``fallback=None``) is an :class:`~webclean_scrapy.ExtractionError` naming the
extractor, the option and what it accepts, raised at configuration time --
when a crawl starts, not as a numpy error on every page.

A rule is a callable that returns the (possibly normalised) value or raises
:class:`OptionError` with what it expects; the factories below build the
common ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

#: Checks one option value; returns it (normalised) or raises :class:`OptionError`.
Rule = Callable[[Any], Any]


class OptionError(ValueError):
    """A value does not satisfy a rule; the message says what is expected."""


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def number(low: float | None = None, high: float | None = None, *, optional: bool = False) -> Rule:
    """A finite real number (not a bool, not a string) within the bounds; ``None`` too if *optional*."""
    expected = f"a finite number{_bounds(low, high)}" + (" or None" if optional else "")

    def rule(value: Any) -> Any:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise OptionError(f"must be {expected}")
        result = float(value) if not isinstance(value, Integral) else int(value)
        if (low is not None and result < low) or (high is not None and result > high):
            raise OptionError(f"must be {expected}")
        return result

    return rule


def integer(low: int | None = None, high: int | None = None, *, optional: bool = False) -> Rule:
    """An integer (not a bool) within the bounds; ``None`` too if *optional*."""
    expected = f"an integer{_bounds(low, high)}" + (" or None" if optional else "")

    def rule(value: Any) -> Any:
        if value is None and optional:
            return None
        if (
            isinstance(value, bool)
            or not isinstance(value, Integral)
            or (low is not None and int(value) < low)
            or (high is not None and int(value) > high)
        ):
            raise OptionError(f"must be {expected}")
        return int(value)

    return rule


def one_of(*choices: Any) -> Rule:
    """One of *choices*, compared with ``==``."""
    expected = ", ".join(repr(c) for c in choices)

    def rule(value: Any) -> Any:
        if isinstance(value, (list, dict, set)) or value not in choices:
            raise OptionError(f"must be one of {expected}")
        return value

    return rule


def boolean(*, optional: bool = False) -> Rule:
    """``True`` or ``False`` (``0`` and ``1`` accepted); not a string, which is always truthy;
    ``None`` too if *optional* (an option whose default is a rule of its own)."""

    def rule(value: Any) -> Any:
        if value is None and optional:
            return None
        if isinstance(value, bool) or (isinstance(value, Integral) and value in (0, 1)):
            return bool(value)
        raise OptionError("must be true or false" + (" or None" if optional else ""))

    return rule


def extractor_name() -> Rule:
    """An extractor name, dotted path or :class:`~webclean_scrapy.Extractor` subclass
    (resolved by the extractor that uses it)."""

    def rule(value: Any) -> Any:
        if (isinstance(value, str) and value.strip()) or isinstance(value, type):
            return value
        raise OptionError("must be an extractor name, a dotted path or an Extractor subclass")

    return rule
