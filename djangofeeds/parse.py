"""Turn feed bytes into plain data with feedparser: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0."""

import calendar
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import feedparser
from django.utils.html import escape, linebreaks

# The newest entries only: a feed that lists its whole history is not re-read
# in full on every fetch.
MAX_ENTRIES = 500
HTML_TYPES = {"text/html", "application/xhtml+xml", "html", "xhtml"}
# A date this far ahead is a publisher's mistake, not a schedule.
FUTURE_SLACK = timedelta(days=1)


class NotAFeed(ValueError):
    """The document is not an RSS or Atom feed."""


@dataclass
class ParsedEntry:
    guid: str
    title: str = ""
    link: str = ""
    author: str = ""
    content: str = ""
    published_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def guid_hash(self):
        return sha256(self.guid)

    @property
    def checksum(self):
        dates = [d.isoformat() if d else "" for d in (self.published_at, self.updated_at)]
        return sha256("\x1f".join([self.title, self.link, self.author, self.content, *dates]))


@dataclass
class ParsedFeed:
    title: str = ""
    link: str = ""
    description: str = ""
    ttl_minutes: int | None = None
    entries: list[ParsedEntry] = field(default_factory=list)
    total_entries: int = 0  # before the MAX_ENTRIES cut
    warning: str = ""  # why feedparser called the feed ill-formed, when it still parsed


def sha256(text):
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def clean(text, limit=None):
    """Text as the database accepts it: no NUL bytes (PostgreSQL refuses them), bounded."""
    text = (text or "").replace("\x00", "").strip()
    return text[:limit] if limit else text


def parse(body, *, url="", content_type=""):
    """Parse feed bytes; raise ``NotAFeed`` with a readable reason if they are no feed."""
    if not body.strip():
        raise NotAFeed("the server sent an empty body")
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    # sanitize_html strips scripts, event handlers and javascript: URLs from
    # HTML content; relative links are resolved against the feed's URL.
    document = feedparser.parse(body, response_headers=headers, sanitize_html=True)
    if not document.version and not document.entries:
        reason = document.get("bozo_exception")
        detail = f" ({first_line(reason)})" if reason else ""
        kind = "an HTML page" if looks_like_html(body) else "not an RSS or Atom feed"
        raise NotAFeed(f"the document is {kind}{detail}")

    channel = document.feed
    entries = [parse_entry(entry) for entry in document.entries]
    entries = choose_guids(entries)
    entries.sort(key=newest_first, reverse=True)
    return ParsedFeed(
        title=clean(channel.get("title"), 500),
        link=web_link(channel.get("link")),
        description=clean(channel.get("subtitle")),
        ttl_minutes=to_int(channel.get("ttl")),
        entries=unique(entries)[:MAX_ENTRIES],
        total_entries=len(entries),
        warning=first_line(document.get("bozo_exception")) if document.get("bozo") else "",
    )


def web_link(url):
    """An http(s) link of sane length, or "" (no javascript: or data: links on our pages)."""
    url = clean(url)
    return url if url.lower().startswith(("http://", "https://")) and len(url) <= 2000 else ""


def parse_entry(entry):
    return ParsedEntry(
        guid=clean(entry.get("id")),
        title=clean(entry.get("title")),
        link=web_link(entry.get("link")),
        author=clean(entry.get("author"), 500),
        content=content_of(entry),
        # RSS 1.0's dc:date arrives as "updated": it is the only date such feeds have.
        published_at=to_datetime(
            stored(entry, "published_parsed")
            or stored(entry, "created_parsed")
            or stored(entry, "updated_parsed")
        ),
        updated_at=to_datetime(stored(entry, "updated_parsed")),
    )


def stored(entry, key):
    """A key as feedparser stored it, without its deprecated date fallbacks (and their warnings)."""
    return dict.get(entry, key)


def content_of(entry):
    """The entry's richest body, as safe HTML (feedparser sanitized HTML; text is escaped)."""
    details = [*entry.get("content", []), entry.get("summary_detail")]
    for detail in details:
        if detail and detail.get("value"):
            value = clean(detail["value"])
            if detail.get("type", "text/html") in HTML_TYPES:
                return value
            return linebreaks(escape(value))
    return ""


def choose_guids(entries):
    """guid = entry id, else link, else a hash of title and content.

    Some feeds put one id on every entry (a template bug); then the ids say
    nothing and the links are used instead. A link shared by several entries
    (often the site's home page) says nothing either: those get the hash.
    """
    ids = {entry.guid for entry in entries}
    ids_useless = len(entries) > 1 and len(ids) == 1
    links = Counter(entry.link for entry in entries)
    for entry in entries:
        if ids_useless or not entry.guid:
            if entry.link and links[entry.link] == 1:
                entry.guid = entry.link
            else:
                entry.guid = "sha256:" + sha256(entry.title + "\x1f" + entry.content)
    return entries


def unique(entries):
    """Drop repeated guids, keeping the first (newest) one."""
    seen, kept = set(), []
    for entry in entries:
        if entry.guid_hash not in seen:
            seen.add(entry.guid_hash)
            kept.append(entry)
    return kept


def newest_first(entry):
    moment = entry.published_at or entry.updated_at
    return moment.timestamp() if moment else float("-inf")


def to_datetime(parsed):
    """feedparser's UTC struct_time as an aware datetime; implausible dates become None."""
    if not parsed:
        return None
    try:
        moment = datetime.fromtimestamp(calendar.timegm(parsed), UTC)
    except (OverflowError, ValueError, OSError):
        return None
    if moment.year < 1970 or moment > datetime.now(UTC) + FUTURE_SLACK:
        return None
    return moment


def to_int(value):
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def looks_like_html(body):
    head = body[:2048].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head


def first_line(error):
    text = str(error or "").strip().splitlines()
    return text[0][:500] if text else ""
