"""Management commands: addfeed, import_feeds (sync, wait, queue), opml_import and opml_export."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.locks import CacheLock
from djangofeeds.models import Feed, ImportRun, Outcome, Post
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from tests.factories import FeedFactory
from tests.support.queues import purge_run_queues

pytestmark = pytest.mark.django_db


def run(*args, **options):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def test_addfeed_adds_new_feeds_and_reports_known_ones(feed_server):
    """addfeed adds new URLs and reports the ones already subscribed (without fetching them)."""
    FeedFactory(url="http://known.example/feed")
    new = feed_server.serve("/new.xml", rss(numbered_items(1)))

    out, _ = run("addfeed", new, "http://known.example/feed")

    assert f"Added {new}" in out and feed_server.hits("/new.xml") == 1
    assert "Already subscribed: http://known.example/feed" in out
    assert Feed.objects.count() == 2


def test_addfeed_refuses_unfetchable_urls_with_a_clear_error():
    """addfeed adds the fetchable URLs and fails naming how many were refused."""
    with pytest.raises(CommandError, match="1 of 2 URLs were not added"):
        run("addfeed", "ftp://files.example/feed", "http://ok.example/feed", "--no-discover")

    assert list(Feed.objects.values_list("url", flat=True)) == ["http://ok.example/feed"]


def test_addfeed_import_imports_right_away(feed_server):
    """addfeed --import imports the new feed's posts at once."""
    url = feed_server.serve("/a.xml", rss(numbered_items(3)))

    out, _ = run("addfeed", url, "--import")

    assert "imported" in out and Post.objects.count() == 3


def test_addfeed_import_fetches_and_parses_the_document_once(feed_server, monkeypatch):
    """The import takes discovery's fetch and reading: one request, one parse (it made two
    of each). Counted by wrapping the real parser, which still does the work."""
    from djangofeeds.discovery import finder
    from djangofeeds.importing import importer

    parses = []

    def counted(parse):
        def parse_and_count(body, **options):
            parses.append(len(body))
            return parse(body, **options)

        return parse_and_count

    monkeypatch.setattr(finder, "parse", counted(finder.parse))
    monkeypatch.setattr(importer, "parse", counted(importer.parse))
    url = feed_server.serve("/once.xml", rss(numbered_items(3)))

    out, _ = run("addfeed", url, "--import")

    assert "imported" in out and Post.objects.count() == 3
    assert (feed_server.hits("/once.xml"), len(parses)) == (1, 1)
    run_row = ImportRun.objects.get()
    assert (run_row.outcome, run_row.created, run_row.http_status) == (Outcome.IMPORTED, 3, 200)


def test_addfeed_import_of_a_known_feed_fetches_it_for_the_import(feed_server):
    """A feed already subscribed is not fetched by addfeed: its import fetches it."""
    url = feed_server.serve("/known.xml", rss(numbered_items(2)))
    FeedFactory(url=url)

    out, _ = run("addfeed", url, "--import")

    assert "Already subscribed" in out and feed_server.hits("/known.xml") == 1
    assert Post.objects.count() == 2


def test_import_feeds_sync_shows_progress_and_a_table(feed_server):
    """import_feeds --sync shows a progress bar and a table of outcomes per URL."""
    good = feed_server.serve("/good.xml", rss(numbered_items(2)))
    same = feed_server.serve("/same.xml", rss(numbered_items(1, prefix="other")))

    out, _ = run("import_feeds", good, same, "--sync")

    assert "[##########----------] 1/2" in out and "[####################] 2/2" in out
    assert "URL" in out and "status" in out
    assert any(
        line.startswith(good) and "imported" in line and " 2 " in line for line in out.splitlines()
    )
    assert ImportRun.objects.filter(worker="manage.py").count() == 2


def test_import_feeds_sync_fails_when_an_import_fails(feed_server):
    """import_feeds --sync fails when one import fails, after importing the others."""
    good = feed_server.serve("/good.xml", rss(numbered_items(2)))
    bad = feed_server.url("/missing.xml")

    with pytest.raises(CommandError, match="1 of 2 imports failed"):
        run("import_feeds", good, bad, "--sync")

    assert Feed.objects.get(url=bad).error_count == 1
    assert Feed.objects.get(url=good).posts.count() == 2


