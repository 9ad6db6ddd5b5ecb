"""Train and cross-validate the page-type classifier (:mod:`webclean_scrapy.engine.page_type`).

Usage::

    python benchmarks/train_page_type.py [--data ../shared/data] [--no-cache] [--quick]
                                         [--dry-run] [--output PATH]

Reads ``<data>/wcxb-dev`` (``truth.jsonl``: ``id``, ``url``, ``page_type``;
pages at ``html/<id>.html.gz``); exits cleanly (status 0, a message) when
the data is absent. Page signals are cached under ``/tmp`` (keyed by the
feature code), never in the repository; only the fitted model is written.
A full run takes about 15 minutes on one core.

Protocol (deterministic: fixed seeds, ``deterministic=True``, one thread):

* **grouped 5-fold cross-validation by domain**: group = the URL's host
  without a leading ``www.`` (a page without a URL is its own group);
  folds from ``StratifiedGroupKFold`` (shuffled with a fixed seed), so no
  page is scored by a model that saw its domain;
* in each outer fold, on the training part only: the token model (a
  multinomial L2 logistic regression over word tokens seen on at least
  :data:`MIN_DOMAINS` of its domains) is fitted, and its scores for the
  training pages are **out-of-fold** (an inner grouped 5-fold), as the
  trees must learn from scores of pages the token model did not see;
  the LightGBM configuration is picked from a small grid (trees, leaves,
  learning rate) by an inner grouped 4-fold CV; then the fold's test
  pages are scored (nested CV: nothing of a test fold is seen before it
  is scored). ``--quick`` skips the grid search (first configuration);
* references on the same folds: a plain multinomial logistic regression
  over the hand-made features (log1p, standardised), the token model
  alone, and the trees without the token scores;
* the shipped model: token model on all pages, trees on all pages (with
  5-fold out-of-fold token scores) with the configuration chosen most
  often, stored compactly (:func:`~webclean_scrapy.engine.trees.ensemble_to_json`,
  thresholds shortened to the fewest digits that keep every training
  value on its side). Its in-sample accuracy on every third page (what
  ``tests/test_engine_page_type.py`` re-scores) is pinned in the model's ``meta``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import pickle
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webclean_scrapy.engine import page_type  # noqa: E402
from webclean_scrapy.engine.document import Document  # noqa: E402
from webclean_scrapy.engine.page_type import (  # noqa: E402
    PAGE_FEATURES,
    PAGE_TYPES,
    TokenModel,
    page_signals,
)

DATASET = "wcxb-dev"
SEED = 20250117
FOLDS = 5
INNER_FOLDS = 4
TOKEN_FOLDS = 5
#: A token enters the vocabulary when pages of this many domains have it.
MIN_DOMAINS = 10
#: Inverse L2 strength of the token model.
TOKEN_C = 0.3
#: At most this many tokens are kept (those with the largest weights), and
#: the model refitted on them.
MAX_TOKENS = 3000
MODEL_PATH = ROOT / "webclean_scrapy" / "data" / "page_type_model.json"
CACHE_DIR = Path("/tmp/webclean_page_type_cache")
#: Every ``PIN_STEP``-th page (in ``truth.jsonl`` order) is the subset the
#: test re-scores with the shipped model.
PIN_STEP = 3
#: At most this many pages of each ``--article-sets`` set (every k-th page in ``truth.jsonl`` order).
ARTICLE_CAP = 300

BASE_PARAMS = {
    "objective": "multiclass",
    "num_class": len(PAGE_TYPES),
    "extra_trees": True,
    "min_data_in_leaf": 5,
    "feature_fraction": 0.5,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "max_bin": 63,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "seed": SEED,
    "verbosity": -1,
}
#: (rounds, leaves, learning rate): small trees, so the shipped JSON stays small.
GRID = [
    (150, 7, 0.1),
    (200, 7, 0.07),
    (250, 5, 0.1),
    (120, 10, 0.1),
]


def article_sample(rows: list, cap: int) -> list:
    """Every k-th of *rows* (in ``truth.jsonl`` order), at most about *cap*: the pages of an article
    set the classifier is fitted on (``train_webclean.py`` takes the same ones)."""
    return rows[:: max(1, -(-len(rows) // cap))]


def domain(url: str | None, fallback: str) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    host = host.lower()
    return (host[4:] if host.startswith("www.") else host) or f"no-url:{fallback}"


def load_rows(directory: Path) -> list[dict]:
    with open(directory / "truth.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _signals_of(job: tuple[str, str | None]) -> tuple[np.ndarray, list[str], float]:
    path, url = job
    with gzip.open(path, "rb") as handle:
        raw = handle.read()
    doc = Document.from_html(raw, url=url)
    start = time.perf_counter()
    vector, tokens = page_signals(doc, url)
    return vector, sorted(tokens), time.perf_counter() - start


def signal_sources() -> list[Path]:
    """The signals' own code, and the parse and walk they read: a cached
    page's signals go stale with any of them."""
    package = Path(page_type.__file__).parent
    engine = package.parent
    return [
        *sorted(package.glob("*.py")),
        *sorted(package.glob("*.pyx")),
        *(
            engine / name
            for name in ("_signals.pyx", "document.py", "html/parsing.py", "html/elements.py", "html/walk.py")
        ),
    ]


