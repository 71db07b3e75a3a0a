"""The real-world corpus (tests/corpus/real): its feed files, and what their libraries expect.

Each folder holds another feed library's test data, unchanged (README.md there).
``feed_files`` lists the feeds (not the expectation files beside them);
``podcastparser_differences`` and ``fastfeedparser_differences`` compare our
reading of a file with the reading its library states, field by field.
"""

import json
import sys
import types
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

REAL = Path(__file__).resolve().parent.parent / "corpus" / "real"
FEED_SUFFIXES = {".rss", ".atom", ".xml", ".json"}
# The libraries whose ``<name>.json`` beside a feed is their reading of it, not a feed.
STATED_AS_JSON = {"podcastparser", "fastfeedparser"}
# podcastparser's tests parse each file at this URL; ours, served from a web host, at BASE.
PODCASTPARSER_BASE = "file://tests/data/"
BASE = "https://feeds.example.com/tests/data/"


def is_feed(path):
    """A feed file of the corpus: not a library's expectation, parameter file, OPML list
    or test module."""
    if path.suffix not in FEED_SUFFIXES or "opml" in path.parts:
        return False
    if path.name.endswith((".param.json", ".expected.json")):
        return False
    library = path.relative_to(REAL).parts[0]
    has_feed = path.with_suffix(".rss").exists() or path.with_suffix(".xml").exists()
    return not (path.suffix == ".json" and library in STATED_AS_JSON and has_feed)


def feed_files():
    return sorted(path for path in REAL.rglob("*") if path.is_file() and is_feed(path))


def name_of(path):
    return path.relative_to(REAL).as_posix()


def url_of(path):
    """Where a corpus file is served: podcastparser's at the base its tests use (for
    relative links), the others under their own names."""
    return BASE + path.name


def expectation_of(path):
    """The library's stated reading of ``path`` (the ``.json`` beside it), or None."""
    if path.relative_to(REAL).parts[0] == "reader":
        return reader_expectation(path)
    expected = path.with_suffix(".json")
    if path.relative_to(REAL).parts[0] not in STATED_AS_JSON or path == expected:
        return None
    if not expected.exists():
        return None
    return json.loads(expected.read_text(encoding="utf-8"))


def max_episodes(path):
    """The ``max_episodes`` podcastparser's test passed for ``path`` (its ``.param.json``)."""
    params = path.with_suffix(".param.json")
    if not params.exists():
        return None
    return json.loads(params.read_text(encoding="utf-8")).get("max_episodes")


def differences(path, feed):
    """``{label: (ours, theirs)}`` against the reading ``path``'s library states ({} if none)."""
    expected = expectation_of(path)
    if expected is None:
        return {}
    if name_of(path).startswith("podcastparser/"):
        return podcastparser_differences(feed, expected, max_episodes(path))
    if name_of(path).startswith("reader/"):
        return reader_differences(feed, *expected)
    return fastfeedparser_differences(feed, expected)


def from_epoch(seconds):
    """podcastparser's date: seconds since the epoch, 0 for none."""
    return datetime.fromtimestamp(seconds, UTC) if seconds else None


def podcastparser_differences(feed, expected, limit=None):
    """``{label: (ours, theirs)}`` between a ``ParsedFeed`` and podcastparser's reading
    (``limit``: the ``max_episodes`` its test passed)."""
    found = {}
    if expected.get("title", "") != feed.title:
        found["feed title"] = (feed.title, expected.get("title", ""))
    theirs = expected.get("episodes", [])
    if len(theirs) != len(feed.entries[:limit]):
        found["episodes"] = (len(feed.entries), len(theirs))
    ours = {entry.guid: entry for entry in feed.entries}
    for episode in theirs:
        guid = episode["guid"].replace(PODCASTPARSER_BASE, BASE)
        entry = ours.get(guid)
        if entry is None:
            found["episode guid"] = (sorted(ours), guid)
            continue
        enclosures = [
            (e["url"].replace(PODCASTPARSER_BASE, BASE), e["mime_type"], e["file_size"])
            for e in episode["enclosures"]
        ]
        said = {
            "title": episode["title"],
            "link": episode["link"],
            "published": from_epoch(episode["published"]),
            "enclosure URLs": [url for url, _, _ in enclosures],
            "enclosure types": [kind for _, kind, _ in enclosures],
            # podcastparser says -1 for unknown, 0 for an empty length attribute.
            "enclosure lengths": [None if size in (-1, 0) else size for _, _, size in enclosures],
        }
        found |= differing("episode", entry, said)
    return found


