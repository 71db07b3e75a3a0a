"""A fast reader for Atom 1.0, used only where it stores what feedparser would.

The same idea and the same safety gate as ``fastrss`` (UTF-8, no DTD or NUL
bytes, the cut of ``repair.tidy``, the slips ``repair.mended_tree`` mends with
feedparser's warning); it returns None for anything else, so that feedparser
reads it. Inside the gate:

- ``<feed>`` of the Atom 1.0 namespace, ``xml:base`` only on an entry or a text
  construct (the base of its id, links and markup, as feedparser records it; Media
  RSS under such a base goes to feedparser);
- the feed's title, subtitle, links, id, logo and icon (its artwork), and
  elements neither path stores (generator, rights, author, dates, GeoRSS,
  Stack Exchange's rank, a Creative Commons licence);
- an entry's id (resolved as feedparser resolves it), title, summary and one
  ``<content>`` of type text, html or xhtml (its ``<div>``'s markup copied as
  feedparser copies it; out-of-line content and other types go to feedparser),
  or a ``content:encoded``; one author (name, email, uri) and contributors; a
  ``<source>`` after the entry's id (stored by neither path);
  published and updated dates read by feedparser's own date parser; categories
  (term, scheme, label); links: the last alternate HTML one is the link,
  enclosures are enclosures, others are stored by neither path; Media RSS
  content and thumbnails as ``fastrss`` reads them;
- links resolved as feedparser resolves them (relative ones too).

tests/djangofeeds/parsing/test_fastatom.py checks that every document of both
corpora let through is stored exactly as the feedparser path stores it."""

import functools
import logging
from collections import Counter
from xml.etree import ElementTree

from feedparser.urls import _urljoin, make_safe_absolute_uri

from djangofeeds.parsing import entries, fastrss, repair, sanitize
from djangofeeds.parsing.fastatom_text import (
    ATOM,
    XML_BASE,
    XML_LANG,
    add_tag,
    check_declarations,
    content,
    plain,
    read_author,
    text_construct,
)
from djangofeeds.parsing.fastrss import DECLARATION, DTD, MEDIA_TYPES, media
from djangofeeds.parsing.fastrss_namespaces import media_enclosures, media_images, read_media
from djangofeeds.parsing.fastrss_values import Refused, absolute, date, text_of, utf8
from djangofeeds.parsing.media import categories_from, first_enclosure_url
from djangofeeds.parsing.podcasts import details, first_url

logger = logging.getLogger(__name__)

# As fastrss and feedparser's path: the first entries in document order only.
LIMIT = entries.MAX_ENTRIES * entries.PARSED_ENTRIES_PER_KEPT

CONTENT_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"
# Stored by neither path (feedparser keeps them under their own keys).
FEED_SKIPPED = {
    f"{ATOM}{name}" for name in ("generator", "rights", "updated", "published", "author")
}
ENTRY_SKIPPED = {f"{ATOM}rights"}
# feedparser's HTML types for a link (``map_content_type``); no type is text/html.
HTML_LINK_TYPES = {None, "text/html", "html", "xhtml", "application/xhtml+xml"}
LINK_ATTRIBUTES = {"rel", "href", "type", "length", "title", "hreflang"}
UNSTORED = {
    "{http://purl.org/atompub/rank/1.0}rank",
    "{http://backend.userland.com/creativeCommonsRssModule}license",
    # GeoRSS: feedparser's "where" of the entry.
    *(f"{{http://www.georss.org/georss}}{name}" for name in ("point", "box", "line", "polygon")),
}


def parse(body, *, url="", content_type=""):
    """A ``ParsedFeed``, or None when the document is outside the gate."""
    try:
        return read(body, url, content_type)
    except Refused:
        return None
    except entries.PARSER_BUGS:  # a bug of ours: feedparser still reads the feed
        logger.warning("the fast Atom reader failed on %s; feedparser reads it", url, exc_info=True)
        return None


def utf8_served(content_type):
    """``fastrss.utf8_served``, application/atom+xml included."""
    return fastrss.utf8_served(content_type, {*MEDIA_TYPES, "application/atom+xml"})


