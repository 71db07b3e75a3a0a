"""JSON Feed 1.0 and 1.1 (https://www.jsonfeed.org/version/1.1/), read into ``parse``'s types.

The rules are those of RSS and Atom: ``content_html`` sanitized, ``content_text``
escaped, relative URLs resolved against the feed's URL, dates parsed, authors
inherited from the feed, the guid from ``id``, the same caps on entries. A
document is taken for a JSON Feed by its content type or by its ``version`` URL.
"""

import codecs
import json
import re
from collections import Counter
from decimal import Decimal
from urllib.parse import urljoin

import feedparser
from feedparser.mixin import _FeedParserMixin

from djangofeeds.parsing import entries, podcasts, sanitize
from djangofeeds.parsing.media import categories_from, enclosures_from, first_enclosure_url

MEDIA_TYPES = {"application/feed+json", "application/json"}
VERSION_PREFIX = "https://jsonfeed.org/version/"
# How deep objects and arrays may nest. A JSON Feed needs 4 (feed, items,
# item, authors or attachments); extensions may add a few. The check runs
# before json.loads, whose recursion is never reached.
MAX_DEPTH = 32
STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def media_type(content_type):
    return content_type.split(";")[0].strip().lower()


def is_json_feed(body, content_type):
    """Whether to read ``body`` as a JSON Feed: its content type says JSON, or it names a version.

    XML served as JSON (a misconfigured server) is left to the XML readers.
    Only the start of the document is looked at for the version URL: it is
    the first key in every published feed we know of.
    """
    head = body[:1024].lstrip().removeprefix(codecs.BOM_UTF8).lstrip()
    if media_type(content_type) in MEDIA_TYPES:
        return not head.startswith(b"<")
    return head.startswith(b"{") and b"jsonfeed.org/version/" in head.replace(b"\\/", b"/")


def too_deep(body):
    """Whether the arrays and objects of a JSON document nest deeper than ``MAX_DEPTH``.

    Strings are dropped, then innermost pairs of brackets removed once per
    level allowed: a pair left after that is nested deeper. (Unbalanced
    brackets are left for json.loads to report.) A few passes of C code,
    whatever the size.
    """
    brackets = STRING.sub(b"", body).translate(None, NOT_BRACKETS)
    brackets = brackets.replace(b"{", b"[").replace(b"}", b"]")
    for _ in range(MAX_DEPTH):
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return False
    return b"[]" in brackets


