"""Real feeds from other feed libraries' test suites (tests/corpus/real), read as they say.

119 files of podcastparser, atoma, reader and fastfeedparser, unchanged. Each is
imported through the real fetch and import path: imported, or refused with a
one-line reason. Where its library states what its reading should be
(podcastparser's and fastfeedparser's ``.json``, reader's ``<name>.py``; atoma's
test modules, quoted below), ours matches, or the difference is in the reviewed
table of docs/feeds.md ("Other libraries' readings"), which this suite reads.
"""

import fnmatch
import re
from pathlib import Path

import pytest

from djangofeeds.models import Outcome
from djangofeeds.parsing.readers import NotAFeed, parse
from tests.support.importing import import_url
from tests.support.real_corpus import REAL, differences, feed_files, name_of, url_of

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[3] / "docs" / "feeds.md"
# The files refused, and the start of the reason each run records.
REFUSED = {
    "fastfeedparser/malformed_rss_namespaced.xml": (
        "none of the document's 2 items could be read (line 4, column 6: not well-formed"
    ),
}


def content_type_of(path):
    return "application/feed+json" if path.suffix == ".json" else "application/xml"


def reviewed_differences():
    """The rows of docs/feeds.md's reviewed table: ``[(file patterns, field)]``."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("### Other libraries' readings", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append((re.findall(r"`([^`]+)`", cells[0]), cells[1].strip("`")))
    return rows


def test_every_real_feed_is_imported_or_refused_with_a_one_line_reason(feed_server):
    """Through the import path: a run that says "imported" with the posts the document
    holds, or a failed run whose error is one line and says why."""
    files = feed_files()
    assert len(files) >= 115
    assert {name_of(path).split("/")[0] for path in files} == {
        "podcastparser",
        "atoma",
        "reader",
        "fastfeedparser",
    }
    refused, empty = {}, []
    for path in files:
        url = feed_server.serve(
            "/" + name_of(path), path.read_bytes(), content_type=content_type_of(path)
        )
        result = import_url(url)
        if result.outcome == Outcome.FAILED:
            assert "\n" not in result.run.error and result.run.error, name_of(path)
            refused[name_of(path)] = result.run.error
            continue
        assert result.outcome == Outcome.IMPORTED, (name_of(path), result.run.error)
        if result.run.created == 0:
            empty.append(path)
    assert sorted(refused) == sorted(REFUSED)
    for name, start in REFUSED.items():
        assert refused[name].startswith(start), refused[name]
    # An import of no post is a document without items, never a broken one.
    assert all(not re.search(rb"<(\w+:)?(item|entry)[\s>/]", path.read_bytes()) for path in empty)


def test_real_feeds_read_as_their_libraries_state_or_as_reviewed():
    """Each difference from a library's stated reading is a row of the reviewed table,
    and each row still matches a difference (a fixed one leaves the table)."""
    rows = reviewed_differences()
    assert len(rows) >= 8
    unreviewed, used = [], set()
    for path in feed_files():
        try:
            feed = parse(path.read_bytes(), url=url_of(path), content_type=content_type_of(path))
        except NotAFeed:
            continue  # the refusals are the test above's
        for field, (ours, theirs) in differences(path, feed).items():
            matching = [
                index
                for index, (patterns, row_field) in enumerate(rows)
                if row_field == field
                and any(fnmatch.fnmatch(name_of(path), pattern) for pattern in patterns)
            ]
            used.update(matching)
            if not matching:
                unreviewed.append((name_of(path), field, ours, theirs))
    assert unreviewed == []
    assert [rows[i] for i in range(len(rows)) if i not in used] == []


def read(name, **options):
    path = REAL / name
    return parse(path.read_bytes(), url=url_of(path), content_type=content_type_of(path), **options)


def test_literal_text_in_a_plain_title_is_kept():
    """atoma's tests/rss/test_rss.py::test_encoding: "Nice <gorilla> what's he weigh?"
    (written ``&#x3C;gorilla&#x3E;``); it was stored as "Nice what's he weigh?"."""
    titles = [entry.title for entry in read("atoma/rss/encoding.xml").entries]

    assert "Nice <gorilla> what's he weigh?" in titles
    assert "Rïchàrd Plop's ☃" in titles
    # atoma keeps "The &amp; entity" as written; an RSS title may hold HTML (feedparser's
    # rule): the entity is decoded, as every reader shows it.
    assert "The & entity" in titles


def test_a_numeric_json_feed_id_is_its_text():
    """reader's tests/data/invalid.json.py states id='3.1415' (it was a hash)."""
    guids = {entry.title: entry.guid for entry in read("reader/invalid.json").entries}

    assert guids["float id"] == "3.1415"


def test_a_relative_atom_id_is_never_a_link():
    """``<id>a</id>`` without ``<link>`` was stored with the link http://host/path/a."""
    (entry,) = read("podcastparser/media_episode_thumbnail_atom.rss").entries

    assert entry.link == ""


def test_an_absolute_permalink_guid_is_still_the_link():
    """RSS: a permalink guid written as a URL is the link when there is no <link>."""
    body = (REAL / "podcastparser/no_guid.rss").read_bytes()
    body = body.replace(
        b"<link>http://example.com/episode/1</link>", b"<guid>http://example.com/episode/1</guid>"
    )
    (entry,) = parse(body, url="https://feeds.example.com/feed.rss").entries

    assert entry.link == "http://example.com/episode/1"


def test_a_broken_document_is_a_failed_import_that_keeps_the_posts(feed_server):
    """fastfeedparser's malformed_rss_namespaced.xml holds 2 items nobody can read as RSS:
    it was an "imported" run with 0 posts, a blank title and a warning."""
    good = (REAL / "reader/full.rss").read_bytes()
    url = feed_server.serve("/feed.xml", good, content_type="application/xml")
    first = import_url(url)
    broken = (REAL / "fastfeedparser/malformed_rss_namespaced.xml").read_bytes()
    feed_server.serve("/feed.xml", broken, content_type="application/xml")

    result = import_url(url)

    assert result.outcome == Outcome.FAILED
    assert result.run.error.startswith(REFUSED["fastfeedparser/malformed_rss_namespaced.xml"])
    result.feed.refresh_from_db()
    assert result.feed.posts.count() == first.run.created > 0
    assert result.feed.title == first.feed.title != ""
