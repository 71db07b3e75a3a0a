"""A fast reader for RSS 0.91 to 2.0 and 1.0, used only where it stores what feedparser would.

feedparser costs ~0.4 ms per entry in pure Python; this reader lets expat (C)
build the tree and does the little left in a few lines, 4-8x faster. It
reads only documents inside a gate, and returns None for anything else so
that feedparser reads it:

- UTF-8 (declared or not), served as application/rss+xml or application/xml,
  or as text/xml with a UTF-8 charset;
- well-formed, without a DTD or NUL bytes, but for two slips ``repair.mended_tree``
  mends with the warning feedparser's path stores (whitespace before the XML
  declaration; the iTunes or Podcasting 2.0 prefix used undeclared);
- ``<rss>`` of any version or none (an ``xml:base`` on it is the content's base),
  or RSS 1.0's ``<rdf:RDF>`` (``fastrdf``), with one ``<channel>``, no other
  attributes (but a guid's ``isPermaLink``, an enclosure's ``url``, ``type`` and
  ``length``, a category's ``domain``, an ``itunes:image``'s ``href`` or ``url``);
- channel and item elements from short lists, each item element at most once
  (but ``<category>`` and ``<enclosure>``), text only (no markup in titles or
  authors, no nested elements but the ``<image>``'s, no empty category);
- namespaced elements only those of ``fastrss_namespaces`` (``content:encoded``,
  ``dc:creator``, ``dc:date``, ``dc:subject``, iTunes episode details and
  artwork, categories, keywords and an episode's author, Media RSS content and
  thumbnails, Podcasting 2.0 transcripts and chapters; others neither path stores);
- links absolute, as feedparser would resolve them; a permalink guid absolute
  (then the link of an item without one) or relative, resolved as feedparser
  resolves it when no link is made of it;
- every ``<pubDate>`` and ``dc:date`` read by feedparser's own date parser.

The fidelity suites (tests/djangofeeds/parsing/test_fidelity.py on feedparser's
own test corpus, test_fastrss_namespaces.py on tests/corpus/real) check that
every document let through is stored exactly as the feedparser path stores it."""

import functools
import logging
import re
from collections import Counter
from xml.etree import ElementTree

from feedparser.urls import _urljoin

from djangofeeds.parsing import entries, fastrdf, repair, sanitize
from djangofeeds.parsing.fastrss_namespaces import (
    AUTHORS,
    ITEM_FIELDS,
    ITUNES_CATEGORY,
    ITUNES_IMAGE,
    ITUNES_KEYWORDS,
    ITUNES_SUMMARY,
    SUBJECT,
    feed_image,
    image_of,
    itunes_tags,
    media_by_prefix,
    media_enclosures,
    media_images,
    plain,
    read_episode,
    read_media,
    skipped_in_channel,
    skipped_in_item,
)
from djangofeeds.parsing.fastrss_values import (
    Refused,
    absolute,
    author_name,
    body_of,
    date,
    link,
    resolved_guid,
    text_of,
    title_is_text,
    utf8,
)
from djangofeeds.parsing.media import categories_from, enclosures_from, first_enclosure_url
from djangofeeds.parsing.podcasts import details

logger = logging.getLogger(__name__)

