"""The podcast details of an RSS or Atom document: feedparser's reading, and what it loses.

feedparser reads ``itunes:duration``, ``itunes:season``, ``itunes:episode``,
``itunes:image``, ``media:thumbnail``, ``media:content`` and the channel's
``<image>``, Atom ``<logo>`` and ``<icon>``. It loses three things: of
``itunes:explicit`` it keeps "yes" and "clean" only (Apple's "true" and "false"
become unknown), of several ``podcast:transcript`` the last, and of the
channel's ``itunes:image`` and ``<image>`` the one written last; and it files
Podcasting 2.0's elements under the document's own prefix. ``scan`` reads
those, the latter by their namespace, in one pass of expat (C) over a document
that mentions iTunes or Podcasting 2.0; a document it cannot read to its end
(malformed: feedparser's lenient parser read it) keeps feedparser's reading.
"""

from xml.parsers import expat

from djangofeeds.parsing.podcasts import details, first_url

ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
PODCAST_INDEX = "https://podcastindex.org/namespace/1.0"
# Namespace names as feeds write them, in lower case without a final slash.
NAMESPACES = {
    ITUNES: ITUNES,
    "https://www.itunes.com/dtds/podcast-1.0.dtd": ITUNES,
    PODCAST_INDEX: PODCAST_INDEX,
    "https://github.com/podcastindex-org/podcast-namespace/blob/main/docs/1.0.md": PODCAST_INDEX,
}
# A prefix used without its declaration (a common mistake) is read by its usual name,
# as feedparser and podcastparser read it.
USUAL_PREFIXES = {"itunes": ITUNES, "podcast": PODCAST_INDEX}
# Only a document with such elements holds these bytes. Plain ``in``: a case-insensitive
# search of a large document would cost more than the scan.
MARKERS = (b"itunes", b"podcast")
ENTRY_TAGS = {"item", "entry"}
SCANNED_TAGS = {"explicit", "image", "transcript", "chapters"}


class EntityDeclared(Exception):
    """The document declares entities: not scanned (no entity expansion of ours)."""


class Scan:
    """What one expat pass found: the channel's ``itunes:image``, and each entry's
    ``itunes:explicit`` text, ``podcast:transcript`` list and ``podcast:chapters`` URL
    (``podcasts.details``' raw values)."""

    def __init__(self, parser):
        self.parser = parser
        self.prefixes = dict(USUAL_PREFIXES)
        self.channel_image = None
        self.entries = []
        self.entry = None  # the raw values of the entry being read, if any
        self.entry_tag = None
        self.text = None  # the text of the itunes:explicit being read

    def start(self, name, attrs):
        # Declarations are looked for outside entries only (feeds make them on <rss>): an
        # enclosure's attributes are not read at all.
        if attrs and self.entry is None:
            for key, value in attrs.items():
                if key.startswith("xmlns:"):
                    self.prefixes[key[6:]] = NAMESPACES.get(value.strip().rstrip("/").lower())
        prefix, _, local = name.rpartition(":")
        if local in ENTRY_TAGS and self.entry is None:
            self.entry, self.entry_tag = {}, name
            self.entries.append(self.entry)
        elif local in SCANNED_TAGS:
            default = NAMESPACES.get(attrs.get("xmlns", "").strip().rstrip("/").lower())
            self.read(self.prefixes.get(prefix) if prefix else default, local, attrs)

    def read(self, namespace, local, attrs):
        entry = self.entry
        if namespace == ITUNES and local == "image" and entry is None:
            if self.channel_image is None:
                self.channel_image = attrs.get("href") or attrs.get("url")
        elif namespace == ITUNES and local == "explicit" and entry is not None:
            self.text = []
            self.parser.CharacterDataHandler = self.text.append  # for this element's text only
        elif namespace == PODCAST_INDEX and local == "transcript" and entry is not None:
            entry.setdefault("transcripts", []).append(attrs)
        elif namespace == PODCAST_INDEX and local == "chapters" and entry is not None:
            entry.setdefault("chapters", attrs.get("url"))

    def end(self, name):
        if self.text is not None:
            self.parser.CharacterDataHandler = None
            self.entry["explicit"] = "".join(self.text)
            self.text = None
        elif name == self.entry_tag:  # no entry holds another
            self.entry = self.entry_tag = None


def refuse_entities(*declaration):
    raise EntityDeclared


def scan(body):
    """A ``Scan`` of the document; None if it names neither iTunes nor Podcasting 2.0,
    declares entities, or is no XML that expat reads to its end."""
    if not any(marker in body for marker in MARKERS):
        return None
    parser = expat.ParserCreate()  # no namespace processing: undeclared prefixes are no error
    parser.buffer_text = True
    found = Scan(parser)
    parser.StartElementHandler, parser.EndElementHandler = found.start, found.end
    parser.EntityDeclHandler = refuse_entities
    try:
        parser.Parse(body, True)
    except (expat.ExpatError, EntityDeclared, LookupError, ValueError):
        return None
    return found


def scanned_entries(found, entries):
    """Each feedparser entry's scanned values, in order; Nones when the scan is missing or
    counted other entries than feedparser did (the values could go to the wrong one)."""
    if found is None or len(found.entries) != len(entries):
        return [None] * len(entries)
    return found.entries


def episode(entry, base_url="", scanned=None):
    """``PodcastDetails`` of a feedparser entry, with its ``scanned`` values if any."""
    raw = {
        "duration": dict.get(entry, "itunes_duration"),
        "images": images(entry),
        "season": dict.get(entry, "itunes_season"),
        "episode": dict.get(entry, "itunes_episode"),
    }
    return details(raw | (feedparser_values(entry) if scanned is None else scanned), base_url)


def feedparser_values(entry):
    """What feedparser kept of explicit, transcripts and chapters (for an unscanned entry).

    Podcasting 2.0 elements are unknown to feedparser: under their usual prefix only.
    """
    transcript = dict.get(entry, "podcast_transcript")
    chapters = dict.get(entry, "podcast_chapters")
    return {
        "explicit": dict.get(entry, "itunes_explicit"),
        "transcripts": [transcript] if isinstance(transcript, dict) else [],
        "chapters": dict.get(chapters, "url") if isinstance(chapters, dict) else None,
    }


def images(entry):
    """An entry's artwork, best first: ``itunes:image``, ``media:thumbnail``, then a
    ``media:content`` whose medium is image or whose type is image/*."""
    image = dict.get(entry, "image")
    found = [dict.get(image, "href")] if isinstance(image, dict) else []
    found += [dict.get(thumbnail, "url") for thumbnail in dict.get(entry, "media_thumbnail") or []]
    found += [
        dict.get(media, "url")
        for media in dict.get(entry, "media_content") or []
        if dict.get(media, "medium") == "image"
        or str(dict.get(media, "type") or "").lower().startswith("image/")
    ]
    return found


def feed_image(channel, found, base_url=""):
    """The feed's artwork: the channel's ``itunes:image``, else its ``<image>``, else
    Atom's ``<logo>``, else its ``<icon>``; "" when none is a public http(s) URL."""
    image = dict.get(channel, "image")
    candidates = [
        found.channel_image if found is not None else None,
        dict.get(image, "href") if isinstance(image, dict) else None,
        dict.get(channel, "logo"),
        dict.get(channel, "icon"),
    ]
    return first_url(candidates, base_url)
