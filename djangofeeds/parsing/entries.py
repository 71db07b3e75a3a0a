"""What every feed reader produces, and the rules they all apply to it.

``parse`` (feedparser), ``fastrss``, ``fastatom`` and ``jsonfeed`` each turn a document into
``Draft`` entries and a ``ParsedFeed``: guids are chosen, entries ordered and
cut to the newest ``MAX_ENTRIES``, and only the kept ones are converted
(titles and authors to plain text, bodies to sanitized HTML).
"""

import calendar
import hashlib
import re
import xml.sax
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property

from feedparser.sgml import sgmllib

from djangofeeds.parsing import sanitize
from djangofeeds.parsing.media import ParsedEnclosure
from djangofeeds.parsing.podcasts import PodcastDetails
from djangofeeds.parsing.sanitize import plain_text, title_text

# The newest entries only: a feed that lists its whole history is not re-read
# in full on every fetch.
MAX_ENTRIES = 500


# feedparser takes ~0.25 ms and several kB per entry: a 10 MB document of
# 100,000 tiny entries would hold a worker for half a minute. Only the first
# entries in document order (feeds list the newest first) reach it.
PARSED_ENTRIES_PER_KEPT = 4


# A date this far ahead is a publisher's mistake, not a schedule.
FUTURE_SLACK = timedelta(days=1)


# An RSS <ttl> longer than this is no schedule either (and would overflow a timedelta).
MAX_TTL_MINUTES = 7 * 24 * 60


# What feedparser raises when hostile bytes hit one of its bugs. Not Exception:
# a Celery soft time limit (an Exception too) must reach the task, not become
# "not a feed". UnicodeError is a ValueError, KeyError and IndexError LookupErrors.
PARSER_BUGS = (
    ValueError,
    TypeError,
    AttributeError,
    LookupError,
    AssertionError,
    RecursionError,
    OverflowError,
    xml.sax.SAXException,
    sgmllib.SGMLParseError,
)


class NotAFeed(ValueError):
    """The document is not an RSS, Atom or JSON feed."""


@dataclass
class ParsedEntry:
    guid: str
    title: str = ""
    link: str = ""
    author: str = ""
    content: str = ""
    published_at: datetime | None = None
    updated_at: datetime | None = None
    enclosures: list[ParsedEnclosure] = field(default_factory=list)
    categories: list[tuple[str, str]] = field(default_factory=list)  # (name, domain)
    podcast: PodcastDetails = field(default_factory=PodcastDetails)  # empty for other items
    # What the normalization left out, by reason (``djangofeeds.parsing.media``).
    dropped: Counter = field(default_factory=Counter, compare=False, repr=False)
    # The guid earlier releases gave this entry, when today's rules give another
    # (``choose_guids``): the importer moves a post stored under it to the new one.
    former_guid: str = field(default="", compare=False, repr=False)
    # FeedBurner's ``origLink``: the article behind its redirecting link (stories.keys).
    original_link: str = field(default="", compare=False, repr=False)

    # Cached: the importer asks for both several times per entry.
    @cached_property
    def guid_hash(self):
        return sha256(self.guid)

    @cached_property
    def checksum(self):
        dates = [d.isoformat() if d else "" for d in (self.published_at, self.updated_at)]
        parts = [self.title, self.link, self.author, self.content, *dates]
        # Only when there are some: a post without either keeps the checksum it
        # was stored with, and is not rewritten once by the upgrade.
        if self.enclosures or self.categories:
            parts += [f"{e.url}\x1e{e.type}\x1e{e.length}" for e in self.enclosures]
            parts += [f"{name}\x1e{domain}" for name, domain in self.categories]
        if self.podcast:  # the same for a podcast's details
            parts.append("podcast\x1e" + self.podcast.checksum_text())
        return sha256("\x1f".join(parts))


def no_media():
    return [], [], Counter()


