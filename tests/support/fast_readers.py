"""The fast readers held against feedparser's path, on documents a test writes."""

from djangofeeds.parsing import fastrss, feedparser_reader

URL = "https://radio.example.com/podcast/feed.xml"
RSS = "application/rss+xml"


def document(item, channel="", namespaces=""):
    """An RSS 2.0 document with one item holding ``item`` (markup) besides its title and guid."""
    return (
        f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"{namespaces}><channel>'
        f"<title>Radio</title><link>https://radio.example.com/</link>{channel}"
        f'<item><title>Episode</title><guid isPermaLink="false">ep</guid>{item}</item>'
        "</channel></rss>"
    ).encode()


def read_by_both(body, url=URL, *, reader=fastrss, content_type=RSS):
    """The fast ``reader``'s feed, checked equal to the feedparser path's (dropped counts too)."""
    fast = reader.parse(body, url=url, content_type=content_type)
    assert fast is not None, "the fast reader refused the document"
    slow = feedparser_reader.parse(body, url=url, content_type=content_type)
    slow.parser = fast.parser
    assert (fast, fast.all_dropped()) == (slow, slow.all_dropped())
    return fast
