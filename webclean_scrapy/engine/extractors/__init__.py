"""The extractor registry: names to classes, ``"default"``, dotted paths."""

from __future__ import annotations

import importlib
from typing import Any

from webclean_scrapy.engine.extraction import Extractor
from webclean_scrapy.errors import UnknownExtractorError

_REGISTRY: dict[str, type[Extractor]] = {}

#: Modules holding the built-in extractors; imported on first lookup.
BUILTIN_MODULES = (
    "webclean_scrapy.engine.extractors.baseline",
    "webclean_scrapy.engine.extractors.density",
    "webclean_scrapy.engine.extractors.ttr",
    "webclean_scrapy.engine.extractors.punctuation",
    "webclean_scrapy.engine.extractors.webclean",
)

#: What ``extractor="default"`` means. Points at the best method available.
DEFAULT_EXTRACTOR = "webclean"

_loaded = False


def register(cls: type[Extractor]) -> type[Extractor]:
    """Class decorator: make *cls* selectable by its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a built-in not written yet
            if exc.name != module:
                raise


def available_extractors() -> list[str]:
    """Names accepted by :func:`get_extractor` (besides ``"default"`` and dotted paths)."""
    _load_builtins()
    return sorted(_REGISTRY)


def resolve_extractor_class(name: str | type[Extractor]) -> type[Extractor]:
    """A registered name, ``"default"``, a dotted ``package.module.Class`` path or a class."""
    if isinstance(name, type):
        if not issubclass(name, Extractor):
            raise UnknownExtractorError(f"{name!r} is not an Extractor subclass")
        return name
    if not isinstance(name, str):
        raise UnknownExtractorError(f"an extractor is a name, a dotted path or a class, got {name!r}")
    _load_builtins()
    if name == "default":
        name = next((n for n in (DEFAULT_EXTRACTOR, "density", "baseline") if n in _REGISTRY), DEFAULT_EXTRACTOR)
    if name in _REGISTRY:
        return _REGISTRY[name]
    if "." in name:
        module_name, _, attr = name.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise UnknownExtractorError(f"cannot import extractor {name!r}: {exc}") from exc
        if isinstance(obj, type) and issubclass(obj, Extractor):
            return obj
        raise UnknownExtractorError(f"{name!r} is not an Extractor subclass")
    raise UnknownExtractorError(
        f"unknown extractor {name!r}; available: {', '.join(available_extractors())}, "
        "or a dotted path to an Extractor subclass"
    )


def get_extractor(name: str | type[Extractor] = "default", **options: Any) -> Extractor:
    """An extractor instance configured with *options* (the papers' defaults otherwise)."""
    return resolve_extractor_class(name)(**options)
