"""The fast RSS reader's enclosures and categories: exactly the feedparser path's, or refused.

Each document goes through ``fastrss.parse`` and ``feedparser_reader.parse``;
where the fast reader takes it, both give equal feeds (entries with their
enclosures and categories, in order) and equal dropped-records counts.
"""

import re
from pathlib import Path

import pytest

from djangofeeds.parsing import fastrss, feedparser_reader
from djangofeeds.parsing.media import MAX_CATEGORIES, ParsedEnclosure
from djangofeeds.parsing.readers import parse
from localservers.feed_server import numbered_items, rss, with_media
from tests.support.fast_readers import RSS, URL, document, read_by_both

FIXTURES = Path(__file__).parents[1] / "fixtures"
NOT_A_NUMBER = "enclosure lengths that are not a number (stored as unknown)"
NOT_PUBLIC = "enclosure URLs that are not public http(s) links"


def test_enclosure_lengths_that_are_no_number_are_unknown_and_counted():
    """Lengths "abc" and "-5" are stored as unknown (None) and counted; "0" and "" are not."""
    feed = read_by_both(
        document(
            '<enclosure url="https://cdn.example.com/a.mp3" length="abc" type="audio/mpeg"/>'
            '<enclosure url="https://cdn.example.com/b.mp3" length="-5" type="Audio/MPEG"/>'
            '<enclosure url="https://cdn.example.com/c.mp3" length="0"/>'
            '<enclosure url="https://cdn.example.com/d.ogg" length=""/>'
        )
    )

    assert feed.entries[0].enclosures == [
        ParsedEnclosure("https://cdn.example.com/a.mp3", "audio/mpeg", None),
        ParsedEnclosure("https://cdn.example.com/b.mp3", "audio/mpeg", None),
        ParsedEnclosure("https://cdn.example.com/c.mp3", "audio/mpeg", 0),
        ParsedEnclosure("https://cdn.example.com/d.ogg", "audio/ogg", None),
    ]
    assert feed.all_dropped() == {NOT_A_NUMBER: 2}


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("javascript:alert(1)", None),
        ("data:audio/mpeg;base64,SUQz", None),
        ("http://192.168.1.1/router.mp3", None),
        ("http://localhost/a.mp3", None),
        ("https://[::1]/a.mp3", None),
        ("", None),
        ("episodes/1.mp3", "https://radio.example.com/podcast/episodes/1.mp3"),
        ("/media/1.mp3", "https://radio.example.com/media/1.mp3"),
        ("//cdn.example.com/1.mp3", "https://cdn.example.com/1.mp3"),
        ("https://cdn.example.com/a.mp3?x=1&amp;y=2", "https://cdn.example.com/a.mp3?x=1&y=2"),
    ],
)
def test_enclosure_urls_are_resolved_or_dropped_as_the_feedparser_path_does(url, stored):
    """Relative URLs resolve against the feed's URL; javascript:, data:, private and empty
    ones are dropped and counted, by both readers alike."""
    feed = read_by_both(document(f'<enclosure url="{url}" type="audio/mpeg" length="10"/>'))

    enclosures = [enclosure.url for enclosure in feed.entries[0].enclosures]
    assert enclosures == ([stored] if stored else [])
    assert feed.all_dropped() == ({} if stored else {NOT_PUBLIC: 1})


def test_a_relative_enclosure_without_a_feed_url_is_dropped_by_both():
    """With no URL to resolve against, a relative enclosure is no link: dropped and counted."""
    feed = read_by_both(document('<enclosure url="a.mp3" type="audio/mpeg"/>'), url="")

    assert feed.entries[0].enclosures == []
    assert feed.all_dropped() == {NOT_PUBLIC: 1}


def test_categories_keep_their_domain_order_and_the_channel_s():
    """Item and channel categories keep their domain, trimmed names (entities decoded, markup
    kept as text), document order, no repeats."""
    feed = read_by_both(
        document(
            '<category domain="https://radio.example.com/topics">Brokers</category>'
            "<category>  Message\n   queues </category>"
            '<category domain="">Redis</category>'
            "<category>R&amp;D, &lt;b&gt;caf&#233;&lt;/b&gt;</category>"
            '<category domain="https://radio.example.com/topics">Brokers</category>',
            channel='<category domain="https://dmoz.example/">Technology</category>'
            "<category>Programming</category>",
        )
    )

    assert feed.categories == [("Technology", "https://dmoz.example/"), ("Programming", "")]
    assert feed.entries[0].categories == [
        ("Brokers", "https://radio.example.com/topics"),
        ("Message queues", ""),
        ("Redis", ""),
        ("R&D, <b>café</b>", ""),  # text, as the feedparser path keeps it
    ]


def test_categories_over_the_bound_are_cut_and_counted():
    """60 categories on an item: the first 50 are kept and the 10 others counted as dropped."""
    tags = "".join(f"<category>Topic {n}</category>" for n in range(MAX_CATEGORIES + 10))

    feed = read_by_both(document(tags))

    assert feed.entries[0].categories == [(f"Topic {n}", "") for n in range(MAX_CATEGORIES)]
    assert feed.all_dropped() == {f"categories over {MAX_CATEGORIES} per item": 10}


MEDIA_RSS = ' xmlns:media="http://search.yahoo.com/mrss/"'
ITUNES = ' xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'


