"""webclean_scrapy.contrib.datatrove: our extraction as a datatrove step, on datatrove's
own WARC reader, executor and JSONL writer (the [datatrove] extra, in the test extra too)."""

from __future__ import annotations

import dataclasses
import gzip
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pages import sample_page

pytest.importorskip("datatrove", reason="the [datatrove] extra is not installed")

from scrapy import Request  # noqa: E402
from scrapy.http import HtmlResponse, Response  # noqa: E402

from webclean_scrapy.cli import main  # noqa: E402
from webclean_scrapy.downloadermiddlewares.warc import WarcFile, _Exchange  # noqa: E402
from webclean_scrapy.engine.extraction import Extraction  # noqa: E402
from webclean_scrapy.engine.extractors.baseline import BaselineExtractor  # noqa: E402
from webclean_scrapy.errors import ExtractionError  # noqa: E402

SITE = "http://news.example.test"

ARTICLE = sample_page("datatrove-article.html")

SECOND = sample_page("datatrove-second.html")

LISTING = """<!doctype html><html><head><meta charset="utf-8"><title>World news</title></head><body>
<ul><li><a href="/a1">Rain in Zürich</a></li><li><a href="/a2">Council votes on the new bridge</a></li>
<li><a href="/a3">Markets close higher after a quiet week</a></li></ul></body></html>"""

CP1252 = (
    "<html><head><title>Caf\u00e9 prices</title></head><body><p>\u201cCaf\u00e9\u201d \u2014 the price of a "
    "coffee went up to \u20ac5 this year, and the regulars are not amused at all.</p></body></html>"
)

EMPTY = "<!doctype html><html><head><title>Nothing here</title></head><body></body></html>"


def exchange(path: str, body: bytes, content_type: str, **headers: str) -> _Exchange:
    """A request/response pair as the crawl's WARC recorder captures it."""
    url = SITE + path
    cls = HtmlResponse if "html" in content_type else Response
    response = cls(
        url,
        status=200,
        body=body,
        protocol="HTTP/1.1",
        headers={"Content-Type": content_type, **headers},
        request=Request(url),
    )
    return _Exchange.capture(Request(url), response, datetime(2026, 11, 23, 4, 0, tzinfo=timezone.utc))


