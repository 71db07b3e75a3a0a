"""The fast RSS reader's namespaced elements: read exactly as the feedparser path reads them.

Each document goes through both readers (``read_by_both``); where the fast
reader cannot prove equality (an alternate ``atom:link``, iTunes, Media RSS) it
refuses and feedparser reads the document. The real corpus (tests/corpus/real)
checks the same on real feeds.
"""

from datetime import UTC, datetime

import pytest

from djangofeeds.parsing import fastrss, feedparser_reader
from tests.support.fast_readers import RSS, URL, document, read_by_both
from tests.support.real_corpus import feed_files, name_of, url_of

CONTENT = ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'
DC = ' xmlns:dc="http://purl.org/dc/elements/1.1/"'
ATOM = ' xmlns:atom="http://www.w3.org/2005/Atom"'
OTHERS = (
    ' xmlns:slash="http://purl.org/rss/1.0/modules/slash/"'
    ' xmlns:wfw="http://wellformedweb.org/CommentAPI/"'
    ' xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"'
)
ITUNES = ' xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
MEDIA = ' xmlns:media="http://search.yahoo.com/mrss/"'


def test_content_encoded_is_the_body_before_the_description():
    feed = read_by_both(
        document(
            "<description>Short</description>"
            "<content:encoded><![CDATA[<p>The <b>whole</b> post</p>]]></content:encoded>",
            namespaces=CONTENT,
        )
    )

    assert feed.entries[0].content == "<p>The <b>whole</b> post</p>"


def test_an_empty_content_encoded_leaves_the_description():
    feed = read_by_both(
        document("<description>Short</description><content:encoded/>", namespaces=CONTENT)
    )

    assert feed.entries[0].content == "Short"


def test_dublin_core_creator_date_and_subject():
    """dc:creator is the author, dc:date the updated date (and the published one without a
    pubDate), dc:subject a category in document order; the channel's too."""
    feed = read_by_both(
        document(
            "<dc:creator>Ada Lovelace</dc:creator><dc:date>2026-11-02T10:00:00+01:00</dc:date>"
            "<category>Brokers</category><dc:subject>Redis</dc:subject>",
            channel="<dc:subject>Technology</dc:subject><dc:language>en</dc:language>",
            namespaces=DC,
        )
    )

    entry = feed.entries[0]
    assert entry.author == "Ada Lovelace"
    assert entry.published_at == entry.updated_at == datetime(2026, 11, 2, 9, tzinfo=UTC)
    assert entry.categories == [("Brokers", ""), ("Redis", "")]
    assert feed.categories == [("Technology", "")]


def test_a_pubdate_stays_the_published_date_beside_dc_date():
    feed = read_by_both(
        document(
            "<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>"
            "<dc:date>2026-11-03T00:00:00Z</dc:date>",
            namespaces=DC,
        )
    )

    assert feed.entries[0].published_at == datetime(2026, 11, 2, 10, tzinfo=UTC)
    assert feed.entries[0].updated_at == datetime(2026, 11, 3, tzinfo=UTC)


def test_elements_neither_path_stores_are_skipped():
    feed = read_by_both(
        document(
            "<slash:comments>4</slash:comments><wfw:commentRss>https://radio.example.com/c"
            "</wfw:commentRss><comments>https://radio.example.com/ep#c</comments>",
            channel='<atom:link href="https://radio.example.com/feed.xml" rel="self"'
            ' type="application/rss+xml"/><sy:updatePeriod>hourly</sy:updatePeriod>'
            "<image><url>https://radio.example.com/logo.png</url><title>Radio</title>"
            "<link>https://radio.example.com/</link></image>",
            namespaces=ATOM + OTHERS,
        )
    )

    assert feed.parser == "fastrss"
    assert feed.image_url == "https://radio.example.com/logo.png"


@pytest.mark.parametrize(
    ("item", "channel", "namespaces"),
    [
        # feedparser may take an alternate link (or one without rel) for the entry's link.
        ('<atom:link href="https://radio.example.com/other"/>', "", ATOM),
        ("", '<atom:link rel="alternate" href="https://radio.example.com/x"/>', ATOM),
        # feedparser makes the later of two summaries the content; these are the author
        # and the title.
        ("<description>Short</description><itunes:summary>Long</itunes:summary>", "", ITUNES),
        ("<itunes:author>Ada</itunes:author><author>a@b.c (Ada)</author>", "", ITUNES),
        ("<itunes:duration>1</itunes:duration><itunes:duration>2</itunes:duration>", "", ITUNES),
        (
            "",
            '<itunes:image href="https://radio.example.com/a.png"/><image><url>'
            "https://radio.example.com/b.png</url></image>",
            ITUNES,
        ),
        # feedparser keeps the author written last.
        ("<author>a@example.com</author><dc:creator>Ada</dc:creator>", "", DC),
        ("<dc:title>Another title</dc:title>", "", DC),
        ("<dc:creator>Ada</dc:creator><dc:creator>Grace</dc:creator>", "", DC),
        (
            "<content:encoded>One</content:encoded><content:encoded>Two</content:encoded>",
            "",
            CONTENT,
        ),
        ("<media:group><media:title>Other</media:title></media:group>", "", MEDIA),
        ("<media:thumbnail>https://radio.example.com/t.png</media:thumbnail>", "", MEDIA),
    ],
)
def test_what_it_cannot_prove_equal_goes_to_feedparser(item, channel, namespaces):
    body = document(item, channel=channel, namespaces=namespaces)

    assert fastrss.parse(body, url=URL, content_type=RSS) is None


