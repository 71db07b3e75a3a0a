"""djangofeeds.parsing.podcasts: an episode's details and a feed's artwork, held to
podcastparser's own expectations (tests/corpus/real/podcastparser: each ``<name>.rss`` beside
podcastparser's reading of it, ``<name>.json``), and the rules behind them."""

import json
from pathlib import Path

import pytest

from djangofeeds.parsing.entries import MAX_ENTRIES, Draft, ParsedEntry, kept_entries
from djangofeeds.parsing.podcasts import PodcastDetails, details, duration, explicit, number
from djangofeeds.parsing.readers import parse

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "real" / "podcastparser"
# podcastparser's harness reads each file at file://tests/data/<name>.rss. We keep no file:
# URL (nor any but public http(s) ones, as for enclosures): the documents are read as if
# served from this https host, and podcastparser's URLs are compared on it.
HOST = "https://podcasts.example.org/"
# podcastparser's key for each of our details, and what its absence means.
EPISODE_KEYS = {
    "total_time": ("duration", None),
    "episode_art_url": ("image_url", ""),
    "season": ("season", None),
    "number": ("episode", None),
    "explicit": ("explicit", None),
    "transcript_url": ("transcript_url", ""),
    "chapters_json_url": ("chapters_url", ""),
}


def read(name):
    """``(podcastparser's expectation, our ParsedFeed)`` of a corpus document."""
    expected = json.loads((CORPUS / f"{name}.json").read_text())
    feed = parse((CORPUS / f"{name}.rss").read_bytes(), url=f"{HOST}data/{name}.rss")
    return expected, feed


def served_here(value):
    return value.replace("file://tests/", HOST) if isinstance(value, str) else value


def expected_value(episode, key):
    """podcastparser's value of ``key``, as we store it."""
    _, absent = EPISODE_KEYS[key]
    value = served_here(episode.get(key, absent))
    if key in ("total_time", "season"):
        # podcastparser says 0 for no duration, and for a season that is no number: we
        # store nothing (None), so that a page shows no "0:00" nor "Season 0".
        return value or None
    return value


def matched(expected, feed):
    """Pairs of (podcastparser's episode, our entry). podcastparser leaves out entries without
    enclosures and names an untitled one after its file: those are matched by enclosure."""
    ours = {entry.title: entry for entry in feed.entries}
    by_file = {entry.enclosures[0].url: entry for entry in feed.entries if entry.enclosures}
    pairs = []
    for episode in expected["episodes"]:
        entry = ours.get(episode["title"])
        if entry is None and episode["enclosures"]:
            entry = by_file[served_here(episode["enclosures"][0]["url"])]
        pairs.append((episode, entry))
    return pairs


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("duration", "total_time"),
        ("itunes_duration", "total_time"),  # xmlns:it, <it:duration>
        ("itunes_no_xmlns", "total_time"),  # itunes: never declared
        ("itunes_xmlns", "total_time"),  # <duration xmlns="...itunes...">
        ("chapters", "total_time"),
        ("itunes_episode_image", "episode_art_url"),
        ("media_episode_thumbnail", "episode_art_url"),
        ("media_episode_thumbnail_group", "episode_art_url"),
        ("media_episode_thumbnail_atom", "episode_art_url"),
        ("media_episode_thumbnail_atom_group", "episode_art_url"),
        ("episode_season", "season"),
        ("episode_number", "number"),
        ("episode_number_invalid", "number"),  # -1: none
        ("explicit_episode", "explicit"),  # "No"
        ("episode_podcast_transcript", "transcript_url"),
        ("episode_podcast_chapters", "chapters_json_url"),
    ],
)
def test_episode_details_are_read_as_podcastparser_reads_them(name, key):
    """Each detail, in every spelling of the corpus, is what podcastparser expects."""
    expected, feed = read(name)
    field, _ = EPISODE_KEYS[key]

    pairs = matched(expected, feed)

    assert pairs
    for episode, entry in pairs:
        assert getattr(entry.podcast, field) == expected_value(episode, key), name
    if key == "transcript_url":  # podcastparser keeps no type; ours is the element's
        assert feed.entries[0].podcast.transcript_type == "text/plain"


@pytest.mark.parametrize("name", ["relative_cover", "atom_relative_cover", "image_url_on_newline"])
def test_feed_artwork_is_read_as_podcastparser_reads_it(name):
    """The channel's <image><url> (relative, or on its own line) and Atom's <icon>, resolved
    against the feed's URL."""
    expected, feed = read(name)

    assert feed.image_url == served_here(expected["cover_url"])


def test_an_image_enclosure_stays_an_enclosure_and_is_no_artwork():
    """image_and_audio.rss: an <enclosure> of type image/jpeg is no episode artwork for
    podcastparser nor for us; both enclosures are kept."""
    expected, feed = read("image_and_audio")
    (episode,) = expected["episodes"]
    (entry,) = feed.entries

    assert "episode_art_url" not in episode and entry.podcast.image_url == ""
    assert [(e.url, e.type) for e in entry.enclosures] == [
        (item["url"], item["mime_type"]) for item in episode["enclosures"]
    ]