@pytest.fixture
def warcs(tmp_path) -> Path:
    """Three WARC files written by the crawl's writer (so two tasks both get work)."""
    folder = tmp_path / "warc"
    files = {
        "crawl-0.warc.gz": [
            exchange("/a1", ARTICLE.encode(), "text/html; charset=utf-8"),
            exchange("/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(64), "image/png"),
        ],
        "crawl-1.warc.gz": [
            exchange("/a2", gzip.compress(SECOND.encode()), "text/html; charset=utf-8", **{"Content-Encoding": "gzip"}),
            exchange("/world", LISTING.encode(), "text/html; charset=utf-8"),
        ],
        "crawl-2.warc.gz": [
            exchange("/cafe", CP1252.encode("cp1252"), "text/html; charset=windows-1252"),
            exchange("/empty", EMPTY.encode(), "text/html; charset=utf-8"),
        ],
    }
    for name, exchanges in files.items():
        warc = WarcFile(folder / name)
        warc.write_warcinfo({"software": "webclean-scrapy tests"})
        for item in exchanges:
            warc.write_exchange(item)
        warc.close()
    return folder


def cli_records(folder: Path, tmp_path: Path, *extra: str) -> dict[str, dict]:
    out = tmp_path / "cli.jsonl"
    assert main(["extract", *sorted(map(str, folder.glob("*.warc.gz"))), "-o", str(out), *extra]) == 0
    return {r["url"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def run_pipeline(folder: Path, tmp_path: Path, step, reader: str = "datatrove") -> tuple[list[dict], Path]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    from webclean_scrapy.contrib.datatrove import WebcleanWarcReader

    output, logs = tmp_path / "out", tmp_path / "logs"
    read = (WebcleanWarcReader if reader == "webclean" else WarcReader)(str(folder), glob_pattern="*.warc.gz")
    executor = LocalPipelineExecutor(
        pipeline=[read, step, JsonlWriter(str(output))], tasks=2, workers=2, logging_dir=str(logs)
    )
    executor.run()
    documents: list[dict] = []
    for part in sorted(output.glob("*.jsonl.gz")):
        with gzip.open(part, "rt", encoding="utf-8") as lines:
            documents.extend(json.loads(line) for line in lines)
    return documents, logs


@pytest.mark.parametrize("reader", ["datatrove", "webclean"])
def test_local_executor_with_two_tasks(warcs, tmp_path, reader):
    """datatrove's WarcReader and ours give the same documents on these pages
    (UTF-8 or decodable by cchardet; benchmarks/datatrove_step.py measures where they part)."""
    from webclean_scrapy.contrib.datatrove import WebcleanExtractor

    # A generous per-page timeout: the machine may be loaded, and a page past it is skipped.
    documents, logs = run_pipeline(warcs, tmp_path, WebcleanExtractor(timeout=120), reader)
    expected = cli_records(warcs, tmp_path)
    by_url = {doc["metadata"]["url"]: doc for doc in documents}
    assert len(by_url) == len(documents)  # one document per page

    # Every page with text, and only those: the PNG is not HTML, the empty page is dropped.
    assert set(by_url) == {url for url, record in expected.items() if record["text"]}
    assert set(by_url) == {SITE + path for path in ("/a1", "/a2", "/world", "/cafe")}
    for url, doc in by_url.items():
        record = expected[url]
        assert doc["text"] == record["text"], url  # as `webclean extract` of the same page
        metadata = doc["metadata"]
        for name in (f.name for f in dataclasses.fields(Extraction) if f.name != "text"):
            assert name in metadata, (url, name)  # every field, whatever the class has after a merge
        for name in ("title", "page_type", "extractor", "truncated"):
            assert metadata[name] == record[name], (url, name)
        assert metadata["date"] == "2026-11-23T04:00:00.000000Z"  # the reader's WARC-Date is kept
        if reader == "webclean":
            assert metadata["content_type"].startswith("text/html")
        assert doc["id"].startswith("<urn:uuid:")
    assert "Heavy rain fell over Zürich on Thursday" in by_url[SITE + "/a1"]["text"]
    assert "Home" not in by_url[SITE + "/a1"]["text"] and "Privacy" not in by_url[SITE + "/a1"]["text"]
    assert by_url[SITE + "/a1"]["metadata"]["language"] == "en"
    assert "twenty-one to nine" in by_url[SITE + "/a2"]["text"]  # Content-Encoding: gzip, undone by warcio
    assert "\u201cCaf\u00e9\u201d \u2014" in by_url[SITE + "/cafe"]["text"]  # decoded by the reader (cchardet)

    # Both tasks ran and datatrove counted our step's work.
    stats = json.loads((logs / "stats.json").read_text())
    ours = next(step for step in stats if step["name"].endswith("🧹 webclean"))["stats"]
    assert ours["total"] == 5 and ours["extracted"] == 5 and ours["forwarded"] == 4 and ours["dropped"] == 1
    assert sorted(p.name for p in (logs / "completions").iterdir()) == ["00000", "00001"]


def test_options_and_bad_configuration(warcs, tmp_path):
    from webclean_scrapy.contrib.datatrove import WebcleanExtractor

    with pytest.raises(ExtractionError, match="unknown extractor"):
        WebcleanExtractor("no-such-method")
    with pytest.raises(ExtractionError, match="unknown option"):
        WebcleanExtractor("density", {"nope": 1})
    documents, _ = run_pipeline(warcs, tmp_path, WebcleanExtractor("baseline", max_html_chars=len(ARTICLE) - 1))
    expected = cli_records(warcs, tmp_path, "-e", "baseline")
    by_url = {doc["metadata"]["url"]: doc for doc in documents}
    assert SITE + "/a1" not in by_url  # past max_html_chars: skipped before parsing
    assert by_url and all(doc["text"] == expected[url]["text"] for url, doc in by_url.items())
    assert {doc["metadata"]["extractor"] for doc in documents} == {"baseline"}


class Exploding(BaselineExtractor):
    """All visible text, but an unexpected exception on pages that say boom."""

    def extract_text(self, doc, trace=None):
        text = super().extract_text(doc)
        if "boom" in text:
            raise RuntimeError("boom")
        return text


def test_step_on_its_own():
    """Outside an executor: a bad page is counted, not raised; fields never overwrite the reader's."""
    from datatrove.data import Document as DatatroveDocument

    from webclean_scrapy.contrib.datatrove import WebcleanExtractor, merge_metadata

    step = WebcleanExtractor(Exploding)
    assert step.extract(SECOND).startswith("Home | Local\nCouncil votes on the new bridge")
    docs = [
        DatatroveDocument(text=SECOND.replace("</body>", "<p>boom</p></body>"), id="0", metadata={}),
        DatatroveDocument(text=SECOND, id="1", metadata={"url": SITE + "/a2", "title": "From the reader"}),
        DatatroveDocument(text=None, id="2", metadata={}),
    ]  # a reader's bug: counted, not raised
    out = list(step.run(iter(docs)))
    assert [doc.id for doc in out] == ["1"]  # the child that raised lived on for the next page
    assert out[0].metadata["title"] == "From the reader"
    assert out[0].metadata["webclean_title"] == "Council votes on the new bridge"
    assert out[0].metadata["url"] == SITE + "/a2" and "webclean_url" not in out[0].metadata
    assert step.stats["clean_error"].total == 2 and step.stats["broken_process"].total == 0

    metadata = {"language": "de", "date": "x"}
    merge_metadata(metadata, {"language": None, "date": "x", "page_type": None})
    assert metadata == {"language": "de", "date": "x", "page_type": None}


def test_step_computes_only_the_fields_named():
    from datatrove.data import Document as DatatroveDocument

    from webclean_scrapy.contrib.datatrove import WebcleanExtractor

    with pytest.raises(ExtractionError, match="unknown field"):
        WebcleanExtractor(fields=["title", "colour"])
    with pytest.raises(ExtractionError, match="markdown"):
        WebcleanExtractor(fields=["markdown"])
    every = WebcleanExtractor()
    only_title = WebcleanExtractor(fields="title")
    (whole,) = every.run(iter([DatatroveDocument(text=SECOND, id="0", metadata={"url": SITE + "/a2"})]))
    (titled,) = only_title.run(iter([DatatroveDocument(text=SECOND, id="0", metadata={"url": SITE + "/a2"})]))
    assert titled.text == whole.text and titled.metadata["title"] == whole.metadata["title"] != ""
    assert titled.metadata["page_type"] == whole.metadata["page_type"]
    assert {"author", "date", "detected_language"} <= whole.metadata.keys()
    assert not {"author", "date", "sitename", "detected_language", "language_confidence"} & titled.metadata.keys()


def test_webclean_reader_chooses_as_the_cli(tmp_path):
    """Only 2xx HTML responses, the HTTP charset obeyed, binary and oversized bodies counted."""
    from webclean_scrapy.contrib.datatrove import WebcleanWarcReader

    latin = "<html><body><p>Gr\u00fc\u00dfe aus K\u00f6ln, sch\u00f6ne Stra\u00dfe.</p></body></html>"
    warc = WarcFile(tmp_path / "w" / "mixed.warc.gz")
    for item in (
        exchange("/ok", latin.encode("latin-1"), "text/html; charset=iso-8859-1"),
        exchange("/png", b"\x89PNG\r\n\x1a\n" + bytes(64), "text/html"),
        exchange("/big", gzip.compress(b"<p>" + b"x" * 5000 + b"</p>"), "text/html", **{"Content-Encoding": "gzip"}),
    ):
        warc.write_exchange(item)
    missing = exchange("/missing", b"<html><body><p>Not found</p></body></html>", "text/html")
    warc.write_exchange(dataclasses.replace(missing, status_line="404 Not Found"))
    warc.close()
    reader = WebcleanWarcReader(str(tmp_path / "w"), max_body_bytes=4096)  # /big: 5,007 bytes decoded
    documents = list(reader.run())
    assert [doc.metadata["url"] for doc in documents] == [SITE + "/ok"]
    assert "Gr\u00fc\u00dfe aus K\u00f6ln" in documents[0].text
    assert reader.stats["not_html"].total == 1 and reader.stats["undecodable"].total == 1
