"""The importer against a real local HTTP server: formats, HTTP semantics, limits, safety."""

import time
from datetime import timedelta
from email.utils import formatdate

import pytest
from django.db import connection
from django.utils import timezone

from djangofeeds.fetching import addresses
from djangofeeds.importing.importer import fetch_and_store
from djangofeeds.importing.records import ImportOrigin
from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Feed, ImportRun, Outcome, Post
from djangofeeds.parsing.entries import sha256
from localservers.feed_server import http_date, numbered_items, rss
from tests.support.fixtures import fixture
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def test_import_feed_rss20_stores_posts_and_feed_details(feed_server):
    """An RSS 2.0 feed stores its title, link, description and posts, and records the run."""
    url = feed_server.serve("/news.xml", fixture("rss20.xml"))

    result = import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.title, feed.link, feed.description) == (
        "Celery News",
        "http://example.com/news/",
        "What happens in Celery land",
    )
    assert feed.last_status == Outcome.IMPORTED and feed.error_count == 0
    assert (result.outcome, result.run.created, result.run.updated) == ("imported", 3, 0)
    post = feed.posts.get(guid="news-5-7")
    assert post.title == "Celery 5.7 released"
    assert post.author == "ask@example.com (Ask)"
    assert post.published_at.isoformat() == "2026-11-03T10:00:00+00:00"
    run = ImportRun.objects.get()
    assert (run.outcome, run.created, run.http_status) == (Outcome.IMPORTED, 3, 200)
    assert run.finished_at >= run.started_at and run.bytes_received > 0


def test_import_feed_sanitizes_html_content(feed_server):
    """Post bodies keep their markup and lose scripts, handlers and javascript: links."""
    url = feed_server.serve("/news.xml", fixture("rss20.xml"))

    import_url(url)

    content = Post.objects.get(guid="news-5-7").content
    assert "<b>release</b>" in content
    for unsafe in ("<script", "alert(1)", "onerror", "javascript:"):
        assert unsafe not in content


def test_import_feed_resolves_relative_links_against_the_feed(feed_server):
    """Relative links of posts and in their bodies resolve against the feed's URL."""
    url = feed_server.serve("/news.xml", fixture("rss20.xml"))

    import_url(url)

    post = Post.objects.get(guid="news-relative")
    assert post.link == feed_server.url("/news/relative")
    assert f'href="{feed_server.url("/docs/")}"' in post.content


def test_import_feed_rss10(feed_server):
    """An RSS 1.0 (RDF) feed stores its title and its items' titles and authors."""
    url = feed_server.serve("/rdf.xml", fixture("rss10.xml"), content_type="application/rdf+xml")

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert feed.title == "RDF Site"
    assert list(feed.posts.values_list("title", "author")) == [
        ("First RDF item", "Alice"),
        ("Second RDF item", ""),
    ]


def test_import_feed_atom10_sanitizes_html_and_escapes_text(feed_server):
    """Atom HTML content is sanitized, text content escaped; the update date stands in."""
    url = feed_server.serve("/atom.xml", fixture("atom10.xml"), content_type="application/atom+xml")

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert (feed.title, feed.description) == ("Atom Site", "An Atom 1.0 feed")
    one, two = feed.posts.order_by("link")
    assert one.author == "Bob" and "<em>Atom</em>" in one.content and "iframe" not in one.content
    assert one.guid == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a"
    assert "1 &lt; 2 &amp; plain text" in two.content
    assert two.published_at == two.updated_at  # no <published>: the update date stands in


