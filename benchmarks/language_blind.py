"""Does the default extractor lean on English words, or on class names? Annotated pages without them.

Usage::

    python benchmarks/language_blind.py [--data ../shared/data] [--dataset NAME ...]
        [--every N] [--script latin|cjk] [--scramble words|names|both]
        [--compare trafilatura] [-j 2] [--json FILE]

The shared annotated sets are 98% English, so a figure measured on them
cannot say how an extractor does on a page in German, Indonesian or Chinese,
and the shipped models were fitted on English pages only. This probe makes
such pages out of the ones we have: every run of letters in a page's visible
text (and in its ``alt``, ``title``, ``aria-label`` and ``placeholder``
attributes and its ``<meta>`` description and titles) is replaced by a
pseudo-word, the same word always by the same pseudo-word, and the gold text
likewise. Markup, class and id names, URLs, digits, punctuation and
whitespace stay as they were, as on a site of another language built with
the same tools. Script and style contents stay too (JSON-LD included).

* ``--script latin`` (default): pseudo-words of Latin letters of the same
  length, capitals kept (``The Quick`` -> ``Bel Mozuh``): a language in the
  Latin script none of the vocabularies holds. (A page's CJK characters
  become other ideographs, one for one, in both scripts.)
* ``--script cjk``: each word becomes CJK ideographs (one for two letters),
  the spaces between them are removed and ``. , ? ! : ;`` before a space
  become the full-width marks, as Chinese or Japanese is written.

``--scramble names`` leaves the words and replaces every ``class`` and
``id`` name instead, each by a hashed one (``css-`` and seven base-36
characters), as CSS modules and CSS-in-JS libraries write them (emotion's
``css-1q2w3e4``): a page whose markup names nothing, the worst case of a
site built that way. The hash is salted with the page's host (its dataset
and id without a URL): the same name is the same hashed one on every page
of a site, as a site's own build writes it, and another on another site,
so no vocabulary learnt from other sites can read it. Roles,
``itemprop``, ARIA attributes, tags and URLs stay. The gold is unchanged.
``--scramble both`` does both.

Each page is scored twice, *plain* (parsed and serialised again, unchanged)
and *scrambled* (the same serialisation): the difference between the two is
the extractor's reliance on the words themselves. The shipped models were
fitted on these pages, so the plain figures are in-sample (above the
cross-validated ones of docs/WEBCLEAN.md); the scrambled pages' words were
never seen, which makes the difference a strict test: a model that had
learnt the pages' English words would lose them all. Reported per dataset
(and per page type on ``wcxb-dev``): WCXB's word F1 (mean over pages; a run
of CJK characters is one word, as in WCXB's ``evaluate.py``) and the 4-gram
shingle F1 pooled over the dataset (CJK scored by characters), of the
default extractor and of each ``--compare`` peer; each method's agreement
with itself, the token F1 (``occ_eval``: CJK by characters) of the text it
extracts from the scrambled page against the text it extracts from the plain
one, scrambled (1.0: the same text kept in both readings; unlike the F1s
against the gold, it does not move with how a script is cut into tokens);
and the share of pages whose predicted page type changes (and, where the gold names it, the share
typed right in each reading). Exits 0 with a message when the data is
absent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from multiprocessing import Pool
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webclean_scrapy import extract  # noqa: E402
from webclean_scrapy.engine.text.encoding import decode_html  # noqa: E402
from webclean_scrapy.engine.text.scripts import CJK_CHARS  # noqa: E402
from webclean_scrapy.errors import ExtractionError  # noqa: E402
from webclean_scrapy.evaluation.dataset import Page, load_dataset  # noqa: E402
from webclean_scrapy.evaluation.metrics import occ_prf, shingle_counts, shingle_dataset_prf, word_prf  # noqa: E402
from webclean_scrapy.evaluation.peers import load_peer  # noqa: E402

DATASETS = ("wcxb-dev", "cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability")
SCRIPTS = ("latin", "cjk")
SCRAMBLES = ("words", "names", "both")

#: What is replaced: one CJK character (the metrics score them one by one,
#: :mod:`webclean_scrapy.evaluation.tokenize`), or a run of other letters
#: (digits and ``_`` excluded).
_LETTERS = re.compile(rf"[{CJK_CHARS}]|[^\W\d_{CJK_CHARS}]+")
_CJK = re.compile(rf"[{CJK_CHARS}]")
_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"
#: Ideographs the CJK pseudo-words are drawn from (U+4E00 onwards).
_IDEOGRAPHS = 20_000
_FULL_WIDTH = ((". ", "。"), (", ", "，"), ("? ", "？"), ("! ", "！"), (": ", "："), ("; ", "；"))
_SPACE_BETWEEN_IDEOGRAPHS = re.compile(r"(?<=[\u4e00-\u9fff]) +(?=[\u4e00-\u9fff])")
#: Characters lxml refuses in a text it is given (it parses them): removed
#: from every page before it is parsed, in both readings alike.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
#: Elements whose text is not the page's prose, left as they are.
_UNTOUCHED = frozenset({"script", "style"})
_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder")
_META_NAMES = frozenset({"description", "og:title", "og:description", "twitter:title", "twitter:description"})
#: The attributes ``--scramble names`` hashes, and the digits of its names.
_NAME_ATTRIBUTES = ("class", "id")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def pseudo_word(word: str, script: str = "latin") -> str:
    """The pseudo-word standing for *word*: the same for every case of it,
    drawn from a hash of its lower case (so the same in every process). A CJK
    character becomes one ideograph whatever the *script*, so that the
    metrics count the same tokens on both readings of a page."""
    lower = word.lower()
    digest = hashlib.blake2b(lower.encode("utf-8", "surrogatepass"), digest_size=32).digest()
    if script == "cjk" or _CJK.match(word):
        return "".join(
            chr(0x4E00 + (digest[2 * i % 32] << 8 | digest[(2 * i + 1) % 32]) % _IDEOGRAPHS)
            for i in range(max(1, (len(lower) + 1) // 2))
        )
    letters = "".join(
        _CONSONANTS[digest[i % 32] % len(_CONSONANTS)] if i % 2 == 0 else _VOWELS[digest[i % 32] % len(_VOWELS)]
        for i in range(len(lower))
    )
    if len(word) > 1 and word.isupper():
        return letters.upper()
    return letters[:1].upper() + letters[1:] if word[:1].isupper() else letters


def scramble_text(text: str | None, script: str = "latin") -> str | None:
    """*text* with every run of letters replaced by its :func:`pseudo_word`
    (for ``cjk``, the spaces between them removed and the marks full-width)."""
    if not text:
        return text
    scrambled = _LETTERS.sub(lambda match: pseudo_word(match.group(), script), text)
    if script == "cjk":
        for mark, full_width in _FULL_WIDTH:
            scrambled = scrambled.replace(mark, full_width)
        scrambled = _SPACE_BETWEEN_IDEOGRAPHS.sub("", scrambled)
    return scrambled


def pseudo_name(name: str, salt: str = "") -> str:
    """The hashed name standing for a class or id *name* on the site *salt*
    names: ``css-`` and seven base-36 characters drawn from a hash of both
    (the same in every process)."""
    key = f"{salt}\n{name}".encode("utf-8", "surrogatepass")
    number = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")
    characters = []
    for _ in range(7):
        number, digit = divmod(number, 36)
        characters.append(_BASE36[digit])
    return "css-" + "".join(characters)


def rewrite_page(raw: bytes, script: str | None, names_salt: str | None = None) -> bytes:
    """*raw* parsed and serialised again as UTF-8, its words scrambled in
    *script* (``None``: left as they are) and, given a *names_salt*, its
    class and id names hashed (:func:`pseudo_name`); neither: the plain
    run's page.
    Control characters, which lxml parses (also from character references)
    but will not be given, are removed from the source and from what is set."""
    _, text = decode_html(raw)
    parser = lxml.html.HTMLParser(encoding="utf-8")
    root = lxml.html.document_fromstring(_NOT_XML.sub("", text).encode("utf-8"), parser=parser)
    if script is not None:
        _scramble_tree(root, script)
    if names_salt is not None:
        _hash_names(root, names_salt)
    return b"<!DOCTYPE html>\n" + lxml.html.tostring(root, encoding="utf-8")


def _hash_names(root: lxml.html.HtmlElement, salt: str) -> None:
    """Replace, in place, every name of every ``class`` and ``id`` under
    *root* by its :func:`pseudo_name` on the site *salt* names (the
    whitespace between names becomes one space)."""
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for attribute in _NAME_ATTRIBUTES:
            value = element.get(attribute)
            if value and value.strip():
                element.set(attribute, " ".join(pseudo_name(name, salt) for name in value.split()))


def _scramble_tree(root: lxml.html.HtmlElement, script: str) -> None:
    """Scramble, in place, every text and tail under *root* but scripts' and
    styles', and the attributes a reader sees or hears."""

    def scrambled(value: str | None) -> str | None:
        return _NOT_XML.sub("", scramble_text(value, script) or "") if value else value

    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else None
        if tag is not None and tag not in _UNTOUCHED:
            element.text = scrambled(element.text)
        element.tail = scrambled(element.tail)
        if tag is None:
            continue
        for name in _ATTRIBUTES:
            if element.get(name):
                element.set(name, scrambled(element.get(name)))
        meta = (element.get("name") or element.get("property") or "").lower()
        if tag == "meta" and meta in _META_NAMES and element.get("content"):
            element.set("content", scrambled(element.get("content")))


