"""djangofeeds.parsing.entries: the rules every reader applies to its entries."""

import threading
from html import escape

import pytest

from djangofeeds.parsing import readers, sanitize
from djangofeeds.parsing.entries import choose_guids, ttl_minutes
from djangofeeds.parsing.feedparser_reader import read_entry


def test_choose_guids_ignores_an_id_shared_by_every_entry():
    """One id on every entry says nothing: unique links are used, shared ones get a hash."""
    entries = [
        read_entry({"id": "same", "link": link, "title": "T"})
        for link in ["https://a.example/1", "https://a.example/home", "https://a.example/home"]
    ]

    guids = [entry.guid for entry in choose_guids(entries)]

    assert guids[0] == "https://a.example/1"
    assert guids[1].startswith("sha256:") and guids[1] == guids[2]


@pytest.mark.parametrize(("ttl", "minutes"), [("60", 60), ("0", None), ("", None), ("1.5", None)])
def test_ttl_minutes_reads_whole_minutes(ttl, minutes):
    """An RSS <ttl> is whole minutes; zero or anything else is no schedule."""
    assert ttl_minutes(ttl) == minutes


URL = "https://blog.example/feed/"


def large_feed(items=12, paragraphs=400):
    """An RSS feed whose bodies are large in all, with relative links to resolve."""
    body = "".join(
        f'<p>Part {n} <a href="../p/{n}">more</a> <img src="i{n}.png"></p>'
        for n in range(paragraphs)
    )
    entries = "".join(
        f"<item><title>Item {number}</title><link>https://blog.example/{number}</link>"
        f"<pubDate>Mon, 0{number % 9 + 1} Jun 2026 10:00:00 GMT</pubDate>"
        f"<description>{escape(body)}</description></item>"
        for number in range(items)
    )
    channel = f"<channel><title>Big</title><link>https://blog.example/</link>{entries}</channel>"
    return f'<?xml version="1.0"?><rss version="2.0">{channel}</rss>'.encode()


def test_large_bodies_are_sanitized_on_threads_as_one_thread_would(monkeypatch):
    """Above PARALLEL_CONTENT_BYTES the bodies are cleaned on threads: the same entries."""
    document = large_feed()
    threads = set()
    safe_html = sanitize.safe_html

    def recorded(markup, base=""):
        threads.add(threading.current_thread().name)
        return safe_html(markup, base)

    monkeypatch.setattr(sanitize, "safe_html", recorded)
    on_threads = readers.parse(document, url=URL, content_type="application/rss+xml")
    assert threads and all(name.startswith("djangofeeds-sanitize") for name in threads)

    threads.clear()
    monkeypatch.setattr(sanitize, "PARALLEL_CONTENT_BYTES", len(document) * 10)
    on_one = readers.parse(document, url=URL, content_type="application/rss+xml")
    assert threads == {threading.current_thread().name}

    assert on_threads.entries == on_one.entries and len(on_one.entries) == 12
    assert 'href="https://blog.example/p/7"' in on_one.entries[0].content
