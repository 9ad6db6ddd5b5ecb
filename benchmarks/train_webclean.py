"""Learn the weights of the ``webclean`` extractor from the evaluation data.

Usage::

    python benchmarks/train_webclean.py [--data ../shared/data] [--limit N] [--split-only]
                                        [--dry-run] [--output PATH]

A full run reads all 2,920 pages and takes about three minutes on one core.

Reads ``<data>/<dataset>/html/<id>.html.gz`` and ``truth.jsonl``; exits
cleanly (status 0, a message) when the data directory is absent. Nothing of
the data is written to the repository, only the fitted weights.

Method (deterministic; numpy only here, never at run time):

* every block of every page is labelled *content* when most of its 4-gram
  shingles (for blocks under four tokens: its token sequence) occur in the
  page's gold text; blocks are weighted by their share of the page's tokens,
  so each page counts once, as in the per-page shingle metric;
* the block model, then the context model (fed the block model's
  probabilities), are L2-regularised logistic regressions fitted by
  Newton's method; datasets are re-weighted half-way towards equal totals
  (:data:`BALANCE`) so the small modern-page sets count;
* the keep threshold, applied after the extractor's vetoes and with its
  repeat rule, maximises the 4-gram shingle F1 (the evaluation module's
  aggregate) averaged over the training datasets.

The split is **by dataset** (``TRAIN`` / ``VALIDATION`` below) so the
validation figures measure transfer to unseen sites and gold-standard
conventions. After reporting them, the shipped model is refitted on all
datasets (pass ``--split-only`` to ship the train-split model instead).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webclean_scrapy.document import Document  # noqa: E402
from webclean_scrapy.evaluation.metrics import shingle_dataset_prf  # noqa: E402
from webclean_scrapy.evaluation.tokenize import tokenize  # noqa: E402
from webclean_scrapy.extractors import webclean  # noqa: E402

DATASETS = ("cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability")
TRAIN = ("cleaneval", "dragnet", "l3s-gn1")
VALIDATION = ("cleanportaleval", "readability")
SEED = 20240607
L2 = 1.0
#: 0: every page weighs the same; 1: every dataset weighs the same.
BALANCE = 0.5
#: Context models applied in sequence, each fed the previous probabilities.
CONTEXT_STAGES = 1
DEDUPLICATE = webclean.WebcleanExtractor.defaults["deduplicate"]
MODEL_PATH = ROOT / "webclean_scrapy" / "data" / "webclean_model.json"


def shingles(tokens, n=4):
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def page_counts(gold_tokens, pred_tokens):
    """One page's normalised (tp, fp, fn), as :func:`shingle_counts` computes
    them, from already-tokenised text (the threshold search re-scores every
    page many times)."""
    g, p = shingles(gold_tokens), shingles(pred_tokens)
    tp = sum((g & p).values())
    fp = sum((p - g).values())
    fn = sum((g - p).values())
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s else (0.0, 0.0, 0.0)


def f1_of(counts):
    return shingle_dataset_prf(counts).f1


def balanced_f1(pages, counts):
    """Mean over datasets of the dataset F1: small datasets count as much as large ones."""
    names = sorted({p.dataset for p in pages})
    return sum(f1_of([c for p, c in zip(pages, counts) if p.dataset == name]) for name in names) / len(names)


class Page:
    """Features, labels and tokens of one page's blocks."""

    def __init__(self, dataset, html, gold):
        self.dataset = dataset
        doc = Document.from_html(html)
        self.doc = doc
        self.rows = webclean.block_features(doc)
        self.flags = webclean._container_flags(doc)[0]
        self.gold_tokens = tokenize(gold)
        self.texts = doc.block_columns.texts
        self.block_tokens = [tokenize(text) for text in self.texts]
        self.chars = doc.block_columns.chars.tolist()
        gold_set = set(shingles(self.gold_tokens))
        gold_joined = f" {' '.join(self.gold_tokens)} "
        labels, weights = [], []
        total = sum(len(t) for t in self.block_tokens) or 1
        for tokens in self.block_tokens:
            if len(tokens) >= 4:
                grams = list(zip(*(tokens[i:] for i in range(4))))
                hit = sum(g in gold_set for g in grams) / len(grams)
            elif tokens:
                hit = 1.0 if f" {' '.join(tokens)} " in gold_joined else 0.0
            else:
                hit = 0.0
            labels.append(1.0 if hit >= 0.5 else 0.0)
            weights.append((len(tokens) + 0.5) / total)
        self.labels = labels
        self.weights = weights

    def output_tokens(self, probs, threshold):
        """Tokens of the kept blocks, repeats dropped as the extractor does."""
        seen, out = set(), []
        for text, chars, tokens, p in zip(self.texts, self.chars, self.block_tokens, probs):
            if p >= threshold:
                if text in seen and chars < DEDUPLICATE:
                    continue
                seen.add(text)
                out.extend(tokens)
        return out


