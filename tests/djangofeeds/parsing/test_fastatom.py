"""The fast Atom reader: every document it takes is stored exactly as feedparser's path stores it.

Each document goes through both readers; where the fast reader cannot prove
equality (an ``xml:base`` on the feed, a ``<source>`` before the id, unknown
elements) it refuses and feedparser reads the document. Both corpora check the
same: tests/corpus/real here, feedparser's own tests in test_fidelity.py (which
compares every document ``parse()`` gives it).
"""

from datetime import UTC, datetime

import pytest

from djangofeeds.parsing import fastatom, feedparser_reader, readers
from tests.support import fast_readers, fidelity
from tests.support.real_corpus import feed_files, name_of, url_of

URL = "https://blog.example.com/feed.atom"
ATOM = "application/atom+xml"


def atom(entry, feed="", declaration=True):
    head = '<?xml version="1.0" encoding="utf-8"?>\n' if declaration else ""
    return (
        f'{head}<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>Blog</title><id>urn:uuid:feed</id>{feed}<entry>{entry}</entry></feed>"
    ).encode()


def read_by_both(body, url=URL):
    return fast_readers.read_by_both(body, url, reader=fastatom, content_type=ATOM)


def test_a_common_entry_is_read_as_feedparser_s_path_reads_it():
    feed = read_by_both(
        atom(
            '<id>tag:blog.example.com,2026:1</id><title type="html">A &lt;b&gt;bold&lt;/b&gt; '
            'title</title><link rel="alternate" type="text/html" href="/posts/1"/>'
            '<link rel="enclosure" href="https://cdn.example.com/a.mp3" type="audio/mpeg" '
            'length="123"/><published>2026-11-02T10:00:00+01:00</published>'
            "<updated>2026-11-03T00:00:00Z</updated><author><name>Ada</name>"
            "<email>ada@example.com</email></author>"
            '<category term="redis" label="Redis" scheme="https://blog.example.com/tags"/>'
            '<summary>Short</summary><content type="html">&lt;p&gt;Long&lt;/p&gt;</content>',
            feed='<link href="https://blog.example.com/"/><subtitle>News</subtitle>'
            "<logo>/logo.png</logo>",
        )
    )

    entry = feed.entries[0]
    assert (feed.parser, feed.link, feed.description) == (
        "fastatom",
        "https://blog.example.com/",
        "News",
    )
    assert feed.image_url == "https://blog.example.com/logo.png"
    assert entry.link == "https://blog.example.com/posts/1"
    assert (entry.title, entry.author, entry.content) == (
        "A bold title",
        "Ada (ada@example.com)",
        "<p>Long</p>",
    )
    assert entry.published_at == datetime(2026, 11, 2, 9, tzinfo=UTC)
    assert entry.categories == [("Redis", "https://blog.example.com/tags")]
    assert entry.enclosures[0].url == "https://cdn.example.com/a.mp3"


def test_an_id_is_the_link_only_where_feedparser_s_path_keeps_it():
    """An absolute id without a link is the link; a relative one is resolved for the guid only."""
    feed = read_by_both(atom("<id>https://blog.example.com/posts/1</id><title>One</title>"))
    assert feed.entries[0].link == "https://blog.example.com/posts/1"

    feed = read_by_both(atom("<id>post-1</id><title>One</title>"))
    assert (feed.entries[0].guid, feed.entries[0].link) == ("https://blog.example.com/post-1", "")


def test_the_last_alternate_html_link_is_the_link_and_other_rels_are_stored_nowhere():
    feed = read_by_both(
        atom(
            '<id>urn:1</id><link href="https://a.example.com/1"/>'
            '<link rel="alternate" type="application/pdf" href="https://a.example.com/1.pdf"/>'
            '<link rel="replies" href="https://a.example.com/1#comments"/>'
            '<link rel="alternate" href="https://b.example.com/1"/>'
        )
    )
    assert feed.entries[0].link == "https://b.example.com/1"