def test_import_feeds_sync_goes_through_the_lock(feed_server):
    """import_feeds --sync skips a feed whose lock another import holds."""
    url = feed_server.serve("/locked.xml", rss(numbered_items(1)))
    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    holder.acquire()

    out, _ = run("import_feeds", url, "--sync")

    assert "skipped" in out and feed_server.hits("/locked.xml") == 0
    holder.release()


def test_import_feeds_all_and_due_select_feeds(feed_server):
    """import_feeds --due imports the active due feeds and leaves inactive ones alone."""
    due = feed_server.serve("/due.xml", rss(numbered_items(1)))
    FeedFactory(url=due)
    FeedFactory(url=feed_server.serve("/inactive.xml", rss(numbered_items(1))), is_active=False)

    run("import_feeds", "--due", "--sync", verbosity=0)

    assert feed_server.hits("/due.xml") == 1 and feed_server.hits("/inactive.xml") == 0
    assert ImportRun.objects.get().outcome == Outcome.IMPORTED


def test_import_feeds_without_urls_imports_the_due_feeds(feed_server):
    """import_feeds with no URL and no --all imports what --due would, and only that."""
    FeedFactory(url=feed_server.serve("/due.xml", rss(numbered_items(1))))
    later = timezone.now() + timedelta(hours=1)
    FeedFactory(url=feed_server.serve("/later.xml", rss(numbered_items(1))), next_check_at=later)

    run("import_feeds", "--sync", verbosity=0)

    assert feed_server.hits("/due.xml") == 1 and feed_server.hits("/later.xml") == 0


def test_import_feeds_refuses_urls_together_with_all():
    """import_feeds takes URLs or --all/--due, not both."""
    with pytest.raises(CommandError, match="not both"):
        run("import_feeds", "http://a.example/", "--all")


@pytest.mark.project_wiring
def test_import_feeds_queues_by_default():
    """import_feeds queues the imports, and does not queue a feed already queued."""
    FeedFactory.create_batch(2)
    try:
        out, _ = run("import_feeds", "--all")
        again, _ = run("import_feeds", "--all")
    finally:
        purge_run_queues()

    assert "Queued 2 imports." in out
    assert "Queued 0 imports (2 were already queued)." in again


def test_import_feeds_in_eager_mode_says_the_imports_ran_here(feed_server, eager):
    """With CELERY_TASK_ALWAYS_EAGER nothing is queued: the command says the imports ran."""
    one = feed_server.serve("/one.xml", rss(numbered_items(2)))
    two = feed_server.serve("/two.xml", rss(numbered_items(1)))

    single, _ = run("import_feeds", one)
    both, _ = run("import_feeds", one, two)

    assert single.strip() == "Imported 1 feed in this process (CELERY_TASK_ALWAYS_EAGER)."
    assert both.strip() == "Imported 2 feeds in this process (CELERY_TASK_ALWAYS_EAGER)."
    assert "Queued" not in single + both
    assert Post.objects.count() == 3


def test_import_feeds_with_the_broker_down_is_a_clear_error(use_broker):
    """With the broker down, import_feeds fails with a clear error."""
    use_broker("redis://127.0.0.1:1/0")
    FeedFactory()

    with pytest.raises(CommandError, match="could not queue the imports: OperationalError"):
        run("import_feeds", "--all")


OPML = b"""<?xml version="1.0" encoding="utf-8"?>
<opml version="2.0">
  <head><title>My feeds</title></head>
  <body>
    <outline text="Python">
      <outline text="Celery" title="Celery blog" type="rss" xmlUrl="http://celery.example/feed" htmlUrl="http://celery.example/"/>
      <outline text="Nested">
        <outline text="Django" type="rss" xmlUrl="http://django.example/rss"/>
      </outline>
    </outline>
    <outline text="Again" type="rss" xmlUrl="http://celery.example/feed"/>
    <outline text="Known" type="rss" xmlUrl="http://known.example/feed"/>
    <outline text="Sly" type="rss" xmlUrl="http://sly.example/feed" htmlUrl="javascript:alert(2)"/>
    <outline text="Bad" type="rss" xmlUrl="javascript:alert(1)"/>
    <outline text="Private" type="rss" xmlUrl="http://10.0.0.1/feed"/>
  </body>
</opml>
"""