def load_pages(data, datasets, limit):
    pages = []
    for name in datasets:
        folder = data / name
        truth = folder / "truth.jsonl"
        if not truth.exists():
            continue
        rows = [json.loads(line) for line in truth.open(encoding="utf-8")]
        if limit:
            rows = random.Random(SEED).sample(rows, min(limit, len(rows)))
        for row in rows:
            path = folder / "html" / f"{row['id']}.html.gz"
            if path.exists():
                pages.append(Page(name, gzip.decompress(path.read_bytes()), row.get("text") or ""))
        print(f"loaded {name}: {sum(p.dataset == name for p in pages)} pages", flush=True)
    return pages


def fit_logistic(X, y, w, l2=L2, iterations=30):
    """Weighted L2 logistic regression by Newton's method (bias unpenalised)."""
    d = X.shape[1]
    beta = np.zeros(d)
    penalty = np.full(d, l2)
    penalty[0] = 0.0
    w = w / w.sum() * len(w) / 1000.0  # keep the penalty's scale independent of N
    for _ in range(iterations):
        z = np.clip(X @ beta, -30, 30)
        p = 1 / (1 + np.exp(-z))
        grad = X.T @ (w * (p - y)) + penalty * beta
        hess = (X * (w * p * (1 - p))[:, None]).T @ X + np.diag(penalty + 1e-6)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return beta


def stack(pages, attr):
    """Design matrix, labels and weights; datasets are re-weighted towards
    equal totals (:data:`BALANCE`), so the small modern-page sets are not
    drowned by the large ones."""
    per_dataset = Counter(p.dataset for p in pages)
    scale = {name: (len(pages) / len(per_dataset) / count) ** BALANCE for name, count in per_dataset.items()}
    X = np.array([r for p in pages for r in getattr(p, attr)], dtype=float)
    y = np.array([v for p in pages for v in p.labels])
    w = np.array([v * scale[p.dataset] for p in pages for v in p.weights])
    return X, y, w


def score_rows(rows, beta):
    return list(1 / (1 + np.exp(-np.clip(np.asarray(rows, dtype=float) @ beta, -30, 30)))) if rows else []


def fit(pages):
    X, y, w = stack(pages, "rows")
    block_beta = fit_logistic(X, y, w)
    for page in pages:
        page.final = [float(v) for v in score_rows(page.rows, block_beta)]
    context_beta = []
    for _ in range(CONTEXT_STAGES):
        for page in pages:
            page.context = webclean.as_rows(webclean.context_features(page.doc, page.final), len(page.final))
        X2, y2, w2 = stack(pages, "context")
        beta = fit_logistic(X2, y2, w2)
        context_beta.append(beta)
        for page in pages:
            page.final = [float(v) for v in score_rows(page.context, beta)]
    for page in pages:
        webclean.veto(page.doc, page.final, page.flags)
    best = max(
        (balanced_f1(pages, [page_counts(p.gold_tokens, p.output_tokens(p.final, t)) for p in pages]), t)
        for t in np.arange(0.30, 0.71, 0.025)
    )
    return block_beta, context_beta, float(round(best[1], 3))


def evaluate(pages, block_beta, context_beta, threshold):
    results = {}
    for name in DATASETS:
        subset = [p for p in pages if p.dataset == name]
        if not subset:
            continue
        counts = []
        for page in subset:
            final = [float(v) for v in score_rows(page.rows, block_beta)]
            for beta in context_beta:
                final = [float(v) for v in score_rows(webclean.as_rows(webclean.context_features(page.doc, final), len(final)), beta)]
            webclean.veto(page.doc, final, page.flags)
            counts.append(page_counts(page.gold_tokens, page.output_tokens(final, threshold)))
        results[name] = round(f1_of(counts), 4)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=0, help="pages per dataset (0: all)")
    parser.add_argument("--split-only", action="store_true", help="ship the train-split model")
    parser.add_argument("--dry-run", action="store_true", help="do not write the model file")
    parser.add_argument("--output", type=Path, default=MODEL_PATH, help="where to write the model")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"no evaluation data at {args.data}; nothing to train")
        return 0
    np.random.seed(SEED)
    pages = load_pages(args.data, DATASETS, args.limit)
    train = [p for p in pages if p.dataset in TRAIN]
    block_beta, context_beta, threshold = fit(train)
    print("split model (train: %s) threshold %.3f" % (", ".join(TRAIN), threshold))
    print("  shingle F1:", evaluate(pages, block_beta, context_beta, threshold), "validation:", ", ".join(VALIDATION))
    if not args.split_only:
        block_beta, context_beta, threshold = fit(pages)
        print("all-data model threshold %.3f" % threshold)
        print("  shingle F1:", evaluate(pages, block_beta, context_beta, threshold))
    model = {
        "about": "webclean extractor weights; generated by benchmarks/train_webclean.py, do not edit",
        "trained_on": list(TRAIN) if args.split_only else list(DATASETS),
        "block_features": list(webclean.BLOCK_FEATURES),
        "context_features": list(webclean.CONTEXT_FEATURES),
        "block_weights": [round(float(v), 5) for v in block_beta],
        "context_weights": [[round(float(v), 5) for v in beta] for beta in context_beta],
        "threshold": threshold,
    }
    if not args.dry_run:
        args.output.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