def test_itunes_episode_details_and_artwork_as_the_feedparser_path_gives_them():
    feed = read_by_both(
        document(
            "<itunes:duration>1:02:03</itunes:duration><itunes:season>2</itunes:season>"
            "<itunes:episode>7</itunes:episode><itunes:explicit>true</itunes:explicit>"
            '<itunes:image href="https://radio.example.com/ep7.jpg"/>',
            channel='<itunes:image href="https://radio.example.com/show.jpg"/>'
            "<itunes:author>Radio</itunes:author><itunes:explicit>no</itunes:explicit>",
            namespaces=ITUNES,
        )
    )

    podcast = feed.entries[0].podcast
    assert (podcast.duration, podcast.season, podcast.episode) == (3723, 2, 7)
    assert podcast.explicit is True  # Apple's "true", which feedparser alone loses
    assert podcast.image_url == "https://radio.example.com/ep7.jpg"
    assert feed.image_url == "https://radio.example.com/show.jpg"


def test_media_rss_content_and_thumbnails_as_the_feedparser_path_reads_them():
    """media:content after the enclosures (in a group too), its image or a thumbnail as the
    episode's artwork."""
    feed = read_by_both(
        document(
            '<enclosure url="https://cdn.example.com/a.mp3" type="audio/mpeg" length="5"/>'
            '<media:content url="https://cdn.example.com/b.ogg" fileSize="7" type="Audio/Ogg"/>'
            '<media:group><media:content url="https://cdn.example.com/c.jpg" medium="image"/>'
            '<media:thumbnail url="https://cdn.example.com/t.jpg" width="75"/></media:group>',
            namespaces=MEDIA,
        )
    )

    entry = feed.entries[0]
    urls = [enclosure.url for enclosure in entry.enclosures]
    assert urls[:2] == ["https://cdn.example.com/a.mp3", "https://cdn.example.com/b.ogg"]
    assert entry.podcast.image_url == "https://cdn.example.com/t.jpg"


CLIP = (
    '<media:content url="https://cdn.example.com/a.mp4" medium="video">'
    '<media:title type="plain">Clip</media:title></media:content>'
)
RSSBOARD = ' xmlns:{prefix}="http://www.rssboard.org/media-rss"'


def test_a_media_title_under_the_item_s_own_title_is_read_as_feedparser_reads_it():
    """feedparser keeps the item's title over a media:title written deeper, in either order."""
    for item in (CLIP, CLIP + "<title>Later</title>"):
        body = document(item, namespaces=MEDIA)
        if "Later" in item:
            body = body.replace(b"<title>Episode</title>", b"")
        entry = read_by_both(body).entries[0]
        assert entry.title == ("Later" if "Later" in item else "Episode")
        assert [e.url for e in entry.enclosures] == ["https://cdn.example.com/a.mp4"]


def test_a_media_title_that_is_feedparser_s_title_goes_to_feedparser():
    """With no title of the item's own, feedparser's title is the media:title: refused."""
    body = document(CLIP, namespaces=MEDIA).replace(b"<title>Episode</title>", b"")
    assert fastrss.parse(body, url=URL, content_type=RSS) is None
    assert feedparser_reader.parse(body, url=URL, content_type=RSS).entries[0].title == "Clip"


def test_the_rss_board_s_media_namespace_is_read_as_feedparser_reads_it_by_its_prefix():
    """feedparser knows Yahoo's namespace only, but reads any "media:" element as Media RSS."""
    body = document(CLIP.replace(' medium="video"', ""), namespaces=RSSBOARD.format(prefix="media"))
    entry = read_by_both(body).entries[0]
    assert [e.url for e in entry.enclosures] == ["https://cdn.example.com/a.mp4"]

    other_prefix = body.replace(b"xmlns:media=", b"xmlns:m=").replace(b"media:", b"m:")
    assert fastrss.parse(other_prefix, url=URL, content_type=RSS) is None


def test_a_permalink_guid_without_a_link_is_the_link():
    body = document("").replace(
        b'<guid isPermaLink="false">ep</guid>', b"<guid>https://radio.example.com/ep/1</guid>"
    )

    assert read_by_both(body).entries[0].link == "https://radio.example.com/ep/1"


@pytest.mark.parametrize(
    ("item", "guid", "link"),
    [
        ("<guid>ep/1</guid>", "https://radio.example.com/podcast/ep/1", ""),
        (
            "<guid>Episode one</guid><link>https://radio.example.com/1</link>",
            "https://radio.example.com/podcast/Episode one",
            "https://radio.example.com/1",
        ),
    ],
)
def test_a_relative_permalink_guid_is_resolved_and_no_link(item, guid, link):
    """As feedparser's path stores it: the guid resolved against the feed's URL, and no
    link made of it (a page that never existed)."""
    body = document("").replace(b'<guid isPermaLink="false">ep</guid>', item.encode())

    entry = read_by_both(body).entries[0]
    assert (entry.guid, entry.link) == (guid, link)


