"""How well the ``news`` spider's article/hub rules separate stories from listings on ``wcxb-dev``.

Usage::

    python benchmarks/news_rules.py [--data ../shared/data] [--oof] [--page-types FILE]
    python benchmarks/news_rules.py --dataset l3s-gn1 --dataset readability

Every ``wcxb-dev`` page is extracted with the default extractor and scored
by :func:`webclean_scrapy.engine.page_type.articles.classify` exactly as the spider scores a
page (:meth:`~webclean_scrapy.engine.page_type.articles.PageSignals.from_selector` on the
page's Scrapy selector; the crawl-only signal ``listed_as_story`` is off).
Reported: the share of ``article`` pages judged articles, of ``listing`` and
``collection`` pages judged hubs, and of the other types judged articles,
three times, with the predicted page type taken from

* ``shipped``: the shipped page-type model (trained on these very pages:
  optimistic);
* ``none``: no page type (the rules alone);
* ``oof`` (with ``--oof``, needs the ``[train]`` extra, ~20 minutes): out-of-fold
  predictions of ``benchmarks/train_page_type.py --quick`` (grouped 5-fold
  cross-validation by domain: no page is typed by a model that saw its
  domain), or read from ``--page-types FILE`` (``{"id": "type"}`` JSON).

With ``--dataset`` (repeatable) other annotated sets are read instead;
a page without a gold ``page_type`` counts as an ``article``: L3S-GN1,
Readability and CleanPortalEval are one news or blog story a page, in the
layouts of 2007-2013 (headline sidebars around the story), which the
spider must still take for stories.

``wcxb-dev`` is not a news crawl -- its ``article`` pages include service
and reference pages -- so the figures compare rule sets; they are not the
spider's coverage of a news site (``tests/test_spiders_news.py`` is).
Exits 0 with a message when the data is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scrapy.http import HtmlResponse  # noqa: E402

from webclean_scrapy import extract  # noqa: E402
from webclean_scrapy.engine.page_type.articles import HUB_PAGE_TYPES, PageSignals, classify  # noqa: E402

DATASET = "wcxb-dev"


def out_of_fold_types(data: Path) -> dict[str, str]:
    """Out-of-fold page types from ``train_page_type.py --quick --dry-run`` (its GBDT's CV predictions)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import train_page_type as trainer

    captured: dict[str, object] = {}
    report = trainer.report

    def keep(name, y, predicted):  # noqa: ANN001, ANN202 - wraps the trainer's report()
        captured.setdefault(name, predicted.copy())
        return report(name, y, predicted)

    trainer.report = keep
    trainer.main(["--data", str(data), "--quick", "--dry-run"])
    rows = trainer.load_rows(data / DATASET)
    predicted = next(v for k, v in captured.items() if k.startswith("GBDT (structure"))
    return {row["id"]: trainer.PAGE_TYPES[int(p)] for row, p in zip(rows, predicted)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--oof", action="store_true", help="also score with out-of-fold page types")
    parser.add_argument("--page-types", type=Path, help="out-of-fold page types as {id: type} JSON")
    parser.add_argument(
        "--dataset",
        action="append",
        help=f"read this dataset instead of {DATASET} (repeatable; pages without a page_type count as articles)",
    )
    args = parser.parse_args(argv)
    status = 0
    for name in args.dataset or [DATASET]:
        status = status or score_dataset(args, name)
    return status


def score_dataset(args: argparse.Namespace, name: str) -> int:
    """Print the rules' figures on one dataset (see the module docstring)."""
    root = args.data / name
    if not (root / "truth.jsonl").is_file():
        print(f"no {name} data at {root}: nothing to do")
        return 0
    oof = None
    if name == DATASET:  # the out-of-fold types are wcxb-dev's (the classifier's training set)
        oof = (
            json.loads(args.page_types.read_text())
            if args.page_types
            else out_of_fold_types(args.data)
            if args.oof
            else None
        )

    pages: list[tuple[str, str, PageSignals]] = []
    for line in (root / "truth.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        truth = json.loads(line)
        body = gzip.decompress((root / "html" / f"{truth['id']}.html.gz").read_bytes())
        url = truth.get("url") or f"https://unknown.example/{truth['id']}"
        extraction = extract(body, url)
        response = HtmlResponse(url=url, body=body)
        signals = PageSignals.from_selector(response.selector, url, extraction.text, extraction.page_type)
        pages.append((truth["id"], truth.get("page_type") or "article", signals))

    sources = {"shipped": lambda i, s: s, "none": lambda i, s: replace(s, page_type=None)}
    if oof is not None:
        sources["oof"] = lambda i, s: replace(s, page_type=oof.get(i))
    totals = Counter(kind for _, kind, _ in pages)
    hubs = sum(totals[t] for t in HUB_PAGE_TYPES)
    others = sorted(set(totals) - HUB_PAGE_TYPES - {"article"})
    print(f"{name}: {len(pages)} pages: {dict(totals)}")
    print(f"{'page type':10s} {'articles kept':>14s} {'hubs rejected':>14s}  other types judged articles")
    for source_name, source in sources.items():
        kept = Counter()
        for page_id, kind, signals in pages:
            kept[kind] += classify(source(page_id, signals)).is_article
        other = ", ".join(f"{t} {kept[t] / totals[t]:.2f}" for t in others)
        rejected = f"{1 - sum(kept[t] for t in HUB_PAGE_TYPES) / hubs:14.3f}" if hubs else f"{'-':>14s}"
        print(f"{source_name:10s} {kept['article'] / totals['article']:14.3f} {rejected}  {other}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