def test_opml_import_reads_nested_outlines_and_reports(tmp_path, settings):
    """opml_import adds nested outlines with titles and links, skips known and invalid URLs."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    FeedFactory(url="http://known.example/feed")
    path = tmp_path / "feeds.opml"
    path.write_bytes(OPML)

    out, _ = run("opml_import", str(path), "--no-discover")  # hosts that do not exist

    assert "7 feeds in the file: 3 added, 2 skipped, 2 invalid:" in out
    assert "invalid: javascript:alert(1): only http and https" in out
    assert "invalid: http://10.0.0.1/feed: 10.0.0.1 is a non-public address" in out
    celery = Feed.objects.get(url="http://celery.example/feed")
    assert (celery.title, celery.link) == ("Celery blog", "http://celery.example/")
    assert Feed.objects.filter(url="http://django.example/rss").exists()
    assert Feed.objects.get(url="http://sly.example/feed").link == ""  # no javascript: link


# What issue 14 (S3) found accepted, or stopping the import with a traceback (PostgreSQL's
# DataError for the long one), and the reason each gets.
BAD_URLS = {
    "http://long.example/"
    + "x" * 2100: "longer than the 2000 characters a feed URL may have (2120)",
    "https://example.com:99999/": "the port is not a number from 1 to 65535",
    "http://xn--/": "not a valid URL: the host name xn-- is not valid IDNA",
    "http://example.com:0/": "port 0 cannot be fetched",
    "http://exa mple.com/": "not a valid URL",
}
GOOD_URLS = [f"http://good{number}.example/feed" for number in range(6)]


def test_opml_import_names_every_bad_row_and_imports_the_rest(tmp_path):
    """A too-long URL, a port out of range or 0, a space in the host and a host name IDNA
    refuses are refused, each with its reason in the summary; the other rows are imported;
    no traceback, on any database."""
    urls = [*GOOD_URLS[:3], *BAD_URLS, *GOOD_URLS[3:]]
    outlines = "".join(f'<outline type="rss" text="f" xmlUrl="{url}"/>' for url in urls)
    path = tmp_path / "feeds.opml"
    path.write_text(f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>')

    out, _ = run("opml_import", str(path), "--no-discover")  # hosts that do not exist

    assert "11 feeds in the file: 6 added, 0 skipped, 5 invalid:" in out
    lines = out.splitlines()
    for url, reason in BAD_URLS.items():
        [line] = [line for line in lines if line.strip().startswith(f"invalid: {url[:40]}")]
        assert reason in line and len(line) < 250
    assert sorted(Feed.objects.values_list("url", flat=True)) == GOOD_URLS


def test_addfeed_refuses_what_django_would_not_call_a_url_with_a_reason_each():
    """addfeed applies the same check: each bad URL gets its reason on one line of standard
    error, the good one is added."""
    err = io.StringIO()
    with pytest.raises(CommandError, match="5 of 6 URLs were not added"):
        call_command(
            "addfeed", *BAD_URLS, GOOD_URLS[0], discover=False, stdout=io.StringIO(), stderr=err
        )

    lines = err.getvalue().splitlines()
    assert len(lines) == 5
    for line, reason in zip(lines, BAD_URLS.values(), strict=True):
        assert reason in line and len(line) < 250
    assert list(Feed.objects.values_list("url", flat=True)) == [GOOD_URLS[0]]


def test_opml_import_refuses_entity_tricks(tmp_path):
    """An OPML file with entity definitions is refused as unreadable; nothing is added."""
    path = tmp_path / "laughs.opml"
    path.write_bytes(
        b'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        b'<opml version="2.0"><body><outline xmlUrl="http://x.example/&b;"/></body></opml>'
    )

    with pytest.raises(CommandError, match="not readable OPML"):
        run("opml_import", str(path))
    assert not Feed.objects.exists()


def test_opml_import_missing_file_is_a_clear_error(tmp_path):
    """A missing OPML file is a clear error naming it."""
    with pytest.raises(CommandError, match=r"cannot read .*nothing.opml: No such file"):
        run("opml_import", str(tmp_path / "nothing.opml"))


def test_opml_export_round_trips(tmp_path):
    """Exported OPML imports back to the same URLs, titles and links."""
    FeedFactory(url="http://a.example/feed", title="A & B <feeds>", link="http://a.example/")
    FeedFactory(url="http://b.example/rss?x=1&y=2", title="")
    path = tmp_path / "out.opml"

    run("opml_export", "-o", str(path))
    exported = set(Feed.objects.values_list("url", "title", "link"))
    Feed.objects.all().delete()
    out, _ = run("opml_import", str(path), "--no-discover")  # hosts that do not exist

    assert "2 added" in out
    imported = set(Feed.objects.values_list("url", "title", "link"))
    assert imported == {
        ("http://a.example/feed", "A & B <feeds>", "http://a.example/"),
        ("http://b.example/rss?x=1&y=2", "http://b.example/rss?x=1&y=2", ""),
    }
    assert {url for url, _, _ in imported} == {url for url, _, _ in exported}


def test_opml_export_to_stdout():
    """opml_export without a file writes the OPML to standard output."""
    FeedFactory(url="http://a.example/feed", title="A")

    out, _ = run("opml_export")

    assert out.startswith("<?xml") and 'xmlUrl="http://a.example/feed"' in out


# --- discovery: a page's URL gives its feeds (djangofeeds.discovery.finder) ---------------------


def serve_site(feed_server, *names):
    """An HTML page at / linking to a feed per name (/<name>.xml, titled <name>)."""
    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" title="{name}" href="{name}.xml">'
        for name in names
    )
    html = f"<!doctype html><html><head>{links}</head><body>Site</body></html>"
    return feed_server.serve("/", html, content_type="text/html")


def test_addfeed_adds_a_pages_first_feed_and_prints_the_others(feed_server):
    """addfeed on a page adds the first feed it links to and lists the others."""
    page = serve_site(feed_server, "posts", "comments", "podcast")

    out, _ = run("addfeed", page)

    first, *others = (feed_server.url(f"/{name}.xml") for name in ("posts", "comments", "podcast"))
    assert f"Added {first} (found on {page})" in out
    assert "also links to (add them with --all):" in out
    assert f"  {others[0]}  comments" in out and f"  {others[1]}  podcast" in out
    assert list(Feed.objects.values_list("url", flat=True)) == [first]


def test_addfeed_all_adds_every_feed_of_the_page(feed_server):
    """addfeed --all adds every feed the page links to, and no page."""
    page = serve_site(feed_server, "posts", "comments")

    out, _ = run("addfeed", page, "--all")

    urls = {feed_server.url("/posts.xml"), feed_server.url("/comments.xml")}
    assert set(Feed.objects.values_list("url", flat=True)) == urls
    assert "also links to" not in out and out.count("Added ") == 2


def test_addfeed_refuses_a_page_without_feeds_naming_it(feed_server):
    """A page that links to no feed is refused, named in the error; nothing is stored."""
    page = serve_site(feed_server)

    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 URLs were not added"):
        call_command("addfeed", page, stdout=io.StringIO(), stderr=err)

    assert f"{page} is an HTML page that links to no feed" in err.getvalue()
    assert not Feed.objects.exists()


# memcached holds the host slots the row checks take from their threads: a database
# cache would wait for the test's own transaction.
def test_opml_import_stores_the_feed_of_a_row_that_names_a_page(
    feed_server, tmp_path, memcached_cache
):
    """An OPML row whose xmlUrl is a page is stored as the page's feed, with the row's title."""
    page = serve_site(feed_server, "posts")
    path = tmp_path / "feeds.opml"
    path.write_text(
        '<?xml version="1.0"?><opml version="2.0"><body>'
        f'<outline type="rss" text="A site" xmlUrl="{page}"/></body></opml>'
    )

    out, _ = run("opml_import", str(path), verbosity=2)

    feed = Feed.objects.get()
    assert (feed.url, feed.title) == (feed_server.url("/posts.xml"), "A site")
    assert f"added: {feed.url} (found on {page})" in out and "1 added" in out