def compute_signals(directory: Path, rows: list[dict], use_cache: bool):
    """Structure matrix, token lists and per-page seconds of :func:`page_signals` (walk excluded)."""
    code = b"".join(path.read_bytes() for path in signal_sources())
    key = hashlib.sha256(code + json.dumps([r["id"] for r in rows]).encode()).hexdigest()[:16]
    cache = CACHE_DIR / f"signals-{key}.pkl"
    if use_cache and cache.exists():
        with open(cache, "rb") as handle:
            return pickle.load(handle)
    jobs = [(str(directory / "html" / f"{r['id']}.html.gz"), r.get("url")) for r in rows]
    from multiprocessing import Pool

    with Pool(2) as pool:
        results = pool.map(_signals_of, jobs, chunksize=16)
    data = (np.vstack([r[0] for r in results]), [r[1] for r in results], np.array([r[2] for r in results]))
    if use_cache:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        with open(cache, "wb") as handle:
            pickle.dump(data, handle)
    return data


def folds(y: np.ndarray, groups: np.ndarray, n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedGroupKFold

    splitter = StratifiedGroupKFold(n_splits=n, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y, groups))


# -- the token model ----------------------------------------------------------------


class TokenData:
    """All pages' tokens as one sparse binary matrix, for fitting token models on subsets."""

    def __init__(self, token_lists: list[list[str]], groups: np.ndarray) -> None:
        from scipy import sparse

        self.tokens = token_lists
        self.vocabulary = sorted(set().union(*map(set, token_lists)))
        index = {t: j for j, t in enumerate(self.vocabulary)}
        rows = [i for i, tokens in enumerate(token_lists) for _ in tokens]
        cols = [index[t] for tokens in token_lists for t in tokens]
        self.matrix = sparse.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(token_lists), len(self.vocabulary))
        )
        self.group_ids = np.unique(groups, return_inverse=True)[1]

    def fit(self, idx: np.ndarray, y: np.ndarray) -> TokenModel:
        from scipy import sparse
        from sklearn.linear_model import LogisticRegression

        sub = self.matrix[idx]
        gids = self.group_ids[idx]
        membership = sparse.csr_matrix(
            (np.ones(len(idx)), (gids, np.arange(len(idx)))), shape=(self.group_ids.max() + 1, len(idx))
        )
        domains = ((membership @ sub) > 0).sum(axis=0).A1
        columns = np.flatnonzero(domains >= MIN_DOMAINS)
        model = LogisticRegression(C=TOKEN_C, max_iter=500, tol=1e-3).fit(sub[:, columns], y[idx])
        if len(columns) > MAX_TOKENS:
            keep = np.sort(np.argsort(-np.abs(model.coef_).max(axis=0), kind="stable")[:MAX_TOKENS])
            columns = columns[keep]
            model = LogisticRegression(C=TOKEN_C, max_iter=500, tol=1e-3).fit(sub[:, columns], y[idx])
        # A class absent from these pages (a small --limit run) scores far below the others.
        weights = np.zeros((len(columns), len(PAGE_TYPES)))
        intercept = np.full(len(PAGE_TYPES), -10.0)
        if len(model.classes_) == 2:  # sklearn's binary case: one column, for the second class
            weights[:, model.classes_[1]] = model.coef_[0] / 2
            weights[:, model.classes_[0]] = -model.coef_[0] / 2
            intercept[model.classes_] = [-model.intercept_[0] / 2, model.intercept_[0] / 2]
        else:
            weights[:, model.classes_] = model.coef_.T
            intercept[model.classes_] = model.intercept_
        return TokenModel.quantized([self.vocabulary[j] for j in columns], weights, intercept)

    def features(self, model: TokenModel, idx: np.ndarray) -> np.ndarray:
        return np.vstack([model.features(self.tokens[i]) for i in idx])

    def out_of_fold(self, idx: np.ndarray, y: np.ndarray, groups: np.ndarray, seed: int) -> np.ndarray:
        """Token features of the pages *idx*, each from a model fitted without its domain."""
        out = np.empty((len(idx), len(PAGE_TYPES) + 1))
        for train, test in folds(y[idx], groups[idx], TOKEN_FOLDS, seed):
            out[test] = self.features(self.fit(idx[train], y), idx[test])
        return out


