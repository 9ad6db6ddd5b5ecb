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


def _train_module():
    """``benchmarks/train_webclean.py`` as a module (importing it fits nothing)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import train_webclean
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return train_webclean


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


def test_repeats_and_one_fold_seed_are_one_or_the_other(tmp_path):
    done = _train("--data", str(tmp_path), "--repeats", "3", "--fold-seed", "1")
    assert done.returncode == 2
    assert "give one or the other" in done.stderr


def test_compare_takes_a_peer_name(tmp_path):
    done = _train("--data", str(tmp_path), "--compare", "no-such-library")
    assert done.returncode == 2
    assert "--compare" in done.stderr and "trafilatura" in done.stderr


def test_cross_validated_intervals_pair_webclean_with_a_peer():
    """The protocol's intervals: webclean's word F1 on the wcxb-dev pages
    (all, and per page type), its shingle F1 on an older set's, and its gap
    to a peer page by page."""
    train_webclean = _train_module()
    from collections import Counter

    def page(dataset: str, kind: str | None, domain: str, peer_f1: float, peer_counts: tuple) -> dict:
        return {
            "dataset": dataset,
            "page_type": kind,
            "domain": domain,
            "block_words": [["the", "cat", "sat"], ["menu", "home"]],
            "gold_words": Counter(["the", "cat", "sat"]),
            "block_tokens": [["The", "cat", "sat", "on", "the", "mat"], ["Menu", "Home"]],
            "gold_tokens": ["The", "cat", "sat", "on", "the", "mat"],
            "peers": {"trafilatura": {"word_f1": peer_f1, "shingle_counts": peer_counts}},
        }

    pages = [
        page("wcxb-dev", "article", "a.example", 0.5, (0.0, 0.0, 0.0)),
        page("wcxb-dev", "article", "a.example", 0.5, (0.0, 0.0, 0.0)),
        page("wcxb-dev", "forum", "b.example", 0.25, (0.0, 0.0, 0.0)),
        page("cleaneval", None, "c.example", 0.0, (0.0, 0.0, 1.0)),  # the peer extracted nothing
        page("cleaneval", None, "d.example", 0.0, (0.0, 0.0, 1.0)),
    ]
    # Kept: the gold block (word F1 1), the gold block (1), both blocks (P 3/5, R 1: F1 3/4);
    # on the older set, the gold block (shingle F1 1) on both pages.
    intervals = train_webclean.cross_validated_intervals(pages, [[0], [0], [0, 1], [0], [0]])
    assert list(intervals) == ["cleaneval", "wcxb-dev", "wcxb-dev/article", "wcxb-dev/forum"]
    every = intervals["wcxb-dev"]["webclean"]
    assert (every.value, every.pages, every.clusters) == (pytest.approx(2.75 / 3), 3, 2)
    assert every.low < every.value < every.high
    # The gap, page by page: 0.5, 0.5, 0.5 -- the same on every resample.
    gap = intervals["wcxb-dev"]["trafilatura"]
    assert (gap.value, gap.low, gap.high) == (pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))
    article = intervals["wcxb-dev/article"]["webclean"]
    assert (article.value, article.low, article.high, article.clusters) == (1.0, 1.0, 1.0, 1)
    # The older set: shingle F1 1 against the peer's 0 (precision over no page, recall 0).
    older = intervals["cleaneval"]
    assert older["webclean"] == (1.0, 1.0, 1.0, 2, 2)
    assert older["trafilatura"] == (1.0, 1.0, 1.0, 2, 2)


def test_page_types_are_reweighted_half_way_within_wcxb_dev():
    """Rarer page types weigh more (``count ** -0.5``), the wcxb-dev pages'
    total unchanged against the older datasets' pages."""
    train_webclean = _train_module()

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


def test_repeats_summarise_each_figure_over_the_splits():
    train_webclean = _train_module()
    runs = [{"wcxb-dev": 0.8, "article": 0.5}, {"wcxb-dev": 0.9, "article": 0.7}, {"wcxb-dev": 1.0}]
    summary = train_webclean.summarise_repeats(runs)
    assert summary["wcxb-dev"] == pytest.approx({"mean": 0.9, "sd": 0.1, "min": 0.8, "max": 1.0})
    # A figure missing from a split (a page type no page was predicted) is summarised over the others.
    assert summary["article"] == pytest.approx({"mean": 0.6, "sd": 2**0.5 / 10, "min": 0.5, "max": 0.7})
    assert train_webclean.summarise_repeats([{"x": 0.5}])["x"]["sd"] == 0.0