def tree_of(body, content_type):
    """The document's root and feedparser's warning, inside fastrss's gate and Atom 1.0's."""
    if not utf8_served(content_type):
        raise Refused
    declared = DECLARATION.match(body)
    if declared and not utf8(declared[1].decode("ascii", "replace")):
        raise Refused
    if b"\x00" in body or DTD.search(body):  # as fastrss: no entity can be defined
        raise Refused
    try:
        body.decode("utf-8")
        root, warning = repair.mended_tree(repair.tidy(body, LIMIT))
    except (ValueError, LookupError, ElementTree.ParseError) as exc:  # feedparser judges those
        raise Refused from exc
    if root.tag != f"{ATOM}feed" or set(root.attrib) - {XML_LANG}:
        raise Refused
    if b"xhtml" in body:
        check_declarations(body)
    return root, warning


def read(body, base, content_type):
    root, warning = tree_of(body, content_type)
    fields, items, tags, link, feed_id = {}, [], [], None, None
    for element in root:
        tag = element.tag
        if tag == f"{ATOM}entry" and not set(element.attrib) - {XML_BASE, XML_LANG}:
            items.append(element)
        elif tag == f"{ATOM}link":
            link = read_link(element, base, [], link)
        elif tag == f"{ATOM}category":
            add_tag(element, tags)
        elif tag == f"{ATOM}id" and feed_id is None and plain(element):
            # feedparser makes the feed's id its link when no link came before it.
            written = text_of(element)
            feed_id = (_urljoin(base, written) if written else "", link is None)
        elif tag in FEED_SKIPPED or unstored(element):
            continue
        elif tag in (f"{ATOM}title", f"{ATOM}subtitle") and tag not in fields:
            fields[tag] = text_construct(element, base)
        elif tag in (f"{ATOM}logo", f"{ATOM}icon") and tag not in fields and plain(element):
            fields[tag] = resolved(text_of(element), base)
        else:
            raise Refused
    if link is None and feed_id and feed_id[1]:
        link = feed_id[0]
    text = functools.cache(lambda: body.decode("utf-8"))
    drafts = [read_entry(item, base, text) for item in items[:LIMIT]]
    title, title_type, _ = fields.get(f"{ATOM}title", ("", "text/plain", base))
    dropped = Counter()
    return entries.ParsedFeed(
        title=sanitize.title_text(title, declared_text=title_type == "text/plain", limit=500),
        link=sanitize.web_link(link),
        description=sanitize.plain_text(fields.get(f"{ATOM}subtitle", ("",))[0]),
        ttl_minutes=None,
        entries=entries.kept_entries(drafts),
        parser="fastatom",
        warning=warning,
        categories=categories_from(tags, dropped),
        image_url=first_url([fields.get(f"{ATOM}logo"), fields.get(f"{ATOM}icon")], base),
        dropped=dropped,
    )


