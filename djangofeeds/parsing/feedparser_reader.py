"""The feedparser reader: any RSS or Atom dialect, through feedparser, as ``Draft`` entries.

``readers.parse`` sends here what neither ``fastrss`` nor ``jsonfeed`` reads.
"""

from collections import Counter

import feedparser

from djangofeeds.parsing import entries
from djangofeeds.parsing.entries import (
    PARSER_BUGS,
    Draft,
    NotAFeed,
    ParsedFeed,
    first_line,
    kept_entries,
    to_datetime,
    ttl_minutes,
)
from djangofeeds.parsing.media import categories_from, enclosures_from
from djangofeeds.parsing.repair import prepare
from djangofeeds.parsing.sanitize import (
    clean,
    plain_text,
    safe_html,
    text_html,
    web_link,
)

HTML_TYPES = {"text/html", "application/xhtml+xml", "html", "xhtml"}


def parse(body, *, url="", content_type=""):
    """A ``ParsedFeed`` of any RSS or Atom document; ``NotAFeed`` with the reason if it is none."""
    body = prepare(body, entries.MAX_ENTRIES * entries.PARSED_ENTRIES_PER_KEPT)
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    try:
        # sanitize_html strips scripts, event handlers and javascript: URLs from
        # HTML content; relative links are resolved against the feed's URL.
        document = feedparser.parse(body, response_headers=headers, sanitize_html=True)
    except PARSER_BUGS as exc:  # a parser bug on hostile bytes is the document's problem
        raise NotAFeed(f"the document could not be parsed ({type(exc).__name__})") from exc
    if not document.version and not document.entries:
        reason = document.get("bozo_exception")
        detail = f" ({first_line(reason)})" if reason else ""
        kind = "an HTML page" if looks_like_html(body) else "not an RSS, Atom or JSON feed"
        raise NotAFeed(f"the document is {kind}{detail}")

    channel = document.feed
    channel_dropped = Counter()
    return ParsedFeed(
        title=plain_text(channel.get("title"), 500),
        link=web_link(channel.get("link")),
        description=plain_text(channel.get("subtitle")),
        ttl_minutes=ttl_minutes(channel.get("ttl")),
        # Enclosure URLs resolve against the feed's URL like links (feedparser leaves RSS ones).
        entries=kept_entries([read_entry(entry, url) for entry in document.entries]),
        warning=first_line(document.get("bozo_exception")) if document.get("bozo") else "",
        categories=categories_from(tags_of(channel), channel_dropped),
        dropped=channel_dropped,
    )


def read_entry(entry, base_url=""):
    """A feedparser entry as a ``Draft``."""
    return Draft(
        guid=clean(entry.get("id")),
        link=web_link(entry.get("link")),
        raw_title=clean(entry.get("title")),
        raw_author=clean(entry.get("author")),
        read_content=lambda: content_of(entry),
        read_media=lambda: media_of(entry, base_url),
        # RSS 1.0's dc:date arrives as "updated": it is the only date such feeds have.
        published_at=to_datetime(
            stored(entry, "published_parsed")
            or stored(entry, "created_parsed")
            or stored(entry, "updated_parsed")
        ),
        updated_at=to_datetime(stored(entry, "updated_parsed")),
    )


def media_of(entry, base_url):
    """``(enclosures, categories, dropped)`` of a feedparser entry, by ``parsing.media``."""
    dropped = Counter()
    enclosures = enclosures_from(enclosures_of(entry), base_url, dropped)
    return enclosures, categories_from(tags_of(entry), dropped), dropped


LINK_FIELDS = [("url", "href"), ("type", "type"), ("length", "length")]


def enclosures_of(entry):
    """RSS ``<enclosure>`` and Atom ``link rel="enclosure"``, then Media RSS
    ``media:content``, as the dicts ``media.enclosures_from`` reads."""
    # dict.get: feedparser's own get() is slow, and builds "enclosures" from "links" anyway.
    found = [
        {key: dict.get(link, name) for key, name in LINK_FIELDS}
        for link in dict.get(entry, "links") or []
        if dict.get(link, "rel") == "enclosure"
    ]
    found += [
        {"url": media.get("url"), "type": media.get("type"), "length": media.get("filesize")}
        for media in dict.get(entry, "media_content") or []
        if media.get("url")  # <media:content> may carry only a player or a thumbnail
    ]
    return found


def tags_of(element):
    """RSS ``<category domain>`` and Atom ``category term/scheme/label`` as name/domain dicts.

    An Atom label is the category's name for people; the term its identifier.
    """
    return [
        {"name": dict.get(tag, "label") or dict.get(tag, "term"), "domain": dict.get(tag, "scheme")}
        for tag in dict.get(element, "tags") or []
    ]


def stored(entry, key):
    """A key as feedparser stored it, without its deprecated date fallbacks (and their warnings)."""
    return dict.get(entry, key)


def content_of(entry):
    """The entry's richest body, as safe HTML (HTML sanitized twice; text escaped)."""
    details = [*entry.get("content", []), entry.get("summary_detail")]
    for detail in details:
        if detail and detail.get("value"):
            value = clean(detail["value"])
            if detail.get("type", "text/html") not in HTML_TYPES:
                value = text_html(value)
            return safe_html(value)
    return ""


def looks_like_html(body):
    """Whether the bytes start as an HTML page does (the reason ``NotAFeed`` gives)."""
    head = body[:2048].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head