@pytest.mark.parametrize("jobs", [1, 2])
def test_repeats_run_the_protocol_once_per_fold_split(monkeypatch, tmp_path, jobs):
    """Each split's protocol gets its fold seed, in order, in forked workers too."""
    train_webclean = _train_module()

    files = []

    def protocol(pages, folds, oof=None, reuse=None, fold_seed=None):
        files.append((oof, reuse))  # (in the parent only when jobs is 1)
        return 0.4, {}, {"pages": float(len(pages)), "folds": float(folds), "seed": float(fold_seed or 0)}

    monkeypatch.setattr(train_webclean, "cross_validate", protocol)
    runs = train_webclean.repeated_cross_validation([{}, {}, {}], 5, [1, 2, 3], jobs)
    assert runs == [{"pages": 3.0, "folds": 5.0, "seed": float(seed)} for seed in (1, 2, 3)]
    # Each split keeps its own out-of-fold file; one that exists is reused, one that does not is written.
    (tmp_path / "oof-fold-seed-2.pkl").write_bytes(b"")
    train_webclean.repeated_cross_validation([{}], 5, [1, 2], 1, tmp_path / "oof.pkl", tmp_path / "oof.pkl")
    assert files[-2:] == [
        (tmp_path / "oof-fold-seed-1.pkl", None),
        (tmp_path / "oof-fold-seed-2.pkl", tmp_path / "oof-fold-seed-2.pkl"),
    ]
    assert train_webclean.split_file(tmp_path / "oof.pkl", None) == tmp_path / "oof.pkl"
    assert train_webclean.split_file(None, 3) is None
    assert train_webclean.split_file(tmp_path / "oof-fold-seed-3.pkl", 3) == tmp_path / "oof-fold-seed-3.pkl"
    assert (
        train_webclean.split_file(tmp_path / "oof-fold-seed-3.pkl", 13) == tmp_path / "oof-fold-seed-3-fold-seed-13.pkl"
    )


def test_one_split_keeps_its_own_out_of_fold_file(monkeypatch, tmp_path):
    """``--fold-seed N --oof F`` writes F's split file, as ``--repeats`` does,
    so two single-split runs given one ``--oof`` do not overwrite each other;
    a ``--reuse-oof`` path that already names the split is read as it is."""
    train_webclean = _train_module()
    _dataset(tmp_path / "data", "wcxb-dev", ["article", "forum"])
    seen = []

    def protocol(pages, folds, oof=None, reuse=None, fold_seed=None):
        seen.append((fold_seed, oof, reuse))
        return 0.4, {}, {"wcxb-dev": 0.5}

    monkeypatch.setattr(train_webclean, "cross_validate", protocol)
    common = ["--data", str(tmp_path / "data"), "--dry-run", "--jobs", "1"]
    for seed in ("1", "2"):
        assert train_webclean.main([*common, "--fold-seed", seed, "--oof", str(tmp_path / "oof.pkl")]) == 0
    assert train_webclean.main([*common, "--fold-seed", "2", "--reuse-oof", str(tmp_path / "oof-fold-seed-2.pkl")]) == 0
    assert train_webclean.main([*common, "--oof", str(tmp_path / "oof.pkl")]) == 0
    assert seen == [
        (1, tmp_path / "oof-fold-seed-1.pkl", None),
        (2, tmp_path / "oof-fold-seed-2.pkl", None),
        (2, None, tmp_path / "oof-fold-seed-2.pkl"),
        (None, tmp_path / "oof.pkl", None),
    ]


