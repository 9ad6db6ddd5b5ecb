"""``WEBCLEAN_EXPLAIN_DIR``: a report for every page a crawl extracted badly.

When the setting names a directory, every page is extracted with a
:class:`~webclean_scrapy.engine.trace.Trace` (the values the extractor computes
anyway, kept instead of dropped: no second run) and a page gets a report
when

* its extracted text is empty, or
* the extractor's **confidence** is below ``WEBCLEAN_EXPLAIN_BELOW``
  (default 0.5). The confidence is
  :attr:`Trace.confidence <webclean_scrapy.engine.trace.Trace.confidence>`: for
  ``webclean``, the highest content probability of any block of the page,
  vetoes applied. Below 0.5 the model does not believe any block of the
  page is main content more likely than not: what it kept came from the
  never-empty fallback, or the page really has no main text (a hub, an
  error page, a consent wall) and its type deserves a look. Methods that
  score no probability (``ttr``, ``density``, ``punctuation``,
  ``baseline``) have no confidence: only their empty pages are reported.

The report is rendered and written where the page was extracted -- the
offload worker (:mod:`webclean_scrapy.offload`), never the reactor -- as
``<host>_<path>_<hash>.html`` (the hash of the URL keeps names unique and
short). The crawl counts them: ``webclean/explain/reports``, and
``webclean/explain/errors`` when one could not be written (the page's
extraction is unaffected).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from webclean_scrapy.engine.document import Document
from webclean_scrapy.engine.extraction import Extraction, Extractor
from webclean_scrapy.engine.trace import Trace
from webclean_scrapy.explain import gather_explanation, trace_from_output

logger = logging.getLogger(__name__)

#: Default of ``WEBCLEAN_EXPLAIN_BELOW``.
DEFAULT_BELOW = 0.5

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def report_name(url: str | None) -> str:
    """A file name for *url*'s report: readable, unique, at most ~100 characters."""
    parts = urlsplit(url or "")
    slug = _UNSAFE.sub("_", f"{parts.hostname or 'page'}{parts.path}").strip("_.")[:80] or "page"
    digest = hashlib.sha1((url or "").encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug}_{digest}.html"


@dataclass(frozen=True)
class ExplainPolicy:
    """Which pages get a report, and where it goes (picklable: it travels
    to worker processes)."""

    directory: str
    below: float = DEFAULT_BELOW

    def wants_report(self, extraction: Extraction, trace: Trace) -> bool:
        """Empty text, or a confidence under :attr:`below`."""
        if not extraction.text.strip():
            return True
        return trace.confidence is not None and trace.confidence < self.below

    def extract(self, extractor: Extractor, doc: Document) -> tuple[Extraction, Trace | None]:
        """The page's extraction, traced when the extractor can be."""
        if not extractor.traceable:
            return extractor.extract(doc), None
        trace = Trace()
        return extractor.extract(doc, trace), trace

    def report(self, extractor: Extractor, doc: Document, extraction: Extraction, trace: Trace | None) -> str | None:
        """Write the page's report if it wants one: its path, or ``None``.

        Raises :class:`OSError` when the file cannot be written.
        """
        traced = trace is not None
        if trace is None:
            trace = Trace()
            trace.method = extractor.name
            trace_from_output(trace, doc, extraction.text)
        if not self.wants_report(extraction, trace):
            return None
        page = gather_explanation(doc, extractor, extraction, trace, traced)
        page.facts["reported because"] = (
            "the extracted text is empty"
            if not extraction.text.strip()
            else f"confidence {trace.confidence:.3f} < WEBCLEAN_EXPLAIN_BELOW {self.below}"
        )
        directory = Path(self.directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / report_name(extraction.url or doc.url)
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        partial.write_text(page.html(), encoding="utf-8")
        os.replace(partial, path)  # a reader never sees half a report
        return str(path)