MEDIA_TYPES = {"application/rss+xml", "application/xml"}
DTD = re.compile(rb"<!DOCTYPE|<!ENTITY")
DECLARATION = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([^\"']*)", re.IGNORECASE)
CHANNEL_TAGS = {
    *("title", "link", "description", "ttl", "language", "generator", "copyright"),
    *("lastBuildDate", "pubDate", "docs", "managingEditor", "webMaster", "item", "category"),
    *("image", ITUNES_IMAGE),
}
ITEM_TAGS = {"title", "link", "description", "pubDate", "guid", "author", *ITEM_FIELDS}
# feedparser reads any <rss> as it reads 2.0: 0.91, 0.92, none (podcasts), a mistaken
# "1.0" (RSS 1.0 is <rdf:RDF>, which it reads otherwise).
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
# Attributes read as feedparser reads them (media.py then normalizes both paths alike).
MEDIA_ATTRIBUTES = {"enclosure": {"url", "type", "length"}, "category": {"domain"}, SUBJECT: set()}
# Text feedparser would read as HTML (a tag or a character reference) in a title or author.
HTMLISH = re.compile(r"<|&#?\w+;")


def parse(body, *, url="", content_type=""):
    """A ``ParsedFeed``, or None when the document is outside the gate."""
    try:
        return read(body, url, content_type)
    except Refused:
        return None
    except entries.PARSER_BUGS:  # a bug of ours: feedparser still reads the feed
        logger.warning("the fast RSS reader failed on %s; feedparser reads it", url, exc_info=True)
        return None


def utf8_served(content_type, types=MEDIA_TYPES):
    """Whether feedparser reads a document served so as UTF-8 (unless it declares another),
    served as one of ``types`` (or text/xml with a charset)."""
    media, _, parameters = content_type.partition(";")
    media = media.strip().lower()
    charset = re.search(r"charset\s*=\s*\"?([^\s;\"]+)", parameters, re.IGNORECASE)
    if charset:
        return utf8(charset[1]) and media in {*types, "text/xml"}
    # text/xml without a charset is US-ASCII for feedparser (RFC 3023).
    return media in types


def read(body, base, content_type):
    if not utf8_served(content_type):
        raise Refused
    declared = DECLARATION.match(body)
    if declared and not utf8(declared[1].decode("ascii", "replace")):
        raise Refused
    # Without a DTD no entity can be defined: no billion laughs, no external
    # entities; expat refuses any undefined one. (defusedxml would check the
    # same, but through the pure-Python tree builder: 3x slower.)
    # NUL bytes: UTF-16 without a byte order mark is valid UTF-8 too.
    if b"\x00" in body or DTD.search(body):
        raise Refused
    limit = entries.MAX_ENTRIES * entries.PARSED_ENTRIES_PER_KEPT
    try:
        body.decode("utf-8")
        # The same cut as feedparser's path: a document of 100,000 entries
        # builds no tree of 100,000 entries.
        root, warning = repair.mended_tree(repair.tidy(body, limit))
    except (ValueError, LookupError, ElementTree.ParseError) as exc:  # feedparser judges those
        raise Refused from exc
    if fastrdf.is_rdf(root):  # RSS 1.0
        root = fastrdf.as_rss(root)
    media_by_prefix(root, body)
    channels = list(root)
    attributes = dict(root.attrib)
    # feedparser resolves the content's links against an xml:base on <rss>.
    content_base = _urljoin(base, attributes.pop(XML_BASE)) if XML_BASE in attributes else base
    if root.tag != "rss" or set(attributes) - {"version"} or len(channels) > 1:
        raise Refused
    # An <rss> with nothing in it: a feed with no entries, for feedparser too.
    channel = channels[0] if channels else ElementTree.Element("channel")
    if (root.text or "").strip():
        raise Refused
    if channel.tag != "channel" or channel.attrib:
        raise Refused
    fields, items, tags = read_channel(channel)
    text = functools.cache(lambda: body.decode("utf-8").lower())
    drafts = [read_item(item, base, content_base, text) for item in items[:limit]]
    title, description = fields.get("title", ""), fields.get("description", "")
    if "<" in description:
        raise Refused
    dropped = Counter()
    return entries.ParsedFeed(
        title=sanitize.title_text(title, declared_text=title_is_text(title), limit=500),
        link=sanitize.web_link(link(fields.get("link", ""), base)),
        description=sanitize.plain_text(description),
        ttl_minutes=entries.ttl_minutes(fields.get("ttl")),
        entries=entries.kept_entries(drafts),
        parser="fastrss",
        warning=warning,
        categories=categories_from(tags, dropped),
        image_url=feed_image(fields, base, content_base),
        dropped=dropped,
    )


def read_channel(channel):
    """``(fields, items, tags)`` of the ``<channel>``: its text fields and images, its
    ``<item>`` elements, its categories (with iTunes') as ``category`` gives them."""
    fields, items, tags = {}, [], []
    for element in channel:
        if element.tag in (ITUNES_CATEGORY, ITUNES_KEYWORDS):
            tags += itunes_tags(element)
            continue
        if skipped_in_channel(element):
            continue
        if element.tag not in CHANNEL_TAGS and element.tag != SUBJECT:
            raise Refused
        if element.tag in ("category", SUBJECT):
            tags.append(category(element))
        elif element.tag == "item" and not element.attrib:
            items.append(element)
        elif element.tag in ("image", ITUNES_IMAGE) and element.tag not in fields:
            fields[element.tag] = image_of(element)
        elif element.tag in fields or len(element) or element.attrib:
            raise Refused
        else:
            fields[element.tag] = text_of(element)
    return fields, items, tags


def read_item(item, base, content_base=None, text=None):
    fields, permalink, enclosures, tags, podcast, found = {}, False, [], [], {}, {}
    for element in item:
        if read_episode(element, podcast) or read_media(element, found):
            if (podcast.get("images") or found) and content_base not in (None, base):
                raise Refused  # which base feedparser's path gives an image is its own
            continue
        if element.tag == "enclosure":
            enclosures.append(enclosure(element))
            continue
        if element.tag in ("category", SUBJECT):
            tags.append(category(element))
            continue
        if skipped_in_item(element) or read_other_forms(element, fields):
            continue
        key = ITEM_FIELDS.get(element.tag, element.tag)
        if element.tag not in ITEM_TAGS or key in fields or len(element):
            raise Refused
        if element.attrib and (element.tag != "guid" or set(element.attrib) != {"isPermaLink"}):
            raise Refused
        if element.tag == "guid":
            permalink = element.get("isPermaLink", "true") == "true"
        fields[key] = text_of(element)
    authors = [fields[key] for key in AUTHORS if key in fields]
    if len(authors) > 1:
        raise Refused  # feedparser keeps the one written last
    title, author = fields.get("title", ""), authors[0] if authors else ""
    if HTMLISH.search(author):
        raise Refused
    guid = fields.get("guid", "")
    if permalink and guid and absolute(guid, base) != guid:
        guid = resolved_guid(guid, content_base or base, text, "link" in fields)
    elif permalink and guid and "link" not in fields:
        if "&" in guid:
            raise Refused  # how the link feedparser makes of it is escaped is its own
        fields["link"] = guid  # feedparser takes such a guid (absolute, as written) for the link
    # Media RSS content after the RSS enclosures, its images after the iTunes one.
    enclosures += media_enclosures(found, title)
    podcast["images"] = [*podcast.get("images", ()), *media_images(found)]
    body = body_of(fields)
    updated = date(fields.get("dc_date"))
    return entries.Draft(
        guid=guid,
        link=sanitize.web_link(link(fields.get("link", ""), base)),
        original_link=sanitize.web_link(fields.get("original_link", "").strip()),
        raw_title=title,
        title_is_text=title_is_text(title),
        raw_author=author,
        read_content=lambda: sanitize.safe_html(body, content_base or base) if body else "",
        content_size=len(body),
        published_at=date(fields.get("pubDate")) or updated,
        updated_at=updated,
        read_media=lambda: media(enclosures, tags, base),
        read_enclosure_url=lambda: first_enclosure_url(enclosures, base),
        read_podcast=lambda: details(podcast, base),
    )


def read_other_forms(element, fields):
    """Whether ``element`` is an item's author as Atom writes it or its iTunes summary:
    read into ``fields`` as feedparser's path reads them."""
    if element.tag == "author" and len(element) and "author" not in fields:
        fields["author"] = author_name(element)
        return True
    if element.tag == ITUNES_SUMMARY and plain(element) and "summary" not in fields:
        fields["summary"] = text_of(element)  # feedparser's summary, as text or HTML
        return True
    return False


def enclosure(element):
    """An ``<enclosure>`` as the dict ``feedparser_reader.enclosures_of`` makes of a link."""
    check_media_element(element)
    # feedparser keeps a url only when it is not empty, and lower-cases the type.
    kind = element.get("type")
    return {"url": element.get("url") or None, "type": kind and kind.lower(),
            "length": element.get("length")}  # fmt: skip


def category(element):
    """A ``<category>`` as the dict ``feedparser_reader.tags_of`` makes of feedparser's tag."""
    check_media_element(element)
    name = text_of(element)
    if not name:
        # feedparser would give its domain to the next category's name.
        raise Refused
    return {"name": name, "domain": element.get("domain")}


def check_media_element(element):
    if len(element) or not set(element.attrib) <= MEDIA_ATTRIBUTES[element.tag]:
        raise Refused
    if element.tag == "enclosure" and (element.text or "").strip():
        raise Refused


def media(enclosures, tags, base):
    """``(enclosures, categories, dropped)`` as ``feedparser_reader.media_of`` gives them."""
    dropped = Counter()
    return enclosures_from(enclosures, base, dropped), categories_from(tags, dropped), dropped