def test_import_feed_etag_304_writes_no_post(feed_server, django_assert_num_queries):
    """A 304 to the feed's ETag writes no post: three queries, the check times and the run."""
    url = feed_server.serve("/etag.xml", rss(numbered_items(5)), etag='"v1"')
    import_url(url)
    checked = Feed.objects.get(url=url).last_checked_at

    # get the feed, update its check times (fenced), record the run: on PostgreSQL the
    # last two are one statement (locking.fence.write_fenced(run=...))
    with django_assert_num_queries(2 if connection.vendor == "postgresql" else 3) as captured:
        result = import_url(url)

    assert result.outcome == Outcome.NOT_MODIFIED
    assert feed_server.last_headers("/etag.xml")["If-None-Match"] == '"v1"'
    assert not any("djangofeeds_post" in query["sql"] for query in captured.captured_queries)
    feed = Feed.objects.get(url=url)
    assert feed.last_checked_at > checked and feed.last_status == Outcome.NOT_MODIFIED
    assert Post.objects.count() == 5


def test_import_feed_last_modified_304(feed_server):
    """The feed's Last-Modified is sent back as If-Modified-Since, and a 304 follows."""
    modified = http_date(3600)
    url = feed_server.serve("/lm.xml", rss(numbered_items(2)), last_modified=modified)
    import_url(url)

    result = import_url(url)

    assert result.outcome == Outcome.NOT_MODIFIED
    assert feed_server.last_headers("/lm.xml")["If-Modified-Since"] == modified
    assert Feed.objects.get(url=url).last_modified == modified


def test_import_feed_unchanged_200_rewrites_nothing(feed_server, django_assert_max_num_queries):
    """Other bytes (here one more newline) with the same entries: parsed, compared, not written."""
    body = rss(numbered_items(50))
    url = feed_server.serve("/same.xml", body)
    import_url(url)
    feed_server.serve("/same.xml", body + b"\n")

    with django_assert_max_num_queries(8) as captured:
        result = import_url(url)

    assert (result.run.created, result.run.updated) == (0, 0)
    assert not any(
        q["sql"].startswith('INSERT INTO "djangofeeds_post"') for q in captured.captured_queries
    )


@pytest.mark.parametrize("reader", ["fastrss", "feedparser"])
def test_posts_with_images_are_not_rewritten_by_a_reimport(feed_server, reader):
    """Images get their privacy attributes in one fixed order: the checksum of an unchanged
    entry stays the same, so a re-import with other bytes updates nothing."""
    items = numbered_items(20)
    for item in items:
        item["description"] = (
            f'&lt;p&gt;{item["title"]}&lt;img src="http://example.com/{item["guid"]}.png" '
            'alt="a" width="10" height="10" title="t"&gt;&lt;/p&gt;'
        )
    body = rss(items)
    if reader == "feedparser":  # a namespace keeps the fast RSS reader out
        body = body.replace(b'<rss version="2.0">', b'<rss version="2.0" xmlns:x="urn:x">')
    url = feed_server.serve("/images.xml", body)
    assert import_url(url).run.created == 20
    for extra in (b"\n", b"\n\n", b"\n\n\n"):
        feed_server.serve("/images.xml", body + extra)
        result = import_url(url)
        assert (result.outcome, result.run.created, result.run.updated) == (
            Outcome.IMPORTED,
            0,
            0,
        )
    assert 'referrerpolicy="no-referrer"' in Post.objects.first().content


def test_import_feed_same_guid_on_every_entry_falls_back_to_links(feed_server):
    """One guid on every entry is ignored: each post's guid is its link."""
    items = numbered_items(3)
    for item in items:
        item["guid"] = "same-for-all"
    url = feed_server.serve("/sameguid.xml", rss(items))

    import_url(url)

    assert sorted(Post.objects.values_list("guid", flat=True)) == [
        "http://example.com/item/0",
        "http://example.com/item/1",
        "http://example.com/item/2",
    ]


def test_import_feed_same_guid_and_same_link_on_every_entry_keeps_every_post(feed_server):
    """When ids and links are both useless, title and content tell the entries apart."""
    items = numbered_items(3)
    for item in items:
        item["guid"], item["link"] = "same-for-all", "http://example.com/"
    url = feed_server.serve("/samelink.xml", rss(items))

    result = import_url(url)

    assert result.run.created == 3
    assert all(guid.startswith("sha256:") for guid in Post.objects.values_list("guid", flat=True))


