"""djangofeeds.parsing.links: feed links found in HTML bytes, and pages told from feeds."""

import pytest

from djangofeeds.parsing.links import FeedLink, decode, feed_links, is_html_page
from localservers.feed_server import json_feed, numbered_items, rss

PAGE = "https://example.com/blog/post.html"


def page(head, body=""):
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>".encode()


def test_feed_links_reads_rss_atom_and_json_feed_in_page_order():
    """Each feed type is found with its title and type, in the order the page lists them."""
    html = page(
        '<link rel="alternate" type="application/atom+xml" title="Atom" href="/atom.xml">'
        '<link rel="alternate" type="application/rss+xml" title="RSS" href="/rss.xml">'
        '<link rel="alternate" type="application/feed+json" title="JSON" href="/feed.json">'
    )

    assert feed_links(html, PAGE) == [
        FeedLink("https://example.com/atom.xml", "Atom", "application/atom+xml"),
        FeedLink("https://example.com/rss.xml", "RSS", "application/rss+xml"),
        FeedLink("https://example.com/feed.json", "JSON", "application/feed+json"),
    ]


def test_feed_links_resolves_relative_hrefs_against_the_page_and_its_base():
    """A relative href resolves against <base href> (itself relative to the page), or the page."""
    with_base = page(
        '<base href="/feeds/"><link rel="alternate" type="application/rss+xml" href="all.xml">'
    )
    without = page('<link rel="alternate" type="application/rss+xml" href="../all.xml">')

    assert feed_links(with_base, PAGE)[0].url == "https://example.com/feeds/all.xml"
    assert feed_links(without, PAGE)[0].url == "https://example.com/all.xml"


def test_feed_links_honours_the_first_base_even_after_the_link():
    """The document's base URL is its first <base href>, wherever the links are."""
    html = page(
        '<link rel="alternate" type="application/rss+xml" href="rss">'
        '<base href="https://cdn.example.net/site/"><base href="https://ignored.example/">'
    )

    assert [link.url for link in feed_links(html, PAGE)] == ["https://cdn.example.net/site/rss"]


def test_feed_links_reads_broken_markup_and_uppercase_names():
    """Unclosed tags, missing quotes, uppercase tags and attributes still give the links."""
    html = (
        b"<HTML><HEAD><TITLE>Old site<LINK REL=Alternate TYPE=Application/RSS+XML "
        b'HREF=/old.rss TITLE="Old  news"><div><p><LINK rel="ALTERNATE" '
        b"type='application/atom+xml; charset=utf-8' href='/a.atom' /><a href=\"x"
    )

    assert [(link.url, link.title, link.type) for link in feed_links(html, PAGE)] == [
        ("https://example.com/old.rss", "Old news", "application/rss+xml"),
        ("https://example.com/a.atom", "", "application/atom+xml"),
    ]


def test_feed_links_takes_rel_as_a_list_of_words():
    """rel="alternate feed" is an alternate; rel="stylesheet" or a missing rel is not."""
    html = page(
        '<link rel="alternate feed" type="application/rss+xml" href="/yes.xml">'
        '<link rel="stylesheet" type="application/rss+xml" href="/no.xml">'
        '<link type="application/rss+xml" href="/no-rel.xml">'
    )

    assert [link.url for link in feed_links(html, PAGE)] == ["https://example.com/yes.xml"]


def test_feed_links_needs_a_feed_type():
    """Alternates without a type, or of another type (a translation, a PDF), are not feeds."""
    html = page(
        '<link rel="alternate" href="/untyped">'
        '<link rel="alternate" hreflang="fr" type="text/html" href="/fr/">'
        '<link rel="alternate" type="application/pdf" href="/print.pdf">'
    )

    assert feed_links(html, PAGE) == []


def test_feed_links_takes_application_json_as_a_json_feed():
    """A JSON Feed announced as application/json counts; its label names the format."""
    html = page('<link rel="alternate" type="application/json" href="feed.json">')

    [link] = feed_links(html, PAGE)

    assert link.url == "https://example.com/blog/feed.json" and link.label == "JSON Feed"


def test_feed_links_keeps_each_http_url_once_and_ignores_links_in_scripts():
    """Duplicates, empty hrefs, javascript: and data: URLs and markup inside scripts are dropped."""
    html = page(
        '<link rel="alternate" type="application/rss+xml" href="/a.xml">'
        '<link rel="alternate" type="application/rss+xml" href="https://example.com/a.xml">'
        '<link rel="alternate" type="application/rss+xml" href="  ">'
        '<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">'
        '<link rel="alternate" type="application/rss+xml" href="data:text/xml,<rss/>">'
        '<script>document.write(\'<link rel="alternate" type="application/rss+xml" '
        'href="/script.xml">\')</script>'
    )

    assert [link.url for link in feed_links(html, PAGE)] == ["https://example.com/a.xml"]


CAFE = "<link rel=alternate type=application/rss+xml title=Café href=/f>"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (
            b'<meta charset="iso-8859-1">' + CAFE.encode("latin-1"),
            "",
        ),
        (
            CAFE.encode("cp1252"),
            "text/html; charset=windows-1252",
        ),
        (CAFE.encode(), ""),
        (
            b"\xef\xbb\xbf" + CAFE.encode(),
            "text/html; charset=latin-1",
        ),
    ],
    ids=["meta-charset", "header-charset", "utf-8", "bom-first"],
)
def test_feed_links_reads_titles_in_the_pages_encoding(body, content_type):
    """The title is decoded by the BOM, the header's charset, <meta charset>, or UTF-8."""
    assert feed_links(body, PAGE, content_type)[0].title == "Café"


def test_decode_falls_back_to_windows_1252_and_ignores_unknown_charsets():
    """Bytes that are not UTF-8, with a charset nobody knows, are read as windows-1252."""
    assert decode(b"caf\xe9 \x93q\x94", "text/html; charset=no-such-thing") == "café “q”"


@pytest.mark.parametrize(
    ("body", "content_type", "html"),
    [
        (page(""), "text/html", True),
        (page(""), "application/xml", True),  # a page served as XML
        (b'<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML//EN"><body/>', "", True),
        (b"<p>no html element", "text/html; charset=utf-8", True),
        (rss(numbered_items(1)), "text/html", False),  # a feed served as HTML
        (b'<?xml version="1.0"?><!-- hi --><feed xmlns="urn:x"/>', "text/html", False),
        (b'<atom:feed xmlns:atom="http://www.w3.org/2005/Atom"/>', "", False),
        (b'<rdf:RDF xmlns:rdf="urn:rdf"><channel/></rdf:RDF>', "", False),
        (json_feed([]), "application/json", False),
        (b"plain words", "text/plain", False),
    ],
    ids=[
        "html", "html-as-xml", "xhtml", "fragment-as-html", "rss-as-html", "atom-after-comment",
        "prefixed-atom", "rss-1.0", "json-feed", "text",
    ],
)  # fmt: skip
def test_is_html_page_judges_by_the_root_element_then_the_content_type(body, content_type, html):
    """The root element decides (html, or a feed's rss/feed/RDF); without one, the content type."""
    assert is_html_page(body, content_type) is html
