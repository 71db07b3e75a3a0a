"""Fuzzed subscriptions: OPML rows and their attributes, and ``addfeed``'s arguments.

Every file ends with its summary; every good row is stored whatever rows sit
next to it; nothing stored breaks the rules a feed URL must follow. The rows are
stored as written (--no-discover): the URL checks are under test here, not the
fetch that discovery adds (tests/djangofeeds/discovery/test_finder.py).
"""

import io
import re
from xml.etree.ElementTree import Element, SubElement, tostring

import pytest
from django.core.management import CommandError, call_command
from hypothesis import example, given
from hypothesis import strategies as st

from djangofeeds.discovery.opml import OPMLError, parse_opml
from djangofeeds.models import Feed, feed_url_problem
from tests.fuzz.strategies import any_url, hostile_text, scaled

pytestmark = pytest.mark.django_db

SUMMARY = re.compile(r"(\d+) feeds in the file: (\d+) added, (\d+) skipped, (\d+) invalid")
# What XML 1.0 can carry at all: a file with anything else is refused whole, rightly.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
ATTRIBUTES = ["xmlUrl", "title", "text", "htmlUrl", "type"]


def good(number):
    return f"http://good{number}.example/feed"


# A row: a good URL (by number) or any URL, with attributes of any content.
ROWS = st.lists(
    st.tuples(
        st.integers(0, 5) | any_url(),
        st.dictionaries(st.sampled_from(ATTRIBUTES[1:]), hostile_text(6) | any_url(), max_size=3),
        st.integers(0, 2),  # nesting: a row inside folders
    ),
    min_size=1,
    max_size=8,
)


def opml(rows):
    """OPML bytes with one outline per row, some in folders."""
    root = Element("opml", version="2.0")
    body = SubElement(root, "body")
    for url, attributes, depth in rows:
        parent = body
        for _ in range(depth):
            parent = SubElement(parent, "outline", text="folder")
        url = good(url) if isinstance(url, int) else url
        values = {"xmlUrl": url, **attributes}
        SubElement(parent, "outline", {k: NOT_XML.sub("", v) for k, v in values.items()})
    return tostring(root, encoding="utf-8", xml_declaration=True)


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@given(rows=ROWS)
# Issue 25: a good row, a host IDNA refuses, a good row: a traceback, the third row lost.
@example(rows=[(0, {}, 0), ("http://xn--/", {}, 0), (1, {}, 0)])
@example(rows=[(0, {}, 0), ("http://example.com:0/", {"htmlUrl": "http://xn--/"}, 1), (1, {}, 0)])
@example(rows=[(0, {"title": "\x00<b>x</b>" * 100}, 0), (" ", {}, 2), (1, {}, 0)])
@scaled(1.5)
def test_opml_import_ends_with_its_summary_and_stores_every_good_row(tmp_path, rows):
    """Whatever the rows hold, the command prints its summary; the feeds stored are exactly
    the file's distinct URLs that pass the URL check, good rows included; their links are
    web links."""
    Feed.objects.all().delete()  # each example starts from no feeds (one transaction per test)
    path = tmp_path / "feeds.opml"
    path.write_bytes(opml(rows))
    outlines = parse_opml(path.read_bytes())

    out, _ = run("opml_import", "--no-discover", str(path))

    [counts] = SUMMARY.findall(out)
    urls = {outline.url for outline in outlines}
    accepted = {url for url in urls if feed_url_problem(url) is None}
    assert counts == (
        str(len(outlines)),
        str(len(accepted)),
        str(len(outlines) - len(urls)),
        str(len(urls - accepted)),
    )
    assert set(Feed.objects.values_list("url", flat=True)) == accepted
    assert {good(n) for n, *_ in rows if isinstance(n, int)} <= accepted
    for feed in Feed.objects.all():
        assert feed.link == "" or feed.link.lower().startswith(("http://", "https://"))
        assert len(feed.title) <= 500


@given(text=hostile_text(20))
@example(text="<opml><body><outline xmlUrl='http://xn--/'/></body></opml>")
@scaled(0.5)
def test_opml_import_of_any_bytes_is_a_summary_or_a_clear_error(tmp_path, text):
    """Bytes that are no OPML end in a CommandError naming the problem, never a traceback."""
    path = tmp_path / "junk.opml"
    path.write_bytes(text.encode())
    try:
        parse_opml(path.read_bytes())
    except OPMLError as exc:
        with pytest.raises(CommandError, match=re.escape(str(exc))):
            run("opml_import", "--no-discover", str(path))
    else:
        assert SUMMARY.search(run("opml_import", "--no-discover", str(path))[0])


@given(urls=st.lists(st.integers(0, 5) | any_url(), min_size=1, max_size=5))
@example(urls=["http://xn--/"])  # issue 25: a traceback
@example(urls=["http://example.com:0/"])  # issue 25: stored, though port 0 cannot be fetched
@example(urls=[0, "http://xn--a.com/", 1])
@scaled(1)
def test_addfeed_stores_exactly_the_urls_that_pass_the_check(urls):
    """addfeed stores the URLs that pass the check and fails, naming how many, for the others;
    never a traceback."""
    Feed.objects.all().delete()
    urls = [good(url) if isinstance(url, int) else url for url in urls]
    accepted = {url.strip() for url in urls if feed_url_problem(url.strip()) is None}
    refused = [url for url in urls if feed_url_problem(url.strip()) is not None]

    # "--": a generated URL may start with a dash.
    if refused:
        with pytest.raises(CommandError, match=f"{len(refused)} of {len(urls)} URLs"):
            run("addfeed", "--no-discover", "--", *urls)
    else:
        run("addfeed", "--no-discover", "--", *urls)

    assert set(Feed.objects.values_list("url", flat=True)) == accepted
