"""Hostile feeds through a real worker: each import is recorded, the worker lives on, and its
memory stays bounded."""

import sys
from pathlib import Path

import pytest

from djangofeeds.models import ImportRun, Outcome
from djangofeeds.tasks import import_feed
from localservers.feed_server import json_feed, numbered_items, rss
from tests.hostile.helpers import LAUGHS, bomb, readable, with_doctype

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads memory from /proc"),
]

# A pool process starts at about 80 MB; parsing 100,000 entries whole took 350 MB.
MEMORY_LIMIT_MB = 250


def children(pid):
    """The PIDs of a process's children (a worker's pool processes)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def peak_memory_mb(pid):
    """The most resident memory the process ever had (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for process {pid}")


def hostile_feeds(feed_server):
    """{url: outcome} for feeds that are each hard on a parser or on memory."""
    entries = "".join(f'<item><guid isPermaLink="false">{n}</guid></item>' for n in range(100_000))
    crashing = rss([{"guid": "1", "title": "&#xD800;&#x110000;&#99999999999;<unclosed>"}])
    feeds = {
        "/100000.xml": (
            rss([]).replace(b"</channel>", entries.encode() + b"</channel>"),
            "imported",
        ),
        "/bomb.xml": (bomb("gzip", 64), "failed"),
        "/laughs.xml": (with_doctype(rss(numbered_items(2)), LAUGHS), "imported"),
        "/surrogates.xml": (crashing, "imported"),
        "/nul.xml": (rss([{"guid": "1", "title": "a\x00b"}]), "imported"),
        "/page.html": (b"<!doctype html><html><body>No feed here</body></html>", "failed"),
        "/big-entry.xml": (rss([{"guid": "1", "description": "x" * 8_000_000}]), "imported"),
        "/100000.json": (json_feed([{"id": str(n)} for n in range(100_000)]), "imported"),
        "/deep.json": (b"[" * 4_000_000 + b"]" * 4_000_000, "failed"),
        "/malformed.json": (
            b'{"version": "https://jsonfeed.org/version/1.1", "items": [{',
            "failed",
        ),
    }
    urls = {}
    for path, (body, outcome) in feeds.items():
        headers = {"Content-Encoding": "gzip"} if path == "/bomb.xml" else {}
        kind = "application/feed+json" if path.endswith(".json") else "application/rss+xml"
        urls[feed_server.serve(path, body, headers=headers, content_type=kind)] = outcome
    return urls


def test_hostile_feeds_leave_the_worker_alive_with_bounded_memory(feed_server, worker_factory):
    """Each hostile feed ends as expected; the worker survives them all in bounded memory."""
    worker = worker_factory(queues=["feeds"], concurrency=1)
    expected = hostile_feeds(feed_server)

    pending = {url: import_feed.delay(url) for url in expected}
    results = {url: result.get(timeout=90) for url, result in pending.items()}

    assert {url: result["status"] for url, result in results.items()} == expected
    for url in expected:
        run = ImportRun.objects.get(feed__url=url)
        assert run.outcome == expected[url]
        assert readable(run.error) if run.outcome == Outcome.FAILED else not run.error
    assert worker.watched.process.poll() is None, worker.log_tail()
    pool = children(worker.watched.process.pid)
    assert pool, worker.log_tail()
    assert max(peak_memory_mb(pid) for pid in pool) < MEMORY_LIMIT_MB
