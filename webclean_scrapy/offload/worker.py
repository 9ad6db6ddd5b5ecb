"""What a worker process holds: built once, by the one initialiser every pool uses.

Three pools run pages in other processes: the crawl's
:class:`~webclean_scrapy.offload.WorkerPool`, ``webclean extract -j`` and
``webclean eval -j``. Each worker builds what it works with (an extractor,
or the contestants of an evaluation) once, when it starts, through
:func:`init_worker`; its pages then read it with :func:`worker_state`.
:func:`build_extractor` also runs the extractor once on a tiny page, so
that what extractors load lazily (models, language profiles) is loaded
before the first real page: no page's time limit, nor its measured time,
pays for it.

No Scrapy here: the CLI and the evaluation use it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webclean_scrapy.engine.extraction import Extractor

#: A page small enough to cost nothing, large enough to reach every stage of an extractor.
WARM_UP_PAGE = b"<html><head><title>t</title></head><body><p>Warm-up page: one sentence, a few words.</p></body></html>"

_STATE: Any = None


def init_worker(build: Callable[..., Any], *args: Any) -> None:
    """Initialise this process as a worker: ``build(*args)`` becomes its state.

    The ``initializer`` of :class:`~concurrent.futures.ProcessPoolExecutor`
    pools (``initializer=init_worker, initargs=(build, ...)``) and the first
    step of a :class:`~webclean_scrapy.offload.WorkerPool` worker. *build*
    and *args* must be picklable (a module-level function or class, plain
    data). Called again, it replaces the state.
    """
    global _STATE
    _STATE = build(*args)


def worker_state() -> Any:
    """What :func:`init_worker` built in this process."""
    if _STATE is None:
        raise RuntimeError("not a webclean worker process (init_worker was not called)")
    return _STATE


def warm_up(extractor: Extractor) -> None:
    """Run *extractor* once on :data:`WARM_UP_PAGE`; errors are left to the real pages to report."""
    from webclean_scrapy.engine.document import Document, built_page

    try:
        with built_page(lambda: Document.from_html(WARM_UP_PAGE)) as doc:
            extractor.extract(doc)
    except Exception:
        pass


def build_extractor(name: Any, options: dict[str, Any]) -> Extractor:
    """The extractor *name* with *options*, warmed up (:func:`warm_up`)."""
    from webclean_scrapy.engine.extractors import get_extractor

    extractor = get_extractor(name, **options)
    warm_up(extractor)
    return extractor