def test_import_feed_without_ids_or_links_hashes_title_and_content(feed_server):
    """Entries without ids or links get hashed guids; an exact repeat is one post."""
    url = feed_server.serve("/bare.xml", rss([{"title": "A"}, {"title": "B"}, {"title": "A"}]))

    result = import_url(url)

    assert result.run.created == 2  # the repeated item is one post
    assert all(guid.startswith("sha256:") for guid in Post.objects.values_list("guid", flat=True))


def test_import_feed_huge_ttl_and_max_age_are_capped_not_a_crash(feed_server):
    """An absurd ttl and max-age are capped: the next check is at most a day away."""
    url = feed_server.serve(
        "/forever.xml",
        rss(numbered_items(1), ttl=99999999999999),
        headers={"Cache-Control": "max-age=99999999999999999"},
    )

    result = import_url(url)

    assert result.outcome == Outcome.IMPORTED
    assert result.feed.next_check_at <= timezone.now() + timedelta(hours=24, seconds=5)


def test_import_feed_temporary_redirect_keeps_url(feed_server):
    """A temporary redirect anywhere in the chain keeps the feed's URL."""
    target = feed_server.serve("/new.xml", rss(numbered_items(1)))
    old = feed_server.redirect("/old.xml", "/moved.xml", status=301)
    feed_server.redirect("/moved.xml", target, status=302)

    result = import_url(old)

    assert result.outcome == Outcome.IMPORTED
    assert Feed.objects.get().url == old


def test_import_feed_redirected_to_a_host_name_idna_refuses_records_why(feed_server):
    """A redirect to ``http://xn--/feed`` is a failed import with a readable reason, like any
    other bad redirect target, not an IDNAError that crashes the import."""
    url = feed_server.redirect("/moved-to-bad-host.xml", "http://xn--/feed")

    result = import_url(url)

    feed = Feed.objects.get(url=url)
    assert result.outcome == Outcome.FAILED and not result.transient
    assert feed.last_error == (
        "redirected to http://xn--/feed: not a valid URL: the host name xn-- is not valid IDNA"
    )


def test_import_feed_404_counts_an_error_and_backs_off(feed_server):
    """A 404 counts an error, keeps the feed active and puts its next check off."""
    url = feed_server.url("/missing.xml")

    result = import_url(url)

    feed = Feed.objects.get(url=url)
    assert result.outcome == Outcome.FAILED and not result.transient
    assert "404" in feed.last_error and feed.error_count == 1 and feed.is_active
    assert feed.next_check_at > timezone.now() + timedelta(minutes=3)
    assert ImportRun.objects.get().error == feed.last_error


@pytest.mark.parametrize("previous_errors", [3, 30, 10_000])
def test_import_feed_backoff_grows_and_is_capped(feed_server, previous_errors):
    """Backoff doubles per error (±20% jitter), stops at 24 h (spread over its last 5%)."""
    url = feed_server.url("/missing.xml")
    Feed.objects.create(url=url, error_count=previous_errors)
    before = timezone.now()

    import_url(url)

    feed = Feed.objects.get(url=url)
    delay = feed.next_check_at - before
    assert feed.error_count == previous_errors + 1
    if previous_errors == 3:  # 5 min * 2**3 = 40 min
        assert timedelta(minutes=32) <= delay <= timedelta(minutes=48, seconds=5)
    else:
        assert timedelta(hours=24) * 0.95 <= delay <= timedelta(hours=24, seconds=5)


def test_import_feed_410_deactivates(feed_server):
    """A 410 Gone deactivates the feed and says why."""
    url = feed_server.serve("/gone.xml", "gone", status=410)

    import_url(url)

    feed = Feed.objects.get(url=url)
    assert not feed.is_active and "410" in feed.last_error


