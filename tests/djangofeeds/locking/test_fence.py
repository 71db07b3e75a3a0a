"""djangofeeds.locking.fence: a feed write that only the newest lock holder may make."""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from djangofeeds.importing.records import ImportOrigin, start_run
from djangofeeds.locking.fence import StaleFence, next_fence, next_fences, write_fenced
from djangofeeds.models import Feed, ImportRun, Outcome

pytestmark = pytest.mark.django_db

URL = "http://a.example/feed.xml"


def test_the_newest_fence_writes_the_row_and_the_instance():
    """Under the newest fencing number the row changes, and so does the caller's instance."""
    feed = next_fence(URL)

    write_fenced(feed, feed.fence, title="Fenced")

    assert feed.title == "Fenced" and Feed.objects.get(url=URL).title == "Fenced"


def test_a_stale_fence_writes_nothing():
    """Once a newer holder took the feed, an older fence's write is refused."""
    stale = next_fence(URL)
    next_fence(URL)

    with pytest.raises(StaleFence):
        write_fenced(stale, stale.fence, title="Stale")

    assert Feed.objects.get(url=URL).title == ""


def test_without_a_fence_the_write_is_not_fenced():
    """A test or a benchmark writes without a lock: nothing is compared."""
    feed = Feed.objects.create(url=URL)
    next_fence(URL)

    write_fenced(feed, None, title="Unfenced")

    assert Feed.objects.get(url=URL).title == "Unfenced"


def finished_run(feed):
    run = start_run(feed, ImportOrigin(task_id="t-1", worker="w"))
    run.outcome, run.finished_at = Outcome.NOT_MODIFIED, timezone.now()
    return run


def test_a_run_is_saved_with_the_write_and_never_without_it():
    """With ``run``, the newest fence's write saves the run too; a refused write saves none."""
    feed = next_fence(URL)
    run = finished_run(feed)

    written = write_fenced(feed, feed.fence, run=run, title="With its run")

    saved = ImportRun.objects.get()
    assert written.pk == saved.pk and written._state.adding is False and written.feed is feed
    assert saved.feed_id == feed.pk and saved.task_id == "t-1"
    assert saved.outcome == Outcome.NOT_MODIFIED and Feed.objects.get().title == "With its run"

    next_fence(URL)  # a newer holder
    late = finished_run(feed)
    with pytest.raises(StaleFence):
        write_fenced(feed, feed.fence, run=late, title="Stale")

    assert late.pk is None and ImportRun.objects.count() == 1
    assert Feed.objects.get().title == "With its run"


def test_the_write_and_its_run_are_one_statement_on_postgresql(django_assert_num_queries):
    """PostgreSQL: ``WITH … UPDATE … RETURNING`` then ``INSERT … SELECT``, one round trip;
    elsewhere the UPDATE and the INSERT, in the caller's transaction."""
    feed = next_fence(URL)
    one_statement = connection.vendor == "postgresql"

    with django_assert_num_queries(1 if one_statement else 2) as captured:
        write_fenced(feed, feed.fence, run=finished_run(feed), title="Counted")

    first = captured.captured_queries[0]["sql"]
    assert first.startswith("WITH updated AS (UPDATE") == one_statement
    assert ImportRun.objects.count() == 1


def test_next_fence_reads_the_row_as_the_database_has_it():
    """The feed next_fence returns has every field as a fresh read has it, one fence later."""
    checked = timezone.now() - timedelta(minutes=5)
    Feed.objects.create(
        url=URL,
        title="Read back",
        is_active=False,
        last_checked_at=checked,
        last_http_status=304,
        error_count=2,
        fence=41,
    )

    fenced = next_fence(URL)

    read = Feed.objects.get(url=URL)
    for field in Feed._meta.concrete_fields:
        assert getattr(fenced, field.attname) == getattr(read, field.attname), field.name
    assert fenced.fence == 42 and fenced.last_checked_at == checked and fenced.is_active is False
    assert fenced._state.adding is False and fenced._state.db == "default"


def test_a_write_with_its_run_takes_plain_values_and_expressions():
    """Plain values (written directly on PostgreSQL) and F() expressions (compiled) both land."""
    feed = next_fence(URL)
    checked = timezone.now()

    write_fenced(
        feed, feed.fence, run=finished_run(feed), last_checked_at=checked, last_http_status=304
    )
    write_fenced(feed, feed.fence, run=finished_run(feed), error_count=F("error_count") + 1)

    read = Feed.objects.get(url=URL)
    assert read.last_checked_at == checked and read.last_http_status == 304
    assert read.error_count == 1 and ImportRun.objects.count() == 2

    next_fence(URL)  # a newer holder: neither kind of write lands
    for changes in ({"title": "Stale"}, {"error_count": F("error_count") + 5}):
        with pytest.raises(StaleFence):
            write_fenced(feed, feed.fence, run=finished_run(feed), **changes)
    assert Feed.objects.get(url=URL).error_count == 1 and ImportRun.objects.count() == 2


def test_next_fences_fences_several_feeds_in_one_statement_and_leaves_out_the_unknown():
    """One statement gives each known feed its next fence, read as next_fence reads it;
    a URL with no feed is left out (its import takes its fence alone). MariaDB and MySQL,
    without UPDATE … RETURNING, leave every feed to next_fence."""
    urls = [f"http://a.example/{n}.xml" for n in range(3)]
    Feed.objects.create(url=urls[0], fence=7, title="Seven")
    Feed.objects.create(url=urls[1])
    Feed.objects.create(url="http://a.example/not-asked.xml", fence=3)

    with CaptureQueriesContext(connection) as queries:
        fenced = next_fences([*urls, urls[0].upper()])

    if connection.vendor == "mysql":
        assert fenced == {} and len(queries) == 0
        return
    assert len(queries) == 1 and sorted(fenced) == urls[:2]
    assert (fenced[urls[0]].fence, fenced[urls[0]].title, fenced[urls[1]].fence) == (8, "Seven", 1)
    for url, feed in fenced.items():
        read = Feed.objects.get(url=url)
        for field in Feed._meta.concrete_fields:
            assert getattr(feed, field.attname) == getattr(read, field.attname), field.name
    assert Feed.objects.get(url="http://a.example/not-asked.xml").fence == 3
    assert not Feed.objects.filter(url=urls[2]).exists()
