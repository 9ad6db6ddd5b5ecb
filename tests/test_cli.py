"""The ``webclean`` command line: extract, eval, demo."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from webclean_scrapy import available_extractors
from webclean_scrapy.cli import main
from webclean_scrapy.evaluation import REPORT_KEYS, SNIPPET_KEYS
from webclean_scrapy.evaluation import peers as peers_module
from webclean_scrapy.page_type import PAGE_TYPES

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

PAGE = ("<html><head><title>Page {n}</title></head><body>"
        "<p>Paragraph number {n} of the test page, with a few more words.</p></body></html>")


def webclean_script() -> str:
    candidate = Path(sys.executable).with_name("webclean")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("webclean")
    if not found:
        pytest.skip("the webclean console script is not installed")
    return found


@pytest.fixture
def pages(tmp_path):
    """A directory with plain, gzipped, binary, nested and non-HTML files."""
    root = tmp_path / "site"
    (root / "sub").mkdir(parents=True)
    (root / "a.html").write_text(PAGE.format(n=1), encoding="utf-8")
    (root / "sub" / "b.html.gz").write_bytes(gzip.compress(PAGE.format(n="二").encode("utf-8")))
    (root / "c.htm").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "notes.txt").write_text("not picked up from a directory")
    return root


def read_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# -- extract ---------------------------------------------------------------
def test_extract_directory_to_stdout(pages, capsys):
    assert main(["extract", str(pages), "-e", "baseline"]) == 0
    out, err = capsys.readouterr()
    records = read_lines(out)
    assert [Path(r["source"]).name for r in records] == ["a.html", "b.html.gz"]
    assert list(records[0]) == ["source", "title", "text", "extractor", "page_type", "truncated", "language",
                                "detected_language", "language_confidence"]
    assert {r["page_type"] for r in records} <= set(PAGE_TYPES)
    assert records[0]["title"] == "Page 1"
    assert records[1]["text"] == "Paragraph number 二 of the test page, with a few more words."
    assert "二" in out  # ensure_ascii=False
    assert {r["extractor"] for r in records} == {"baseline"}
    assert "c.htm: input is binary" in err
    assert "1 of 3 file(s) failed" in err
    assert "Traceback" not in err


def test_extract_to_file_with_pool_and_missing_path(pages, tmp_path, capsys):
    target = tmp_path / "out.jsonl"
    code = main(["extract", str(pages / "a.html"), str(pages / "sub"), str(tmp_path / "missing.html"),
                 "-e", "baseline", "-j", "2", "-o", str(target)])
    assert code == 0
    out, err = capsys.readouterr()
    assert out == ""
    records = read_lines(target.read_text(encoding="utf-8"))
    assert [Path(r["source"]).name for r in records] == ["a.html", "b.html.gz"]
    assert "missing.html: no such file" in err


def test_extract_fails_when_nothing_succeeds(pages, capsys):
    assert main(["extract", str(pages / "c.htm"), "-e", "baseline"]) == 1
    assert "1 of 1 file(s) failed" in capsys.readouterr().err


def test_extract_rejects_bad_extractor_and_options(pages, capsys):
    assert main(["extract", str(pages), "-e", "no-such-method"]) == 2
    assert "unknown extractor 'no-such-method'" in capsys.readouterr().err
    assert main(["extract", str(pages), "-e", "baseline", "--option", "nope=1"]) == 2
    assert "unknown option" in capsys.readouterr().err
    assert main(["extract", str(pages), "-e", "baseline", "--option", "novalue"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_extract_progress_bar(tmp_path, capsys):
    for n in range(21):
        (tmp_path / f"p{n:02}.html").write_text(PAGE.format(n=n))
    assert main(["extract", str(tmp_path), "-e", "baseline", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert len(read_lines(out)) == 21
    assert "21/21 100%" in err


def test_installed_script_reads_stdin_and_gzip(pages):
    html = gzip.compress(PAGE.format(n=7).encode("utf-8"))
    result = subprocess.run([webclean_script(), "extract", "-", str(pages / "c.htm"), "-e", "baseline"],
                            input=html, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    (record,) = read_lines(result.stdout.decode("utf-8"))
    assert record.pop("page_type") in PAGE_TYPES
    assert record.pop("detected_language") == "en" and 0 < record.pop("language_confidence") <= 1
    assert record.pop("language") is None
    assert record == {"source": "<stdin>", "title": "Page 7",
                      "text": "Paragraph number 7 of the test page, with a few more words.",
                      "extractor": "baseline", "truncated": False}
    assert b"input is binary" in result.stderr and b"Traceback" not in result.stderr


# -- eval --------------------------------------------------------------------
@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "tiny"
    (root / "html").mkdir(parents=True)
    entries = [
        ("one", "<html lang='en'><body><p>All of this page is the main text, every word.</p></body></html>",
         "All of this page is the main text, every word."),
        ("two", "<html lang='de'><body><ul><li>Start</li><li>Impressum</li></ul>"
                "<article><p>Der eigentliche Artikel steht hier und ist lang genug.</p></article></body></html>",
         "Der eigentliche Artikel steht hier und ist lang genug."),
        ("three", "<html><body><p>Only boilerplate here.</p></body></html>", ""),
    ]
    with open(root / "truth.jsonl", "w", encoding="utf-8") as truth:
        for page_id, html, gold in entries:
            (root / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
            truth.write(json.dumps({"id": page_id, "url": None, "text": gold}, ensure_ascii=False) + "\n")
    return root


def test_eval_json_report(dataset, tmp_path, capsys):
    target = tmp_path / "scores.json"
    assert main(["eval", str(dataset), "-e", "baseline", "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "tiny (3 pages" in out and "baseline" in out and "LCS F1" in out
    report = json.loads(target.read_text())
    assert list(report) == ["tiny"]
    figures = report["tiny"]["baseline"]
    assert list(figures) == list(REPORT_KEYS)
    assert figures["shingle_recall"] == 1.0  # baseline keeps every word of pages one and two
    assert 0 < figures["shingle_precision"] < 1  # the menu of page two, the boilerplate of page three
    assert figures["ms_per_page"] > 0
    assert all(isinstance(value, float) for value in figures.values())
    # WCXB word figures, page by page: one 1/1/1; two 9 of 11 words (menu), recall 1;
    # three: output for an empty gold, 0/0/0.
    assert figures["word_precision"] == pytest.approx((1 + 9 / 11 + 0) / 3)
    assert figures["word_recall"] == pytest.approx(2 / 3)
    assert figures["word_f1"] == pytest.approx((1 + 0.9 + 0) / 3)
    assert "with" not in out.split()  # no snippet lists in this dataset: no snippet columns


def test_eval_default_extractors_and_by_language(dataset, tmp_path, capsys):
    target = tmp_path / "scores.json"
    assert main(["eval", str(dataset), "--limit", "2", "--by-language", "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "tiny / language de" in out
    report = json.loads(target.read_text())
    assert set(report) == {"tiny", "by_language"}
    assert sorted(report["tiny"]) == available_extractors()
    for figures in report["tiny"].values():
        assert list(figures) == list(REPORT_KEYS)
    languages = report["by_language"]["tiny"]
    assert set(languages) == {"en", "de"}
    assert languages["en"]["baseline"]["pages"] == 1
    assert languages["en"]["baseline"]["shingle_f1"] == 1.0


@pytest.fixture
def wcxb_dataset(tmp_path):
    """A WCXB-like dataset: page types, titles, dates, with/without snippet lists."""
    root = tmp_path / "wcxb-tiny"
    (root / "html").mkdir(parents=True)
    entries = [
        ("a1", "<html><body><nav>Home Shop</nav><h1>Big news</h1><p>The cat sat on the mat.</p>"
               "<footer>Privacy Policy</footer></body></html>",
         {"page_type": "article", "title": "Big news", "author": "Ann", "date": "2025-03-01",
          "text": "Big news\n\nThe cat sat on the mat.",
          "with": ["Big news The  cat", "on the mat."], "without": ["privacy policy", "Cookie settings", "Subscribe"]}),
        ("p1", "<html><body><p>Blue Widget costs 10 dollars.</p><p>Add to cart</p></body></html>",
         {"page_type": "product", "title": "Blue Widget", "author": None, "date": None,
          "text": "Blue Widget costs 10 dollars.", "with": ["widget costs 10", "free shipping"],
          "without": ["ADD TO CART"]}),
        ("a2", "<html><body><p>Die Straße ist lang.</p></body></html>",
         {"page_type": "article", "title": None, "author": None, "date": None,
          "text": "Die STRASSE ist lang. Die Straße.", "with": [], "without": []}),
        ("n1", "<html><body><p>Nothing here</p></body></html>", {"text": ""}),
    ]
    with open(root / "truth.jsonl", "w", encoding="utf-8") as truth:
        for page_id, html, record in entries:
            (root / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
            truth.write(json.dumps({"id": page_id, "url": None, **record}, ensure_ascii=False) + "\n")
    return root


def test_eval_wcxb_fields_by_type(wcxb_dataset, tmp_path, capsys):
    target = tmp_path / "scores.json"
    assert main(["eval", str(wcxb_dataset), "-e", "baseline", "--by-type", "-j", "2", "--json", str(target)]) == 0
    out = capsys.readouterr().out
    report = json.loads(target.read_text(encoding="utf-8"))
    assert list(report) == ["wcxb-tiny", "by_type"]
    figures = report["wcxb-tiny"]["baseline"]
    assert list(figures) == list(REPORT_KEYS) + list(SNIPPET_KEYS)
    # Baseline keeps every word. Per page (word P, R, F1):
    #   a1: 8 gold words of 12 (nav, footer)     -> 2/3, 1, 0.8
    #   p1: 5 gold words of 8 ("add to cart")     -> 5/8, 1, 10/13
    #   a2: die straße ist lang vs die strasse ist lang die straße -> 1, 2/3, 0.8
    #   n1: output for an empty gold              -> 0, 0, 0
    assert figures["word_precision"] == pytest.approx((2 / 3 + 5 / 8 + 1 + 0) / 4)
    assert figures["word_recall"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)
    assert figures["word_f1"] == pytest.approx((0.8 + 10 / 13 + 0.8 + 0) / 4)
    # Snippets, over the pages that have some (a1, p1; a2's lists are empty, n1 has none):
    #   with: a1 2/2, p1 1/2; without: a1 1/3 (privacy policy), p1 1/1.
    assert figures["with_rate"] == pytest.approx(0.75)
    assert figures["without_rate"] == pytest.approx(2 / 3)

    types = report["by_type"]["wcxb-tiny"]
    assert list(types) == ["article", "product"]  # largest first; n1 has no type
    article = types["article"]["baseline"]
    assert article["pages"] == 2
    assert article["word_precision"] == pytest.approx(5 / 6)
    assert article["word_recall"] == pytest.approx(5 / 6)
    assert article["word_f1"] == pytest.approx(0.8)
    # shingles: a1 P 5/9 R 1 (5 gold shingles of 9), a2 P 0 R 0 -> means 5/18, 1/2
    assert article["shingle_f1"] == pytest.approx(5 / 14)
    assert types["product"]["baseline"] == pytest.approx(
        {"pages": 1, "word_precision": 5 / 8, "word_recall": 1.0, "word_f1": 10 / 13,
         "shingle_precision": 2 / 5, "shingle_recall": 1.0, "shingle_f1": 4 / 7})

    assert "word P  word R  word F1" in out and "with  without" in out
    overview = out[out.index("wcxb-tiny: word F1 by page type"):].splitlines()[1:6]
    assert overview == [
        "page type  pages  baseline",
        "---------  -----  --------",
        "article        2     0.800",
        "product        1     0.769",
        "all            4     0.592",
    ]
    assert "wcxb-tiny / type article (2 pages)" in out and "wcxb-tiny / type product (1 page)" in out


def test_eval_by_type_without_page_types(dataset, tmp_path, capsys):
    target = tmp_path / "scores.json"
    assert main(["eval", str(dataset), "-e", "baseline", "--by-type", "--json", str(target)]) == 0
    assert "no page has a page_type" in capsys.readouterr().out
    report = json.loads(target.read_text())
    assert report["by_type"] == {"tiny": {}}
    assert list(report["tiny"]["baseline"]) == list(REPORT_KEYS)


def test_eval_errors_are_clear(dataset, tmp_path, capsys, monkeypatch):
    assert main(["eval", str(dataset), "-e", "no-such-method"]) == 2
    assert "unknown extractor" in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "nowhere"), "-e", "baseline"]) == 1
    assert "truth.jsonl" in capsys.readouterr().err

    def missing():
        raise ImportError("No module named 'trafilatura'")

    monkeypatch.setitem(peers_module.PEERS, "trafilatura", missing)
    assert main(["eval", str(dataset), "-e", "baseline", "--compare", "trafilatura"]) == 2
    assert 'pip install "webclean-scrapy[compare]"' in capsys.readouterr().err


def test_eval_peer_failure_scores_empty(dataset, capsys, monkeypatch):
    def broken():
        def run(html, language):
            raise RuntimeError("boom")
        return run

    monkeypatch.setitem(peers_module.PEERS, "boilerpy3", broken)
    assert main(["eval", str(dataset), "-e", "baseline", "--compare", "boilerpy3"]) == 0
    out = capsys.readouterr().out
    assert "boilerpy3: 3 page(s) failed" in out and "RuntimeError: boom" in out


@pytest.mark.skipif(not (DATA / "readability").is_dir(), reason="../shared/data is not available")
def test_eval_on_readability_dataset(tmp_path, capsys):
    target = tmp_path / "scores.json"
    assert main(["eval", str(DATA / "readability"), "--limit", "5", "-e", "baseline", "--json", str(target)]) == 0
    figures = json.loads(target.read_text())["readability"]["baseline"]
    assert figures["shingle_recall"] > 0.9  # the gold text is part of all visible text
    assert 0.2 < figures["shingle_precision"] < 1.0


# -- demo --------------------------------------------------------------------
def test_demo_passes_arguments_through(monkeypatch):
    seen = []
    fake = types.ModuleType("webclean_scrapy.demo")
    fake.main = lambda argv: seen.append(argv) or 3
    monkeypatch.setitem(sys.modules, "webclean_scrapy.demo", fake)
    assert main(["demo", "--port", "0", "--help"]) == 3
    assert seen == [["--port", "0", "--help"]]