def fastfeedparser_differences(feed, expected):
    """``{label: (ours, theirs)}`` between a ``ParsedFeed`` and fastfeedparser's reading."""
    found = {}
    stated_feed = expected.get("feed", {})
    if stated_feed.get("title", "") != feed.title:
        found["feed title"] = (feed.title, stated_feed.get("title", ""))
    theirs = expected.get("entries", [])
    if len(theirs) != len(feed.entries):
        found["entries"] = (len(feed.entries), len(theirs))
    ours = {entry.guid: entry for entry in feed.entries}
    for stated in theirs:
        entry = ours.get(stated.get("id") or stated.get("link"))
        if entry is None:
            found["entry not found"] = (sorted(ours)[:3], stated.get("id"))
            continue
        published = stated.get("published")
        said = {
            "title": stated.get("title", ""),
            "link": stated.get("link", ""),
            "published": parse_iso(published) if published else None,
        }
        found |= differing("entry", entry, said)
    return found


def parse_iso(value):
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Stated(types.SimpleNamespace):
    """One of reader's types as its expectation file builds it: the fields it names."""

    def __getattr__(self, name):
        return None  # a field the expectation leaves out: reader's default, None or empty


def reader_expectation(path):
    """reader's stated reading of ``path``: ``(feed, entries)`` from the ``<name>.py``
    beside it (Python building reader's types), run with ``Stated`` standing in for them."""
    source = path.with_name(path.name + ".py")
    if not source.exists():
        return None
    stand_ins = {}
    for module in ("reader", "reader._types", "reader.types"):
        stand_ins[module] = types.ModuleType(module)
        for name in ("Content", "Enclosure", "EntrySource", "EntryData", "FeedData", "Author"):
            setattr(stand_ins[module], name, Stated)
    namespace = {"url_base": BASE, "rel_base": BASE}
    with mock.patch.dict(sys.modules, stand_ins):
        exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    return namespace["feed"], namespace.get("entries", [])


def reader_differences(feed, stated_feed, stated_entries):
    """``{label: (ours, theirs)}`` between a ``ParsedFeed`` and reader's stated reading."""
    found = {}
    for key, mine in (("title", feed.title), ("link", feed.link)):
        if (getattr(stated_feed, key) or "") != mine:
            found[f"feed {key}"] = (mine, getattr(stated_feed, key))
    if len(stated_entries) != len(feed.entries):
        found["entries"] = (len(feed.entries), len(stated_entries))
    ours = {entry.guid: entry for entry in feed.entries}
    for stated in stated_entries:
        entry = ours.get(stated.id)
        if entry is None:
            found["entry guid"] = (sorted(ours), stated.id)
            continue
        enclosures = stated.enclosures or ()
        said = {
            "title": stated.title or "",
            "link": stated.link or "",
            "author": ", ".join(author.name for author in stated.authors or () if author.name),
            "published": stated.published or stated.updated,
            "updated": stated.updated,
            "enclosure URLs": [e.href for e in enclosures],
            "enclosure types": [e.type or "" for e in enclosures],  # None: no type, as our ""
            "enclosure lengths": [e.length for e in enclosures],
        }
        found |= differing("entry", entry, said)
    return found


def differing(kind, entry, said):
    """``{"<kind> <field>": (ours, theirs)}`` for each field ``said`` names that ``entry``
    (a ``ParsedEntry``) stores otherwise."""
    mine = {
        "title": entry.title,
        "link": entry.link,
        "author": entry.author,
        "published": entry.published_at,
        "updated": entry.updated_at,
        "enclosure URLs": [e.url for e in entry.enclosures],
        "enclosure types": [e.type for e in entry.enclosures],
        "enclosure lengths": [e.length for e in entry.enclosures],
    }
    return {
        f"{kind} {key}": (mine[key], value) for key, value in said.items() if mine[key] != value
    }
