"""The namespaced elements the fast RSS reader reads, as feedparser's path reads them.

An element of another namespace, or of these under another name, sends the
document to feedparser. Read here: ``content:encoded`` (the body, before the
description), ``dc:creator`` (the author), ``dc:date`` (the updated date, and
the published one without a ``<pubDate>``), ``dc:subject`` (a category),
iTunes episode details (``podcasts.details``' raw values) and artwork, and Media
RSS ``media:content`` (an enclosure, or an image; its ``media:title`` when the item
has a title of its own) and ``media:thumbnail``, in Yahoo's namespace or the RSS
Board's (``media_by_prefix``),
Podcasting 2.0 ``podcast:transcript`` and ``podcast:chapters`` (the others, the
iTunes owner, new feed URL and channel summary, the channel's ``<author>`` and
Podlove's inline chapters are stored by neither path).
Skipped because neither path stores them: ``slash:``, ``wfw:``, ``sy:``,
``feedburner:`` and WordPress's elements, an item's ``<comments>`` and
``<source>``, the channel's ``dc:`` language, rights, publisher, creator and
date, and ``atom:link`` to the feed itself, its hub, its pages or a payment
page. The channel's ``<image>`` gives the feed's artwork (its ``<url>``)."""

import re

from djangofeeds.parsing.fastrss_values import Refused, text_of
from djangofeeds.parsing.podcasts import first_url

CONTENT = "{http://purl.org/rss/1.0/modules/content/}"
DC = "{http://purl.org/dc/elements/1.1/}"
ATOM = "{http://www.w3.org/2005/Atom}"
SLASH = "{http://purl.org/rss/1.0/modules/slash/}"
WFW = "{http://wellformedweb.org/CommentAPI/}"
SY = "{http://purl.org/rss/1.0/modules/syndication/}"
FEEDBURNER = "{http://rssnamespace.org/feedburner/ext/1.0}"
WORDPRESS = "{com-wordpress:feed-additions:1}"
ITUNES = "{http://www.itunes.com/dtds/podcast-1.0.dtd}"
ITUNES_IMAGE = f"{ITUNES}image"
PODCAST = "{https://podcastindex.org/namespace/1.0}"
TRANSCRIPT, CHAPTERS = f"{PODCAST}transcript", f"{PODCAST}chapters"
MEDIA = "{http://search.yahoo.com/mrss/}"
MEDIA_CONTENT, MEDIA_THUMBNAIL, MEDIA_GROUP, MEDIA_TITLE = (
    f"{MEDIA}{name}" for name in ("content", "thumbnail", "group", "title")
)
MEDIA_TITLED = "media:title in media:content"  # a key of read_media's ``found``
RSSBOARD_MEDIA = b"http://www.rssboard.org/media-rss"
NAMESPACE_BINDING = re.compile(rb"xmlns:([^\s=]+)\s*=\s*[\"']([^\"']*)[\"']")
# An item's iTunes elements: their key in ``podcasts.details``' raw values (its image's,
# "images"). Others (author, summary, subtitle) feedparser files as RSS ones.
EPISODE_FIELDS = {f"{ITUNES}{name}": name for name in ("duration", "season", "episode", "explicit")}

# An item's elements read as an RSS element is: their key in the item's fields.
ITEM_FIELDS = {
    f"{CONTENT}encoded": "content",
    f"{FEEDBURNER}origLink": "original_link",  # stories.keys, not a stored column
    f"{DC}creator": "creator",
    f"{DC}date": "dc_date",
    f"{ITUNES}author": "itunes_author",  # feedparser's author too
}
AUTHORS = ("author", "creator", "itunes_author")
# Read as a ``<category>`` without domain (feedparser makes a tag of either).
SUBJECT = f"{DC}subject"
ITUNES_SUMMARY = f"{ITUNES}summary"  # an episode's: feedparser's summary
ITEM_SKIPPED = {
    *(f"{SLASH}comments", f"{WFW}commentRss", f"{WFW}comment"),
    f"{ITUNES}subtitle",  # feedparser's entry subtitle, which neither path stores
    *(f"{WORDPRESS}post-id", "comments"),
}
CHANNEL_SKIPPED = {
    *(f"{SY}updatePeriod", f"{SY}updateFrequency", f"{SY}updateBase"),
    *(f"{DC}language", f"{DC}rights", f"{DC}publisher", f"{DC}creator", f"{DC}date"),
    *(f"{FEEDBURNER}info", f"{FEEDBURNER}emailServiceId", f"{FEEDBURNER}feedburnerHostname"),
    f"{WORDPRESS}site",
    # iTunes elements feedparser keeps only as the feed's author or its own keys.
    *(f"{ITUNES}author", f"{ITUNES}type", f"{ITUNES}explicit", f"{ITUNES}block"),
    f"{ITUNES}new-feed-url",
    f"{ITUNES}summary",  # feedparser's feed summary; the description is its subtitle
    "author",  # the feed's author (no column of ours)
}
# feedparser's tags of scheme "http://www.itunes.com/": each category (nested ones
# after their parent) and each comma-separated keyword.
ITUNES_CATEGORY, ITUNES_KEYWORDS = f"{ITUNES}category", f"{ITUNES}keywords"
ITUNES_SCHEME = "http://www.itunes.com/"


