"""Regression gate for the default extractor's accuracy.

When the evaluation corpora are present (``../shared/data`` next to the
repository), every page of every dataset goes through the ``webclean``
extractor and the dataset's 4-gram shingle F1 (the article-extraction
benchmark's score, :mod:`webclean_scrapy.evaluation.metrics`) must not fall
more than :data:`TOLERANCE` below the value pinned in
``benchmarks/quality_pins.json``. Without the data the test skips.

After an intended change (a retrained model, say), re-pin with
``python tests/test_quality_gate.py``: it measures every dataset, prints the
scores and rewrites the ``webclean`` entry of the pins file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
PINS = REPO / "benchmarks" / "quality_pins.json"
TOLERANCE = 0.005
DATASETS = ("cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability")


def dataset_f1(directory: Path) -> float:
    from webclean_scrapy import extract
    from webclean_scrapy.evaluation.dataset import load_dataset
    from webclean_scrapy.evaluation.metrics import shingle_counts, shingle_dataset_prf

    counts = [shingle_counts(extract(page.read(), extractor="webclean").text, page.gold)
              for page in load_dataset(directory)]
    return shingle_dataset_prf(counts).f1


def pinned() -> dict[str, float]:
    return json.loads(PINS.read_text(encoding="utf-8"))["webclean"]


@pytest.mark.quality
@pytest.mark.parametrize("dataset", DATASETS)
def test_shingle_f1_does_not_regress(dataset):
    directory = DATA / dataset
    if not (directory / "truth.jsonl").is_file():
        pytest.skip(f"evaluation data absent: {directory}")
    pin = pinned()[dataset]
    got = dataset_f1(directory)
    assert got >= pin - TOLERANCE, f"{dataset}: shingle F1 {got:.4f} < pinned {pin:.4f} - {TOLERANCE}"


def main() -> int:
    """Measure every dataset and rewrite the pins (keeps other keys)."""
    if not DATA.is_dir():
        print(f"no evaluation data at {DATA}")
        return 0
    pins = json.loads(PINS.read_text(encoding="utf-8")) if PINS.exists() else {}
    scores = {d.name: round(dataset_f1(d), 4) for d in sorted(DATA.iterdir()) if (d / "truth.jsonl").is_file()}
    pins["webclean"] = scores
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(scores, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