def test_a_relative_permalink_guid_written_resolved_elsewhere_goes_to_feedparser():
    body = document("<description>https://radio.example.com/podcast/ep/1</description>").replace(
        b'<guid isPermaLink="false">ep</guid>', b"<guid>ep/1</guid>"
    )

    assert fastrss.parse(body, url=URL, content_type=RSS) is None


def test_an_item_s_source_is_stored_by_neither_path():
    """Before or after the title: the item keeps its own title."""
    for order in ("before", "after"):
        source = '<source url="https://other.example/feed.xml">Other feed</source>'
        title = "<title>Episode</title>"
        body = document("").replace(
            title.encode(), (source + title if order == "before" else title + source).encode()
        )
        assert read_by_both(body).entries[0].title == "Episode"


def test_an_xml_base_on_rss_resolves_the_content_s_links():
    body = document(
        '<description>&lt;a href="post"&gt;Read&lt;/a&gt;</description>',
        namespaces=' xml:base="https://cdn.example.com/blog/"',
    )

    content = read_by_both(body).entries[0].content
    assert 'href="https://cdn.example.com/blog/post"' in content


@pytest.mark.parametrize(
    ("content_type", "taken"),
    [("text/xml; charset=UTF-8", True), ("text/xml", False), ("text/xml; charset=latin-1", False)],
)
def test_text_xml_is_taken_with_a_utf_8_charset_only(content_type, taken):
    """feedparser reads text/xml without a charset as US-ASCII (RFC 3023)."""
    body = document("<description>Caf\u00e9 \u2603</description>")
    fast = fastrss.parse(body, url=URL, content_type=content_type)

    assert (fast is not None) == taken
    if taken:
        slow = feedparser_reader.parse(body, url=URL, content_type=content_type)
        slow.parser = "fastrss"
        assert fast == slow and fast.entries[0].content == "Caf\u00e9 \u2603"


def test_rss_0_91_and_a_version_less_rss_are_read_as_feedparser_reads_them():
    for version in (' version="0.91"', ""):
        body = document("<description>Hello</description>").replace(
            b' version="2.0"', version.encode()
        )
        assert read_by_both(body).entries[0].content == "Hello"


def test_every_real_feed_the_fast_reader_takes_is_stored_as_feedparser_s_path_stores_it():
    """tests/corpus/real: 4 of its 119 files were taken before namespaced elements were read."""
    taken = []
    for path in feed_files():
        body, url = path.read_bytes(), url_of(path)
        fast = fastrss.parse(body, url=url, content_type="application/xml")
        if fast is None:
            continue
        slow = feedparser_reader.parse(body, url=url, content_type="application/xml")
        slow.parser = "fastrss"
        assert (fast, fast.all_dropped()) == (slow, slow.all_dropped()), name_of(path)
        taken.append(name_of(path))

    # 70 before feedparser's title guess, iTunes summaries, odd <rss>s; 78 before the RSS
    # Board's Media RSS namespace and a media:title under the item's own title.
    assert len(taken) >= 79


@pytest.mark.parametrize(
    "summary",
    [
        "<itunes:summary>Long &amp; plain: 1 &lt; 2</itunes:summary>",  # text, escaped
        "<itunes:summary>Long &lt;b&gt;bold&lt;/b&gt;</itunes:summary>",  # HTML: a closing tag
        "<itunes:subtitle>Short</itunes:subtitle><itunes:summary>Long</itunes:summary>"
        "<content:encoded>&lt;p&gt;Full&lt;/p&gt;</content:encoded>",  # the content wins
    ],
)
def test_an_episode_s_itunes_summary_is_its_body_as_on_feedparser_s_path(summary):
    """podcastparser's itunes_subtitle.rss went to feedparser for these."""
    namespaces = ITUNES + ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'
    feed = read_by_both(document(summary, namespaces=namespaces))
    assert feed.entries[0].content


@pytest.mark.parametrize(
    ("title", "stored"),
    [
        ("The &amp;amp; entity", "The & entity"),  # atoma's encoding.xml: HTML by its entity
        ("1939:&amp;nbsp;House", "1939: House"),  # vintagehomeplans.xml: a plain space
        ("Nice &lt;gorilla&gt; what's he weigh?", "Nice <gorilla> what's he weigh?"),  # text
        ("A &lt;b&gt;bold&lt;/b&gt; move", "A bold move"),  # a closing tag: HTML
        ("Odd &amp;nosuch; entity", "Odd &nosuch; entity"),  # an unknown entity: text
    ],
)
def test_titles_are_text_or_html_by_feedparser_s_own_guess(title, stored):
    body = document("").replace(b"<title>Episode</title>", f"<title>{title}</title>".encode())
    assert read_by_both(body).entries[0].title == stored
