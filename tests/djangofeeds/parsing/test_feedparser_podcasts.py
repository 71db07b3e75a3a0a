"""djangofeeds.parsing.feedparser_podcasts: an RSS or Atom document's podcast details, from
feedparser's reading and the scan of what it loses."""

from pathlib import Path

import pytest

from djangofeeds.parsing.feedparser_podcasts import scan, scanned_entries
from djangofeeds.parsing.readers import parse

URL = "https://radio.example.com/feed.xml"
ITUNES = 'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
PODCAST = 'xmlns:podcast="https://podcastindex.org/namespace/1.0"'
MEDIA = 'xmlns:media="http://search.yahoo.com/mrss/"'
GAMERSNEXUS = Path(__file__).resolve().parents[2] / "corpus/real/fastfeedparser/gamersnexus.xml"


def document(items, channel="", namespaces=f"{ITUNES} {PODCAST} {MEDIA}", prolog=""):
    body = "".join(f"<item><title>Episode {n}</title>{item}</item>" for n, item in enumerate(items))
    return (
        f'{prolog}<rss version="2.0" {namespaces}><channel><title>Show</title>'
        f"<link>https://radio.example.com/</link>{channel}{body}</channel></rss>"
    ).encode()


def episodes(body):
    return [entry.podcast for entry in parse(body, url=URL).entries]


EXPLICIT = ["yes", "true", "Explicit", "no", "false", "clean", "maybe"]


def test_explicit_is_read_in_every_spelling_which_feedparser_reduces_to_yes_and_clean():
    """Apple's "true" and "false" (feedparser keeps "yes" and "clean" only) are read."""
    body = document([f"<itunes:explicit>{value}</itunes:explicit>" for value in EXPLICIT])

    assert [found.explicit for found in episodes(body)] == [
        True,
        True,
        True,
        False,
        False,
        False,
        None,
    ]


def test_a_document_expat_cannot_read_keeps_feedparsers_reading():
    """An undefined entity (feedparser's lenient parser reads on): no scan, so explicit is
    feedparser's "yes" and "clean", and the other details are still read."""
    items = [f"<itunes:explicit>{value}</itunes:explicit>" for value in EXPLICIT]
    items[0] += "<description>caf&eacute;</description><itunes:duration>20:00</itunes:duration>"
    body = document(items)

    assert scan(body) is None
    found = episodes(body)
    assert [item.explicit for item in found] == [True, None, None, None, None, False, None]
    assert found[0].duration == 1200


def test_a_document_declaring_entities_is_not_scanned():
    """No entity expansion of ours (no billion laughs): feedparser's reading is kept."""
    prolog = '<!DOCTYPE rss [<!ENTITY show "Radio">]>'
    body = document(["<itunes:explicit>true</itunes:explicit>"], prolog=prolog)

    assert scan(body) is None
    assert episodes(body)[0].explicit is None  # feedparser's reading of "true"


def test_a_document_without_itunes_or_podcasting_names_is_not_scanned():
    """A blog's feed costs no second pass: it holds no "itunes" nor "podcast"."""
    assert scan(GAMERSNEXUS.read_bytes()) is None


@pytest.mark.parametrize(
    "channel",
    [
        '<itunes:image href="art/itunes.jpg"/><image><url>art/rss.jpg</url></image>',
        '<image><url>art/rss.jpg</url></image><itunes:image href="art/itunes.jpg"/>',
    ],
)
def test_the_channels_itunes_image_wins_over_its_rss_image_in_either_order(channel):
    """feedparser keeps whichever comes last; the iTunes artwork is the podcast's."""
    feed = parse(document([], channel=channel), url=URL)

    assert feed.image_url == "https://radio.example.com/art/itunes.jpg"


def test_the_rss_image_is_the_artwork_of_a_feed_without_itunes_image():
    body = document([], channel="<image><url>https://cdn.example.com/logo.png</url></image>")

    assert parse(body, url=URL).image_url == "https://cdn.example.com/logo.png"


def test_atom_logo_wins_over_icon_and_a_private_address_is_no_artwork():
    """Atom's <logo> (larger) before its <icon>; both pass the enclosures' checks."""
    atom = '<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>{}</feed>'

    both = atom.format("<icon>/favicon.ico</icon><logo>logo.png</logo>").encode()
    private = atom.format("<logo>http://10.0.0.1/logo.png</logo>").encode()

    assert parse(both, url=URL).image_url == "https://radio.example.com/logo.png"
    assert parse(private, url=URL).image_url == ""


def test_episode_artwork_itunes_image_then_thumbnail_then_image_media_content():
    """itunes:image first, else media:thumbnail, else a media:content that is an image (by
    medium or type); an invalid one gives way to the next."""
    body = document(
        [
            '<itunes:image href="e0.jpg"/><media:thumbnail url="t0.jpg"/>',
            '<itunes:image href="javascript:x"/><media:thumbnail url="t1.jpg"/>',
            '<media:content url="v2.mp4" type="video/mp4"/>'
            '<media:content url="c2.png" medium="image"/>',
            '<media:content url="c3.jpg" type="image/jpeg"/>',
            '<media:content url="a4.mp3" type="audio/mpeg"/>',
        ]
    )

    assert [found.image_url.rpartition("/")[2] for found in episodes(body)] == [
        "e0.jpg",
        "t1.jpg",
        "c2.png",
        "c3.jpg",
        "",
    ]


def test_podcasting_elements_are_known_by_their_namespace_not_their_prefix():
    """Podcasting 2.0 under another prefix is read; a "podcast:" prefix bound to another
    namespace is not; every transcript is seen (feedparser keeps the last), the HTML one wins."""
    other_prefix = document(
        [
            '<pi:transcript url="https://cdn.example.com/1.html" type="text/html"/>'
            '<pi:transcript url="https://cdn.example.com/1.srt" type="application/srt"/>'
            '<pi:chapters url="https://cdn.example.com/1.json" type="application/json+chapters"/>'
        ],
        namespaces='xmlns:pi="https://podcastindex.org/namespace/1.0/"',
    )
    foreign = document(
        ['<podcast:transcript url="https://cdn.example.com/2.html" type="text/html"/>'],
        namespaces='xmlns:podcast="https://example.com/not-podcasting"',
    )

    (found,) = episodes(other_prefix)
    assert (found.transcript_url, found.transcript_type) == (
        "https://cdn.example.com/1.html",
        "text/html",
    )
    assert found.chapters_url == "https://cdn.example.com/1.json"
    assert episodes(foreign)[0].transcript_url == ""


def test_scanned_values_go_to_no_entry_when_the_counts_differ():
    """If expat and feedparser counted other entries, the values could go to the wrong one."""
    body = document(["<itunes:explicit>true</itunes:explicit>"] * 2)
    found = scan(body)

    assert scanned_entries(found, ["only one"]) == [None]
    assert scanned_entries(found, ["one", "two"]) == found.entries == [{"explicit": "true"}] * 2
