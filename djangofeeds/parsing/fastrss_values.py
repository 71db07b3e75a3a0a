"""The fast RSS reader's values: text, links and dates as feedparser reads them.

Each function returns what feedparser's path would store, or raises ``Refused``
when it cannot be sure, so that feedparser reads the whole document instead.
"""

import contextlib
import re
from datetime import UTC, datetime

from feedparser.datetimes import _parse_date
from feedparser.mixin import _FeedParserMixin
from feedparser.urls import _urljoin

from djangofeeds.parsing import entries, sanitize

# An absolute URL that urljoin gives back unchanged: lower-case scheme, a plain
# host, no empty query or fragment to drop.
PLAIN_URL = re.compile(r"https?://[\w.:@%~!$&'()*+,;=-]+(?:/[^\s?#]*)?(?:\?[^\s#]+)?(?:#\S+)?\Z")
# "Mon, 23 Nov 2026 10:00:00 GMT" (RFC 822 as RSS feeds write it), in UTC.
MONTHS = {
    name: number
    for number, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
COMMON_DATE = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?([0-9]{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct"
    r"|Nov|Dec) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) (?:GMT|UT|UTC|\+0000)"
)
# feedparser's repair of text that was UTF-8 read as Latin-1, and of windows-1252 controls.
CP1252_CONTROLS = re.compile("[\x80-\x9f]")


class Refused(Exception):
    """The document is outside the gate: feedparser reads it."""


def text_of(element):
    """An element's text as feedparser's ``pop`` leaves it: stripped, with its encoding repairs."""
    value = (element.text or "").strip()
    if value.isascii():
        return value
    with contextlib.suppress(UnicodeEncodeError, UnicodeDecodeError):
        value = value.encode("iso-8859-1").decode("utf-8")
    if CP1252_CONTROLS.search(value):
        raise Refused
    return value


def link(value, base):
    """A link as feedparser stores it (its query's ``&amp;`` undone); refused if relative."""
    if not value:
        return ""
    if absolute(value, base) != value:
        raise Refused
    return re.sub("&([A-Za-z0-9_]+);", r"&\g<1>", value.replace("&amp;", "&"))


def absolute(value, base):
    """``value`` as feedparser resolves it against ``base``; None if it is relative."""
    if PLAIN_URL.match(value):
        return value  # what urljoin returns for it, without the 0.1 ms of urljoin
    return _urljoin(base, value) if value.lower().startswith(("http://", "https://")) else None


def date(value):
    """A ``<pubDate>`` as feedparser reads it; refused if feedparser cannot."""
    if not value:
        return None
    common = COMMON_DATE.fullmatch(value)
    if common:
        # What feedparser's RFC 822 parser returns for the form nearly every
        # feed uses, without its 70 µs; any doubt (Feb 30, 24:00) goes to it.
        day, month, year, hour, minute, second = common.groups()
        with contextlib.suppress(ValueError):
            moment = datetime(int(year), MONTHS[month], int(day), int(hour), int(minute),
                              int(second), tzinfo=UTC)  # fmt: skip
            return entries.to_datetime(moment.timetuple())
    stamp = _parse_date(value)
    if stamp is None:
        raise Refused  # feedparser's reading of an unknown date form is its own
    return entries.to_datetime(stamp)


def utf8(name):
    """Whether a declared encoding or charset names UTF-8."""
    return name.strip().lower().replace("_", "-") in ("utf-8", "utf8")


looks_like_html = _FeedParserMixin.looks_like_html


def body_of(fields):
    """feedparser's content (content:encoded) before its summary (the description, else
    the iTunes summary: plain text unless feedparser guesses HTML)."""
    if "summary" in fields and "description" in fields:
        raise Refused  # feedparser makes the later one content: its own
    body = fields.get("content") or fields.get("description", "")
    if not body and (summary := fields.get("summary")):
        body = summary if looks_like_html(summary) else sanitize.text_html(summary)
    return body


def title_is_text(title):
    """Whether feedparser's path reads an RSS title as text: by feedparser's own guess (a
    closing tag or an entity, all of them HTML's, make it HTML)."""
    return not looks_like_html(title)


def author_name(element):
    """An Atom-like ``<author><name>Ada</name></author>`` in an item: feedparser's author."""
    if len(element) != 1 or element[0].tag != "name" or element.attrib:
        raise Refused
    name = element[0]
    if (element.text or "").strip() or (name.tail or "").strip() or len(name) or name.attrib:
        raise Refused
    return text_of(name)


def resolved_guid(guid, base, text, has_link):
    """A relative permalink guid as feedparser's path stores it: resolved against the
    base, and no link made of it (``feedparser_reader.link_of``) unless written so."""
    if not base or text is None or guid.lower().startswith(("http:", "https:")):
        raise Refused
    resolved = _urljoin(base, guid.strip())
    if not resolved.isascii() or any(mark in resolved for mark in "&<>"):
        raise Refused  # where feedparser's path would find it written is its own
    if not has_link and resolved.lower() in text() and sanitize.web_link(resolved):
        raise Refused  # feedparser's path takes it for the link (not one of http(s): none)
    return resolved