def test_a_dry_run_cross_validates_without_fitting_the_shipped_model(monkeypatch, tmp_path, capsys):
    """The shipped model (every page, minutes of fitting) is fitted only when
    it is written; a dry run stops at the cross-validated figures."""
    train_webclean = _train_module()
    _dataset(tmp_path / "data", "wcxb-dev", ["article", "forum"])
    fitted = []

    def protocol(pages, folds, oof=None, reuse=None, fold_seed=None):
        return 0.4, {}, {"wcxb-dev": 0.5}

    monkeypatch.setattr(train_webclean, "cross_validate", protocol)
    monkeypatch.setattr(train_webclean, "assign_page_types", lambda train, test: None)
    monkeypatch.setattr(train_webclean, "assign_lexicon", lambda train, test: None)
    monkeypatch.setattr(train_webclean, "fit", lambda pages: fitted.append(len(pages)) or "model")
    monkeypatch.setattr(train_webclean, "fit_lexicon", lambda pages: "lexicon")
    monkeypatch.setattr(train_webclean, "export", lambda model, lexicon, threshold, policies: {"model": model})
    common = ["--data", str(tmp_path / "data"), "--jobs", "1", "--output", str(tmp_path / "model.json")]
    assert train_webclean.main([*common, "--dry-run", "--report", str(tmp_path / "cv.json")]) == 0
    assert fitted == [] and not (tmp_path / "model.json").exists()
    assert json.loads((tmp_path / "cv.json").read_text())["cross_validated"] == {"wcxb-dev": 0.5}
    assert train_webclean.main(common) == 0
    assert fitted == [2]
    assert json.loads((tmp_path / "model.json").read_text()) == {"model": "model"}
    assert "wrote " in capsys.readouterr().out


def test_reusing_another_splits_out_of_fold_file_is_refused(tmp_path):
    """Reused probabilities of another split would score pages under
    policies chosen on folds that saw them: the file says its split, and a
    file written before it did is checked by its page and fold counts."""
    import pickle

    train_webclean = _train_module()
    path = tmp_path / "oof-fold-seed-3.pkl"
    split = {"pages": 4, "folds": 2, "fold_seed": 3}
    path.write_bytes(pickle.dumps({"folds": [0, 1, 0, 1], "split": split}))
    assert train_webclean.read_out_of_fold(path, 4, 2, 3)["split"] == split
    with pytest.raises(train_webclean.ForeignOutOfFoldError, match=r"fold_seed 3 \(this run: 4\)"):
        train_webclean.read_out_of_fold(path, 4, 2, 4)
    with pytest.raises(train_webclean.ForeignOutOfFoldError, match=r"pages 4 \(this run: 5\).*folds 2 \(this run: 5\)"):
        train_webclean.read_out_of_fold(path, 5, 5, 3)
    older = tmp_path / "oof.pkl"
    older.write_bytes(pickle.dumps({"folds": [0, 1, 2, 0]}))
    assert train_webclean.read_out_of_fold(older, 4, 3, None)["folds"] == [0, 1, 2, 0]
    with pytest.raises(train_webclean.ForeignOutOfFoldError, match=r"folds 3 \(this run: 5\)"):
        train_webclean.read_out_of_fold(older, 4, 5, None)
    # On the command line: a message and status 2, before anything is fitted.
    _dataset(tmp_path / "data", "wcxb-dev", ["article", "forum"])
    done = _train("--data", str(tmp_path / "data"), "--dry-run", "--jobs", "1", "--reuse-oof", str(older))
    assert done.returncode == 2, done.stderr
    assert f"{older} holds the out-of-fold probabilities of another run: pages 4 (this run: 2)" in done.stdout


def test_reserved_fold_seeds_are_refused_for_choosing(tmp_path):
    """The splits kept for reporting cannot be run one by one, where a change is chosen."""
    train_webclean = _train_module()
    seed = train_webclean.REPORT_FOLD_SEEDS[0]
    done = _train("--data", str(tmp_path), "--fold-seed", str(seed))
    assert done.returncode == 2
    assert f"--fold-seed {seed} is kept for reporting" in done.stderr
    done = _train("--data", str(tmp_path), "--report-splits", "--repeats", "3")
    assert done.returncode == 2
    assert "give no --repeats or --fold-seed" in done.stderr


def test_repeats_choose_on_seeds_outside_the_reserve():
    train_webclean = _train_module()
    reserved = set(train_webclean.REPORT_FOLD_SEEDS)
    seeds = train_webclean.choosing_fold_seeds(len(reserved) + 6)
    assert seeds[:2] == [1, 2]
    assert len(seeds) == len(set(seeds)) == len(reserved) + 6
    assert not reserved & set(seeds)
    assert max(seeds) == len(reserved) * 2 + 6


