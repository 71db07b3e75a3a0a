"""What is stored is faithful to the feed: feedparser 6.0.14's own test corpus through ``parse()``.

2,242 documents (tests/corpus/feedparser, about 0.9 MB, with feedparser's
licence). Each goes through ``parse()`` and is compared with feedparser's own
reading of it: title, link, guid, author, dates and the visible text of the
content (tests/support/fidelity.py). Documents that the fast RSS reader takes
must be stored exactly as the feedparser path stores them: every field of the
feed and its entries, enclosures and categories included, and the same counts
of dropped records.
"""

import pytest
from feedparser.datetimes import _parse_date

from djangofeeds.parsing import fastrss_values
from djangofeeds.parsing.entries import to_datetime
from tests.support.fidelity import check, corpus_files, fast_reader_takes, name_of

# Reviewed differences from feedparser's reading, each with its reason.
MOSTLY_UTF8 = (
    "mostly valid UTF-8 with a few invalid bytes: those become U+FFFD (prepare.mostly_utf8) "
    "where feedparser reads the whole document as windows-1252 and garbles every other "
    "non-ASCII character"
)
OCTET_STREAM = (
    "base64 content of type application/octet-stream is no HTML we can vouch for: it is "
    "shown as escaped text, not rendered"
)
SAME_ID = (
    "every entry carries the same id (a template bug in real feeds): the ids tell nothing, so "
    "the guids come from the links, else from a hash of title and content (parse.choose_guids)"
)
INTENDED = {
    "encoding/bozo_invalid-bytes-with-bom.xml": ({"feed title"}, MOSTLY_UTF8),
    "encoding/bozo_linenoise.xml": ({"entry text"}, MOSTLY_UTF8),
    "wellformed/atom/entry_summary_base64_2.xml": ({"entry text"}, OCTET_STREAM),
    "wellformed/atom10/entry_content_base64_2.xml": ({"entry text"}, OCTET_STREAM),
    "wellformed/atom10/entry_summary_base64_2.xml": ({"entry text"}, OCTET_STREAM),
    "wellformed/node_precedence/atom10_id.xml": ({"entry guid"}, SAME_ID),
}


def test_the_corpus_is_stored_faithfully():
    """0 crashes, rejections only where feedparser finds no feed, no markup in plain-text
    fields, no active markup in content, every field as feedparser read it except the
    reviewed differences above, and the fast reader's output equal to feedparser's path."""
    files = corpus_files()
    assert len(files) == 2242
    found = {}
    for path in files:
        kinds = check(path)  # raises on a crash: only NotAFeed is a refusal
        if kinds:
            found[name_of(path)] = kinds
    assert found == {name: kinds for name, (kinds, _) in INTENDED.items()}


def test_the_fast_reader_takes_a_share_of_the_corpus_and_only_rss_2():
    """The gate lets plain RSS 2.0 through, enclosures and categories included (so the
    comparison above, which covers them, means something)."""
    taken = [path for path in corpus_files() if fast_reader_takes(path)]
    bodies = [path.read_bytes() for path in taken]

    assert len(taken) >= 160
    assert sum(b"<enclosure" in body for body in bodies) >= 4
    assert sum(b"<category" in body for body in bodies) >= 8
    assert all(b'version="2.0"' in path.read_bytes() for path in taken)
    assert not any("/atom" in path.as_posix() or "/rdf/" in path.as_posix() for path in taken)


@pytest.mark.parametrize(
    "value",
    [
        "Mon, 02 Nov 2026 10:00:00 GMT",
        "02 Nov 2026 23:59:59 UT",
        "Sun, 01 Feb 2026 00:00:00 +0000",
        "Mon, 02 Nov 2026 10:00:00 +0200",
        "Mon, 30 Feb 2026 10:00:00 GMT",
        "Mon, 02 Nov 2026 24:00:00 GMT",
        "Thu, 31 Dec 1969 23:59:59 GMT",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "2 Nov 2026 10:00 EST",
    ],
)
def test_the_fast_reader_reads_dates_as_feedparser_does(value):
    """Its shortcut for the common RFC 822 form gives feedparser's reading, or hands over."""
    expected = to_datetime(_parse_date(value))
    try:
        found = fastrss_values.date(value)
    except fastrss_values.Refused:
        assert expected is None
    else:
        assert found == expected