def read_entry(entry, feed_base, text):
    # An xml:base on the entry is the base feedparser resolves its id, links and markup
    # against (the feedparser path resolves enclosures against the document's URL again).
    base = entry_base(entry, feed_base)
    fields, enclosures, tags, found, link, author = {}, [], [], {}, None, None
    for element in entry:
        tag = element.tag
        if tag == f"{ATOM}link":
            link = read_link(element, base, enclosures, link)
        elif tag == f"{ATOM}category":
            add_tag(element, tags)
        elif tag == f"{ATOM}author" and author is None:
            author = read_author(element)
        elif tag == f"{ATOM}contributor" and read_author(element) is not None:
            continue  # feedparser's contributors, which neither path stores
        elif skipped(element, found, fields):
            if found and base != feed_base:
                raise Refused  # which base feedparser's path gives an image is its own
            continue
        elif tag in fields:
            raise Refused  # which one feedparser keeps is its own
        elif tag in (f"{ATOM}title", f"{ATOM}summary"):
            fields[tag] = text_construct(element, base)
        elif tag == f"{ATOM}content":
            fields[tag] = text_construct(element, base, content=True)
        elif tag == CONTENT_ENCODED and plain(element):
            fields[tag] = (text_of(element), "text/html", base)
        elif tag in (f"{ATOM}id", f"{ATOM}published", f"{ATOM}updated") and plain(element):
            fields[tag] = text_of(element)
        else:
            raise Refused
    if f"{ATOM}content" in fields and CONTENT_ENCODED in fields:
        raise Refused
    written_id = fields.get(f"{ATOM}id", "")
    guid = _urljoin(base, written_id) if written_id else ""
    if link is None and written_id:
        link = id_link(guid, written_id, text)
    title, title_type, _ = fields.get(f"{ATOM}title", ("", "text/plain", base))
    body, body_type, body_base = body_of(fields, base)
    updated = date(fields.get(f"{ATOM}updated"))
    enclosures += media_enclosures(found, title)
    podcast = {"images": media_images(found)}
    return entries.Draft(
        guid=sanitize.clean(guid),
        link=sanitize.web_link(link),
        raw_title=sanitize.clean(title),
        title_is_text=title_type == "text/plain",
        raw_author=sanitize.clean(author),
        read_content=lambda: content(body, body_type, body_base),
        content_size=len(body),
        published_at=date(fields.get(f"{ATOM}published")) or updated,
        updated_at=updated,
        read_media=lambda: media(enclosures, tags, feed_base),
        read_enclosure_url=lambda: first_enclosure_url(enclosures, feed_base),
        read_podcast=lambda: details(podcast, feed_base),
    )


def body_of(fields, base):
    """``(value, type, base)`` of the body the feedparser path stores: content, else summary."""
    body = fields.get(f"{ATOM}content") or fields.get(CONTENT_ENCODED) or ("", "text/plain", base)
    return body if body[0] else fields.get(f"{ATOM}summary", ("", "text/plain", base))


def skipped(element, found, fields):
    """Whether an entry's element is Media RSS (put in ``found``) or stored by neither path:
    rights, unstored elements, a ``<source>`` after the entry's id (its own id would tell
    feedparser how to read the next one)."""
    if element.tag == f"{ATOM}source":
        return f"{ATOM}id" in fields
    return read_media(element, found) or element.tag in ENTRY_SKIPPED or unstored(element)


def entry_base(entry, base):
    written = entry.get(XML_BASE)
    if written is None:
        return base
    if not base:
        raise Refused  # feedparser's own reading of a base without the document's URL
    return make_safe_absolute_uri(base, written) or base


def id_link(guid, written_id, text):
    """The link feedparser's path keeps of an entry's id when it has no link: feedparser
    takes the id, resolved, for the link, and the path keeps it only if the document
    holds it as written (``feedparser_reader.link_of``)."""
    if not guid.isascii() or any(mark in guid for mark in "&<>"):
        raise Refused
    if guid == written_id and guid in text():
        return guid
    if guid.lower() in text().lower():
        raise Refused  # the path's choice is its own
    return None


def read_link(element, base, enclosures, link):
    """The link so far after this ``<link>``; an enclosure appended to ``enclosures``."""
    if len(element) or (element.text or "").strip() or set(element.attrib) - LINK_ATTRIBUTES:
        raise Refused
    rel, kind = element.get("rel", "alternate"), element.get("type")
    href = element.get("href")
    if href is None:
        raise Refused
    url = resolved(href, base)
    if rel == "enclosure":
        enclosures.append(
            {"url": url or None, "type": kind or "text/html", "length": element.get("length")}
        )
    elif rel == "alternate" and (kind.lower() if kind else kind) in HTML_LINK_TYPES:
        return url  # feedparser keeps the last one
    return link


def resolved(value, base):
    """A URL as feedparser resolves it (against the document's URL: no xml:base here)."""
    if not value:
        return value
    return absolute(value, base) or _urljoin(base, value)


def unstored(element):
    """An element feedparser keeps under its own key only (Stack Exchange's rank, a
    licence, a GeoRSS shape)."""
    return element.tag in UNSTORED and not len(element)