@pytest.mark.parametrize(
    ("item", "namespaces"),
    [
        (
            '<media:content url="https://cdn.example.com/a.mp4">'
            "<media:description>Clip</media:description></media:content>",
            MEDIA_RSS,
        ),
        ("<itunes:keywords>redis, rabbitmq</itunes:keywords>", ITUNES),
        ('<enclosure url="https://cdn.example.com/a.mp3" href="https://other.example/"/>', ""),
        ('<enclosure URL="https://cdn.example.com/a.mp3"/>', ""),
        ('<enclosure url="https://cdn.example.com/a.mp3">text</enclosure>', ""),
        ('<category domain="https://t.example/"></category><category>Next</category>', ""),
        ('<category label="Label">term</category>', ""),
        ("<category><b>Bold</b></category>", ""),
    ],
)
def test_what_the_fast_reader_cannot_reproduce_goes_to_feedparser(item, namespaces):
    """Media RSS with a description, iTunes keywords, unknown attributes, an enclosure with text,
    an empty category (feedparser gives its domain to the next one), nested markup:
    refused, and ``parse`` stores feedparser's reading."""
    body = document(item, namespaces=namespaces)

    assert fastrss.parse(body, url=URL, content_type=RSS) is None
    feed = parse(body, url=URL, content_type=RSS)
    assert feed.parser == "feedparser"
    assert feed == feedparser_reader.parse(body, url=URL, content_type=RSS)


def test_an_empty_category_with_a_domain_would_lend_it_to_the_next_one():
    """Why that case is refused: feedparser stores ("Next", its predecessor's domain)."""
    body = document('<category domain="https://t.example/"></category><category>Next</category>')

    assert parse(body, url=URL, content_type=RSS).entries[0].categories == [
        ("Next", "https://t.example/")
    ]


def test_media_content_becomes_an_enclosure_after_the_rss_one():
    """An item's <media:content> URL is stored after the <enclosure>'s, by both readers."""
    body = document(
        '<enclosure url="https://cdn.example.com/a.mp3" type="audio/mpeg" length="5"/>'
        '<media:content url="https://cdn.example.com/a.pdf" type="application/pdf"/>',
        namespaces=MEDIA_RSS,
    )

    feed = read_by_both(body)

    assert feed.entries[0].enclosures == [
        ParsedEnclosure("https://cdn.example.com/a.mp3", "audio/mpeg", 5),
        ParsedEnclosure("https://cdn.example.com/a.pdf", "application/pdf"),
    ]


def without_namespaced_elements(body):
    """The podcast fixture without its itunes: and media: lines (their namespaces stay declared)."""
    lines = body.decode().splitlines()
    return "\n".join(line for line in lines if not re.search(r"<\/?(itunes|media):", line)).encode()


def test_the_podcast_fixture_goes_to_feedparser_and_without_namespaces_to_the_fast_reader():
    """podcast.xml (iTunes and Media RSS) is refused; the same document without them is read
    by the fast reader exactly as the feedparser path reads it: enclosures with bad lengths
    and hostile URLs, channel and item categories."""
    body = (FIXTURES / "podcast.xml").read_bytes()
    assert fastrss.parse(body, url=URL, content_type=RSS) is None

    feed = read_by_both(without_namespaced_elements(body))

    assert feed.categories == [("Programming", "")]
    third, second, first = feed.entries
    assert third.categories == [
        ("Brokers", "https://radio.example.com/topics"),
        ("Message queues", ""),
    ]
    assert second.enclosures == [
        ParsedEnclosure("https://cdn.example.com/dtr/episode-2.mp4", "video/mp4", None)
    ]
    assert first.enclosures == [
        ParsedEnclosure("https://cdn.example.com/dtr/episode-1.m4a", "audio/mp4", 12345)
    ]
    assert feed.all_dropped() == {NOT_PUBLIC: 3, NOT_A_NUMBER: 1}


def test_the_benchmark_s_media_feed_is_read_by_the_fast_reader():
    """One enclosure and three categories per item (bench_import's media feed): fast reader,
    same feed as the feedparser path."""
    body = rss(with_media(numbered_items(30)), title="media")

    feed = read_by_both(body, url="http://127.0.0.1:8000/2000-media.xml")

    assert all(len(e.enclosures) == 1 and len(e.categories) == 3 for e in feed.entries)


def test_an_item_author_written_as_atom_s_name_is_read_as_feedparser_reads_it():
    """fastfeedparser's postgis.xml: ``<author><name>…</name></author>`` in RSS items."""
    feed = read_by_both(document("<author><name>Regina Obe</name></author>"))
    assert feed.entries[0].author == "Regina Obe"
    other = document("<author><name>Regina</name><email>r@example.com</email></author>")
    assert fastrss.parse(other, url=URL, content_type=RSS) is None


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><rss version="2.0"></rss>',  # atoma's broken-no-channel.xml
        # atoma's broken-version.xml: RSS 1.0 is <rdf:RDF>; feedparser reads this as RSS.
        b'<rss version="1.0"><channel><title>T</title><item><title>I</title></item>'
        b"</channel></rss>",
        # podcastparser's image_and_audio.rss: a permalink guid no link can be made of.
        b"<rss><channel><item><title>E</title><guid>episode::x</guid></item></channel></rss>",
    ],
)
def test_odd_rss_documents_feedparser_reads_as_rss(body):
    read_by_both(body)
