"""Enclosures and categories: the normalization rules, on RSS, Atom and JSON Feed shapes."""

import json
from collections import Counter

import pytest

from djangofeeds.parsing.entries import ParsedEntry
from djangofeeds.parsing.jsonfeed import media as from_json_feed
from djangofeeds.parsing.media import (
    MAX_CATEGORIES,
    MAX_ENCLOSURES,
    NAME_MAX_LENGTH,
    ParsedEnclosure,
    categories_from,
    enclosure_length,
    enclosure_url,
    enclosures_from,
)
from djangofeeds.parsing.readers import parse
from tests.support.fixtures import fixture


def json_feed_item(guid):
    document = json.loads(fixture("jsonfeed-attachments.json"))
    return next(item for item in document["items"] if item["id"] == guid)


def test_json_feed_attachments_resolved_deduplicated_and_typed():
    """Relative attachment URLs resolve against the feed; one URL twice is one enclosure."""
    enclosures, _, dropped = from_json_feed(
        json_feed_item("qc-2"), "https://queuecast.example.net/feed.json"
    )

    assert enclosures == [
        ParsedEnclosure("https://queuecast.example.net/audio/qc-2.mp3", "audio/mpeg", 31457280),
        ParsedEnclosure("https://queuecast.example.net/notes/qc-2.pdf", "application/pdf", None),
    ]
    assert not dropped


def test_json_feed_tags_are_trimmed_and_unique():
    """JSON Feed tags are trimmed and repeated ones dropped; case still tells them apart."""
    _, categories, _ = from_json_feed(json_feed_item("qc-2"), "https://queuecast.example.net/")

    assert categories == [("Celery", ""), ("reliability", ""), ("celery", "")]


def test_json_feed_bad_attachments_are_dropped_and_counted():
    """A javascript: URL is not stored; a negative size is unknown; both are counted."""
    enclosures, categories, dropped = from_json_feed(
        json_feed_item("qc-1"), "https://queuecast.example.net/feed.json"
    )

    assert enclosures == [
        ParsedEnclosure("https://queuecast.example.net/audio/qc-1.mp3", "audio/mpeg", None)
    ]
    assert categories == [("Pilot", "")]
    assert dropped == {
        "enclosure URLs that are not public http(s) links": 1,
        "enclosure lengths that are not a number (stored as unknown)": 1,
    }


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "data:audio/mpeg;base64,SUQz",
        "ftp://files.example.com/a.mp3",
        "http://127.0.0.1/a.mp3",
        "http://localhost:8000/a.mp3",
        "http://10.0.0.7/a.mp3",
        "http://192.168.1.1/a.mp3",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/a.mp3",
        "http://[::ffff:127.0.0.1]/a.mp3",
        "http://2130706433/a.mp3",
        "http://127.1/a.mp3",
        "http://router/a.mp3",
        "http://nas.local/a.mp3",
        "https://user:secret@cdn.example.com/a.mp3",
        "https://[bad/a.mp3",
        "https://cdn.example.com/" + "a" * 2000,
        "",
    ],
)
def test_enclosure_url_refuses_what_must_not_become_a_link(url):
    """Scripts, data, other schemes, private hosts, credentials, bad and long URLs give ""."""
    assert enclosure_url(url, "https://example.com/feed.xml") == ""


def test_enclosure_url_keeps_public_http_and_resolves_relative_ones():
    """Public http(s) enclosure URLs are kept; relative ones resolve against the feed."""
    base = "https://example.com/podcast/feed.xml"
    assert enclosure_url("ep1.mp3", base) == "https://example.com/podcast/ep1.mp3"
    assert enclosure_url("http://93.184.216.34/a.mp3", base) == "http://93.184.216.34/a.mp3"
    assert enclosure_url("https://[2606:4700::1]/a.mp3") == "https://[2606:4700::1]/a.mp3"


@pytest.mark.parametrize(
    ("raw", "length"),
    [
        ("123", 123),
        (" 42 ", 42),
        (7, 7),
        ("0", 0),
        ("abc", None),
        ("-5", None),
        (-5, None),
        ("1e3", None),
        ("12.5", None),
        ("²", None),
        ("", None),
        (None, None),
        ("9" * 30, None),
    ],
)
def test_enclosure_length_is_a_plain_number_or_unknown(raw, length):
    """An enclosure length is a plain non-negative number of sane size, else unknown."""
    assert enclosure_length(raw) == length


def test_enclosure_type_is_normalized_or_guessed_from_the_extension():
    """Enclosure types are lowercased without parameters, or guessed from the extension."""
    enclosures = enclosures_from(
        [
            {"url": "https://example.com/a.mp3", "type": "Audio/MPEG; charset=binary"},
            {"url": "https://example.com/b.mp3", "type": "not a type"},
            {"url": "https://example.com/c", "type": ""},
        ]
    )

    assert [e.type for e in enclosures] == ["audio/mpeg", "audio/mpeg", ""]


