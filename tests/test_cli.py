"""The ``webclean`` command line: extract, eval, demo."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

from webclean_scrapy import available_extractors
from webclean_scrapy.cli import main
from webclean_scrapy.cli.batch import RunSummary
from webclean_scrapy.evaluation import METADATA_KEYS, REPORT_KEYS, SNIPPET_KEYS
from webclean_scrapy.evaluation import peers as peers_module

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

PAGE = (
    "<html><head><title>Page {n}</title></head><body>"
    "<p>Paragraph number {n} of the test page, with a few more words.</p></body></html>"
)


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
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_extract_fields_computes_only_those_asked_for(pages, capsys, jobs):
    page = str(pages / "a.html")
    assert main(["extract", page]) == 0
    (full,) = read_lines(capsys.readouterr()[0])
    assert main(["extract", page, "--fields", "title, date", "-j", jobs]) == 0
    (record,) = read_lines(capsys.readouterr()[0])
    # Metadata not asked for and the detected language are left out, not empty: they were not computed.
    assert not {"author", "sitename", "detected_language", "language_confidence"} & set(record)
    assert record["title"] == full["title"] == "Page 1" and "date" in record
    assert (record["text"], record["page_type"]) == (full["text"], full["page_type"])


@pytest.mark.parametrize(("fields", "message"), [("markdown", "come with --format md"), ("bogus", "unknown field")])
def test_extract_fields_refuses_formats_and_unknown_names(pages, capsys, fields, message):
    assert main(["extract", str(pages / "a.html"), "--fields", fields]) == 2
    assert message in capsys.readouterr()[1]


def test_extract_directory_to_stdout(pages, capsys):
    assert main(["extract", str(pages), "-e", "baseline", "--keep-going"]) == 1
    out, err = capsys.readouterr()
    records = read_lines(out)
    assert [Path(r["source"]).name for r in records] == ["a.html", "b.html.gz"]
    # The item's field order (webclean_scrapy.engine.extraction.extraction_fields), after the source.
    assert list(records[0]) == [
        "source",
        "canonical_url",
        "title",
        "text",
        "extractor",
        "language",
        "detected_language",
        "language_confidence",
        "page_type",
        "page_type_confidence",
        "truncated",
        "author",
        "date",
        "date_modified",
        "sitename",
        "description",
        "tags",
        "image",
    ]
    # One sentence and nothing else that names the page: no type is guessed.
    assert [(r["page_type"], r["page_type_confidence"]) for r in records] == [(None, None)] * 2
    assert records[0]["title"] == "Page 1"
    assert records[1]["text"] == "Paragraph number 二 of the test page, with a few more words."
    assert "二" in out  # ensure_ascii=False
    assert {r["extractor"] for r in records} == {"baseline"}
    assert "c.htm: input is binary" in err
    assert "1 of 3 file(s) failed" in err
    assert "Traceback" not in err


def test_extract_to_file_with_pool_and_missing_path(pages, tmp_path, capsys):
    target = tmp_path / "out.jsonl"
    code = main(
        [
            "extract",
            str(pages / "a.html"),
            str(pages / "sub"),
            str(tmp_path / "missing.html"),
            "-e",
            "baseline",
            "-j",
            "2",
            "-o",
            str(target),
            "-k",
        ]
    )
    assert code == 1
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
    result = subprocess.run(
        [webclean_script(), "extract", "-", str(pages / "c.htm"), "-e", "baseline", "-k"],
        input=html,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    (record,) = read_lines(result.stdout.decode("utf-8"))
    assert (record.pop("page_type"), record.pop("page_type_confidence")) == (None, None)  # one sentence
    assert record.pop("detected_language") == "en" and 0 < record.pop("language_confidence") <= 1
    assert record.pop("language") is None
    assert record == {
        "source": "<stdin>",
        "title": "Page 7",
        "text": "Paragraph number 7 of the test page, with a few more words.",
        "extractor": "baseline",
        "truncated": False,
        "author": None,
        "date": None,
        "date_modified": None,
        "sitename": None,
        "description": None,
        "tags": [],
        "image": None,
        "canonical_url": None,
    }
    assert b"input is binary" in result.stderr and b"Traceback" not in result.stderr


# -- batch runs (webclean_scrapy.cli.batch) ---------------------------------------
EMPTY_PAGE = "<html><head><title>Nothing</title></head><body></body></html>"


@pytest.fixture
def batch(tmp_path):
    """Three good pages (one with no text), a binary one between them, a list naming them."""
    root = tmp_path / "batch"
    root.mkdir()
    (root / "one.html").write_text(PAGE.format(n=1), encoding="utf-8")
    (root / "bad.htm").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "two.html").write_text(PAGE.format(n=2), encoding="utf-8")
    (root / "empty.html").write_text(EMPTY_PAGE, encoding="utf-8")
    return root


def test_extract_input_list(batch, tmp_path, capsys, monkeypatch):
    (batch / "more").mkdir()
    (batch / "more" / "three.html").write_text(PAGE.format(n=3), encoding="utf-8")
    listing = tmp_path / "pages.txt"
    listing.write_text(
        "# pages of the batch\n\none.html\n  two.html  \n\n# a directory is walked\nmore\n", encoding="utf-8"
    )
    monkeypatch.chdir(batch)  # relative entries: from the current directory
    assert main(["extract", "empty.html", "--input-list", str(listing), "-e", "baseline"]) == 0
    out, err = capsys.readouterr()
    records = read_lines(out)
    assert [r["source"] for r in records] == ["empty.html", "one.html", "two.html", "more/three.html"]
    assert [r["title"] for r in records] == ["Nothing", "Page 1", "Page 2", "Page 3"]
    assert "failed" not in err.replace("0 failed", "")

    # The list from standard input, and twice the same list: a list can be given more than once.
    monkeypatch.setattr(sys, "stdin", io.StringIO("one.html\n#two.html\n"))
    assert main(["extract", "--input-list", "-", "--input-list", str(listing), "-e", "baseline"]) == 0
    records = read_lines(capsys.readouterr().out)
    assert [r["source"] for r in records] == ["one.html", "one.html", "two.html", "more/three.html"]


def test_extract_input_list_errors(batch, tmp_path, capsys):
    assert main(["extract", "--input-list", str(tmp_path / "absent.txt"), "-e", "baseline"]) == 2
    assert "input list " + str(tmp_path / "absent.txt") + ": no such file" in capsys.readouterr().err
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\x00bad")
    assert main(["extract", "--input-list", str(tmp_path / "binary.txt")]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err
    assert main(["extract", "-", "--input-list", "-"]) == 2
    assert "standard input ('-') can be read only once" in capsys.readouterr().err
    assert main(["extract", "-e", "baseline"]) == 2
    assert "no input: give PATHs or --input-list FILE" in capsys.readouterr().err
    (tmp_path / "comments.txt").write_text("# nothing listed\n\n", encoding="utf-8")
    assert main(["extract", "--input-list", str(tmp_path / "comments.txt")]) == 2


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_extract_stops_at_the_first_failure_unless_keep_going(batch, capsys, jobs):
    files = [str(batch / name) for name in ("one.html", "bad.htm", "two.html")]
    assert main(["extract", *files, "-e", "baseline", "-j", jobs]) == 1
    out, err = capsys.readouterr()
    assert [r["title"] for r in read_lines(out)] == ["Page 1"]  # nothing after the failure
    assert f"failed {files[1]}: input is binary" in err
    assert "stopped at the first failure; --keep-going tries every input" in err
    assert "1 of 2 file(s) failed" in err

    assert main(["extract", *files, "-e", "baseline", "-j", jobs, "--keep-going"]) == 1  # as make -k
    out, err = capsys.readouterr()
    assert [r["title"] for r in read_lines(out)] == ["Page 1", "Page 2"]
    assert f"skipped {files[1]}: input is binary" in err
    assert "stopped" not in err and "1 of 3 file(s) failed" in err


def test_extract_summary(batch, capsys):
    files = [str(batch / name) for name in ("one.html", "bad.htm", "two.html", "empty.html")]
    assert main(["extract", *files, "-e", "baseline", "-k"]) == 1
    out, err = capsys.readouterr()
    records = read_lines(out)
    chars_in = 2 * len(PAGE.format(n=1)) + len(EMPTY_PAGE)  # ASCII files: characters == bytes
    chars_out = sum(len(r["text"]) for r in records)
    assert chars_out == 2 * len("Paragraph number 1 of the test page, with a few more words.")
    types = Counter(r["page_type"] or "none" for r in records)
    lines = [line.removeprefix("webclean: ") for line in err.splitlines()]
    summary = lines[lines.index("4 pages: 3 extracted (1 empty), 1 failed") :]
    assert summary == [
        "4 pages: 3 extracted (1 empty), 1 failed",
        f"characters: {chars_in} in, {chars_out} out ({100 * chars_out / chars_in:.1f}%)",
        "page types: "
        + ", ".join(f"{name} {count}" for name, count in sorted(types.items(), key=lambda item: (-item[1], item[0]))),
        "1 of 4 file(s) failed",
    ]

    assert main(["extract", files[0], "-e", "baseline"]) == 0
    err = capsys.readouterr().err
    assert "webclean: 1 page: 1 extracted (0 empty), 0 failed" in err and "file(s) failed" not in err


def test_run_summary_counts():
    summary = RunSummary()
    summary.extracted({"text": "abc", "page_type": "article"}, 10)
    summary.extracted({"text": "", "page_type": None}, 5)
    summary.failure()
    assert (summary.pages, summary.empty, summary.failed, summary.chars_in, summary.chars_out) == (3, 1, 1, 15, 3)
    assert summary.exit_status == 1
    assert summary.lines() == [
        "3 pages: 2 extracted (1 empty), 1 failed",
        "characters: 15 in, 3 out (20.0%)",
        "page types: article 1, none 1",
    ]
    assert RunSummary().lines() == ["0 pages: 0 extracted (0 empty), 0 failed", "characters: 0 in, 0 out"]


def test_gz_name_without_gzip_is_an_error(batch, tmp_path, capsys):
    fake = tmp_path / "page.html.gz"
    fake.write_text(PAGE.format(n=9), encoding="utf-8")  # plain HTML under a gzip name
    assert main(["extract", str(fake), "-e", "baseline"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"{fake}: named .gz but not gzip" in err
    assert main(["explain", str(fake), "-e", "baseline", "-o", str(tmp_path / "r.html")]) == 1
    assert "named .gz but not gzip" in capsys.readouterr().err
    # Gzip under any name is still read; a real .gz too.
    real = tmp_path / "real.html.gz"
    real.write_bytes(gzip.compress(PAGE.format(n=9).encode()))
    renamed = tmp_path / "renamed.html"
    renamed.write_bytes(real.read_bytes())
    assert main(["extract", str(real), str(renamed), "-e", "baseline"]) == 0
    assert [r["title"] for r in read_lines(capsys.readouterr().out)] == ["Page 9", "Page 9"]


def test_bad_numbers_are_named_clearly(capsys):
    for argv, message in (
        (["extract", "x.html", "-j", "abc"], "argument -j/--jobs: expected a positive integer, got 'abc'"),
        (["extract", "x.html", "-j", "0"], "argument -j/--jobs: expected a positive integer, got '0'"),
        (["eval", "d", "--limit", "-3"], "argument --limit: expected a positive integer, got '-3'"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert message in err and "_positive_int" not in err


def test_extract_help_states_the_exit_status():
    result = subprocess.run(
        [webclean_script(), "extract", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 0
    assert "--input-list FILE" in result.stdout and "--keep-going" in result.stdout
    assert "with --keep-going skips it, goes on, and still exits 1" in result.stdout


# -- eval --------------------------------------------------------------------
@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "tiny"
    (root / "html").mkdir(parents=True)
    entries = [
        (
            "one",
            "<html lang='en'><body><p>All of this page is the main text, every word.</p></body></html>",
            "All of this page is the main text, every word.",
        ),
        (
            "two",
            "<html lang='de'><body><ul><li>Start</li><li>Impressum</li></ul>"
            "<article><p>Der eigentliche Artikel steht hier und ist lang genug.</p></article></body></html>",
            "Der eigentliche Artikel steht hier und ist lang genug.",
        ),
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
        (
            "a1",
            "<html><body><nav>Home Shop</nav><h1>Big news</h1><p>The cat sat on the mat.</p>"
            "<footer>Privacy Policy</footer></body></html>",
            {
                "page_type": "article",
                "title": "Big news",
                "author": "Ann",
                "date": "2025-03-01",
                "text": "Big news\n\nThe cat sat on the mat.",
                "with": ["Big news The  cat", "on the mat."],
                "without": ["privacy policy", "Cookie settings", "Subscribe"],
            },
        ),
        (
            "p1",
            "<html><body><p>Blue Widget costs 10 dollars.</p><p>Add to cart</p></body></html>",
            {
                "page_type": "product",
                "title": "Blue Widget",
                "author": None,
                "date": None,
                "text": "Blue Widget costs 10 dollars.",
                "with": ["widget costs 10", "free shipping"],
                "without": ["ADD TO CART"],
            },
        ),
        (
            "a2",
            "<html><body><p>Die Straße ist lang.</p></body></html>",
            {
                "page_type": "article",
                "title": None,
                "author": None,
                "date": None,
                "text": "Die STRASSE ist lang. Die Straße.",
                "with": [],
                "without": [],
            },
        ),
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
    assert list(figures) == list(REPORT_KEYS) + list(SNIPPET_KEYS) + list(METADATA_KEYS) + ["dated_pages"]
    # Metadata, judged on the pages with a gold title (a1, p1) and the date on a1 only:
    #   a1: title "Big news" (its h1) exact; author Ann not found; date not found.
    #   p1: no title found (0, 0); null author, none found: a match.
    assert [figures[k] for k in METADATA_KEYS] == [0.5, 0.5, 0.5, 0.0] and figures["dated_pages"] == 1
    assert "wcxb-tiny: metadata" in out and "on the 1 dated pages" in out
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
    # Pooled: 3 of 4 with-snippets found, 2 without-snippets found -> P 3/5, R 3/4.
    assert figures["snippet_precision"] == pytest.approx(3 / 5)
    assert figures["snippet_recall"] == pytest.approx(3 / 4)
    assert figures["snippet_f1"] == pytest.approx(2 / 3)
    assert "snip F1" in out

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
        {
            "pages": 1,
            "word_precision": 5 / 8,
            "word_recall": 1.0,
            "word_f1": 10 / 13,
            "shingle_precision": 2 / 5,
            "shingle_recall": 1.0,
            "shingle_f1": 4 / 7,
        }
    )

    assert "word P  word R  word F1" in out and "with  without" in out
    overview = out[out.index("wcxb-tiny: word F1 by page type") :].splitlines()[1:6]
    assert overview == [
        "page type  pages  baseline",
        "---------  -----  --------",
        "article        2     0.800",
        "product        1     0.769",
        "all            4     0.592",
    ]
    assert "wcxb-tiny / type article (2 pages)" in out and "wcxb-tiny / type product (1 page)" in out


def test_eval_intervals(wcxb_dataset, tmp_path, capsys):
    target = tmp_path / "scores.json"
    argv = ["eval", str(wcxb_dataset), "-e", "baseline", "density", "--by-type", "--intervals", "--json", str(target)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    report = json.loads(target.read_text(encoding="utf-8"))
    assert list(report) == ["wcxb-tiny", "by_type", "intervals"]
    intervals = report["intervals"]["wcxb-tiny"]
    assert intervals["level"] == 0.95 and intervals["resamples"] == 2000
    groups = intervals["groups"]
    assert list(groups) == ["all", "article", "product"]  # all pages, then the types largest first
    for name in ("baseline", "density"):
        every = groups["all"]["word_f1"][name]
        # The row of all pages is the report's own word F1; no page has a URL,
        # so each page is its own site.
        assert every["value"] == pytest.approx(report["wcxb-tiny"][name]["word_f1"])
        assert (every["pages"], every["clusters"]) == (4, 4)
        assert every["low"] <= every["value"] <= every["high"]
        assert groups["article"]["word_f1"][name]["value"] == pytest.approx(
            report["by_type"]["wcxb-tiny"]["article"][name]["word_f1"]
        )
        shingles = groups["all"]["shingle_f1"][name]
        assert shingles["value"] == pytest.approx(report["wcxb-tiny"][name]["shingle_f1"])
        assert shingles["low"] <= shingles["value"] <= shingles["high"]
    # The first extractor's gap to the other, on the same pages, for both figures.
    for metric in ("word_f1", "shingle_f1"):
        gap = groups["all"]["gap"][metric]["density"]
        assert gap["value"] == pytest.approx(
            report["wcxb-tiny"]["baseline"][metric] - report["wcxb-tiny"]["density"][metric]
        )
        assert list(groups["all"]["gap"][metric]) == ["density"]
    # One product page: one site, an interval of no width.
    product = groups["product"]["word_f1"]["baseline"]
    assert product["low"] == product["value"] == product["high"] == pytest.approx(10 / 13)
    assert out.index("wcxb-tiny: shingle F1 with 95% intervals") < out.index("wcxb-tiny: word F1 with 95% intervals")
    table = out[out.index("wcxb-tiny: word F1 with 95% intervals") :].splitlines()
    assert table[1].split() == ["page", "type", "pages", "sites", "baseline", "density", "baseline", "-", "density"]
    assert table[3].startswith("all ") and table[5].split()[:4] == ["product", "1", "1", "0.769"]


def test_eval_intervals_of_one_site(tmp_path, capsys):
    """Pages of one site resample as one: an interval of no width however the pages differ."""
    root = tmp_path / "one-site"
    (root / "html").mkdir(parents=True)
    with open(root / "truth.jsonl", "w", encoding="utf-8") as truth:
        for page_id, body, gold in (
            ("x", "<p>Alpha beta gamma delta.</p>", "Alpha beta gamma delta."),
            ("y", "<p>Nothing</p>", "Other words here."),
        ):
            (root / "html" / f"{page_id}.html.gz").write_bytes(
                gzip.compress(f"<html><body>{body}</body></html>".encode())
            )
            truth.write(json.dumps({"id": page_id, "url": f"https://www.example.org/{page_id}", "text": gold}) + "\n")
    target = tmp_path / "scores.json"
    assert main(["eval", str(root), "-e", "baseline", "--intervals", "--json", str(target)]) == 0
    every = json.loads(target.read_text())["intervals"]["one-site"]["groups"]["all"]["word_f1"]["baseline"]
    assert (every["pages"], every["clusters"]) == (2, 1)
    assert every["low"] == every["value"] == every["high"] == pytest.approx(0.5)
    assert "one-site: word F1 with 95% intervals" in capsys.readouterr().out


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
    assert 'pip install -e ".[compare]" in your webclean-scrapy clone' in capsys.readouterr().err


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
