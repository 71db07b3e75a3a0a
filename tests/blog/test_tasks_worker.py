"""Comments through a real worker subprocess and the Akismet stand-in, faults included."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from blog.models import Comment
from blog.tasks import recheck_pending_comments
from localservers.akismet_server import SPAM_AUTHOR
from localservers.waiting import wait_until
from tests.blog.helpers import PAYLOAD_FIELDS, worker_env
from tests.factories import EntryFactory
from tests.support.comments import kinds, post, settled

pytestmark = pytest.mark.django_db(transaction=True)


def test_normal_comment_is_published_and_spam_kept_apart(client, spam_worker, akismet):
    """Akismet's ham is published, its spam marked spam, each with history and the payload."""
    entry = EntryFactory()
    ham = settled(post(client, entry, name="Ada"))
    junk = settled(post(client, entry, name=SPAM_AUTHOR))
    assert (ham.status, junk.status) == ("published", "spam")
    assert ham.events.get().detail == "akismet: ham"
    assert junk.events.get().detail == "akismet: spam"
    sent = {call.form["comment_author"]: call.form for call in akismet.calls("comment-check")}
    for comment in (ham, junk):
        recorded = sent[comment.name]
        assert set(comment.akismet_payload) >= PAYLOAD_FIELDS
        assert comment.akismet_payload == {k: recorded[k] for k in comment.akismet_payload}
        assert recorded["user_ip"] == "203.0.113.50"
        assert recorded["user_agent"] == "TestBrowser/2.0"
    assert ham.comment in client.get(entry.get_absolute_url()).content.decode()
    # Each check's result is kept, and no STARTED state was written before it (nobody
    # watches a check run; a STARTED upsert would have set date_started).
    from django_celery_results.models import TaskResult  # the project's backend (not the apps')

    results = TaskResult.objects.filter(task_name="blog.tasks.spam_filter")
    assert sorted(results.values_list("status", "date_started")) == [("SUCCESS", None)] * 2


def test_server_errors_are_retried_until_published(client, spam_worker, akismet):
    """Two 503 answers, then the stand-in recovers: retries publish the comment."""
    akismet.fail_next(2, 503)
    comment = settled(post(client, EntryFactory()))
    assert comment.status == "published"
    assert kinds(comment) == ["checked"]
    assert f"comment {comment.pk}: check failed (Akismet responded with error status: 503)" in (
        spam_worker.output
    )


def test_akismet_down_leaves_pending_then_sweeper_publishes(client, spam_worker, akismet):
    """With Akismet unreachable the retries run out: pending with "check_failed". Once it is
    back, the sweeper sends the comment again and it is published."""
    akismet.stop()
    try:
        comment = settled(post(client, EntryFactory()))
        assert comment.status == "pending"
        assert kinds(comment) == ["check_failed"]
        assert "RequestError" in comment.events.get().detail
    finally:
        akismet.start()
    # Pending longer than BLOG_SPAM_RECHECK_AFTER_MINUTES: the sweeper's business.
    Comment.objects.filter(pk=comment.pk).update(
        last_dispatched_at=timezone.now() - timedelta(hours=1)
    )
    assert recheck_pending_comments.delay().get(timeout=30) == 1
    wait_until(lambda: comment.events.filter(kind="checked").exists())
    comment.refresh_from_db()
    assert comment.status == "published"
    assert kinds(comment) == ["check_failed", "rechecked", "checked"]


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
def test_broker_down_at_post_time(client, private_broker, akismet, worker_factory):
    """With the broker stopped the POST still answers 303 in about a second (the dispatch
    gives up after ~0.3 s; the bound leaves room for a loaded machine) and the comment stays
    pending; after the broker returns, the sweeper has it published."""
    private_broker.stop()
    entry = EntryFactory()
    started = time.monotonic()
    comment = post(client, entry)
    assert time.monotonic() - started < 2
    assert comment.status == "pending"
    private_broker.start()
    worker_factory(
        queues=["spam"],
        concurrency=1,
        env=worker_env(akismet, CELERY_BROKER_URL=private_broker.url),
    )
    Comment.objects.filter(pk=comment.pk).update(
        last_dispatched_at=timezone.now() - timedelta(hours=1)
    )
    assert recheck_pending_comments.delay().get(timeout=30) == 1
    comment = settled(comment)
    assert comment.status == "published"
    assert kinds(comment) == ["rechecked", "checked"]


def test_invalid_key_leaves_pending_without_a_retry_storm(
    client, settings, private_broker, akismet, worker_factory
):
    """A refused key: comments stay pending with one "check_failed" each, the key is asked
    about once, nothing is retried, the worker logs an error and /healthz names "spam"."""
    env = worker_env(akismet, key="wrong-key") | {"CELERY_BROKER_URL": private_broker.url}
    worker = worker_factory(queues=["spam"], concurrency=1, env=env)
    settings.AKISMET_API_KEY, settings.AKISMET_API_URL = "wrong-key", akismet.url
    entry = EntryFactory()
    comments = [settled(post(client, entry, name=f"Reader {i}")) for i in range(3)]
    assert [c.status for c in comments] == ["pending"] * 3
    assert [kinds(c) for c in comments] == [["check_failed"]] * 3
    assert len(akismet.calls("verify-key")) == 1
    assert akismet.calls("comment-check") == []
    assert "ERROR" in worker.output and "Akismet refused the configuration" in worker.output
    assert "Retry in" not in worker.output
    body = client.get("/healthz").json()  # what the workers recorded, read by the web
    assert (body["status"], body["failed"]) == ("degraded", ["spam"])


def test_moderator_feedback_sends_the_stored_payload(client, admin_client, spam_worker, akismet):
    """ "Mark as spam" then "Mark as not spam" send submit-spam and submit-ham to Akismet with
    exactly the data the comment was checked with."""
    comment = settled(post(client, EntryFactory()))
    assert comment.status == "published"
    for action, endpoint in (("mark_spam", "submit-spam"), ("mark_ham", "submit-ham")):
        admin_client.post(
            "/admin/blog/comment/", {"action": action, "_selected_action": [comment.pk]}
        )
        call = wait_until(lambda endpoint=endpoint: akismet.calls(endpoint))[0]
        sent = {k: v for k, v in call.form.items() if k not in {"api_key", "blog"}}
        assert sent == comment.akismet_payload
    wait_until(lambda: comment.events.filter(kind="feedback_sent").count() == 2)
    assert kinds(comment) == [
        "checked",
        "marked_spam",
        "feedback_sent",
        "marked_ham",
        "feedback_sent",
    ]
    assert len(akismet.calls("comment-check")) == 1  # feedback only, no new check