@pytest.mark.parametrize("name", sorted(path.stem for path in CORPUS.glob("*.rss")))
def test_the_whole_corpus_agrees_with_podcastparser(name):
    """Every document: the details podcastparser states (none where it states none), and the
    feed's artwork. Not compared, on purpose: the channel's ``itunes:explicit``
    (explicit_feed.rss; we keep the episodes'), Podlove Simple Chapters (chapters.rss's
    ``chapters``: we link Podcasting 2.0's chapters file and store no chapter list), and
    what is no podcast detail (titles, descriptions, episode types, persons, funding)."""
    expected, feed = read(name)

    for episode, entry in matched(expected, feed):
        for key, (field, _) in EPISODE_KEYS.items():
            assert getattr(entry.podcast, field) == expected_value(episode, key), (name, key)
    assert feed.image_url == served_here(expected.get("cover_url") or "")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("00:20:00", 1200),
        ("20:00", 1200),
        ("1200", 1200),
        ("1200.5", 1200),  # the fraction is dropped, as podcastparser does
        (" 1:02:03.500 ", 3723),
        ("61:08", 3668),  # minutes past the hour without hours
        (1200.5, 1200),  # a JSON Feed number
        ("0", None),
        ("00:00:00", None),
        ("", None),
        (None, None),
        ("abc", None),
        ("-5", None),
        ("1:75", None),
        ("1:60:00", None),
        ("1e3", None),
        ("99999999999", None),  # past a 32-bit column
        (True, None),
    ],
)
def test_duration_reads_each_form_of_itunes_duration(value, seconds):
    """H:MM:SS, M:SS and plain seconds, a fraction dropped; zero or anything else is unknown."""
    assert duration(value) == seconds


@pytest.mark.parametrize(
    ("value", "found"),
    [("5", 5), (" 12 ", 12), ("0", None), ("-1", None), ("1.0", None), ("²", None), ("x", None)],
)
def test_season_and_episode_numbers_are_positive_whole_numbers(value, found):
    """Plain digits above zero; anything else is ignored (podcastparser ignores "-1" too)."""
    assert number(value) == found


@pytest.mark.parametrize(
    ("value", "found"),
    [
        *[(text, True) for text in ("yes", "Yes", "TRUE", "explicit")],
        *[(text, False) for text in ("no", "False", " clean ")],
        *[(text, None) for text in ("", "maybe", None)],
    ],
)
def test_explicit_is_yes_no_or_unknown(value, found):
    """Apple's old and new spellings, in any case; anything else is unknown."""
    assert explicit(value) is found


def test_urls_pass_the_enclosures_checks_and_the_next_candidate_wins():
    """Artwork, transcript and chapters URLs are resolved against the feed and kept only when
    public http(s): a hostile artwork gives way to the next candidate."""
    raw = {
        "images": ["javascript:alert(1)", "http://192.168.1.1/cover.jpg", "art/ep1.jpg"],
        "transcripts": [{"url": "data:text/plain,hi", "type": "text/plain"}],
        "chapters": "http://localhost/chapters.json",
    }

    found = details(raw, "https://radio.example.com/feed.xml")

    assert found == PodcastDetails(image_url="https://radio.example.com/art/ep1.jpg")


def test_a_readable_transcript_is_preferred_to_subtitles():
    """Of several transcripts, the HTML (or plain text) one a reader opens, else the first."""
    subtitles = {"url": "https://cdn.example.com/1.srt", "type": "application/x-subrip"}
    page = {"url": "https://cdn.example.com/1.html", "type": "Text/HTML; charset=utf-8"}
    vtt = {"url": "https://cdn.example.com/1.vtt"}  # no type: guessed from the extension

    assert details({"transcripts": [subtitles, page]}).transcript_url.endswith("1.html")
    assert details({"transcripts": [subtitles, page]}).transcript_type == "text/html"
    assert details({"transcripts": [vtt, subtitles]}).transcript_type == "text/vtt"


def test_checksum_changes_with_podcast_details_only_when_there_are_some():
    """An entry without details keeps the checksum posts had before them (no rewrite of
    every post on upgrade); each detail changes it."""
    plain = ParsedEntry(guid="g", title="t")
    variants = [
        ParsedEntry(guid="g", title="t", podcast=PodcastDetails(**{name: value}))
        for name, value in [
            ("duration", 1200),
            ("image_url", "https://cdn.example.com/1.jpg"),
            ("season", 1),
            ("episode", 1),
            ("explicit", False),
            ("transcript_url", "https://cdn.example.com/1.html"),
            ("chapters_url", "https://cdn.example.com/1.json"),
        ]
    ]

    assert plain.checksum == ParsedEntry(guid="g", title="t", podcast=PodcastDetails()).checksum
    assert len({plain.checksum, *(entry.checksum for entry in variants)}) == 1 + len(variants)


def test_details_are_read_for_kept_entries_only():
    """Like the media, an entry's details are read once it is kept (the newest MAX_ENTRIES)."""
    read_for = []

    def draft(number):
        return Draft(
            guid=f"g{number}",
            link="",
            published_at=None,
            updated_at=None,
            raw_title="",
            raw_author="",
            read_content=str,
            read_podcast=lambda: read_for.append(number) or PodcastDetails(episode=number),
        )

    kept = kept_entries([draft(number) for number in range(1, MAX_ENTRIES + 11)])

    assert len(read_for) == MAX_ENTRIES == len(kept)
    assert [entry.podcast.episode for entry in kept] == read_for