def itunes_tags(element):
    """The channel's tags of an ``itunes:category`` or ``itunes:keywords``, in
    feedparser's order."""
    if element.tag == ITUNES_KEYWORDS:
        plain(element)
        terms = [term.strip() for term in text_of(element).split(",")]
        return [{"name": term, "domain": ITUNES_SCHEME} for term in terms if term]
    if set(element.attrib) - {"text"} or (element.text or "").strip():
        raise Refused
    tags = [{"name": element.get("text"), "domain": ITUNES_SCHEME}]
    for child in element:
        if child.tag != ITUNES_CATEGORY:
            raise Refused
        tags += itunes_tags(child)
    return tags


PSC = "{http://podlove.org/simple-chapters}"
PSC_CHAPTERS, PSC_CHAPTER = f"{PSC}chapters", f"{PSC}chapter"

# The owner's name and address: feedparser's publisher, which neither path stores.
ITUNES_OWNER, OWNER_PARTS = f"{ITUNES}owner", {f"{ITUNES}name", f"{ITUNES}email"}
# Links feedparser files under the feed's or entry's links only, which neither path
# stores (an alternate one, or one without rel, may become the link; an enclosure is one).
ATOM_LINK = f"{ATOM}link"
STORED_NOWHERE = {"self", "hub", "first", "next", "previous", "prev", "last", "payment"}


def skipped_in_channel(element):
    """Whether a channel element is one neither path stores; refused if it is namespaced."""
    if element.tag == ATOM_LINK:
        return unstored_link(element)
    if element.tag in CHANNEL_SKIPPED:
        return plain(element)
    if element.tag == ITUNES_OWNER:
        return all(part.tag in OWNER_PARTS and plain(part) for part in element) and plain_text(
            element
        )
    if unstored_podcast_element(element):
        return True
    if element.tag.startswith("{") and element.tag not in (SUBJECT, ITUNES_IMAGE):
        raise Refused
    return False


def read_episode(element, podcast):
    """Whether ``element`` is an iTunes element of the episode: its value put in ``podcast``."""
    if element.tag == ITUNES_IMAGE:
        key, value = "images", [image_of(element)]
    elif element.tag in EPISODE_FIELDS:
        key, value = EPISODE_FIELDS[element.tag], plain(element) and text_of(element)
    elif element.tag == TRANSCRIPT and bare(element):
        podcast.setdefault("transcripts", []).append(dict(element.attrib))
        return True  # every one: the scan keeps them all
    elif element.tag == CHAPTERS and bare(element):
        key, value = "chapters", element.get("url")
    else:
        return False
    if key in podcast:
        raise Refused  # feedparser keeps the one written last, the scan the first
    podcast[key] = value
    return True


def read_media(element, found):
    """Whether ``element`` is a ``media:content``, ``media:thumbnail`` or a ``media:group``
    of them: their attributes put in ``found`` (by tag) as feedparser keeps them."""
    if element.tag == MEDIA_GROUP:
        if element.attrib or (element.text or "").strip():
            raise Refused
        for part in element:
            if part.tag == MEDIA_GROUP or not read_media(part, found):
                raise Refused  # media:title, media:description: feedparser's title, summary
        return True
    if element.tag not in (MEDIA_CONTENT, MEDIA_THUMBNAIL):
        return False
    if element.tag == MEDIA_CONTENT and len(element):
        found.setdefault(MEDIA_TITLED, []).extend(content_title(part) for part in element)
    elif len(element):
        raise Refused
    if (element.text or "").strip():
        raise Refused  # a thumbnail's URL as text: feedparser's path's
    # feedparser's attribute names in lower case, a type in lower case, "&amp;" undone.
    attributes = {key.lower(): value.replace("&amp;", "&") for key, value in element.items()}
    if len(attributes) != len(element.attrib) or any("{" in key for key in attributes):
        raise Refused
    if "type" in attributes:
        attributes["type"] = attributes["type"].lower()
    found.setdefault(element.tag, []).append(attributes)
    return True