def parse(body, *, url=""):
    """Read a JSON Feed; raise ``entries.NotAFeed`` with a readable reason if it is none."""
    if too_deep(body):
        raise entries.NotAFeed(f"the JSON document nests deeper than {MAX_DEPTH} levels")
    try:
        # RFC 8259: UTF-8 only (json.loads would guess UTF-16 or UTF-32 from bytes).
        # Decimal: a number keeps the digits it was written with (an id 3.10 is "3.10").
        text_body = body.removeprefix(codecs.BOM_UTF8).decode("utf-8")
        document = json.loads(text_body, parse_float=Decimal)
    except UnicodeDecodeError as exc:
        raise entries.NotAFeed(f"the JSON document is not UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise entries.NotAFeed(
            f"the document is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from exc
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        raise entries.NotAFeed(
            f"the document is not valid JSON: {entries.first_line(exc)}"
        ) from exc
    except RecursionError as exc:  # should MAX_DEPTH ever be set above the interpreter's limit
        raise entries.NotAFeed("the JSON document nests too deeply") from exc
    version = document.get("version") if isinstance(document, dict) else None
    items = document.get("items") if isinstance(document, dict) else None
    if not isinstance(version, str) or not version.startswith(VERSION_PREFIX):
        raise entries.NotAFeed(
            "the document is JSON but not a JSON Feed (no https://jsonfeed.org/version/ URL)"
        )
    if not isinstance(items, list):
        raise entries.NotAFeed("the JSON Feed has no list of items")

    feed_authors = author_names(document)
    limit = entries.MAX_ENTRIES * entries.PARSED_ENTRIES_PER_KEPT
    drafts = [
        read_item(item, url, feed_authors) for item in items[:limit] if isinstance(item, dict)
    ]
    return entries.ParsedFeed(
        title=title_of(text(document.get("title")), limit=500),
        link=sanitize.web_link(absolute(url, document.get("home_page_url"))),
        description=sanitize.plain_text(text(document.get("description"))),
        entries=entries.kept_entries(drafts),
        parser="jsonfeed",
        # The feed's artwork: its icon (512 by 512), else its favicon.
        image_url=podcasts.first_url([document.get("icon"), document.get("favicon")], url),
    )


def read_item(item, base, feed_authors):
    """One item as a ``Draft``; its ``attachments`` and ``tags`` are read if it is kept."""
    raw_id = item.get("id")
    # JSON Feed 1.0 allowed numbers (read as written: 3.10 is "3.10"); a boolean
    # or an object is no id.
    number = isinstance(raw_id, (int, Decimal)) and not isinstance(raw_id, bool)
    guid = str(raw_id) if isinstance(raw_id, str) or number else ""
    title = sanitize.clean(text(item.get("title")))
    return entries.Draft(
        guid=sanitize.clean(guid),
        link=sanitize.web_link(absolute(base, item.get("url") or item.get("external_url"))),
        raw_title=title,
        title_is_text=not looks_like_html(title),
        raw_author=author_names(item) or feed_authors,
        read_content=lambda: content(item, base),
        read_media=lambda: media(item, base),
        read_podcast=lambda: episode(item, base),
        read_enclosure_url=lambda: first_enclosure_url(attachments_of(item), base),
        id_is_new=isinstance(raw_id, Decimal),  # earlier releases read whole numbers only
        published_at=date(item.get("date_published") or item.get("date_modified")),
        updated_at=date(item.get("date_modified")),
    )


def content(item, base):
    """``content_html`` sanitized, else ``content_text`` (or ``summary``) escaped."""
    markup = sanitize.clean(text(item.get("content_html")))
    if markup:
        return sanitize.safe_html(markup, base)
    plain = sanitize.clean(text(item.get("content_text")) or text(item.get("summary")))
    return sanitize.safe_html(sanitize.text_html(plain)) if plain else ""


def media(item, base):
    """``attachments`` as enclosures and ``tags`` as categories, by RSS and Atom's rules."""
    dropped = Counter()
    tags = [{"name": tag} for tag in listed(item.get("tags")) if isinstance(tag, str)]
    enclosures = enclosures_from(attachments_of(item), base, dropped)
    return enclosures, categories_from(tags, dropped), dropped


def attachments_of(item):
    """``attachments`` as the dicts ``media.enclosures_from`` reads."""
    return [
        {
            "url": text(a.get("url")),
            "type": text(a.get("mime_type")),
            "length": a.get("size_in_bytes"),
        }
        for a in listed(item.get("attachments"))
        if isinstance(a, dict)
    ]


def looks_like_html(title):
    """Whether a title holds HTML after all, by the rule feedparser applies to RSS titles
    (closing tags or entities, all of HTML's): "Caf&eacute;" is HTML, "Nice <gorilla>" text.

    The spec says titles are plain text, but publishers escape them as for RSS.
    """
    return _FeedParserMixin.looks_like_html(title)


def title_of(title, limit=None):
    """A title as plain text, kept as written where it holds no HTML (``looks_like_html``)."""
    return sanitize.title_text(title, declared_text=not looks_like_html(title), limit=limit)


def episode(item, base):
    """``image`` (else ``banner_image``) and the attachments' ``duration_in_seconds`` as
    ``PodcastDetails``, by the rules of iTunes' elements."""
    attachments = [a for a in listed(item.get("attachments")) if isinstance(a, dict)]
    durations = [attachment.get("duration_in_seconds") for attachment in attachments]
    raw = {
        "images": [item.get("image"), item.get("banner_image")],
        "duration": next((value for value in durations if podcasts.duration(value)), None),
    }
    return podcasts.details(raw, base)


def listed(value):
    return value if isinstance(value, list) else []


def author_names(holder):
    """The names of 1.1's ``authors`` (or 1.0's ``author``), comma-separated."""
    authors = holder.get("authors")
    if not isinstance(authors, list):
        authors = [holder.get("author")]
    names = [text(author.get("name")) for author in authors if isinstance(author, dict)]
    return ", ".join(name for name in names if name.strip())


def date(value):
    """An RFC 3339 date (or any form feedparser knows) as an aware UTC datetime, else None."""
    if not isinstance(value, str) or len(value) > 100:
        return None
    return entries.to_datetime(feedparser.datetimes._parse_date(value))


def absolute(base, value):
    value = text(value).strip()
    if not value:
        return ""
    try:
        return urljoin(base, value)
    except ValueError:  # e.g. an invalid IPv6 literal
        return ""


def text(value):
    """A string field's value; "" for anything else (a number, a list, null)."""
    return value if isinstance(value, str) else ""