#: Each peer's adapter, made once a process.
_peer = cache(load_peer)


def score_page(job: tuple[str, Page, str | None, bool, tuple[str, ...]]) -> dict[str, Any]:
    """Both readings of one page (the scrambled one with its words in
    *script*, ``None`` to keep them, and its names hashed if asked): per
    condition and method, word F1 and shingle counts, and for the scrambled
    reading the method's ``agreement`` with itself (``error`` instead when
    the page cannot be rewritten: binary, or markup lxml will not serialise)."""
    dataset, page, script, names, peers = job
    raw = page.read()
    record: dict[str, Any] = {"dataset": dataset, "id": page.id, "page_type": page.page_type}
    plain_texts: dict[str, str] = {}
    site = urlsplit(page.url).hostname if page.url else None
    salt = site or f"{dataset}/{page.id}"
    for condition, chosen, hashed in (("plain", None, False), ("scrambled", script, names)):
        try:
            html = rewrite_page(raw, chosen, salt if hashed else None)
        except (ExtractionError, ValueError, etree.LxmlError) as exc:  # binary or unparsable: left out, counted
            return {**record, "error": f"{type(exc).__name__}: {exc}"}
        gold = page.gold if chosen is None else scramble_text(page.gold, chosen) or ""
        extraction = extract(html, url=page.url)
        texts = {"webclean": extraction.text}
        for name in peers:
            texts[name] = _peer(name)(html.decode("utf-8"), None)
        scores: dict[str, Any] = {"page_type": extraction.page_type}
        for name, text in texts.items():
            scores[name] = {"word_f1": word_prf(text, gold).f1, "shingles": shingle_counts(text, gold)}
            if condition == "plain":
                plain_texts[name] = text
            else:
                # The same blocks kept in both readings give 1.0.
                plain = plain_texts[name] if chosen is None else scramble_text(plain_texts[name], chosen) or ""
                scores[name]["agreement"] = occ_prf(text, plain).f1
        record[condition] = scores
    return record


