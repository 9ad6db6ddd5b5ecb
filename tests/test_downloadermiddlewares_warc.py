"""WARC recording of a real crawl (``WEBCLEAN_WARC``) and ``webclean extract`` of the WARC file.

The crawl is the ``news`` spider on the demo site served on 127.0.0.1, plus a
gzip-encoded article and a page in a mislabelled charset, with the recorder
enabled through settings as a user would (``DOWNLOADER_MIDDLEWARES``).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from _crawl import run_crawl, start_crawl
from http_server import TestSite
from webclean_scrapy.cli import main
from webclean_scrapy.demo import site_dir
from webclean_scrapy.downloadermiddlewares.warc import RECORDER_PRIORITY
from webclean_scrapy.spiders import PROJECT_SETTINGS
from webclean_scrapy.warcfiles import is_warc, iter_html_records

warcio = pytest.importorskip("warcio")
fastwarc = pytest.importorskip("fastwarc")

from warcio.archiveiterator import ArchiveIterator  # noqa: E402

GZIPPED = "/2025/03/21/harbour-ferry-returns/"
CP1252 = "/2025/03/22/market-cafe-plan/"


def story(title: str, place: str, extra: str = "") -> str:
    paragraphs = "".join(
        f"<p>{extra}Paragraph {n} about {title.lower()} in {place}: residents, officials and traders gave their "
        f"views at length, and the council promised a further report on costs, timing and the next steps.</p>"
        for n in range(1, 7)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} | Courier</title>'
        f'<meta property="og:type" content="article"><meta property="og:title" content="{title}">'
        f'<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "{title}"}}</script>'
        f'</head><body><nav><a href="/">Home</a> <a href="/about/">About</a></nav>'
        f"<article><h1>{title}</h1>{paragraphs}</article><footer>Courier, all rights reserved</footer>"
        "</body></html>"
    )


@pytest.fixture(scope="module")
def site():
    site = TestSite()
    site.add_directory(site_dir())
    # Sent gzip-encoded whatever the request asked: the WARC keeps these bytes as received.
    site.add(
        GZIPPED, gzip.compress(story("Harbour ferry returns", "Port Carrow").encode()), **{"Content-Encoding": "gzip"}
    )
    # cp1252 bytes declared iso-8859-1 (curly quotes, euro sign): the charset must survive the WARC.
    site.add(
        CP1252,
        story("Market cafe plan", "Old Town", "\u201cCaf\u00e9\u201d \u2014 \u20ac5. ").encode("cp1252"),
        "text/html; charset=iso-8859-1",
    )
    site.add("/old-ferry-story", b"", status=301, Location=site.url(GZIPPED))
    with site:
        yield site


def warc_settings(target: str) -> dict:
    middlewares = dict(PROJECT_SETTINGS.get("DOWNLOADER_MIDDLEWARES", {}))
    middlewares["webclean_scrapy.downloadermiddlewares.warc.WarcRecorder"] = RECORDER_PRIORITY
    return {"WEBCLEAN_WARC": target, "DOWNLOADER_MIDDLEWARES": middlewares}


@pytest.fixture(scope="module")
def crawl(site, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("warc")
    start = ",".join(site.url(path) for path in ("/", "/old-ferry-story", CP1252))
    result = run_crawl(
        "news",
        tmp,
        args={"start_urls": start},
        settings=warc_settings(str(tmp / "archive" / "crawl-%(name)s-%(time)s.warc.gz")),
        timeout=300,
    )
    files = sorted((tmp / "archive").glob("crawl-news-*.warc.gz"))
    assert len(files) == 1, files
    return result, files[0]


def records(path: Path) -> list:
    with open(path, "rb") as f:
        return [(r.rec_type, r.rec_headers, r.http_headers, r.raw_stream.read()) for r in ArchiveIterator(f)]


def test_crawl_records_every_response_as_warc_1_1(site, crawl):
    result, path = crawl
    found = records(path)
    assert found[0][0] == "warcinfo"
    assert found[0][1].protocol == "WARC/1.1"
    assert b"software: webclean-scrapy/" in found[0][3]
    pairs = found[1:]
    assert len(pairs) % 2 == 0
    responses = {}
    fetched = []
    for response, request in zip(pairs[::2], pairs[1::2]):
        assert (response[0], request[0]) == ("response", "request")
        assert all(r[1].protocol == "WARC/1.1" for r in (response, request))
        url = response[1].get_header("WARC-Target-URI")
        assert request[1].get_header("WARC-Target-URI") == url
        assert request[1].get_header("WARC-Concurrent-To") == response[1].get_header("WARC-Record-ID")
        assert response[1].get_header("WARC-IP-Address") == "127.0.0.1"
        assert (request[2].protocol, request[2].statusline) == ("GET", f"{url[len(site.base_url) :]} HTTP/1.1")
        assert request[2].get_header("User-Agent") == PROJECT_SETTINGS["USER_AGENT"]
        responses[url] = response
        fetched.append(url)
    # One response record per response Scrapy downloaded, robots.txt, redirects and PDFs included.
    assert len(fetched) == result.stat("downloader/response_count")
    assert result.stat("webclean/warc/records") == len(found)
    assert result.stat("webclean/warc/bytes") == path.stat().st_size
    assert site.url("/robots.txt") in responses
    assert responses[site.url("/old-ferry-story")][2].get_statuscode() == "301"
    # Raw bytes as received: the gzip body is still gzip, Transfer-Encoding is not claimed.
    gzipped = responses[site.url(GZIPPED)]
    assert gzipped[2].get_header("Content-Encoding") == "gzip"
    assert gzipped[3][:2] == b"\x1f\x8b"
    assert all(r[2].get_header("Transfer-Encoding") is None for r in responses.values())


def test_fastwarc_verifies_every_digest(crawl):
    from fastwarc.warc import ArchiveIterator as FastIterator

    _, path = crawl
    with open(path, "rb") as f:
        blocks = [r.verify_block_digest() for r in FastIterator(f, parse_http=False)]
    with open(path, "rb") as f:
        payloads = [r.verify_payload_digest() for r in FastIterator(f) if r.record_type != r.record_type.warcinfo]
    assert len(blocks) == len(records(path)) == len(payloads) + 1
    assert all(blocks) and all(payloads)


def test_extract_of_the_warc_gives_the_crawl_texts(site, crawl, tmp_path, capsys):
    result, path = crawl
    items = {item["url"]: item for item in result.items}
    assert {site.url(GZIPPED), site.url(CP1252)} <= set(items)
    assert len(items) >= 8
    out = tmp_path / "warc.jsonl"
    assert main(["extract", str(path), "-o", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(
        list(line)[:10]
        == [
            "source",
            "url",
            "canonical_url",
            "title",
            "text",
            "extractor",
            "language",
            "detected_language",
            "language_confidence",
            "page_type",
        ]
        for line in lines
    )
    assert {line["source"] for line in lines} == {str(path)}
    extracted = {line["url"]: line for line in lines}
    for url, item in items.items():
        assert extracted[url]["text"] == item["text"], url
        assert extracted[url]["title"] == item["title"], url
        assert extracted[url]["extractor"] == item["extractor"]
    assert "\u201cCaf\u00e9\u201d \u2014 \u20ac5." in extracted[site.url(CP1252)]["text"]
    # Hubs are HTML responses too: the WARC holds them, the spider yielded no item for them.
    assert site.url("/") in extracted and site.url("/") not in items


def test_both_readers_agree(crawl):
    _, path = crawl
    fast = [(r.url, r.content_type, r.body, r.error) for r in iter_html_records(str(path), reader="fastwarc")]
    slow = [(r.url, r.content_type, r.body, r.error) for r in iter_html_records(str(path), reader="warcio")]
    assert fast == slow and len(fast) >= 8
    assert all(not error and body.lstrip().lower().startswith(b"<!doctype html") for _, _, body, error in fast)


def test_extract_with_workers_matches(crawl, tmp_path):
    _, path = crawl
    single, pooled = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    assert main(["extract", str(path), "-o", str(single)]) == 0
    assert main(["extract", str(path), "-j", "2", "-o", str(pooled)]) == 0
    assert single.read_text(encoding="utf-8") == pooled.read_text(encoding="utf-8")


def test_truncated_warc_keeps_the_intact_records(crawl, tmp_path):
    _, path = crawl
    full = tmp_path / "full.jsonl"
    assert main(["extract", str(path), "-o", str(full)]) == 0
    complete = full.read_text(encoding="utf-8").splitlines()
    data = path.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])  # as a kill -9 mid-record would leave it
    out = tmp_path / "cut.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "webclean_scrapy.cli", "extract", str(cut), "-o", str(out), "--keep-going"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr
    kept = out.read_text(encoding="utf-8").splitlines()
    assert proc.returncode == 1 and 0 < len(kept) < len(complete)  # the intact records came out; 1: one failed
    assert [json.loads(line)["text"] for line in kept] == [json.loads(line)["text"] for line in complete[: len(kept)]]
    assert f"skipped {cut}: malformed or truncated WARC" in proc.stderr


def test_damaged_record_and_non_warc_input(crawl, tmp_path, capsys):
    _, path = crawl
    data = bytearray(path.read_bytes())
    # Overwrite the middle of the file: a gzip member with garbage inside.
    middle = len(data) // 2
    data[middle : middle + 64] = b"\x00" * 64
    damaged = tmp_path / "damaged.warc.gz"
    damaged.write_bytes(bytes(data))
    plain = tmp_path / "plain.warc"
    plain.write_bytes(b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 99999\r\n\r\nHTTP/1.1 200 OK\r\n")
    code = main(["extract", str(damaged), str(plain), "--keep-going"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code == 1  # the intact records before the damage came out, then both failures
    assert out.count('"url"') > 0
    assert f"skipped {damaged}: malformed or truncated WARC" in err
    assert f"skipped {plain}:" in err
    assert is_warc(str(damaged)) and not is_warc(str(tmp_path / "missing.warc"))


def test_kill_9_mid_crawl_loses_at_most_the_record_being_written(site, tmp_path):
    """A real crawl subprocess killed with SIGKILL: every record flushed before
    the kill reads back, and the WARC ends at a record boundary or with one cut record."""
    import signal
    import time

    target = tmp_path / "killed.warc.gz"
    crawl = start_crawl(
        "news",
        tmp_path,
        args={"start_urls": site.url("/")},
        settings={"DOWNLOAD_DELAY": 0.5, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, **warc_settings(str(target))},
    )
    proc = crawl.proc
    try:
        deadline = time.monotonic() + 240
        responses = 0
        while responses < 8 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
            if target.exists():
                try:
                    responses = sum(1 for r in records(target) if r[0] == "response")
                except Exception:  # a record being written right now
                    continue
        assert proc.poll() is None, "the crawl ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    html = []
    try:
        html.extend(iter_html_records(str(target)))
    except Exception as exc:  # only a cut last record may remain, reported as such
        assert "malformed or truncated WARC" in str(exc)
    assert len(html) >= 1 and all(not record.error for record in html)
    with open(target, "rb") as f:
        kept = sum(1 for r in ArchiveIterator(f) if r.rec_type == "response")
    assert kept >= responses


def test_warc_file_name_template(tmp_path):
    from datetime import datetime, timezone

    from scrapy import Spider

    from webclean_scrapy.downloadermiddlewares.warc import warc_path

    spider = Spider(name="news", site="valley")
    moment = datetime(2026, 11, 23, 3, 17, 15, 123456, tzinfo=timezone.utc)
    assert (
        warc_path(str(tmp_path / "%(name)s-%(site)s-%(time)s.warc.gz"), spider, moment)
        == tmp_path / "news-valley-2026-11-23T03-17-15+00-00.warc.gz"
    )
    assert str(os.getpid()) in str(warc_path("w-%(pid)s.warc.gz", spider, moment))


def test_recorder_is_off_without_the_setting_and_fails_early_on_a_bad_path(tmp_path):
    from scrapy import Spider
    from scrapy.exceptions import NotConfigured
    from scrapy.utils.test import get_crawler

    from webclean_scrapy.downloadermiddlewares.warc import WarcRecorder

    with pytest.raises(NotConfigured):
        WarcRecorder.from_crawler(get_crawler(Spider))
    (tmp_path / "file").write_text("not a folder")
    crawler = get_crawler(Spider, {"WEBCLEAN_WARC": str(tmp_path / "file" / "crawl.warc.gz")})
    crawler.spider = crawler._create_spider("news")
    with pytest.raises(OSError):
        WarcRecorder.from_crawler(crawler)


def test_two_writers_cannot_share_a_file(tmp_path):
    from webclean_scrapy.downloadermiddlewares.warc import WarcFile

    target = tmp_path / "shared.warc.gz"
    first = WarcFile(target)
    try:
        # Another process (flock locks are per open file description, so a second open in this process sees it too).
        with pytest.raises(OSError, match="%\\(pid\\)s"):
            WarcFile(target)
    finally:
        first.close()
    WarcFile(target).close()  # free again once closed


def test_disk_full_stops_recording_not_the_crawl(site, tmp_path):
    """A real write failure mid-crawl: the crawl process may write at most 30 KB
    per file (RLIMIT_FSIZE), the WARC outgrows it, the items file does not."""
    import resource
    import signal

    def limit_file_size() -> None:  # in the child: EFBIG instead of SIGXFSZ past the limit
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))

    target = tmp_path / "full.warc.gz"
    # This project's settings list the recorder: -s WEBCLEAN_WARC=... alone turns it on.
    result = start_crawl(
        "news",
        tmp_path,
        args={"start_urls": site.url("/")},
        settings={"WEBCLEAN_WARC": str(target)},
        preexec_fn=limit_file_size,
    ).finish()
    items, stats = result.items, result.stats
    assert target.stat().st_size <= 30_000
    assert stats["webclean/warc/errors"] >= 1 and stats["webclean/warc/errors/OSError"] >= 1
    assert result.log.count("WARC recording stopped") == 1 and "Traceback" not in result.log
    # Every article still came out: the crawl did not notice beyond the log line and the stats.
    from webclean_scrapy.demo import load_gold

    assert len(items) == len(load_gold()) == 8