def test_enclosures_are_bounded_per_item():
    """An item keeps MAX_ENCLOSURES enclosures; the rest are counted as dropped."""
    dropped = Counter()
    items = [{"url": f"https://example.com/{n}.mp3"} for n in range(MAX_ENCLOSURES + 5)]

    assert len(enclosures_from(items, dropped=dropped)) == MAX_ENCLOSURES
    assert dropped == {f"enclosures over {MAX_ENCLOSURES} per item": 5}


def test_ten_thousand_categories_are_cut_to_the_bound_and_counted():
    """10,000 categories are cut to MAX_CATEGORIES and the rest counted as dropped."""
    dropped = Counter()
    items = [{"name": f"tag {n}"} for n in range(10_000)]

    categories = categories_from(items, dropped)

    assert categories == [(f"tag {n}", "") for n in range(MAX_CATEGORIES)]
    assert dropped == {f"categories over {MAX_CATEGORIES} per item": 10_000 - MAX_CATEGORIES}


def test_category_names_are_trimmed_collapsed_bounded_and_never_empty():
    """Category names are trimmed, collapsed, bounded and de-duplicated; empty ones go."""
    categories = categories_from(
        [
            {"name": "  Message \n\t queues  ", "domain": " https://example.com/t "},
            {"name": "Message queues", "domain": "https://example.com/t"},  # the same pair
            {"name": "   "},
            {"name": None},
            {"name": "x" * 500},
            {"name": "nul\x00byte"},
        ]
    )

    assert categories == [
        ("Message queues", "https://example.com/t"),
        ("x" * NAME_MAX_LENGTH, ""),
        ("nulbyte", ""),
    ]


def test_checksum_changes_with_enclosures_and_categories_only():
    """A post without either keeps its old checksum (no rewrite of every post on upgrade)."""
    plain = ParsedEntry(guid="g", title="t")
    with_enclosure = ParsedEntry(
        guid="g", title="t", enclosures=[ParsedEnclosure("https://example.com/a.mp3")]
    )
    other_length = ParsedEntry(
        guid="g", title="t", enclosures=[ParsedEnclosure("https://example.com/a.mp3", length=1)]
    )
    with_category = ParsedEntry(guid="g", title="t", categories=[("News", "")])

    checksums = {e.checksum for e in (plain, with_enclosure, other_length, with_category)}
    assert len(checksums) == 4
    assert plain.checksum == ParsedEntry(guid="g", title="t").checksum


def test_parse_podcast_rss_reads_enclosures_media_content_and_categories():
    """A podcast's enclosures, media:content and categories are read, and drops counted."""
    feed = parse(fixture("podcast.xml"), url="https://radio.example.com/feed.xml")

    assert sorted(feed.categories) == [
        ("Programming", ""),
        ("Software How-To", "http://www.itunes.com/"),
        ("Technology", "http://www.itunes.com/"),
    ]
    third, second, first = feed.entries
    assert third.enclosures == [
        ParsedEnclosure("https://cdn.example.com/dtr/episode-3.mp3", "audio/mpeg", 48211456)
    ]
    assert sorted(third.categories) == [
        ("Brokers", "https://radio.example.com/topics"),
        ("Message queues", ""),
        ("rabbitmq", "http://www.itunes.com/"),
        ("redis", "http://www.itunes.com/"),
    ]
    # <enclosure> and <media:content> of one URL are one enclosure; the first wins.
    assert second.enclosures == [
        ParsedEnclosure("https://cdn.example.com/dtr/episode-2.mp4", "video/mp4", None),
        ParsedEnclosure("https://cdn.example.com/dtr/episode-2-notes.pdf", "application/pdf"),
    ]
    assert first.enclosures == [
        ParsedEnclosure("https://cdn.example.com/dtr/episode-1.m4a", "audio/mp4", 12345)
    ]
    assert feed.all_dropped() == {
        "enclosure URLs that are not public http(s) links": 3,
        "enclosure lengths that are not a number (stored as unknown)": 2,
    }


def test_parse_atom_reads_enclosure_links_and_category_labels():
    """Atom enclosure links become enclosures and category labels their names."""
    feed = parse(fixture("atom-media.xml"), url="https://talks.example.org/feed.atom")

    assert feed.categories == [("Conferences", "https://talks.example.org/tags")]
    scaling, hostile = feed.entries
    assert scaling.enclosures == [
        ParsedEnclosure("https://talks.example.org/media/scaling.webm", "video/webm", 734003200),
        ParsedEnclosure("https://talks.example.org/media/scaling-slides.pdf", "application/pdf"),
    ]
    assert scaling.categories == [
        ("Celery", "https://talks.example.org/tags"),
        ("scaling", "https://talks.example.org/tags"),
        ("python", ""),
    ]
    assert hostile.enclosures == [
        ParsedEnclosure("https://talks.example.org/media/hostile.ogg", "audio/ogg")
    ]
    assert hostile.categories == [("python", ""), ("Security", "")]
