"""Language identification on the shared pages: py3langid against lingua.

The reference is each page's *declared* language (``<html lang>``,
``content-language``, ``og:locale``: what ``webclean eval --by-language``
groups by); only pages that declare one are used. Each detector reads the
page's extracted text (the default extractor's, as in a crawl), cut to the
first ``--cap`` characters, and, to see short texts, its first 100
characters. Disagreements are listed with ``--show`` (a page may declare
the wrong language: a template's ``lang="en"`` on a French article).

    python benchmarks/language_id.py ../shared/data/* --cap 2000
    python benchmarks/language_id.py ../shared/data/* --cap 1000 --detectors py3langid

Results: docs/BENCHMARKS.md#language-identification.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webclean_scrapy.engine.document import Document, built_page  # noqa: E402
from webclean_scrapy.engine.extractors import get_extractor  # noqa: E402
from webclean_scrapy.evaluation.dataset import DatasetError, load_dataset  # noqa: E402

Detector = Callable[[str], "tuple[str | None, float]"]


def py3langid_detector() -> Detector:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)

    def detect(text: str) -> tuple[str | None, float]:
        language, confidence = identifier.classify(text)
        return language, confidence

    return detect


def lingua_detector(low_accuracy: bool) -> Detector:
    from lingua import LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_all_languages()
    if low_accuracy:
        builder = builder.with_low_accuracy_mode()
    detector = builder.build()

    def detect(text: str) -> tuple[str | None, float]:
        values = detector.compute_language_confidence_values(text)
        if not values or values[0].value == 0:
            return None, 0.0
        return values[0].language.iso_code_639_1.name.lower(), values[0].value

    return detect


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--cap", type=int, default=2000, help="characters of text the detector reads")
    parser.add_argument("--short", type=int, default=100, help="length of the short-text test")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    parser.add_argument(
        "--detectors", nargs="+", default=["py3langid", "lingua", "lingua-low"], help="which to run (%(default)s)"
    )
    args = parser.parse_args()

    extractor = get_extractor("default")
    samples: list[tuple[str, str, str]] = []  # (page, declared, text)
    for directory in args.datasets:
        try:
            pages = load_dataset(directory)
        except DatasetError:
            continue
        for page in pages:
            try:
                with built_page(lambda: Document.from_html(page.read(), url=page.url)) as doc:
                    declared = doc.language
                    text = extractor.extract_text(doc) if declared else ""
            except Exception:
                continue
            if declared and text.strip():
                samples.append((f"{os.path.basename(directory.rstrip('/'))}/{page.id}", declared, text))
    languages = collections.Counter(declared for _, declared, _ in samples)
    print(
        f"{len(samples)} pages with a declared language and extracted text: "
        + ", ".join(f"{lang} {n}" for lang, n in languages.most_common())
    )

    contenders = {
        "py3langid": lambda: py3langid_detector(),
        "lingua": lambda: lingua_detector(False),
        "lingua-low": lambda: lingua_detector(True),
    }
    contenders = {name: make for name, make in contenders.items() if name in args.detectors}
    print(
        f"\n| detector | accuracy, first {args.cap} chars | non-English pages | accuracy, first {args.short} chars "
        f"| ms/page ({args.cap} chars) | load s | RSS after, MB |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, make in contenders.items():
        start = time.perf_counter()
        detect = make()
        detect("warm up the models")
        load = time.perf_counter() - start
        right = short_right = other = other_right = 0
        wrong: list[str] = []
        spent = 0.0
        for page, declared, text in samples:
            start = time.perf_counter()
            language, confidence = detect(text[: args.cap])
            spent += time.perf_counter() - start
            right += language == declared
            if declared != "en":
                other += 1
                other_right += language == declared
            if language != declared:
                wrong.append(f"  {page}: declared {declared}, detected {language} ({confidence:.2f})")
            short_right += detect(text[: args.short])[0] == declared
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"| {name} | {right / len(samples):.3f} | {other_right}/{other} | {short_right / len(samples):.3f} "
            f"| {1000 * spent / len(samples):.2f} | {load:.1f} | {rss:.0f} |",
            flush=True,
        )
        if args.show:
            print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
