"""djangofeeds.importing.records: every attempt's run, and the feed's failure write."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from djangofeeds.importing.records import (
    ImportOrigin,
    crash_message,
    record_attempt,
    record_crash,
)
from djangofeeds.locking.fence import next_fence
from djangofeeds.models import Feed, ImportRun, Outcome

pytestmark = pytest.mark.django_db

URL = "http://a.example/feed.xml"


def test_a_skipped_attempt_is_a_run_and_leaves_the_feed_alone():
    """A skip is recorded as a run with its reason; the feed's status is not touched."""
    result = record_attempt(URL, Outcome.SKIPPED, error="another worker is importing this feed")

    run = ImportRun.objects.get()
    assert result.run == run and run.outcome == Outcome.SKIPPED and "another worker" in run.error
    assert Feed.objects.get(url=URL).last_status == ""


def test_a_skip_of_a_known_feed_is_one_statement_where_the_database_returns_rows():
    """INSERT ... SELECT by URL: one round trip; the feed it returns reads its other fields."""
    Feed.objects.create(url=URL, title="Known")
    with CaptureQueriesContext(connection) as queries:
        result = record_attempt(
            URL, Outcome.SKIPPED, error="lock held", origin=ImportOrigin(task_id="t-2")
        )
    if connection.vendor == "mysql":  # no INSERT ... RETURNING here: a SELECT and an INSERT
        assert len(queries) == 2
    else:
        assert len(queries) == 1 and "SELECT" in queries[0]["sql"]
    run = ImportRun.objects.get()
    assert (run.pk, run.task_id, run.outcome, run.error) == (
        result.run.pk,
        "t-2",
        Outcome.SKIPPED,
        "lock held",
    )
    assert run.feed_id == result.feed.pk and run.finished_at is not None
    assert result.feed.title == "Known"  # loaded when read


def test_an_attempt_for_a_url_without_a_feed_creates_the_feed():
    result = record_attempt(URL, Outcome.FAILED, error="lock cache down")
    assert Feed.objects.get(url=URL) == result.feed
    assert ImportRun.objects.get().feed == result.feed


def test_a_crash_under_the_current_fence_backs_the_feed_off():
    """A crash that still holds the newest fence fails the feed and pushes its next check later."""
    feed = next_fence(URL)

    record_crash(URL, "RuntimeError: boom", fence=feed.fence, origin=ImportOrigin(task_id="t-1"))

    feed.refresh_from_db()
    assert (feed.last_status, feed.last_error, feed.error_count) == (
        Outcome.FAILED,
        "RuntimeError: boom",
        1,
    )
    assert feed.next_check_at > timezone.now() + timezone.timedelta(minutes=3)
    assert ImportRun.objects.get().task_id == "t-1"


def test_a_crash_without_the_newest_fence_writes_only_its_run():
    """A crash of a holder whose fence is stale, or that had none, leaves the feed row alone."""
    stale = next_fence(URL)
    next_fence(URL)  # a newer holder

    record_crash(URL, "RuntimeError: late", fence=stale.fence)
    record_crash(URL, "RuntimeError: before the fence")

    feed = Feed.objects.get(url=URL)
    assert (feed.last_status, feed.error_count) == ("", 0)
    assert ImportRun.objects.filter(outcome=Outcome.FAILED).count() == 2


def test_a_crash_of_an_unknown_feed_records_nothing():
    """A crash for a URL with no feed row has nothing to write on."""
    assert record_crash("http://nowhere.example/feed.xml", "boom") is None
    assert not ImportRun.objects.exists()


def test_a_lost_database_is_said_in_words():
    """A database error reads as a lost connection; any other error as its type and message."""
    from django.db import OperationalError

    assert crash_message(OperationalError("server closed the connection")).startswith(
        "lost the connection to the database during the import"
    )
    assert crash_message(ValueError("bad")) == "ValueError: bad"