# -- trees --------------------------------------------------------------------------


def fit_gbdt(X: np.ndarray, y: np.ndarray, config: tuple[int, int, float]):
    import lightgbm as lgb

    rounds, leaves, rate = config
    params = dict(BASE_PARAMS, num_leaves=leaves, learning_rate=rate)
    return lgb.train(
        params, lgb.Dataset(X, label=y, params={"max_bin": BASE_PARAMS["max_bin"]}), num_boost_round=rounds
    )


def cv_accuracy(X, y, groups, config, seed) -> float:
    predicted = np.empty(len(y), dtype=int)
    for train, test in folds(y, groups, INNER_FOLDS, seed):
        predicted[test] = fit_gbdt(X[train], y[train], config).predict(X[test]).argmax(axis=1)
    return float(np.mean(predicted == y))


def logistic_transform(X: np.ndarray) -> np.ndarray:
    return np.sign(X) * np.log1p(np.abs(X))


def fit_logistic(X: np.ndarray, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=5000)).fit(logistic_transform(X), y)


def shorten_thresholds(data: dict, X: np.ndarray) -> None:
    """Replace each threshold by the shortest decimal that sends every
    training value the same way (between the largest value at or below it
    and the smallest above it)."""
    values = [np.unique(X[:, j]) for j in range(X.shape[1])]
    for tree in data["trees"]:
        for node in tree:
            if not isinstance(node, list):
                continue
            column, threshold = values[node[0]], node[1]
            k = int(np.searchsorted(column, threshold, side="right"))
            low = column[k - 1] if k else -np.inf
            high = column[k] if k < len(column) else np.inf
            candidates = [round(threshold, d) for d in range(10)]
            candidates += [float(f"{threshold:.{d}g}") for d in range(1, 18)]
            fitting = [c for c in candidates if low <= c < high] or [threshold]
            best = min(fitting, key=lambda c: len(_number(c)))
            node[1] = int(best) if best == int(best) and abs(best) < 1e15 else best


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def left_out_sets(S, tokens, y, groups, source, names, config) -> None:
    """Each article set typed by a classifier fitted on wcxb-dev and the other article sets only:
    how pages of a set nobody fitted (other annotators, another decade) are typed."""
    for number, name in enumerate(names, 1):
        train = np.flatnonzero(source != number)
        test = np.flatnonzero(source == number)
        token_model = tokens.fit(train, y)
        X_train = np.hstack([S[train], tokens.out_of_fold(train, y, groups, SEED + 200 + number)])
        X_test = np.hstack([S[test], tokens.features(token_model, test)])
        predicted = fit_gbdt(X_train, y[train], config).predict(X_test).argmax(axis=1)
        counts = Counter(PAGE_TYPES[i] for i in predicted)
        print(f"{name} left out: {counts['article'] / len(test):.3f} typed article; {dict(counts)}", flush=True)