def test_import_feed_500_is_transient(feed_server):
    """A 500 is a transient failure, recorded with its status."""
    url = feed_server.serve("/broken.xml", "oops", status=500)

    result = import_url(url)

    assert result.outcome == Outcome.FAILED and result.transient
    assert "500" in result.run.error and result.run.http_status == 500


def test_import_feed_429_retry_after_pushes_next_check_later(feed_server):
    """A 429's Retry-After puts the feed's next check that far off."""
    url = feed_server.serve("/busy.xml", "slow down", status=429, headers={"Retry-After": "7200"})

    result = import_url(url)

    assert result.transient and result.retry_after == 7200
    assert Feed.objects.get(url=url).next_check_at >= timezone.now() + timedelta(seconds=7190)


def test_import_feed_ttl_and_max_age_push_next_check_later(feed_server, settings):
    """A ttl or max-age longer than the interval puts the next check later, never earlier."""
    settings.DJANGOFEEDS_REFRESH_INTERVAL = 600
    settings.DJANGOFEEDS_MIN_POLL_INTERVAL = settings.DJANGOFEEDS_MAX_POLL_INTERVAL = 600
    ttl = feed_server.serve("/ttl.xml", rss(numbered_items(1), ttl=90))
    cached = feed_server.serve(
        "/cc.xml", rss(numbered_items(1)), headers={"Cache-Control": "max-age=7200"}
    )
    short = feed_server.serve(
        "/short.xml", rss(numbered_items(1)), headers={"Cache-Control": "max-age=60"}
    )

    for url in (ttl, cached, short):
        import_url(url)

    now = timezone.now()
    due = {feed.url: feed.next_check_at - now for feed in Feed.objects.all()}
    assert timedelta(minutes=89) < due[ttl] <= timedelta(minutes=90)
    assert timedelta(minutes=119) < due[cached] <= timedelta(minutes=120)
    assert timedelta(minutes=9) < due[short] <= timedelta(minutes=10)  # never earlier


def test_import_feed_timeout_is_a_transient_error(feed_server, settings):
    """A server slower than the fetch timeout is a transient error."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    url = feed_server.serve("/slow.xml", rss(numbered_items(1)), delay=3)

    result = import_url(url)

    assert result.transient and "timed out" in result.run.error


def test_import_feed_gzip_bomb_stops_at_the_cap(feed_server, settings):
    """A gzip body that inflates past the size cap fails for good at the cap."""
    settings.DJANGOFEEDS_MAX_BYTES = 1024 * 1024
    bomb = b"<rss>" + b" " * (64 * 1024 * 1024)
    url = feed_server.serve("/bomb.xml", bomb, gzip=True)

    result = import_url(url)

    assert result.outcome == Outcome.FAILED and not result.transient
    assert "larger than 1048576 bytes" in result.run.error


@pytest.mark.parametrize("send_length", [True, False], ids=["content-length", "no-content-length"])
def test_import_feed_over_size_body_is_refused(feed_server, settings, send_length):
    """A body over the size cap is refused, with or without Content-Length."""
    settings.DJANGOFEEDS_MAX_BYTES = 10_000
    url = feed_server.serve("/big.xml", rss(numbered_items(200)), send_length=send_length)

    result = import_url(url)

    assert "larger than 10000 bytes" in result.run.error and Post.objects.count() == 0


def test_import_feed_html_page_is_a_readable_error(feed_server):
    """An HTML page fails with an error that says it is an HTML page."""
    page = (
        "<!DOCTYPE html><html><head><title>Hi</title></head><body><p>Not a feed</p></body></html>"
    )
    url = feed_server.serve("/page.html", page, content_type="text/html")

    result = import_url(url)

    assert result.outcome == Outcome.FAILED
    assert result.run.error.startswith("the document is an HTML page")


def test_import_feed_empty_body_is_a_readable_error(feed_server):
    """An empty body fails with an error that says so."""
    url = feed_server.serve("/empty.xml", b"")

    result = import_url(url)

    assert result.run.error == "the server sent an empty body"


def test_import_feed_bozo_feed_with_entries_is_imported_with_a_warning(feed_server):
    """An ill-formed feed that still has entries is imported, with a warning."""
    broken = rss(numbered_items(2)).replace(b"</channel></rss>", b"<unclosed></channel></rss>")
    url = feed_server.serve("/bozo.xml", broken)

    result = import_url(url)

    assert result.outcome == Outcome.IMPORTED and result.run.created == 2
    assert result.run.warning


def test_import_feed_refuses_private_addresses(feed_server, settings):
    """A private address is refused before any request reaches it."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    url = feed_server.serve("/private.xml", rss(numbered_items(1)))

    result = import_url(url)

    assert "non-public address (127.0.0.1)" in result.run.error
    assert feed_server.hits("/private.xml") == 0


