"""Regression gate for the default extractor's accuracy.

When the evaluation corpora are present (``../shared/data`` next to the
repository), every page of every dataset goes through the ``webclean``
extractor and the dataset's score must not fall more than
:data:`TOLERANCE` below the value pinned in ``benchmarks/quality_pins.json``:
the 4-gram shingle F1 (the article-extraction benchmark's score,
:mod:`webclean_scrapy.evaluation.metrics`) on the older sets, and on
``wcxb-dev`` WCXB's own word F1 and the accuracy of the predicted page
type. Without the data the test skips.

After an intended change (a retrained model, say), re-pin with
``python tests/test_quality_gate.py``: it measures every dataset, prints the
scores and rewrites the ``webclean`` entry of the pins file.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
PINS = REPO / "benchmarks" / "quality_pins.json"
TOLERANCE = 0.005
DATASETS = ("cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability", "wcxb-dev")
#: Scored with WCXB's word F1 and page-type accuracy instead of shingle F1.
TYPED = "wcxb-dev"


@cache
def dataset_scores(directory: Path) -> dict[str, float]:
    """The pinned figures of one dataset, keyed as in the pins file."""
    from webclean_scrapy import extract
    from webclean_scrapy.evaluation.dataset import load_dataset
    from webclean_scrapy.evaluation.metrics import shingle_counts, shingle_dataset_prf, word_prf

    pages = load_dataset(directory)
    results = [(page, extract(page.read(), extractor="webclean", url=page.url)) for page in pages]
    if directory.name != TYPED:
        return {directory.name: shingle_dataset_prf(shingle_counts(r.text, p.gold) for p, r in results).f1}
    typed = [(p, r) for p, r in results if p.page_type]
    return {
        directory.name: sum(word_prf(r.text, p.gold).f1 for p, r in results) / len(results),
        f"{directory.name}/page_type_accuracy": sum(r.page_type == p.page_type for p, r in typed) / len(typed),
    }


def pinned() -> dict[str, float]:
    return json.loads(PINS.read_text(encoding="utf-8"))["webclean"]


@pytest.mark.quality
@pytest.mark.parametrize("dataset", DATASETS)
def test_shingle_f1_does_not_regress(dataset):
    directory = DATA / dataset
    if not (directory / "truth.jsonl").is_file():
        pytest.skip(f"evaluation data absent: {directory}")
    pins = pinned()
    for key, got in dataset_scores(directory).items():
        assert got >= pins[key] - TOLERANCE, f"{key}: {got:.4f} < pinned {pins[key]:.4f} - {TOLERANCE}"


def main() -> int:
    """Measure every dataset and rewrite the pins (keeps other keys)."""
    if not DATA.is_dir():
        print(f"no evaluation data at {DATA}")
        return 0
    pins = json.loads(PINS.read_text(encoding="utf-8")) if PINS.exists() else {}
    scores = {
        key: round(value, 4)
        for d in sorted(DATA.iterdir())
        if (d / "truth.jsonl").is_file()
        for key, value in dataset_scores(d).items()
    }
    pins["webclean"] = scores
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(scores, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
