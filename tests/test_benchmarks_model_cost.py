"""``benchmarks/model_cost.py`` on pages of our own making: it records what
``extract()`` gives its models without changing what ``extract()`` returns,
and reports each figure it names. No timing is asserted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import webclean_scrapy
from pages import make_dataset, sample_bytes
from webclean_scrapy.engine.text.language import language_detection_available

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not language_detection_available(), reason="py3langid (the [lang] extra) is needed")

PAGES = ("metadata-fields.html", "article-over-teaser-cards.html", "lexicon-page.html")


@pytest.fixture
def model_cost(monkeypatch):
    """The script as a module (it is a script, not part of the package)."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import model_cost as module

    return module


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data directory laid out as ``../shared/data``: one dataset of three sample pages."""
    make_dataset(tmp_path / "data" / "ours", [(str(i), sample_bytes(name), "") for i, name in enumerate(PAGES)])
    return tmp_path / "data"


def test_recording_sees_each_model_call_and_changes_no_output(model_cost) -> None:
    pages = [sample_bytes(name) for name in PAGES]
    before = [webclean_scrapy.extract(page).as_dict() for page in pages]
    inputs = model_cost.ModelInputs()
    with model_cost.recorded(inputs):
        during = [webclean_scrapy.extract(page).as_dict() for page in pages]
    assert during == before
    # One detection per page, on the text extract() returned.
    assert inputs.texts == [result["text"] for result in before]
    # Two ensembles: the page type's (one row a page) and the blocks'.
    rows_by_ensemble: dict[int, list[int]] = {}
    for ensemble, rows in inputs.ensembles:
        rows_by_ensemble.setdefault(id(ensemble), []).append(len(rows))
    assert len(rows_by_ensemble) == 2
    assert [1] * len(pages) in rows_by_ensemble.values()
    # Recording is undone on leaving.
    inputs.texts.clear()
    webclean_scrapy.extract(pages[0])
    assert inputs.texts == []


def test_the_report_gives_each_figure_against_the_parse(model_cost, data, capsys):
    assert model_cost.main(["--data", str(data), "--smallest", "3", "--repeat", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("the 3 smallest pages, CPU time")
    figures = dict(re.findall(r"^  (.+?) +([\d.]+) ms/page", out, re.MULTILINE))
    assert set(figures) == {
        "lxml parse",
        "language detection",
        "tree ensembles (page type, blocks)",
        "the models, as extract() calls them",
        "their compiled kernels alone",
    }
    assert all(float(value) > 0 for value in figures.values())
    floor = re.search(r"at least the parse and the models: ([\d.]+)x the parse", out)
    assert floor is not None and float(floor.group(1)) > 1


def test_a_missing_data_directory_is_a_message(model_cost, tmp_path, capsys):
    assert model_cost.main(["--data", str(tmp_path / "absent")]) == 0
    assert "no evaluation data" in capsys.readouterr().out
