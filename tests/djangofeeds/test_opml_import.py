"""opml_import keeps every subscription: only a row that is certainly no feed is refused.

A row whose host does not resolve, does not answer or answers 5xx is stored as
written, its error recorded as a failed import records it, due for the importer.
The rows are checked at once, within each host's limit.
"""

import io

import pytest
from django.core.management import call_command

from djangofeeds.models import Feed, ImportRun, Outcome
from localservers.feed_server import numbered_items, rss
from localservers.polite_server import CountingServer
from localservers.silent_server import SilentHosts

pytestmark = pytest.mark.django_db


def opml_file(tmp_path, urls):
    outlines = "".join(
        f'<outline type="rss" text="row {n}" xmlUrl="{url}"/>' for n, url in enumerate(urls)
    )
    path = tmp_path / "feeds.opml"
    path.write_text(f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>')
    return str(path)


def run_import(path, **options):
    out = io.StringIO()
    call_command("opml_import", path, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def assert_stored_unchecked(url, error):
    """The row is a feed, active and due, with its error written as a failed import's."""
    feed = Feed.objects.get(url=url)
    assert feed.is_active and Feed.objects.due().filter(pk=feed.pk).exists()
    assert (feed.last_status, feed.error_count) == (Outcome.FAILED, 1)
    assert error in feed.last_error
    run = ImportRun.objects.get(feed=feed)
    assert run.outcome == Outcome.FAILED and error in run.error
    return feed


@pytest.fixture
def silent_host():
    """A host that accepts connections and never answers: every fetch times out. Not
    127.0.0.1, the feed server's host (a host's ports share its capacity and its silence)."""
    server = SilentHosts(first=9).start()
    yield server
    server.stop()


def test_opml_import_stores_a_row_whose_host_does_not_resolve(tmp_path, memcached_cache):
    """A name that does not resolve may be a resolver's hiccup: the row is kept, its error
    recorded on the feed, and the scheduler tries it again."""
    url = "http://good.invalid/feed.xml"

    out = run_import(opml_file(tmp_path, [url]))

    assert "1 feeds in the file: 1 added, 0 skipped, 0 invalid" in out
    assert_stored_unchecked(url, "cannot resolve good.invalid")


def test_opml_import_records_why_a_silent_host_or_a_5xx_was_not_checked(
    tmp_path, settings, feed_server, silent_host, memcached_cache
):
    """A timeout and a 503 keep their rows as written, each with its error on the feed."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    silent = silent_host.url("/feed.xml")
    broken = feed_server.serve("/broken.xml", "down", status=503)

    out = run_import(opml_file(tmp_path, [silent, broken]))

    assert "2 feeds in the file: 2 added, 0 skipped, 0 invalid" in out
    assert_stored_unchecked(silent, "timed out")
    assert assert_stored_unchecked(broken, "server answered 503").last_http_status == 503


def test_opml_import_refuses_only_rows_that_are_certainly_no_feed(
    tmp_path, feed_server, memcached_cache
):
    """404, 410, a page that links no feed and a body that is no feed are refused, each
    named; a 403 may be lifted later: its row is kept."""
    missing = feed_server.serve("/missing.xml", "no", status=404)
    gone = feed_server.serve("/gone.xml", "no", status=410)
    page = feed_server.serve(
        "/page", "<!doctype html><html><body>Hi</body></html>", content_type="text/html"
    )
    text = feed_server.serve("/notes.txt", "plain words", content_type="text/plain")
    forbidden = feed_server.serve("/private.xml", "no", status=403)

    out = run_import(opml_file(tmp_path, [missing, gone, page, text, forbidden]))

    assert "5 feeds in the file: 1 added, 0 skipped, 4 invalid:" in out
    assert f"invalid: {missing}: " in out and "404" in out
    assert f"invalid: {gone}: " in out and "410" in out
    assert f"invalid: {page}: " in out and "links to no feed" in out
    assert f"invalid: {text}: " in out and "is not a feed" in out
    assert_stored_unchecked(forbidden, "server answered 403")


def test_opml_import_checks_rows_at_once_within_each_hosts_limit(
    tmp_path, settings, memcached_cache
):
    """Rows of four hosts are fetched side by side, never more than DJANGOFEEDS_MAX_PER_HOST
    at one host; the progress and the summary keep the file's order."""
    settings.DJANGOFEEDS_MAX_PER_HOST = 2
    server = CountingServer(delay=0.4, hosts=4).start()
    try:
        urls = [server.url(f"/{n}.xml", host=server.host(n)) for n in range(16)]

        out = run_import(opml_file(tmp_path, urls), verbosity=2)
    finally:
        server.stop()

    assert "16 feeds in the file: 16 added, 0 skipped, 0 invalid" in out
    assert [line.removeprefix("added: ") for line in out.splitlines()[:16]] == urls
    assert max(server.peak.values()) == 2  # side by side, and no more at one host
    assert len(server.peak) == 4 and sum(server.hits.values()) == 16
    assert not Feed.objects.filter(error_count__gt=0).exists()


def test_opml_import_waits_for_a_silent_host_once(tmp_path, settings, silent_host, memcached_cache):
    """A host is asked one row first: once it did not answer, its other rows are kept without
    waiting for it again (nor for its second slot)."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    settings.DJANGOFEEDS_MAX_PER_HOST = 2
    urls = [silent_host.url(f"/{n}.xml") for n in range(6)]

    out = run_import(opml_file(tmp_path, urls))

    assert "6 feeds in the file: 6 added, 0 skipped, 0 invalid" in out
    assert silent_host.connections == 1
    for url in urls:
        assert_stored_unchecked(url, "timed out")


def test_opml_import_concurrency_of_one_still_stores_every_row(
    tmp_path, settings, feed_server, memcached_cache
):
    """DJANGOFEEDS_OPML_CONCURRENCY = 1 checks the rows one after another, with the same result."""
    settings.DJANGOFEEDS_OPML_CONCURRENCY = 1
    urls = [feed_server.serve(f"/{n}.xml", rss(numbered_items(1))) for n in range(3)]

    out = run_import(opml_file(tmp_path, [*urls, "http://other.invalid/feed"]))

    assert "4 feeds in the file: 4 added, 0 skipped, 0 invalid" in out
    assert Feed.objects.filter(error_count=0).count() == 3
