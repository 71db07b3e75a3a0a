"""A podcast episode's details and a feed's artwork, by one set of rules for every reader.

Each reader (``feedparser_podcasts`` for RSS and Atom, ``jsonfeed``) gathers
an item's raw values in a plain dict and calls ``details``: durations become
seconds, season and episode numbers positive integers, ``itunes:explicit`` a
yes, no or unknown; URLs pass the enclosures' checks (``media.enclosure_url``:
resolved against the feed's URL, http(s) to a public host only).
"""

import re
from dataclasses import astuple, dataclass

from djangofeeds.parsing.media import enclosure_url, mime_type

# Seconds and numbers fit a PositiveIntegerField (2**31 - 1 on every database).
MAX_NUMBER = 2**31 - 1
# "1200", "1200.5", "20:00", "00:20:00", "1:02:03.500": hours, minutes, seconds (the first
# part as large as it likes, as podcastparser reads "61:08"), a fraction that is dropped.
DURATION = re.compile(r"(?:(?:([0-9]{1,7}):)?([0-9]{1,7}):)?([0-9]{1,10})(?:\.[0-9]*)?")
# itunes:explicit in lower case: Apple's specification said yes and clean, now true and false.
EXPLICIT = {"yes": True, "true": True, "explicit": True}
EXPLICIT |= {"no": False, "false": False, "clean": False}
# The transcript a reader opens in the browser, when a feed offers several formats.
READABLE_TRANSCRIPTS = ("text/html", "text/plain")


@dataclass(frozen=True)
class PodcastDetails:
    """What an item says of its episode, each value optional; named as ``Post``'s columns."""

    duration: int | None = None  # seconds
    image_url: str = ""
    season: int | None = None
    episode: int | None = None
    explicit: bool | None = None  # None: the feed does not say
    transcript_url: str = ""
    transcript_type: str = ""
    chapters_url: str = ""

    def __bool__(self):
        return self != NO_DETAILS

    def checksum_text(self):
        """The details as one text, for ``ParsedEntry.checksum``."""
        return "\x1e".join("" if value is None else str(value) for value in astuple(self))


NO_DETAILS = PodcastDetails()


def details(raw, base_url=""):
    """``PodcastDetails`` of an item's raw values: ``{"duration", "images", "season",
    "episode", "explicit", "transcripts", "chapters"}`` (each may be missing).

    ``images`` are candidates in order of preference (the first that passes wins);
    ``transcripts`` are ``{"url", "type"}`` dicts (an HTML or plain text one wins,
    else the first); ``explicit`` is text, or what feedparser made of it.
    """
    transcript_url, transcript_type = transcript(raw.get("transcripts") or (), base_url)
    return PodcastDetails(
        duration=duration(raw.get("duration")),
        image_url=first_url(raw.get("images") or (), base_url),
        season=number(raw.get("season")),
        episode=number(raw.get("episode")),
        explicit=explicit(raw.get("explicit")),
        transcript_url=transcript_url,
        transcript_type=transcript_type,
        chapters_url=first_url([raw.get("chapters")], base_url),
    )


def duration(value):
    """Seconds of an ``itunes:duration`` (or a JSON Feed number); None when not a duration.

    A zero duration is unknown too: publishers write "0" or "00:00:00" for it.
    """
    text = str(value if value is not None else "").strip()
    match = DURATION.fullmatch(text)
    if not match:
        return None
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    # After the first part, minutes and seconds are below 60 ("1:75" is no time).
    if (match[1] and minutes > 59) or ((match[1] or match[2]) and seconds > 59):
        return None
    total = (hours * 60 + minutes) * 60 + seconds
    return total if 0 < total <= MAX_NUMBER else None


def number(value):
    """A season or episode number: plain ASCII digits above 0; else None ("-1", "1.0", "x")."""
    text = str(value if value is not None else "").strip()
    if not re.fullmatch(r"[0-9]{1,10}", text):
        return None  # not str.isdigit(): "²" passes it and then int() fails
    found = int(text)
    return found if 0 < found <= MAX_NUMBER else None


def explicit(value):
    """True for yes/true/explicit, False for no/false/clean (any case); else None."""
    if isinstance(value, bool) or value is None:
        return value  # feedparser's reading, when the document could not be scanned
    return EXPLICIT.get(str(value).strip().lower())


def first_url(candidates, base_url=""):
    """The first candidate that is a public http(s) URL once resolved, else ""."""
    for candidate in candidates:
        url = enclosure_url(candidate, base_url) if isinstance(candidate, str) else ""
        if url:
            return url
    return ""


def transcript(candidates, base_url=""):
    """``(url, type)`` of the transcript to link: a readable one if offered, else the first."""
    found = []
    for candidate in candidates:
        url = enclosure_url(candidate.get("url"), base_url)
        if url:
            found.append((url, mime_type(candidate.get("type"), url)))
    readable = [item for item in found if item[1] in READABLE_TRANSCRIPTS]
    return (readable or found or [("", "")])[0]
