"""Results derived from one page, kept on its :class:`~webclean_scrapy.engine.document.Document` for its other readers.

The page type, the metadata and the element survey are each computed once per page and read by
several stages. The document holds them without knowing them: each reader declares a typed
:class:`MemoKey` of its own, so the document model imports none of its readers.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class MemoKey(Generic[_T_co]):
    """The name of one memoised result, typed by the value it holds."""

    __slots__ = ("name", "from_tree")

    def __init__(self, name: str, *, from_tree: bool = False) -> None:
        self.name = name
        #: The value holds element proxies of the tree: dropped when the tree is cut down or
        #: released (:meth:`PageMemo.forget_tree`), since they would keep its nodes alive.
        self.from_tree = from_tree

    def __repr__(self) -> str:
        return f"MemoKey({self.name!r})"


class PageMemo:
    """One page's memoised results, by :class:`MemoKey`."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[MemoKey[Any], Any] = {}

    def get(self, key: MemoKey[_T]) -> _T | None:
        return self._values.get(key)

    def set(self, key: MemoKey[_T], value: _T) -> _T:
        self._values[key] = value
        return value

    def discard(self, *keys: MemoKey[Any]) -> None:
        for key in keys:
            self._values.pop(key, None)

    def forget_tree(self) -> None:
        """Drop every value read from the tree (keys made with ``from_tree=True``)."""
        for key in [key for key in self._values if key.from_tree]:
            del self._values[key]
