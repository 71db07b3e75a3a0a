"""The feedparser reader: any RSS or Atom dialect, through feedparser, as ``Draft`` entries.

``readers.parse`` sends here what none of ``fastrss``, ``fastatom`` and ``jsonfeed`` reads.
"""

import html
import re
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
from djangofeeds.parsing.feedparser_podcasts import episode, feed_image, scan, scanned_entries
from djangofeeds.parsing.media import categories_from, enclosures_from, first_enclosure_url
from djangofeeds.parsing.repair import prepare
from djangofeeds.parsing.sanitize import (
    clean,
    plain_text,
    safe_html,
    text_html,
    title_text,
    web_link,
)

HTML_TYPES = {"text/html", "application/xhtml+xml", "html", "xhtml"}
# Where expat says it stopped, in a form for people: "<unknown>:4:6:".
EXPAT_PLACE = re.compile(r"^<unknown>:(\d+):(\d+):")
# An item or entry element, namespaced or not: what a broken document held.
ITEM_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:item|entry)[\s/>]")


def parse(body, *, url="", content_type=""):
    """A ``ParsedFeed`` of any RSS or Atom document; ``NotAFeed`` with the reason if it is none."""
    body = prepare(body, entries.MAX_ENTRIES * entries.PARSED_ENTRIES_PER_KEPT)
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    try:
        # Content is sanitized and its links resolved once, by sanitize.safe_html, as
        # every reader's is: feedparser's own passes (pure Python) cost 70% of its parse.
        document = feedparser.parse(
            body, response_headers=headers, sanitize_html=False, resolve_relative_uris=False
        )
    except PARSER_BUGS as exc:  # a parser bug on hostile bytes is the document's problem
        raise NotAFeed(f"the document could not be parsed ({type(exc).__name__})") from exc
    if not document.version and not document.entries:
        reason = document.get("bozo_exception")
        detail = f" ({first_line(reason)})" if reason else ""
        kind = "an HTML page" if looks_like_html(body) else "not an RSS, Atom or JSON feed"
        raise NotAFeed(f"the document is {kind}{detail}")
    if not document.entries and document.get("bozo"):
        unread = len(ITEM_TAG.findall(body))
        if unread:  # not an empty feed: a broken one, whose posts would silently stop
            reason = first_line(document.get("bozo_exception")) or "ill-formed"
            reason = EXPAT_PLACE.sub(r"line \1, column \2:", reason)
            raise NotAFeed(f"none of the document's {unread} items could be read ({reason})")

    channel, written = document.feed, WrittenText(body, document)
    channel_dropped = Counter()
    podcast = scan(body)  # what feedparser does not keep of iTunes and Podcasting 2.0
    scanned = scanned_entries(podcast, document.entries)
    found = zip(document.entries, scanned, strict=True)
    drafts = [read_entry(entry, url, written, values) for entry, values in found]
    return ParsedFeed(
        title=title_text(channel.get("title"), declared_text=is_text(channel, "title"), limit=500),
        link=web_link(channel.get("link")),
        description=plain_text(channel.get("subtitle")),
        ttl_minutes=ttl_minutes(channel.get("ttl")),
        # Enclosure URLs resolve against the feed's URL like links (feedparser leaves RSS ones).
        entries=kept_entries(drafts),
        warning=first_line(document.get("bozo_exception")) if document.get("bozo") else "",
        categories=categories_from(tags_of(channel), channel_dropped),
        image_url=feed_image(channel, podcast, url),
        dropped=channel_dropped,
    )


def read_entry(entry, base_url="", written=None, scanned=None):
    """A feedparser entry as a ``Draft``; ``written``, the document's text (``WrittenText``)."""
    return Draft(
        guid=clean(entry.get("id")),
        link=web_link(link_of(entry, written)),
        original_link=web_link(clean(entry.get("feedburner_origlink"))),
        raw_title=clean(entry.get("title")),
        title_is_text=is_text(entry, "title"),
        raw_author=clean(entry.get("author")),
        read_content=lambda: content_of(entry, base_url),
        read_media=lambda: media_of(entry, base_url),
        read_enclosure_url=lambda: first_enclosure_url(enclosures_of(entry), base_url),
        # With what feedparser_podcasts.scan found of the entry (None: feedparser's reading).
        read_podcast=lambda: episode(entry, base_url, scanned),
        # RSS 1.0's dc:date arrives as "updated": it is the only date such feeds have.
        published_at=to_datetime(
            stored(entry, "published_parsed")
            or stored(entry, "created_parsed")
            or stored(entry, "updated_parsed")
        ),
        updated_at=to_datetime(stored(entry, "updated_parsed")),
    )


def link_of(entry, written):
    """The entry's link; not its id made absolute. feedparser takes an id for
    the link when there is no ``<link>`` (an RSS permalink guid), resolving it
    against the feed's URL: ``<id>a</id>`` would become ``http://host/path/a``,
    a page that never existed. Such a link counts only if written so."""
    link = entry.get("link") or ""
    if entry.get("guidislink") and link == entry.get("id") and written is not None:
        return link if written.holds(link) else ""
    return link


class WrittenText:
    """The document as text, decoded once and only when asked: does it hold a value as written?

    Compared without case: feedparser writes a scheme in lower case (``HTTP://`` as ``http://``).
    """

    def __init__(self, body, document):
        self.body, self.encoding = body, document.get("encoding") or "utf-8"
        self._text = None

    def holds(self, value):
        if self._text is None:
            try:
                self._text = self.body.decode(self.encoding, "replace").lower()
            except LookupError:  # an encoding Python does not know
                self._text = self.body.decode("utf-8", "replace").lower()
        value = value.lower()
        return value in self._text or html.escape(value, quote=False) in self._text


def is_text(element, key):
    """Whether ``key`` was plain text (Atom ``type="text"``, RSS text without HTML in it)."""
    detail = dict.get(element, f"{key}_detail") or {}
    return detail.get("type") == "text/plain"


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


def content_of(entry, base_url=""):
    """The entry's richest body, as safe HTML (HTML sanitized, its links resolved against
    its own base, ``xml:base`` included; text escaped)."""
    details = [*entry.get("content", []), entry.get("summary_detail")]
    for detail in details:
        if detail and detail.get("value"):
            value = clean(detail["value"])
            if detail.get("type", "text/html") not in HTML_TYPES:
                value = text_html(value)
            return safe_html(value, base=detail.get("base") or base_url)
    return ""


def looks_like_html(body):
    """Whether the bytes start as an HTML page does (the reason ``NotAFeed`` gives)."""
    head = body[:2048].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head