def content_title(element):
    """A ``media:title`` inside a ``media:content``: feedparser takes it for the entry's title
    unless the item has a title of its own, which the item's reader then checks."""
    if element.tag != MEDIA_TITLE or len(element) or set(element.attrib) - {"type"}:
        raise Refused  # media:description and the rest: feedparser's summary, its own
    if element.get("type", "plain") not in ("plain", "text"):
        raise Refused
    return text_of(element)


def media_by_prefix(root, body):
    """The RSS Board's Media RSS elements renamed as Yahoo's: feedparser knows only
    Yahoo's namespace but reads any element of prefix "media" as Media RSS. Refused
    where that prefix is not the RSS Board namespace's only one, or names another too."""
    if RSSBOARD_MEDIA not in body:
        return
    bindings = set(NAMESPACE_BINDING.findall(body))
    if {uri for prefix, uri in bindings if prefix == b"media"} != {RSSBOARD_MEDIA} or {
        prefix for prefix, uri in bindings if uri == RSSBOARD_MEDIA
    } != {b"media"}:
        raise Refused
    tag = f"{{{RSSBOARD_MEDIA.decode()}}}"
    for element in root.iter():
        if element.tag.startswith(tag):
            element.tag = MEDIA + element.tag.removeprefix(tag)


def media_enclosures(found, title):
    """``media:content`` with a URL as the dicts ``feedparser_reader.enclosures_of`` makes;
    refused where a content's ``media:title`` is feedparser's title: the entry's own
    ``title`` is empty."""
    if found.get(MEDIA_TITLED) and not title.strip():
        raise Refused
    return [
        {"url": media.get("url"), "type": media.get("type"), "length": media.get("filesize")}
        for media in found.get(MEDIA_CONTENT, ())
        if media.get("url")
    ]


def media_images(found):
    """Thumbnails, then image contents: ``feedparser_podcasts.images`` after ``itunes:image``."""
    contents = found.get(MEDIA_CONTENT, ())
    return [thumbnail.get("url") for thumbnail in found.get(MEDIA_THUMBNAIL, ())] + [
        media.get("url")
        for media in contents
        if media.get("medium") == "image" or (media.get("type") or "").startswith("image/")
    ]


def feed_image(fields, base, content_base):
    """The feed's artwork, as ``feedparser_podcasts.feed_image`` gives it."""
    if content_base != base and (ITUNES_IMAGE in fields or "image" in fields):
        raise Refused  # which base feedparser's path gives an image is its own
    if ITUNES_IMAGE in fields and "image" in fields:
        raise Refused  # feedparser keeps the one written last as the channel's image
    return first_url([fields.get(ITUNES_IMAGE) or fields.get("image")], base)


def skipped_in_item(element):
    """Whether an item element is one neither path stores."""
    if element.tag == ATOM_LINK:
        return unstored_link(element)
    if element.tag == "source":  # feedparser keeps it as the entry's source only
        if len(element) or set(element.attrib) - {"url"}:
            raise Refused
        return True
    if element.tag == f"{ITUNES}episodeType":
        return plain(element)
    if element.tag == PSC_CHAPTERS:  # Podlove's chapters, inline: feedparser's own key only
        return all(part.tag == PSC_CHAPTER and bare(part) for part in element)
    return unstored_podcast_element(element) or (element.tag in ITEM_SKIPPED and plain(element))


def unstored_podcast_element(element):
    """A Podcasting 2.0 element neither path stores (all but transcripts and chapters)."""
    if not element.tag.startswith(PODCAST) or element.tag in (TRANSCRIPT, CHAPTERS):
        return False
    return bare(element)


def bare(element):
    """No child elements and no namespaced attributes (text and plain attributes allowed)."""
    if len(element) or any(key.startswith("{") for key in element.attrib):
        raise Refused
    return True


def plain_text(element):
    if element.attrib or (element.text or "").strip():
        raise Refused
    return True


def unstored_link(element):
    if element.get("rel") not in STORED_NOWHERE or len(element) or (element.text or "").strip():
        raise Refused
    return True


def plain(element):
    if len(element) or element.attrib:
        raise Refused
    return True


IMAGE_TAGS = {"url", "title", "link", "width", "height", "description"}


def image_of(element):
    """The URL of an ``<image>`` or ``itunes:image``, as feedparser's path reads it."""
    if element.tag == ITUNES_IMAGE:
        if len(element) or (element.text or "").strip() or set(element.attrib) - {"href", "url"}:
            raise Refused
        return element.get("href") or element.get("url")
    fields = {}
    for part in element:
        if part.tag not in IMAGE_TAGS or part.tag in fields or len(part) or part.attrib:
            raise Refused
        fields[part.tag] = text_of(part)
    if element.attrib or (element.text or "").strip():
        raise Refused
    return fields.get("url")
