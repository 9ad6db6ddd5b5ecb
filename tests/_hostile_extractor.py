"""An extractor that misbehaves on chosen URLs, for the worker-process tests.

Imported by dotted path (``WEBCLEAN_EXTRACTOR="tests._hostile_extractor.HostileExtractor"``)
in fresh worker processes, which find it from the repository root (the crawl
subprocess's working directory). It is never registered by name, so nothing
outlives the test. By the last path segment of the page's URL:

``crash-always...``  the worker kills itself with SIGSEGV, every time;
``crash-once...``    SIGKILL the first time (a marker file in ``marker_dir``
                     remembers it), then a normal extraction;
``slow...``          sleeps in Python, far past any time limit;
``stuck...``         sleeps with SIGALRM blocked, as C code would;
anything else        the ``baseline`` extraction.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from webclean_scrapy.engine.extractors.baseline import BaselineExtractor


class HostileExtractor(BaselineExtractor):
    name = "test-hostile"
    defaults = {"marker_dir": ""}

    def extract_text(self, doc):
        slug = (doc.url or "").rstrip("/").rsplit("/", 1)[-1]
        if slug.startswith("crash-always"):
            os.kill(os.getpid(), signal.SIGSEGV)
        if slug.startswith("crash-once"):
            marker = Path(self.options["marker_dir"]) / slug
            if not marker.exists():
                marker.write_text("crashed once", encoding="utf-8")
                os.kill(os.getpid(), signal.SIGKILL)
        if slug.startswith("slow"):
            time.sleep(600)
        if slug.startswith("stuck"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(600)
        return super().extract_text(doc)