def test_report_splits_run_the_reserve_and_keep_a_ledger(monkeypatch, tmp_path, capsys):
    """Each --report-splits run adds a line to the ledger: its fold seeds,
    the commit, the model file and each figure's mean over the splits."""
    import argparse

    train_webclean = _train_module()
    seen = []

    def protocol(pages, folds, oof=None, reuse=None, fold_seed=None):
        seen.append((fold_seed, oof, reuse))
        return 0.4, {}, {"wcxb-dev": 0.8 + fold_seed / 100}

    ledger = tmp_path / "report_splits.jsonl"
    monkeypatch.setattr(train_webclean, "cross_validate", protocol)
    monkeypatch.setattr(train_webclean, "REPORT_LEDGER", ledger)
    args = argparse.Namespace(folds=5, jobs=1, oof=tmp_path / "oof.pkl", reuse_oof=None, report=tmp_path / "r.json")
    assert train_webclean.report_splits([{}], args) == 0
    assert train_webclean.report_splits([{}], args) == 0
    reserved = list(train_webclean.REPORT_FOLD_SEEDS)
    assert [seed for seed, _, _ in seen] == reserved * 2
    assert seen[0][1] == tmp_path / f"oof-fold-seed-{reserved[0]}.pkl"
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(lines) == 2
    expected = round(0.8 + sum(reserved) / len(reserved) / 100, 4)
    assert lines[0]["fold_seeds"] == reserved
    assert lines[0]["mean"] == {"wcxb-dev": pytest.approx(expected)}
    assert lines[0]["commit"] and lines[0]["date"].endswith("Z")
    assert len(lines[0]["model_sha256"]) == 16
    out = capsys.readouterr().out
    assert "(0 earlier run(s) there)" in out and "(1 earlier run(s) there)" in out
    report = json.loads(args.report.read_text())
    assert report["report_splits"]["summary"]["wcxb-dev"]["mean"] == pytest.approx(expected)


def test_hub_policies_count_the_other_hubs_pages(monkeypatch):
    """A hub type's policy search weighs the other hub types' pages
    (HUB_POOLING each) beside its own; the article policy its own alone."""
    train_webclean = _train_module()
    targets = {"article": 0.3, "listing": 0.2, "forum": 0.55}
    kinds = ["article"] * 20 + ["listing"] * 20 + ["forum"] * 40
    pages = [{"n": 1, "dataset": "wcxb-dev", "target": targets[kind]} for kind in kinds]
    pages.append({"n": 1, "dataset": "cleaneval", "target": 0.65})  # older sets never choose a type's policy
    kinds.append("listing")
    # Each page is best kept at its own threshold, and worse the further from it.
    monkeypatch.setattr(train_webclean, "kept_under", lambda page, probabilities, policy, article=None: [policy])
    monkeypatch.setattr(train_webclean, "word_f1", lambda page, kept: 1 - abs(kept[0].threshold - page["target"]))
    out = [np.zeros(1)] * len(pages)

    def thresholds(pooling: float) -> dict[str, float]:
        monkeypatch.setattr(train_webclean, "HUB_POOLING", pooling)
        policies = train_webclean.choose_policies(pages, out, kinds, list(range(len(pages))), 0.4)
        return {kind: policies[kind].threshold for kind in targets}

    assert thresholds(0.0) == {"article": 0.4, "listing": 0.2, "forum": 0.55}
    # Pooled at 1, the listings' 20 pages are outweighed by the forums' 40, and
    # the forums' choice moves towards the listings' (the grid's plateau: 0.5).
    assert thresholds(1.0) == {"article": 0.4, "listing": 0.5, "forum": 0.5}
    # At a quarter each, the forums' pages move the listings' choice one step.
    assert thresholds(0.25) == {"article": 0.4, "listing": 0.25, "forum": 0.55}


