"""RSS 1.0 through the fast RSS reader (djangofeeds.parsing.fastrdf): stored exactly as
feedparser's path stores it, or left to feedparser."""

import pytest

from djangofeeds.parsing import fastrss
from tests.support.fast_readers import RSS, URL, read_by_both

HEAD = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
    ' xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"'
    ' xmlns:content="http://purl.org/rss/1.0/modules/content/">'
)
CHANNEL = (
    '<channel rdf:about="https://radio.example.com/">'
    "<title>Radio 1.0</title><link>https://radio.example.com/</link>"
    "<description>Weekly</description>"
    '<image rdf:resource="https://radio.example.com/logo.png"/>'
    '<items><rdf:Seq><rdf:li rdf:resource="https://radio.example.com/1"/></rdf:Seq></items>'
    "</channel>"
)
IMAGE = (
    '<image rdf:about="https://radio.example.com/logo.png"><title>Radio</title>'
    "<url>https://radio.example.com/logo.png</url><link>https://radio.example.com/</link></image>"
)


def item(about, extra=""):
    return (
        f'<item rdf:about="{about}"><title>One &amp; two</title>'
        f"<link>https://radio.example.com/posts/1</link><dc:creator>Ada</dc:creator>"
        f"<dc:date>2026-11-02T10:00:00Z</dc:date>"
        f"<content:encoded><![CDATA[<p>Hi <a href='/more'>more</a></p>]]></content:encoded>"
        f"{extra}</item>"
    )


def test_an_rss_1_0_feed_is_read_fast_as_feedparser_reads_it():
    """Items beside the channel, each identified by its rdf:about; the image left out."""
    body = (HEAD + CHANNEL + IMAGE + item("https://radio.example.com/1") + "</rdf:RDF>").encode()
    feed = read_by_both(body)

    assert feed.title == "Radio 1.0" and feed.image_url == ""  # feedparser keeps no URL of it
    (entry,) = feed.entries
    assert (entry.guid, entry.link) == (
        "https://radio.example.com/1",
        "https://radio.example.com/posts/1",
    )
    assert (entry.title, entry.author) == ("One & two", "Ada")
    assert 'href="https://radio.example.com/more"' in entry.content


def test_an_rdf_about_that_is_no_link_stays_the_id_as_written():
    """feedparser takes rdf:about as the id, unresolved, and makes no link of it."""
    body = (
        HEAD
        + CHANNEL
        + item("urn:radio:1").replace("<link>https://radio.example.com/posts/1</link>", "")
        + "</rdf:RDF>"
    ).encode()
    (entry,) = read_by_both(body).entries
    assert (entry.guid, entry.link) == ("urn:radio:1", "")


@pytest.mark.parametrize(
    "body",
    [
        HEAD
        + CHANNEL
        + item("https://radio.example.com/1")
        + '<textinput rdf:about="x"><title>Search</title></textinput></rdf:RDF>',
        HEAD + CHANNEL + item(" https://radio.example.com/1") + "</rdf:RDF>",
        HEAD + CHANNEL + item("https://radio.example.com/1", "<guid>other</guid>") + "</rdf:RDF>",
        HEAD + CHANNEL + CHANNEL + "</rdf:RDF>",
    ],
    ids=["text input", "padded rdf:about", "a guid too", "two channels"],
)
def test_what_feedparser_reads_its_own_way_is_left_to_it(body):
    assert fastrss.parse(body.encode(), url=URL, content_type=RSS) is None