def report(name: str, y: np.ndarray, predicted: np.ndarray) -> dict:
    k = len(PAGE_TYPES)
    confusion = np.zeros((k, k), dtype=int)
    np.add.at(confusion, (y, predicted), 1)
    accuracy = float(np.mean(predicted == y))
    print(f"\n{name}: accuracy {accuracy:.4f} ({int(np.sum(predicted == y))}/{len(y)})")
    print(f"{'type':<15}{'n':>6}{'precision':>11}{'recall':>9}{'F1':>7}")
    per_type = {}
    for i, label in enumerate(PAGE_TYPES):
        tp = confusion[i, i]
        precision = tp / confusion[:, i].sum() if confusion[:, i].sum() else 0.0
        recall = tp / confusion[i].sum() if confusion[i].sum() else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_type[label] = (int(confusion[i].sum()), round(precision, 3), round(recall, 3), round(f1, 3))
        print(f"{label:<15}{confusion[i].sum():>6}{precision:>11.3f}{recall:>9.3f}{f1:>7.3f}")
    short = [label[:5] for label in PAGE_TYPES]
    print("confusion (rows: truth, columns: predicted)")
    print(" " * 15 + "".join(f"{s:>7}" for s in short))
    for i, label in enumerate(PAGE_TYPES):
        print(f"{label:<15}" + "".join(f"{v:>7}" for v in confusion[i]))
    return {"accuracy": round(accuracy, 4), "per_type": per_type, "confusion": confusion.tolist()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--output", type=Path, default=MODEL_PATH)
    parser.add_argument("--no-cache", action="store_true", help="recompute the page signals")
    parser.add_argument("--quick", action="store_true", help="no grid search: the first configuration")
    parser.add_argument("--dry-run", action="store_true", help="report only, do not write the model")
    parser.add_argument("--oof", type=Path, help="also write the out-of-fold probabilities, truths and domains (.npz)")
    parser.add_argument(
        "--article-sets",
        default="",
        help="comma-separated shared sets whose pages are all articles (e.g. l3s-gn1,readability,dragnet): "
        "fitted as articles beside wcxb-dev, so older news layouts are not read as hubs",
    )
    parser.add_argument(
        "--article-cap", type=int, default=ARTICLE_CAP, help="at most this many pages of each article set"
    )
    args = parser.parse_args(argv)

    directory = args.data / DATASET
    if not (directory / "truth.jsonl").is_file():
        print(f"no {DATASET} data at {directory}: nothing to do")
        return 0
    try:
        import lightgbm  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as exc:
        print(f"training needs lightgbm and scikit-learn ({exc})")
        return 0

    started = time.perf_counter()
    rows = load_rows(directory)
    core = len(rows)  # wcxb-dev's pages come first; every accuracy is reported on them
    y_list = [PAGE_TYPES.index(r["page_type"]) for r in rows]
    group_list = [domain(r.get("url"), r["id"]) for r in rows]
    S, token_lists, seconds = compute_signals(directory, rows, use_cache=not args.no_cache)
    source = np.zeros(core, dtype=int)  # 0: wcxb-dev, i: the i-th article set
    article_sets = [name for name in args.article_sets.split(",") if name]
    for number, name in enumerate(article_sets, 1):
        extra = load_rows(args.data / name)
        extra = article_sample(extra, args.article_cap)
        S_extra, tokens_extra, seconds_extra = compute_signals(args.data / name, extra, use_cache=not args.no_cache)
        S = np.vstack([S, S_extra])
        token_lists = token_lists + tokens_extra
        seconds = np.concatenate([seconds, seconds_extra])
        y_list += [PAGE_TYPES.index("article")] * len(extra)
        group_list += [f"{name}:{domain(r.get('url'), r['id'])}" for r in extra]
        source = np.concatenate([source, np.full(len(extra), number)])
        print(f"{name}: {len(extra)} pages fitted as articles")
    y = np.array(y_list)
    groups = np.array(group_list)
    tokens = TokenData(token_lists, groups)
    print(
        f"{len(rows)} pages, {len(set(groups))} domains, {S.shape[1]} structure features, "
        f"{len(tokens.vocabulary)} distinct tokens; page_signals {1000 * seconds.mean():.2f} ms/page mean, "
        f"{1000 * np.median(seconds):.2f} median (walk excluded, 2 processes)"
    )
    print("types:", dict(Counter(r["page_type"] for r in rows)))
    assert np.isfinite(S).all(), "non-finite features"

    grid = GRID[:1] if args.quick else GRID
    splits = folds(y, groups, FOLDS, SEED)
    predicted = {name: np.empty(len(y), dtype=int) for name in ("gbdt", "gbdt_structure", "logistic", "tokens")}
    chosen: list[tuple[int, int, float]] = []
    oof = np.zeros((len(y), len(PAGE_TYPES)))
    for fold, (train, test) in enumerate(splits):
        assert not set(groups[train]) & set(groups[test])
        token_model = tokens.fit(train, y)
        T_test = tokens.features(token_model, test)
        T_train = tokens.out_of_fold(train, y, groups, SEED + 100 + fold)
        X_train = np.hstack([S[train], T_train])
        X_test = np.hstack([S[test], T_test])
        scores = (
            {c: cv_accuracy(X_train, y[train], groups[train], c, SEED + fold + 1) for c in grid}
            if len(grid) > 1
            else {grid[0]: float("nan")}
        )
        best = max(grid, key=lambda c: (scores[c], -grid.index(c)))
        chosen.append(best)
        oof[test] = fit_gbdt(X_train, y[train], best).predict(X_test)
        predicted["gbdt"][test] = oof[test].argmax(axis=1)
        predicted["gbdt_structure"][test] = fit_gbdt(S[train], y[train], best).predict(S[test]).argmax(axis=1)
        predicted["logistic"][test] = fit_logistic(S[train], y[train]).predict(logistic_transform(S[test]))
        predicted["tokens"][test] = T_test[:, : len(PAGE_TYPES)].argmax(axis=1)
        print(
            f"fold {fold}: {len(token_model.vocabulary)} tokens; inner CV "
            + ", ".join(f"{c}={s:.4f}" for c, s in scores.items())
            + f"; picked {best}; test accuracy {np.mean(predicted['gbdt'][test] == y[test]):.4f} "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )

    on = slice(0, core)
    results = {
        "gbdt": report(
            "GBDT (structure + out-of-fold token scores), nested grouped 5-fold CV by domain",
            y[on],
            predicted["gbdt"][on],
        ),
    }
    results["logistic"] = report(
        "Reference: multinomial logistic regression on the structure features (log1p, standardised), same folds",
        y[on],
        predicted["logistic"][on],
    )
    results["gbdt_structure"] = report(
        "Reference: GBDT on the structure features only, same folds", y[on], predicted["gbdt_structure"][on]
    )
    results["tokens"] = report("Reference: token model alone, same folds", y[on], predicted["tokens"][on])
    for number, name in enumerate(article_sets, 1):
        mine = source == number
        share = float(np.mean(predicted["gbdt"][mine] == PAGE_TYPES.index("article")))
        print(f"{name}: {share:.3f} of its pages typed article out of fold (by domain)")
    if article_sets:
        left_out_sets(S, tokens, y, groups, source, article_sets, Counter(chosen).most_common(1)[0][0])
    if args.oof:
        np.savez(args.oof, probabilities=oof[on], truth=y[on], domains=groups[on])

    final = Counter(chosen).most_common(1)[0][0]
    everything = np.arange(len(y))
    token_model = tokens.fit(everything, y)
    X = np.hstack([S, tokens.out_of_fold(everything, y, groups, SEED + 100)])
    booster = fit_gbdt(X, y, final)
    from webclean_scrapy.engine.trees import ensemble_from_json, ensemble_to_json, from_lightgbm

    compact = ensemble_to_json(from_lightgbm(booster.dump_model(), PAGE_FEATURES))
    shorten_thresholds(compact, X)
    ensemble = ensemble_from_json(compact, PAGE_FEATURES)
    probabilities = ensemble.probabilities(X)
    reference = booster.predict(X)
    assert (
        np.abs(probabilities - reference).max() < 0.02
        and np.mean(probabilities.argmax(axis=1) == reference.argmax(axis=1)) > 0.995
    ), "tree conversion disagrees with LightGBM"
    # What the shipped model sees at run time: the full token model's scores.
    X_shipped = np.hstack([S, tokens.features(token_model, everything)])
    shipped = ensemble.probabilities(X_shipped).argmax(axis=1)
    in_sample = float(np.mean(shipped[on] == y[on]))
    subset = np.arange(0, core, PIN_STEP)
    pinned = float(np.mean(shipped[subset] == y[subset]))
    print(
        f"\nshipped: config {final} (chosen in {Counter(chosen)[final]}/{FOLDS} folds), "
        f"{len(token_model.vocabulary)} tokens; in-sample accuracy {in_sample:.4f}, "
        f"on every {PIN_STEP}rd page {pinned:.4f}"
    )
    data = {
        "features": list(PAGE_FEATURES),
        "page_types": list(PAGE_TYPES),
        "meta": {
            "dataset": DATASET,
            "article_sets": article_sets,
            "article_cap": args.article_cap if article_sets else None,
            "config": {"rounds": final[0], "leaves": final[1], "learning_rate": final[2]},
            "min_domains": MIN_DOMAINS,
            "token_c": TOKEN_C,
            "cv_accuracy": results["gbdt"]["accuracy"],
            "cv_accuracy_logistic": results["logistic"]["accuracy"],
            "in_sample_accuracy": round(in_sample, 4),
            "pin_step": PIN_STEP,
            "pinned_subset_accuracy": round(pinned, 4),
        },
        "tokens": token_model.to_json(),
        "ensemble": compact,
    }
    text = json.dumps(data, separators=(",", ":"))
    print(f"model JSON {len(text) / 1024:.0f} KB; {time.perf_counter() - started:.0f} s in all")
    if args.dry_run:
        return 0
    args.output.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
