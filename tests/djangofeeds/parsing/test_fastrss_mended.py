"""Slips of real feeds the fast RSS reader mends as feedparser's lenient parser reads past them.

Whitespace before the XML declaration, and the iTunes or Podcasting 2.0 prefix
used undeclared (26 of podcastparser's test feeds): both readers store the same
feed with the same warning. Any other slip still goes to feedparser.
"""

import codecs

import pytest

from djangofeeds.parsing import fastrss
from tests.support.fast_readers import RSS, URL, read_by_both

PODCAST = "https://podcastindex.org/namespace/1.0"


def episode(extra="", *, declaration='<?xml version="1.0" encoding="utf-8"?>\n', rss="<rss>"):
    """A podcast document over several lines (expat's positions are per line)."""
    return (
        f"{declaration}{rss}\n<channel>\n<title>Radio</title>\n"
        "<link>https://radio.example.com/</link>\n"
        '<item><title>One</title><guid isPermaLink="false">ep1</guid>\n'
        f"{extra}\n"
        '<enclosure url="https://radio.example.com/1.mp3" type="audio/mpeg" length="5"/>'
        "</item>\n</channel>\n</rss>\n"
    ).encode()


@pytest.mark.parametrize("declaration", ['<?xml version="1.0" encoding="utf-8"?>\n', ""])
def test_an_undeclared_itunes_prefix_is_read_with_feedparser_s_warning(declaration):
    body = episode("<itunes:duration>00:20:00</itunes:duration>", declaration=declaration)
    feed = read_by_both(body)
    assert feed.entries[0].podcast.duration == 1200
    assert feed.warning.endswith(": unbound prefix")


def test_undeclared_podcast_transcript_and_chapters_are_read_as_the_scan_reads_them():
    feed = read_by_both(
        episode(
            '<podcast:transcript url="https://radio.example.com/t.vtt" type="text/vtt"/>'
            '<podcast:transcript url="https://radio.example.com/t.html" type="text/html"/>'
            '<podcast:chapters url="https://radio.example.com/c.json" type="application/json"/>'
        )
    )
    details = feed.entries[0].podcast  # an HTML transcript wins
    assert (details.transcript_url, details.transcript_type) == (
        "https://radio.example.com/t.html",
        "text/html",
    )
    assert details.chapters_url == "https://radio.example.com/c.json"


def test_declared_podcasting_elements_neither_path_stores_are_skipped():
    rss = f'<rss version="2.0" xmlns:podcast="{PODCAST}">'
    feed = read_by_both(episode('<podcast:person role="host">Ada</podcast:person>', rss=rss))
    assert feed.warning == ""


def test_whitespace_before_the_declaration_is_read_with_feedparser_s_warning():
    body = b"\n  " + episode()
    feed = read_by_both(body)
    assert "XML or text declaration not at start of entity" in feed.warning


def test_an_undeclared_prefix_of_another_namespace_goes_to_feedparser():
    assert fastrss.parse(episode("<media:title>x</media:title>"), url=URL, content_type=RSS) is None


def test_a_slip_on_the_declaration_s_own_line_goes_to_feedparser():
    """feedparser puts its own declaration there: the column would not be the same."""
    body = episode("", declaration='<?xml version="1.0" encoding="utf-8"?><rss><itunes:x/>')
    assert fastrss.parse(body, url=URL, content_type=RSS) is None


def test_itunes_categories_and_keywords_are_the_feed_s_categories_in_feedparser_s_order():
    rss = '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
    body = episode(rss=rss).replace(
        b"<title>Radio</title>",
        b'<title>Radio</title><itunes:category text="Business">'
        b'<itunes:category text="Investing"/></itunes:category>'
        b"<itunes:keywords>rpg, , dice</itunes:keywords>",
    )
    names = [name for name, _domain in read_by_both(body).categories]
    assert sorted(names) == ["Business", "Investing", "dice", "rpg"]


def test_an_episode_s_itunes_author_is_its_author():
    rss = '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
    feed = read_by_both(episode("<itunes:author>Ada Lovelace</itunes:author>", rss=rss))
    assert feed.entries[0].author == "Ada Lovelace"


@pytest.mark.parametrize(
    "channel, item",
    [
        ("<itunes:summary>About the show</itunes:summary>", ""),
        ("<author>The editor</author>", ""),
        (
            "",
            '<psc:chapters version="1.2"><psc:chapter start="0" title="Intro"/>'
            '<psc:chapter start="60" title="News" href="https://radio.example.com/n"/>'
            "</psc:chapters>",
        ),
    ],
)
def test_elements_feedparser_keeps_under_keys_of_its_own_are_skipped(channel, item):
    rss = (
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
        ' xmlns:psc="http://podlove.org/simple-chapters">'
    )
    body = episode(item, rss=rss).replace(
        b"<title>Radio</title>", f"<title>Radio</title>{channel}".encode()
    )
    assert read_by_both(body).title == "Radio"


def test_a_byte_order_mark_before_the_declaration_changes_no_line():
    """feedparser drops the mark and keeps the document's declaration: same lines."""
    feed = read_by_both(codecs.BOM_UTF8 + episode("<itunes:season>2</itunes:season>"))
    assert feed.warning == "<unknown>:7:0: unbound prefix"
