"""The training scripts' command line, on pages of our own making (no
LightGBM or scikit-learn needed: what is tested stops before any fit)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
TRAIN = REPO / "benchmarks" / "train_webclean.py"


def _dataset(root: Path, name: str, page_types: list[str]) -> None:
    (root / name / "html").mkdir(parents=True)
    with (root / name / "truth.jsonl").open("w", encoding="utf-8") as truth:
        for i, kind in enumerate(page_types):
            page_id = f"{i:04d}"
            text = f"Paragraph {i} of a page of our own, long enough to be a block of prose for the walk."
            html = f"<html><body><nav><a href='/'>Home</a></nav><p>{text}</p></body></html>"
            (root / name / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
            row = {"id": page_id, "url": f"https://site{i}.example/page", "text": text, "page_type": kind}
            truth.write(json.dumps(row) + "\n")


def _train(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TRAIN), *args], capture_output=True, text=True, timeout=600, cwd=REPO, check=False
    )


def test_one_page_type_stops_with_a_clear_message(tmp_path):
    """A small --limit reads wcxb-dev's articles only (its truth.jsonl opens
    with 20 of them): the page-type classifier cannot be fitted on one type,
    and the script says so instead of failing deep inside scikit-learn."""
    _dataset(tmp_path, "wcxb-dev", ["article", "article", "article"])
    done = _train("--data", str(tmp_path), "--dry-run", "--jobs", "1", "--seed", "7")
    assert done.returncode == 2, done.stderr
    assert "1 page type(s) (article)" in done.stdout
    assert "raise --limit" in done.stdout


def test_no_modern_pages_stops_with_a_clear_message(tmp_path):
    _dataset(tmp_path, "cleaneval", ["", ""])
    done = _train("--data", str(tmp_path), "--dry-run", "--jobs", "1")
    assert done.returncode == 2, done.stderr
    assert "no wcxb-dev pages" in done.stdout


def test_no_data_is_nothing_to_train(tmp_path):
    done = _train("--data", str(tmp_path / "absent"), "--dry-run")
    assert done.returncode == 0
    assert "nothing to train" in done.stdout


def test_seed_is_an_integer_option():
    done = _train("--seed", "not-a-number")
    assert done.returncode == 2
    assert "--seed" in done.stderr


def test_page_types_are_reweighted_half_way_within_wcxb_dev():
    """Rarer page types weigh more (``count ** -0.5``), the wcxb-dev pages'
    total unchanged against the older datasets' pages."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import train_webclean
    finally:
        sys.path.remove(str(REPO / "benchmarks"))

    def page(dataset: str, kind: str | None) -> dict:
        return {"dataset": dataset, "page_type": kind, "n": 2, "weights": np.array([0.25, 0.75]), "labels": np.ones(2)}

    modern = [page("wcxb-dev", "article") for _ in range(4)] + [page("wcxb-dev", "forum")]
    older = [page("cleaneval", None) for _ in range(5)]
    _, labels, weights = train_webclean.design(modern + older, with_rows=False)
    per_page = weights.reshape(-1, 2).sum(axis=1)
    assert labels.shape == (20,)
    # A forum page weighs sqrt(4 / 1) = 2 articles.
    assert per_page[4] / per_page[0] == pytest.approx(2.0)
    # wcxb-dev's five pages keep MODERN_WEIGHT times the weight of five older pages.
    assert per_page[:5].sum() / per_page[5:].sum() == pytest.approx(train_webclean.MODERN_WEIGHT)
    # Within a page, blocks keep their shares.
    assert weights[9] / weights[8] == pytest.approx(3.0)