def test_import_feed_checks_every_redirect_hop(feed_server, settings, monkeypatch):
    """The first hop passes the address check; the redirect's target does not."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    # Stand in for a public server: only 127.0.0.1 counts as public in this test.
    monkeypatch.setattr(addresses, "is_public", lambda address: address == "127.0.0.1")
    url = feed_server.redirect(
        "/hop.xml", f"http://127.0.0.2:{feed_server.port}/inside.xml", status=302
    )

    result = import_url(url)

    assert "non-public address (127.0.0.2)" in result.run.error
    assert feed_server.hits("/hop.xml") == 1


@pytest.mark.parametrize(
    "url", ["ftp://example.com/feed", "file:///etc/passwd", "http://user:pw@example.com/"]
)
def test_import_feed_refuses_other_schemes_and_credentials(url):
    """Other schemes and URLs with credentials fail for good."""
    result = import_url(url)

    assert result.outcome == Outcome.FAILED and not result.transient
    assert "only http and https" in result.run.error or "user name or password" in result.run.error


def test_import_feed_stale_fence_writes_nothing(feed_server):
    """An import whose fence a newer one replaced writes nothing."""
    url = feed_server.serve("/fenced.xml", rss(numbered_items(3)))
    stale = next_fence(url)
    next_fence(url)  # a newer holder took over

    result = fetch_and_store(stale, fence=stale.fence)

    assert result.outcome == Outcome.FAILED and "newer import" in result.run.error
    assert Post.objects.count() == 0
    assert Feed.objects.get(url=url).last_status == ""


def test_import_feed_current_fence_imports(feed_server):
    """An import holding the current fence imports; its run keeps the task and the worker."""
    url = feed_server.serve("/fenced.xml", rss(numbered_items(3)))
    fenced = next_fence(url)
    origin = ImportOrigin(task_id="t-1", worker="w@host")
    result = fetch_and_store(fenced, fence=fenced.fence, origin=origin)

    assert result.run.created == 3
    assert (result.run.task_id, result.run.worker) == ("t-1", "w@host")


def test_import_feed_reports_progress(feed_server):
    """Progress is reported after each batch of 100 and at the end."""
    body = rss(numbered_items(250))
    url = feed_server.serve("/progress.xml", body)
    import_url(url)  # a first import, in one batch (see below)
    feed_server.serve("/progress.xml", body + b"\n")
    seen = []

    import_url(url, progress=lambda current, total: seen.append((current, total)))

    assert seen == [(100, 250), (200, 250), (250, 250)]


def test_import_feed_first_import_reports_progress_per_bigger_batch(feed_server, monkeypatch):
    """A first import writes bigger batches (fewer commits): its progress follows them."""
    monkeypatch.setattr("djangofeeds.importing.storage.FIRST_IMPORT_BATCH_SIZE", 200)
    url = feed_server.serve("/first-progress.xml", rss(numbered_items(250)))
    seen = []

    result = import_url(url, progress=lambda current, total: seen.append((current, total)))

    assert result.run.created == 250 and seen == [(200, 250), (250, 250)]


def test_import_feed_does_not_report_progress_of_a_single_batch(feed_server):
    """A feed stored in one batch has nothing to report meanwhile: no PROGRESS write."""
    url = feed_server.serve("/small.xml", rss(numbered_items(100)))
    seen = []

    result = import_url(url, progress=lambda current, total: seen.append((current, total)))

    assert result.run.created == 100 and seen == []


def dated_items(*ages):
    """RSS items published ``ages`` (timedeltas) ago."""
    now = time.time()
    return [
        {
            "guid": f"d{n}",
            "title": f"Item {n}",
            "pubDate": formatdate(now - age.total_seconds(), usegmt=True),
        }
        for n, age in enumerate(ages)
    ]


@pytest.mark.parametrize(
    ("ages", "expected"),
    [
        # Every 2 hours over the last week: checked every 2 hours.
        ([timedelta(hours=2 * n) for n in range(1, 30)], timedelta(hours=2)),
        # Every minute: never more often than the minimum.
        ([timedelta(minutes=n) for n in range(1, 50)], timedelta(seconds=900)),
        # Once a week: never less often than the maximum.
        ([timedelta(days=7 * n) for n in range(1, 5)], timedelta(days=1)),
        # Busy once, quiet for 10 hours since: half the quiet time.
        ([timedelta(hours=10, minutes=n) for n in range(20)], timedelta(hours=5)),
    ],
)
def test_next_check_follows_the_publishing_rate_within_bounds(
    feed_server, settings, ages, expected
):
    """A 200, a 304 and a 200 with the same bytes all wait the pace the document showed."""
    settings.DJANGOFEEDS_MIN_POLL_INTERVAL = 900
    settings.DJANGOFEEDS_MAX_POLL_INTERVAL = 86400
    body = rss(dated_items(*ages))
    url = feed_server.serve("/rate.xml", body, etag='"v1"')

    first = import_url(url)
    again = import_url(url)  # answered 304: the pace the last document showed
    feed_server.serve("/rate.xml", body)  # no validators: a 200 with the same bytes
    same = import_url(url)

    assert again.outcome == Outcome.NOT_MODIFIED and again.run.http_status == 304
    assert same.outcome == Outcome.NOT_MODIFIED and same.run.http_status == 200
    for result in (first, again, same):
        delay = result.feed.next_check_at - result.run.started_at
        assert abs(delay - expected) < timedelta(minutes=2)


def test_import_feed_same_bytes_200_stops_before_parsing(
    feed_server, django_assert_max_num_queries, monkeypatch
):
    """A 200 with the bytes imported last time: no parse, 0 post writes, at most 5 queries."""
    url = feed_server.serve("/same-bytes.xml", rss(numbered_items(50)))
    import_url(url)

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed the same bytes again")

    monkeypatch.setattr("djangofeeds.importing.importer.parse", no_parse)
    with django_assert_max_num_queries(5) as captured:
        result = import_url(url)

    assert result.outcome == Outcome.NOT_MODIFIED and result.run.http_status == 200
    assert not any("djangofeeds_post" in query["sql"] for query in captured.captured_queries)
    feed = Feed.objects.get(url=url)
    assert feed.last_status == Outcome.NOT_MODIFIED and feed.last_http_status == 200


def test_import_feed_changed_bytes_or_a_failed_parse_are_parsed_again(feed_server):
    """Only bytes that were imported successfully are skipped."""
    url = feed_server.serve("/changing.xml", rss(numbered_items(2)))
    import_url(url)
    feed_server.serve("/changing.xml", rss(numbered_items(3)))

    assert import_url(url).run.created == 1

    page = feed_server.serve("/page.xml", b"<html><body>not a feed</body></html>")
    assert [import_url(page).outcome for _ in range(2)] == [Outcome.FAILED, Outcome.FAILED]
    assert Feed.objects.get(url=page).error_count == 2


ATOM_WITH_MARKUP = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">&lt;b&gt;Marked&lt;/b&gt; up   feed</title>
  <subtitle type="html">&lt;b&gt;desc&lt;/b&gt; &amp;amp; more</subtitle>
  <entry>
    <title type="html">&lt;em&gt;Hello&lt;/em&gt; &amp;amp; goodbye</title>
    <id>tag:example.com,2026:1</id>
    <author><name>&lt;i&gt;Ann&lt;/i&gt; &amp;amp; Bob</name></author>
    <content type="html">&lt;p&gt;Body&lt;/p&gt;</content>
  </entry>
  <entry>
    <title type="xhtml">
      <div xmlns="http://www.w3.org/1999/xhtml">Caf<b>&#233;</b> time</div>
    </title>
    <id>tag:example.com,2026:2</id>
  </entry>
</feed>"""


