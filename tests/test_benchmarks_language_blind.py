"""``benchmarks/language_blind.py``: the pages it makes (every word replaced,
the rest as it was) and its run on a dataset of our own making. It measures;
the tests check that it measures what it says."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest

from pages import sample_page

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "language_blind.py"

ARTICLE = sample_page("language-blind-article.html")
GOLD = (
    "The old harbour reopened on 12 May 2024, after three years of work on its walls and quays.\n"
    "Fishing boats came back first, followed by the ferry to the islands, which runs twice a day."
)


@pytest.fixture
def blind(monkeypatch):
    """The script as a module (it is a script, not part of the package)."""
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    import language_blind

    return language_blind


def test_a_word_is_always_the_same_pseudo_word_and_keeps_its_case(blind):
    once = blind.scramble_text("Harbour harbour HARBOUR, 2024 a_b!")
    words = once.replace(",", "").replace("!", "").split()
    assert words[0] == words[1].capitalize() and words[2] == words[1].upper()
    assert words[1] != "harbour" and len(words[1]) == len("harbour") and words[1].isascii()
    assert "2024" in once and once.endswith("_" + once[-2] + "!")  # digits, `_` and marks stay
    assert blind.scramble_text("harbour") == words[1]  # the same in another call


def test_cjk_script_writes_ideographs_without_spaces_and_full_width_marks(blind):
    text = blind.scramble_text("The harbour reopens. Boats came, twice 2 days!", "cjk")
    assert text.isprintable() and " " not in text.split("。")[0]
    assert "。" in text and "，" in text and " 2 " in text
    assert all("\u4e00" <= c <= "\u9fff" for c in text.split("。")[0])


def test_a_cjk_character_stays_one_ideograph_in_either_script(blind):
    for script in ("latin", "cjk"):
        text = blind.scramble_text("東京タワー", script)
        assert len(text) == 5 and text != "東京タワー"
        assert all("\u4e00" <= c <= "\u9fff" for c in text)


def test_the_page_keeps_its_markup_scripts_and_names(blind):
    page = blind.rewrite_page(ARTICLE.encode(), "latin")
    root = lxml.html.fromstring(page)
    assert root.xpath("string(//article/p[1])") == blind.scramble_text(
        "The old harbour reopened on 12 May 2024, after three years of work on its walls and quays."
    )
    assert root.xpath("//nav/@class") == ["site-nav"] and root.xpath("//article/@class") == ["story"]
    assert root.xpath("//a/@href") == ["/", "/news"]
    assert root.xpath("string(//script)") == '{"headline": "The harbour reopens"}'
    assert root.xpath("string(//style)") == ".story p { margin: 0 }"
    assert root.xpath("//img/@alt") == [blind.scramble_text("A fishing boat")]
    assert root.xpath("//img/@src") == ["boat.jpg"]
    assert root.xpath("//meta[@name='description']/@content") == [blind.scramble_text("The harbour reopens")]
    assert root.xpath("//meta[@name='viewport']/@content") == ["width=device-width"]
    assert root.xpath("string(//title)") == blind.scramble_text("Harbour News")


def test_the_plain_page_is_the_same_serialisation_unscrambled(blind):
    plain = lxml.html.fromstring(blind.rewrite_page(ARTICLE.encode(), None))
    assert plain.xpath("string(//article/p[2])").startswith("Fishing boats came back first")


def test_control_characters_lxml_will_not_be_given_are_removed_in_both_readings(blind):
    page = ("<html><body><p>" + "Words of a page. " * 20 + "a\x01b c\x0b</p></body></html>").encode()
    for script in (None, "latin"):
        text = lxml.html.fromstring(blind.rewrite_page(page, script)).xpath("string(//p)")
        assert "\x01" not in text and "\x0b" not in text
        assert text.endswith(blind.scramble_text("ab c", script) if script else "ab c")
    # One written as a character reference reaches the text lxml is given
    # (it parts the letters around it into two words): removed there.
    referenced = page.replace(b"a\x01b", b"a&#1;b")
    text = lxml.html.fromstring(blind.rewrite_page(referenced, "latin")).xpath("string(//p)")
    assert "\x01" not in text
    assert text.endswith(" ".join(blind.scramble_text(word) for word in ("a", "b", "c")).replace(" ", "", 1))


def _dataset(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    html = data / "ours" / "html"
    html.mkdir(parents=True)
    (html / "a.html.gz").write_bytes(gzip.compress(ARTICLE.encode()))
    (data / "ours" / "truth.jsonl").write_text(
        json.dumps({"id": "a", "url": None, "text": GOLD, "page_type": "article"}) + "\n"
    )
    return data


def test_a_run_scores_both_readings_of_every_page(blind, tmp_path: Path, capsys):
    out = tmp_path / "run.json"
    assert blind.main(["--data", str(_dataset(tmp_path)), "--dataset", "ours", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    row = report["summary"]["ours"]
    assert row["pages"] == 1
    # The story is kept in both readings: its words are not what the extractor reads.
    # (The headline is kept too: the gold leaves it out.)
    assert row["webclean_plain_word_f1"] > 0.8
    assert row["webclean_scrambled_word_f1"] == pytest.approx(row["webclean_plain_word_f1"], abs=0.05)
    assert 0 < row["webclean_scrambled_shingle_f1"] <= 1
    assert row["webclean_agreement"] == pytest.approx(1.0)  # the same blocks kept in both readings
    assert report["pages"][0]["scrambled"]["page_type"] == report["pages"][0]["plain"]["page_type"]
    assert row["page_type_accuracy_plain"] == row["page_type_accuracy_scrambled"] in (0.0, 1.0)
    assert report["summary"]["ours:article"]["pages"] == 1
    assert "ours" in capsys.readouterr().out


def test_a_page_it_cannot_rewrite_is_left_out_and_named(blind, tmp_path: Path, capsys):
    data = _dataset(tmp_path)
    (data / "ours" / "html" / "b.html.gz").write_bytes(gzip.compress(bytes(range(256)) * 8))
    with (data / "ours" / "truth.jsonl").open("a") as truth:
        truth.write(json.dumps({"id": "b", "url": None, "text": "binary"}) + "\n")
    assert blind.main(["--data", str(data), "--dataset", "ours"]) == 0
    out = capsys.readouterr().out
    assert "1 page(s) left out, not rewritable: b" in out
    assert out.splitlines()[2].split()[:2] == ["ours", "1"]


def test_without_data_it_says_so_and_exits_0(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "no annotated data" in done.stdout


def test_names_are_hashed_per_site_and_the_words_kept(blind):
    page = ARTICLE.replace('<article class="story">', '<article class="story  lead" id="main" role="main">')
    root = lxml.html.fromstring(blind.rewrite_page(page.encode(), None, "harbour.example"))
    (nav_class,) = root.xpath("//nav/@class")
    assert nav_class == blind.pseudo_name("site-nav", "harbour.example") and nav_class.startswith("css-")
    assert len(nav_class) == len("css-") + 7 and nav_class != blind.pseudo_name("site-nav", "other.example")
    classes = root.xpath("//article/@class")[0].split()
    assert classes == [blind.pseudo_name(name, "harbour.example") for name in ("story", "lead")]
    assert root.xpath("//article/@id") == [blind.pseudo_name("main", "harbour.example")]
    assert root.xpath("//article/@role") == ["main"] and root.xpath("//a/@href") == ["/", "/news"]
    assert root.xpath("string(//article/p[1])").startswith("The old harbour reopened on 12 May 2024")
    assert root.xpath("string(//style)") == ".story p { margin: 0 }"  # the style sheet is not rewritten


def test_a_names_run_keeps_the_gold_and_compares_the_texts_as_they_are(blind, tmp_path: Path):
    out = tmp_path / "run.json"
    data = _dataset(tmp_path)
    assert blind.main(["--data", str(data), "--dataset", "ours", "--scramble", "names", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["names"] is True and report["script"] is None
    row = report["summary"]["ours"]
    # Two paragraphs in an <article>: kept without any class name to go by.
    assert row["webclean_scrambled_word_f1"] > 0.8
    assert row["webclean_agreement"] == pytest.approx(1.0)
    scrambled = report["pages"][0]["scrambled"]["webclean"]
    assert scrambled["word_f1"] == pytest.approx(row["webclean_scrambled_word_f1"])
