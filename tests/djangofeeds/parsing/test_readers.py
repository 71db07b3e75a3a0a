"""djangofeeds.parsing.readers: feed bytes to plain data, whichever reader reads them."""

import pytest

from djangofeeds.parsing import feedparser_reader, sanitize
from djangofeeds.parsing.entries import NotAFeed
from djangofeeds.parsing.readers import body_hash, parse
from localservers.feed_server import numbered_items, rss
from tests.support.fixtures import fixture


@pytest.mark.parametrize(
    ("content_type", "reader"),
    [("application/rss+xml", "fastrss"), ("text/xml", "feedparser")],
)
def test_parse_converts_only_the_kept_entries(monkeypatch, content_type, reader):
    """600 entries, 500 kept: the sanitizer runs for the 500 only, whichever reader reads them."""
    sanitized = []
    original = feedparser_reader.safe_html

    def counting(*args, **kwargs):
        sanitized.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(feedparser_reader, "safe_html", counting)  # feedparser's path
    monkeypatch.setattr(sanitize, "safe_html", counting)  # fastrss's

    parsed = parse(rss(numbered_items(600)), url="http://example.com/", content_type=content_type)

    assert parsed.parser == reader
    assert len(parsed.entries) == 500 and len(sanitized) == 500
    assert parsed.entries[0].guid == "item-0" and parsed.entries[-1].guid == "item-499"


def test_parse_falls_back_to_feedparser_when_the_fast_reader_fails(monkeypatch, caplog):
    """A bug in the fast reader costs speed, not the feed: feedparser reads it, with a warning."""

    def broken(*args, **kwargs):
        raise TypeError("a bug")

    monkeypatch.setattr("djangofeeds.parsing.fastrss.read_item", broken)

    parsed = parse(rss(numbered_items(2)), content_type="application/rss+xml")

    assert parsed.parser == "feedparser" and len(parsed.entries) == 2
    assert "the fast RSS reader failed" in caplog.text


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"  \xef\xbb\xbf \n", "the server sent an empty body"),
        (b"<!DOCTYPE html><html><body>Hi</body></html>", "the document is an HTML page"),
        (b"<note>no feed</note>", "the document is not an RSS, Atom or JSON feed"),
    ],
)
def test_parse_says_in_words_why_bytes_are_no_feed(body, reason):
    """Empty bodies, HTML pages and other XML raise NotAFeed with a readable reason."""
    with pytest.raises(NotAFeed, match=reason):
        parse(body)


LATIN_1 = (
    b'<?xml version="1.0" encoding="iso-8859-1"?><rss version="2.0"><channel><title>Caf\xe9'
    b"</title><item><title>One</title><link>https://cafe.example/1</link></item></channel></rss>"
)


@pytest.mark.parametrize(
    ("body", "content_type", "reader"),
    [
        (rss(numbered_items(2)), "application/rss+xml", "fastrss"),
        (fixture("atom10.xml"), "application/atom+xml", "fastatom"),
        (fixture("rss10.xml"), "application/rss+xml", "fastrss"),
        (LATIN_1, "application/rss+xml", "feedparser"),
        (fixture("jsonfeed-attachments.json"), "application/feed+json", "jsonfeed"),
    ],
)
def test_parse_picks_the_reader_for_the_document(body, content_type, reader):
    """Simple RSS and Atom 1.0 go to the fast readers, RSS 1.0 to feedparser, JSON Feed to its
    own reader."""
    parsed = parse(body, url="https://example.com/feed", content_type=content_type)

    assert parsed.parser == reader and parsed.entries


def test_body_hash_depends_on_the_url_and_content_type_too():
    """The same bytes served from another URL or as another type are parsed again."""
    body = rss(numbered_items(1))
    same = body_hash(body, url="https://a.example/", content_type="text/xml")

    assert body_hash(body, url="https://a.example/", content_type="text/xml") == same
    assert body_hash(body, url="https://b.example/", content_type="text/xml") != same
    assert body_hash(body, url="https://a.example/", content_type="application/json") != same