def test_the_page_type_signals_cache_reads_files_that_exist():
    """The cache key of ``train_page_type.py`` hashes the code the signals come from: a
    moved module must not break the script (a missing path raises before any page is read)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import train_page_type
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    sources = train_page_type.signal_sources()
    assert all(path.is_file() for path in sources), [str(p) for p in sources if not p.is_file()]
    assert {"document.py", "walk.py", "_signals.pyx", "signals.py"} <= {path.name for path in sources}


def test_the_fitting_target_follows_the_article_convention():
    """A gold that keeps the headline, a figure caption, an advert label and
    the readers' comments: the fitting target keeps the body only, on an
    article; a page that is not an article keeps its caption."""
    from webclean_scrapy.engine.document import Document

    train_webclean = _train_module()
    body = [
        "The council approved the new cycle lanes on River Road after a two-hour debate on Tuesday evening.",
        "Work starts in March and the lanes should open before the summer holidays, the council said.",
    ]
    html = (
        "<html><head><title>Cycle lanes approved</title></head><body><article><h1>Cycle lanes approved</h1>"
        f"<p>{body[0]}</p><figure><img src='/a.jpg'><figcaption>River Road at dawn, looking north</figcaption>"
        f"</figure><p>Advertisement</p><p>{body[1]}</p></article><ol class='comment-list'>"
        "<li class='comment'><p>About time too, the junction at the bridge has been dangerous for years.</p></li>"
        "</ol></body></html>"
    )
    doc = Document.from_html(html)
    texts = doc.block_columns.texts
    labels = np.ones(len(texts))
    target = train_webclean.convention_target(doc, labels, article=True)
    assert [t for t, keep in zip(texts, target) if keep] == body
    kept = [t for t, keep in zip(texts, train_webclean.convention_target(doc, labels, article=False)) if keep]
    assert "River Road at dawn, looking north" in kept and "Cycle lanes approved" not in kept
    assert train_webclean.convention_target(doc, np.zeros(len(texts)), article=True).sum() == 0


def test_leave_one_dataset_out_scores_each_set_by_the_others(monkeypatch, tmp_path, capsys):
    train_webclean = _train_module()
    for name in ("wcxb-dev", "cleaneval"):
        _dataset(tmp_path, name, ["article", "forum"] * 3 if name == "wcxb-dev" else [""] * 6)
    fitted: list[set[str]] = []

    def fit(pages):  # the protocol is under test, not LightGBM (the [train] extra)
        fitted.append({p["dataset"] for p in pages})
        return "model"

    def page_types(train, test):  # the classifier needs words seen on ten domains: these pages have none
        for page in [*train, *test]:
            page["types"] = np.eye(len(train_webclean.PAGE_TYPES))[0]

    def lexicon(train, test):
        for page in [*train, *test]:
            page["lexicon"] = np.zeros(page["n"])

    monkeypatch.setattr(train_webclean, "assign_page_types", page_types)
    monkeypatch.setattr(train_webclean, "assign_lexicon", lexicon)
    monkeypatch.setattr(train_webclean, "fit", fit)
    monkeypatch.setattr(train_webclean, "probabilities_of", lambda model, page: np.full(page["n"], 0.9))
    report = tmp_path / "lodo.json"
    assert train_webclean.main(["--data", str(tmp_path), "--by-dataset", "--jobs", "1", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert fitted == [{"wcxb-dev"}, {"cleaneval"}]  # each set held out, fitted on the other
    assert "cleaneval held out: 6 pages" in out and "wcxb-dev held out: 6 pages" in out
    assert "fitting target cleaneval:" in out
    figures = json.loads(report.read_text())["leave_one_dataset_out"]
    assert {"cleaneval", "wcxb-dev"} <= set(figures) and all(0 <= v <= 1 for v in figures.values())
    refused = _train("--data", str(tmp_path), "--by-dataset", "--repeats", "2")
    assert refused.returncode == 2 and "--by-dataset" in refused.stderr


def test_article_sets_label_every_kth_page_as_the_page_type_model_was_fitted(monkeypatch):
    """The block model's folds refit the page-type classifier on what the shipped one saw:
    ``wcxb-dev``'s gold types and every k-th page of each article set, at most ``ARTICLE_CAP``."""
    train_webclean = _train_module()
    monkeypatch.setattr(train_webclean, "ARTICLE_SETS", ("l3s-gn1",))
    monkeypatch.setattr(train_webclean, "ARTICLE_CAP", 3)
    pages = [{"dataset": "wcxb-dev", "page_type": "forum"}]
    pages += [{"dataset": "l3s-gn1", "page_type": None, "id": str(i)} for i in range(7)]
    pages += [{"dataset": "cleaneval", "page_type": None}]
    train_webclean.label_page_types(pages)
    assert [p["type_label"] for p in pages] == ["forum", "article", None, None, "article", None, None, "article", None]