@dataclass(eq=False)
class Draft:
    """An entry as read, before conversion: what choosing guids, ordering and the cut need.

    ``raw_title`` and ``raw_author`` are what the parser gave (HTML or text;
    ``title_is_text`` when the document declared the title plain text: what
    looks like a tag there is text, kept); ``read_content`` returns the body as
    sanitized HTML and runs only for kept entries (or for an entry whose guid
    must be hashed from its content). ``enclosure_url`` is the first
    enclosure's (``media.first_enclosure_url``), which identifies an entry
    that has neither id nor link, read only for such entries; ``id_is_new``
    marks an id earlier releases could not read (a JSON Feed number): those
    entries had the guid ``choose_guids`` gives entries without one.
    """

    guid: str
    link: str
    published_at: datetime | None
    updated_at: datetime | None
    raw_title: str
    raw_author: str
    read_content: Callable[[], str]
    # The body's length as read (0: unknown): large bodies are sanitized on threads.
    content_size: int = 0
    # ``(enclosures, categories, dropped)``, read like the content: for kept entries only.
    read_media: Callable[[], tuple] = no_media
    # ``PodcastDetails``, read like the media.
    read_podcast: Callable[[], PodcastDetails] = PodcastDetails
    title_is_text: bool = False
    # The first enclosure's URL (``media.first_enclosure_url``), read when ``choose_guids`` asks.
    read_enclosure_url: Callable[[], str] = str
    id_is_new: bool = False
    former_guid: str = ""
    original_link: str = ""  # FeedBurner's origLink (ParsedEntry.original_link)

    @property
    def guid_hash(self):
        return sha256(self.guid)

    @cached_property
    def content(self):
        return self.read_content()

    @cached_property
    def enclosure_url(self):
        return self.read_enclosure_url()

    def complete(self):
        """The stored form: plain-text title and author, sanitized content, media."""
        enclosures, categories, dropped = self.read_media()
        return ParsedEntry(
            guid=self.guid,
            title=title_text(self.raw_title, declared_text=self.title_is_text),
            link=self.link,
            author=plain_text(self.raw_author)[:500],
            content=self.content,
            published_at=self.published_at,
            updated_at=self.updated_at,
            enclosures=enclosures,
            categories=categories,
            podcast=self.read_podcast(),
            dropped=dropped,
            former_guid=self.former_guid,
            original_link=self.original_link,
        )


@dataclass
class ParsedFeed:
    title: str = ""
    link: str = ""
    description: str = ""
    ttl_minutes: int | None = None
    entries: list[ParsedEntry] = field(default_factory=list)
    warning: str = ""  # why feedparser called the feed ill-formed, when it still parsed
    parser: str = "feedparser"  # which reader read it: feedparser, fastrss, fastatom or jsonfeed
    categories: list[tuple[str, str]] = field(default_factory=list)  # the channel's (name, domain)
    image_url: str = ""  # the feed's artwork (djangofeeds.parsing.podcasts)
    dropped: Counter = field(default_factory=Counter, repr=False)  # the channel's, see ParsedEntry

    def all_dropped(self):
        """What normalization left out of the channel and its kept entries, by reason."""
        total = Counter(self.dropped)
        for entry in self.entries:
            total.update(entry.dropped)
        return total


def sha256(text):
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def kept_entries(drafts):
    """The newest ``MAX_ENTRIES`` entries, one per guid, converted for storage."""
    drafts = choose_guids(drafts)
    drafts.sort(key=newest_first, reverse=True)
    kept = unique(drafts)[:MAX_ENTRIES]
    sanitize.clean_ahead(kept)
    return [draft.complete() for draft in kept]


def choose_guids(entries):
    """guid = entry id, else link, else first enclosure's URL, else a hash of title and content.

    Some feeds put one id on every entry (a template bug); then the ids say
    nothing and the links are used instead. A link or an enclosure shared by
    several entries (often the site's home page) says nothing either. An
    episode without id or link keeps its enclosure's URL when its publisher
    edits its title or notes (as podcastparser identifies it); a hash of
    those would make each edit a new post. The hash takes the title as the
    parser gave it (before ``plain_text``), as it always has: posts imported
    before titles became plain text keep their guid.
    """
    ids = {entry.guid for entry in entries}
    ids_useless = len(entries) > 1 and len(ids) == 1
    links = Counter(entry.link for entry in entries)
    needing = [entry for entry in entries if ids_useless or not entry.guid or entry.id_is_new]
    # Read for those only: a feed whose entries have ids resolves no enclosure URL here.
    enclosures = Counter(entry.enclosure_url for entry in needing)
    for entry in needing:
        # Until READER_REVISION 2026-12, an entry without an id took these.
        unique_link = entry.link if entry.link and links[entry.link] == 1 else ""
        if entry.id_is_new and not ids_useless:
            entry.former_guid = unique_link or content_hash(entry)
        elif unique_link:
            entry.guid = unique_link
        elif entry.enclosure_url and enclosures[entry.enclosure_url] == 1:
            entry.guid, entry.former_guid = entry.enclosure_url, content_hash(entry)
        else:
            entry.guid = content_hash(entry)
    return entries


def content_hash(entry):
    """The guid of an entry that nothing else identifies: a hash of its title and body."""
    return "sha256:" + sha256(entry.raw_title + "\x1f" + entry.content)


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


def ttl_minutes(value):
    """RSS ``<ttl>``: plain ASCII digits as minutes, at most ``MAX_TTL_MINUTES``; else None."""
    digits = str(value or "").strip()
    if not re.fullmatch(r"[0-9]+", digits):
        return None  # not str.isdigit(): "²" passes it and then int() fails
    digits = digits.lstrip("0")
    # int() refuses more than 4300 digits; anything over ten is over the cap anyway.
    minutes = MAX_TTL_MINUTES if len(digits) > 10 else min(int(digits or "0"), MAX_TTL_MINUTES)
    return minutes or None


def first_line(error):
    text = str(error or "").strip().splitlines()
    return text[0][:500] if text else ""
