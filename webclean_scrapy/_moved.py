"""Import paths of the flat layout, kept working for one release with a :class:`DeprecationWarning`.

The package was reorganised by component kind (``downloadermiddlewares``, ``pipelines``,
``offload``, ``crawlstate``, ``engine``). Settings and code that name an old dotted path
(``"webclean_scrapy.middleware.WebcleanMiddleware"``, ``from webclean_scrapy.document import
Document``) still import: the old name becomes a module whose attributes are looked up in the
new modules, the same objects, so ``isinstance`` checks and Scrapy's ``load_object`` agree.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

#: Old module (below ``webclean_scrapy.``) -> the new modules that hold its names, in lookup order.
MOVED: dict[str, tuple[str, ...]] = {
    "urls": ("fingerprint",),
    "middleware": ("downloadermiddlewares.extraction",),
    "charset": ("downloadermiddlewares.charset",),
    "compression": ("downloadermiddlewares.compression",),
    "guard": ("downloadermiddlewares.guard",),
    "robots": ("downloadermiddlewares.robotstxt",),
    "warc": ("downloadermiddlewares.warc", "warcfiles"),
    "near_duplicates": ("dedup",),
    "worker": ("offload.worker",),
    "outline": ("offload.outline",),
    "jobdir": ("crawlstate.jobdir",),
    "emitted": ("crawlstate.emitted",),
    "distributed": ("crawlstate.distributed", "crawlstate.redis"),
    "batch": ("cli.batch",),
    "spiders.articles": ("engine.page_type.articles",),
    "api": ("engine.api",),
    "document": ("engine.document",),
    "views": ("engine.views",),
    "extraction": ("engine.extraction",),
    "options": ("engine.options",),
    "trace": ("engine.trace",),
    "trees": ("engine.trees",),
    "render": ("engine.render",),
    "metadata": ("engine.metadata",),
    "page_type": ("engine.page_type",),
    "page_type.model": ("engine.page_type.model",),
    "page_type.reference": ("engine.page_type.reference",),
    "page_type.signals": ("engine.page_type.signals",),
    "page_type.vocabulary": ("engine.page_type.vocabulary",),
    "extractors": ("engine.extractors",),
    "extractors.baseline": ("engine.extractors.baseline",),
    "extractors.density": ("engine.extractors.density",),
    "extractors.punctuation": ("engine.extractors.punctuation",),
    "extractors.ttr": ("engine.extractors.ttr",),
    "extractors.webclean": ("engine.extractors.webclean",),
    "extractors.webclean.consensus": ("engine.extractors.webclean.consensus",),
    "extractors.webclean.continuity": ("engine.extractors.webclean.continuity",),
    "extractors.webclean.features": ("engine.extractors.webclean.features",),
    "extractors.webclean.keywords": ("engine.extractors.webclean.keywords",),
    "extractors.webclean.lexicon": ("engine.extractors.webclean.lexicon",),
    "extractors.webclean.model": ("engine.extractors.webclean.model",),
    "encoding": ("engine.text.encoding",),
    "language": ("engine.text.language",),
    "scripts": ("engine.text.scripts",),
    "marks": ("engine.text.marks",),
    "parsing": ("engine.html.parsing",),
    "walk": ("engine.html.walk",),
    "elements": ("engine.html.elements",),
    "screen": ("engine.html.screen",),
}

_PACKAGE = __name__.rpartition(".")[0]


class _MovedModule(types.ModuleType):
    """An old module name: each attribute read from the first new module that has it."""

    def __init__(self, name: str, targets: Sequence[str]) -> None:
        super().__init__(name, f"Deprecated: moved to {', '.join(targets)}.")
        self._targets = tuple(targets)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        for target in self._targets:
            module = importlib.import_module(target)
            if hasattr(module, attribute):
                return getattr(module, attribute)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}")

    def __dir__(self) -> list[str]:
        return sorted({name for target in self._targets for name in dir(importlib.import_module(target))})


class _MovedLoader(importlib.abc.Loader):
    def __init__(self, targets: tuple[str, ...]) -> None:
        self.targets = targets

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _MovedModule(spec.name, self.targets)

    def exec_module(self, module: types.ModuleType) -> None:
        # stacklevel 2 points into importlib; the message names both paths instead.
        warnings.warn(
            f"{module.__name__} is deprecated and will be removed in the next release; "
            f"import from {' or '.join(self.targets)} instead",
            DeprecationWarning,
            stacklevel=2,
        )


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED`; every other import goes on to the normal finders."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        prefix = _PACKAGE + "."
        if not fullname.startswith(prefix):
            return None
        targets = MOVED.get(fullname[len(prefix) :])
        if targets is None:
            return None
        loader = _MovedLoader(tuple(f"{prefix}{target}" for target in targets))
        # A package spec (an empty search path) so that old submodule names, e.g.
        # ``webclean_scrapy.page_type.model``, are looked up here too.
        return importlib.machinery.ModuleSpec(fullname, loader, is_package=True)


def install() -> None:
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