def cdata_titles():
    items = [
        {"guid": "cdata", "title": "<![CDATA[A <b>bold</b> move]]>"},
        {"guid": "twice", "title": "Tom &amp;amp; &amp;lt;i&amp;gt;Jerry&amp;lt;/i&amp;gt;"},
        # No guid, no link: its guid is a hash of its title (as the parser gave it) and content.
        {"title": "<![CDATA[Bare <i>entry</i>]]>", "description": "Text"},
    ]
    return rss(items, title="<![CDATA[The <em>Feed</em>]]>")


def test_import_feed_titles_and_authors_are_plain_text_whatever_the_type(feed_server):
    """Titles and authors are stored as plain text, whether HTML, XHTML, CDATA or escaped twice."""
    atom = feed_server.serve("/markup.atom", ATOM_WITH_MARKUP, content_type="application/atom+xml")
    cdata = feed_server.serve("/cdata.xml", cdata_titles())

    import_url(atom)
    import_url(cdata)

    feed = Feed.objects.get(url=atom)
    assert (feed.title, feed.description) == ("Marked up feed", "desc & more")
    assert dict(feed.posts.values_list("guid", "title")) == {
        "tag:example.com,2026:1": "Hello & goodbye",
        "tag:example.com,2026:2": "Café time",
    }
    assert feed.posts.get(guid="tag:example.com,2026:1").author == "Ann & Bob"
    feed = Feed.objects.get(url=cdata)
    assert feed.title == "The Feed"
    assert sorted(feed.posts.values_list("title", flat=True)) == [
        "A bold move",
        "Bare entry",
        "Tom & Jerry",
    ]