def summarise(records: Iterable[dict[str, Any]], methods: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Per dataset (and ``wcxb-dev:<type>``): pages, the share whose page type
    changed and (where the gold names it) the share typed right in each
    reading, each method's word and shingle F1, plain and scrambled, and its
    mean agreement with itself. Pages left out (``error``) are not counted."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if "error" in record:
            continue
        groups[record["dataset"]].append(record)
        if record["page_type"]:
            groups[f"{record['dataset']}:{record['page_type']}"].append(record)
    summary: dict[str, dict[str, Any]] = {}
    for group, members in groups.items():
        row: dict[str, Any] = {
            "pages": len(members),
            "page_type_changed": sum(r["plain"]["page_type"] != r["scrambled"]["page_type"] for r in members)
            / len(members),
        }
        typed = [r for r in members if r["page_type"]]
        for condition in ("plain", "scrambled"):
            row[f"page_type_accuracy_{condition}"] = (
                sum(r[condition]["page_type"] == r["page_type"] for r in typed) / len(typed) if typed else None
            )
        for method in methods:
            for condition in ("plain", "scrambled"):
                row[f"{method}_{condition}_word_f1"] = sum(r[condition][method]["word_f1"] for r in members) / len(
                    members
                )
                row[f"{method}_{condition}_shingle_f1"] = shingle_dataset_prf(
                    r[condition][method]["shingles"] for r in members
                ).f1
            row[f"{method}_agreement"] = sum(r["scrambled"][method]["agreement"] for r in members) / len(members)
        summary[group] = row
    return summary


def print_summary(summary: dict[str, dict[str, Any]], methods: tuple[str, ...], scrambled: str) -> None:
    print(
        f"scrambled: {scrambled}; F1 plain -> scrambled (difference): word F1 per page, 4-gram shingle F1 pooled; "
        "agrees: the scrambled reading's text against the plain reading's, scrambled (token F1, 1 = the same)"
    )
    header = f"{'dataset':26s} {'pages':>5s} {'type moved':>10s} {'type right':>16s}"
    for method in methods:
        header += f"  {method + ' word':>27s}  {method + ' shingle':>27s}  {'agrees':>6s}"
    print(header)
    for group, row in summary.items():
        line = f"{group:26s} {row['pages']:5d} {row['page_type_changed']:10.3f}"
        right = row["page_type_accuracy_plain"], row["page_type_accuracy_scrambled"]
        line += f" {right[0]:.3f} -> {right[1]:.3f}" if right[0] is not None else f" {'':16s}"
        for method in methods:
            for metric in ("word_f1", "shingle_f1"):
                plain, scrambled = row[f"{method}_plain_{metric}"], row[f"{method}_scrambled_{metric}"]
                line += f"  {plain:.4f} -> {scrambled:.4f} ({scrambled - plain:+.4f})"
            line += f"  {row[f'{method}_agreement']:6.4f}"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--dataset", action="append", help="repeatable; default: every annotated set")
    parser.add_argument("--every", type=int, default=1, help="score every Nth page of each set")
    parser.add_argument("--script", choices=SCRIPTS, default="latin", help="the script of the replaced words")
    parser.add_argument(
        "--scramble", choices=SCRAMBLES, default="words", help="replace the words, the class/id names, or both"
    )
    parser.add_argument("--compare", action="append", default=[], help="a peer of `webclean eval` (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the summary and every page's scores here")
    args = parser.parse_args(argv)
    names = args.dataset or [name for name in DATASETS if (args.data / name).is_dir()]
    if not names or not all((args.data / name / "truth.jsonl").is_file() for name in names):
        print(f"no annotated data under {args.data}; nothing to measure")
        return 0
    peers = tuple(args.compare)
    for name in peers:
        load_peer(name)  # fail now on an unknown or missing peer
    script = args.script if args.scramble in ("words", "both") else None
    names_hashed = args.scramble in ("names", "both")
    jobs = [
        (name, page, script, names_hashed, peers)
        for name in names
        for page in load_dataset(args.data / name)[:: max(1, args.every)]
    ]
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            records = pool.map(score_page, jobs, chunksize=4)
    else:
        records = [score_page(job) for job in jobs]
    methods = ("webclean", *peers)
    summary = summarise(records, methods)
    described = {"words": f"words ({args.script})", "names": "class/id names", "both": f"words ({args.script}), names"}
    print_summary(summary, methods, described[args.scramble])
    failed = [record for record in records if "error" in record]
    if failed:
        print(f"{len(failed)} page(s) left out, not rewritable: " + ", ".join(r["id"] for r in failed[:10]))
    if args.json:
        report = {"script": script, "names": names_hashed, "summary": summary, "pages": records}
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