@pytest.mark.parametrize(
    "entry",
    [
        '<id>urn:1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">'
        '<svg xmlns="http://www.w3.org/2000/svg"/></div></content>',
        '<id>urn:1</id><content type="xhtml">Text <div xmlns="http://www.w3.org/1999/xhtml">'
        "<p>x</p></div></content>",
        '<id>urn:1</id><content type="html"><p>inline markup</p></content>',
        '<id>urn:1</id><content src="https://a.example.com/1"/>',
        '<id>urn:1</id><content type="text/markdown">*x*</content>',
        "<source><id>urn:other</id></source><id>urn:1</id>",
        "<id>urn:1</id><author><name>A</name></author><author><name>B</name></author>",
        "<id>urn:1</id><title>One</title><title>Two</title>",
        '<id>urn:1</id><unknown xmlns="urn:x">?</unknown>',
        "<id>urn:1</id><updated>someday</updated>",
    ],
)
def test_what_it_cannot_prove_goes_to_feedparser(entry):
    assert fastatom.parse(atom(entry), url=URL, content_type=ATOM) is None


def test_xhtml_is_copied_as_feedparser_copies_it_and_xml_base_on_content_is_its_base():
    """The div's markup with lower-case names, rel and type values; links resolved against
    the content's xml:base."""
    feed = read_by_both(
        atom(
            '<id>urn:1</id><content type="xhtml" xml:base="https://other.example.com/dir/">'
            '<div xmlns="http://www.w3.org/1999/xhtml"><P>A &amp; <A HREF="page" REL="NoFollow">'
            'link</A><br/></P>\n <img src="i.png" alt="a &quot;b&quot;"/></div></content>'
        )
    )

    assert 'href="https://other.example.com/dir/page"' in feed.entries[0].content
    assert 'src="https://other.example.com/dir/i.png"' in feed.entries[0].content


def test_an_entry_s_xml_base_is_the_base_of_its_id_and_links():
    body = atom('<id>post-1</id><link href="p/1"/><link rel="enclosure" href="a.mp3"/>')
    feed = read_by_both(body.replace(b"<entry>", b'<entry xml:base="https://x.example/d/">'))

    assert (feed.entries[0].guid, feed.entries[0].link) == (
        "https://x.example/d/post-1",
        "https://x.example/d/p/1",
    )
    assert feed.entries[0].enclosures[0].url == "https://x.example/d/a.mp3"


def test_xml_base_on_the_feed_and_other_encodings_go_to_feedparser():
    body = atom("<id>urn:1</id>").replace(b"<feed ", b'<feed xml:base="https://x.example/" ')
    assert fastatom.parse(body, url=URL, content_type=ATOM) is None
    latin = atom("<id>urn:1</id>").replace(b"utf-8", b"iso-8859-1")
    assert fastatom.parse(latin, url=URL, content_type=ATOM) is None
    assert fastatom.parse(atom("<id>urn:1</id>"), url=URL, content_type="text/xml") is None


def test_parse_chooses_it_for_atom_after_the_rss_reader():
    assert readers.parse(atom("<id>urn:1</id>"), url=URL, content_type=ATOM).parser == "fastatom"


def test_every_real_atom_feed_it_takes_is_stored_as_feedparser_s_path_stores_it():
    """tests/corpus/real: 23 of its 25 Atom files (several <content>, a <source> before the
    entry's id go to feedparser)."""
    taken = []
    for path in feed_files():
        body, url = path.read_bytes(), url_of(path)
        fast = fastatom.parse(body, url=url, content_type="application/xml")
        if fast is None:
            continue
        slow = feedparser_reader.parse(body, url=url, content_type="application/xml")
        slow.parser = "fastatom"
        assert (fast, fast.all_dropped()) == (slow, slow.all_dropped()), name_of(path)
        taken.append(name_of(path))

    assert len(taken) >= 23
    assert {"fastfeedparser/kagi.xml", "fastfeedparser/osm.xml"} <= set(taken)


def test_it_takes_a_share_of_feedparser_s_corpus_and_only_atom_1_0():
    """Their fidelity is checked by test_fidelity.py, which compares them with feedparser's path."""
    taken = [path for path in fidelity.corpus_files() if fidelity.fast_atom_reader_takes(path)]

    assert len(taken) >= 408
    assert all(b"http://www.w3.org/2005/Atom" in path.read_bytes() for path in taken)