def test_import_feed_repairs_titles_stored_with_markup_without_duplicates(feed_server, client):
    """Posts stored before titles were plain text get repaired by the next import; their guids
    (also the hashed ones) stay, so no post is created twice."""
    url = feed_server.serve("/repair.xml", cdata_titles())
    import_url(url)
    feed = Feed.objects.get(url=url)
    hashed = feed.posts.get(title="Bare entry")
    assert hashed.guid == "sha256:" + sha256("Bare <i>entry</i>\x1f" + hashed.content)
    # As the importer stored them before: titles with markup, and no body hash yet.
    Post.objects.filter(guid="cdata").update(title="A <b>bold</b> move", checksum="old")
    Post.objects.filter(pk=hashed.pk).update(title="Bare <i>entry</i>", checksum="old")
    Feed.objects.filter(pk=feed.pk).update(title="The <em>Feed</em>", body_hash="")
    before = dict(feed.posts.values_list("guid", "pk"))

    result = import_url(url)

    assert (result.run.created, result.run.updated) == (0, 2)
    assert dict(feed.posts.values_list("guid", "pk")) == before
    assert feed.posts.get(guid="cdata").title == "A bold move"
    assert Feed.objects.get(pk=feed.pk).title == "The Feed"
    page = client.get(feed.get_absolute_url()).content.decode()
    assert "A bold move" in page and "&lt;b&gt;" not in page
