"""Precision and recall of near-duplicate detection on pairs built from the shared pages.

Pages of ``wcxb-dev`` (by default) whose gold text has at least 100 words are
split in two halves by id. Pages of the first half are the *kept* corpus: their
extracted text (default extractor) goes into a :class:`NearDuplicateIndex`.
Each kept page gets three near-copies, each a query:

``rewrapped``   its gold paragraphs in another site's template (navigation,
                related links, footer, cookie notice, other titles), extracted
                again with the default extractor: a syndicated copy;
``edited``      its extracted text with ``--edit-rate`` of the words (2%) dropped
                or replaced (half each) and a sentence added;
``truncated``   the first 80% of its extracted text.

The pages of the second half (never indexed) are the unrelated queries; so are
their texts wrapped in the template of a kept page's copy (the same boilerplate,
another story): ``same-template`` negatives.

A positive query is right when the index returns its original; a negative query
is wrong when it returns anything. Precision = right positives / (right
positives + negatives matched + positives matched to another page only);
recall = right positives / positives.

    python benchmarks/near_duplicates.py ../shared/data/wcxb-dev --thresholds 0.5 0.6 0.7 0.8 0.9

Results: docs/BENCHMARKS.md#near-duplicates.
"""

from __future__ import annotations

import argparse
import html
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webclean_scrapy import extract  # noqa: E402
from webclean_scrapy.dedup import NearDuplicateIndex  # noqa: E402
from webclean_scrapy.evaluation.dataset import load_dataset  # noqa: E402

WORDS = (
    "market",
    "weather",
    "council",
    "season",
    "report",
    "update",
    "review",
    "guide",
    "travel",
    "health",
    "science",
    "music",
    "family",
    "money",
    "garden",
    "energy",
    "school",
    "football",
    "election",
    "recipe",
)


def template(seed: int, title: str, paragraphs: list[str]) -> str:
    """A page of a made-up site (chosen by *seed*) carrying *paragraphs*."""
    rng = random.Random(seed)
    site = f"The {rng.choice(WORDS).title()} {rng.choice(['Courier', 'Post', 'Herald', 'Daily', 'Review'])}"
    nav = "".join(f'<li><a href="/{w}">{w.title()}</a></li>' for w in rng.sample(WORDS, 12))
    related = "".join(
        f'<li><a href="/story/{i}">{" ".join(rng.sample(WORDS, 6)).capitalize()}</a></li>' for i in range(8)
    )
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} | {site}</title>'
        f"</head><body><div class='cookie'>We use cookies to improve your experience on {site}. "
        f"<button>Accept</button></div><header><a href='/'>{site}</a><nav><ul>{nav}</ul></nav></header>"
        f"<main><article><h1>{html.escape(title)}</h1><p class='byline'>By staff of {site}</p>{body}"
        f"<p>Share this story with your friends.</p></article>"
        f"<aside><h3>More from {site}</h3><ul>{related}</ul></aside></main>"
        f"<footer><p>Copyright 2025 {site}. All rights reserved.</p><a href='/privacy'>Privacy</a> "
        f"<a href='/terms'>Terms</a></footer></body></html>"
    )


def edited(text: str, rng: random.Random, rate: float) -> str:
    words = text.split(" ")
    out = []
    for word in words:
        roll = rng.random()
        if roll < rate / 2:
            continue  # dropped
        out.append(rng.choice(WORDS) if roll < rate else word)
    return " ".join(out) + "\nThis article was updated with additional reporting."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", default="../shared/data/wcxb-dev")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.5, 0.6, 0.7, 0.8, 0.9])
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--shingle", type=int, default=5)
    parser.add_argument("--limit", type=int, help="only the first N usable pages")
    parser.add_argument("--edit-rate", type=float, default=0.02, help="share of words edited (%(default)s)")
    args = parser.parse_args()

    pages = [p for p in load_dataset(args.dataset) if len(p.gold.split()) >= 100]
    if args.limit:
        pages = pages[: args.limit]
    kept_pages, unrelated_pages = pages[0::2], pages[1::2]
    rng = random.Random(7)
    start = time.perf_counter()
    originals: dict[str, str] = {}
    positives: list[tuple[str, str, str]] = []  # (kind, original id, text)
    for number, page in enumerate(kept_pages):
        text = extract(page.read(), url=page.url).text
        if len(text.split()) < 50:
            continue  # the extractor found little: nothing to compare
        originals[page.id] = text
        paragraphs = [p for p in re.split(r"\n+", page.gold) if p.strip()]
        positives.append(("rewrapped", page.id, extract(template(number, page.title or "Story", paragraphs)).text))
        positives.append(("edited", page.id, edited(text, rng, args.edit_rate)))
        positives.append(("truncated", page.id, text[: int(len(text) * 0.8)]))
    negatives: list[tuple[str, str]] = []
    for number, page in enumerate(unrelated_pages):
        text = extract(page.read(), url=page.url).text
        if len(text.split()) >= 50:
            negatives.append(("unrelated", text))
        paragraphs = [p for p in re.split(r"\n+", page.gold) if p.strip()]
        # The template of kept page `number`'s copy: same boilerplate, another story.
        negatives.append(("same-template", extract(template(number, page.title or "Story", paragraphs)).text))
    built = time.perf_counter() - start
    kinds = sorted({kind for kind, _, _ in positives})
    print(
        f"{len(originals)} kept pages, {len(positives)} near-copies, {len(negatives)} unrelated texts "
        f"({sum(k == 'same-template' for k, _ in negatives)} in a kept copy's template); built in {built:.0f} s\n"
    )
    print(
        "| threshold | precision | recall | "
        + " | ".join(f"recall {k}" for k in kinds)
        + " | false matches of unrelated texts | ms per check |"
    )
    print("|---|---|---|" + "---|" * len(kinds) + "---|---|")
    for threshold in args.thresholds:
        index = NearDuplicateIndex(threshold=threshold, num_perm=args.num_perm, shingle=args.shingle)
        for page_id, text in originals.items():
            index.add(page_id, index.signature(text))
        right = wrong = 0
        by_kind = dict.fromkeys(kinds, 0)
        start = time.perf_counter()
        for kind, page_id, text in positives:
            signature = index.signature(text)
            found = index._lsh.query(signature) if signature is not None else []
            if page_id in found:
                right += 1
                by_kind[kind] += 1
            elif found:
                wrong += 1
        false_matches = 0
        for _, text in negatives:
            signature = index.signature(text)
            if signature is not None and index.find(signature) is not None:
                false_matches += 1
        ms = 1000 * (time.perf_counter() - start) / (len(positives) + len(negatives))
        precision = right / max(1, right + wrong + false_matches)
        per_kind = " | ".join(f"{by_kind[k] / max(1, sum(x == k for x, _, _ in positives)):.3f}" for k in kinds)
        print(
            f"| {threshold} | {precision:.3f} | {right / len(positives):.3f} | {per_kind} "
            f"| {false_matches}/{len(negatives)} | {ms:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
