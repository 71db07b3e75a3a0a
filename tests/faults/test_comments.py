"""Faults around comments (issue 7): the broker stopped, a worker killed mid-check, Akismet
misbehaving. Every comment is kept and, in effect, checked exactly once."""

import pytest
from django.core.management import call_command

from blog import akismet_client
from blog.models import Comment
from blog.tasks import spam_filter
from localservers.waiting import wait_until
from tests.blog.helpers import FAST_RETRIES, worker_env
from tests.factories import CommentFactory, EntryFactory
from tests.support.comments import kinds, post, settled

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_rate_limit")]


def remark(client, entry, number):
    """A distinct comment (the local rules take a repeated text for spam)."""
    return post(client, entry, name=f"Reader {number}", comment=f"Remark number {number}, thanks.")


def test_redis_broker_stopped_while_comments_are_posted(client, private_broker, worker_factory):
    """Posting goes on while Redis is down; after it returns, every comment is checked once."""
    worker_factory(queues=["spam"], concurrency=1, env={"CELERY_BROKER_URL": private_broker.url})
    entry = EntryFactory()
    before = [settled(remark(client, entry, number)) for number in range(2)]

    private_broker.stop()
    during = [remark(client, entry, number) for number in range(2, 5)]  # each answered 303
    private_broker.start()
    call_command("recheck_comments", "--all-pending")  # the sweeper, without its 30 minutes

    comments = before + [settled(comment, timeout=60) for comment in during]
    assert [comment.status for comment in comments] == ["published"] * 5
    assert [kinds(comment) for comment in comments] == [["checked"]] * 2 + [
        ["rechecked", "checked"]
    ] * 3


def test_worker_sigkilled_during_spam_filter(client, akismet, worker_factory):
    """Killed while Akismet answers: the comment stays pending, the sweeper sends it again,
    and it ends with one status and one check; a late duplicate of the task changes nothing."""
    env = worker_env(akismet)
    doomed = worker_factory(queues=["spam"], concurrency=1, env=env)
    entry = EntryFactory()
    settled(remark(client, entry, 1))  # the worker has verified the key
    akismet.hang = True
    victim = remark(client, entry, 2)
    wait_until(lambda: len(akismet.calls("comment-check")) == 2, 15, message="the second check")

    doomed.kill()
    akismet.reset()
    assert Comment.objects.get(pk=victim.pk).status == "pending" and kinds(victim) == []
    worker_factory(queues=["spam"], concurrency=1, env=env)
    call_command("recheck_comments", "--all-pending")
    victim = settled(victim)
    spam_filter.delay(comment_id=victim.pk).get(timeout=30)  # redelivered after all

    assert victim.status == "published" and kinds(victim) == ["rechecked", "checked"]
    assert len(akismet.calls("comment-check")) == 1  # the duplicate did not ask again
    assert akismet.calls("submit-spam") == akismet.calls("submit-ham") == []


@pytest.mark.parametrize(
    ("fault", "detail", "verifies", "checks"),
    [
        ("garbage", "ProtocolError", 0, 3),
        ("500s", None, 0, 3),
        ("slow", "RequestError", 0, 3),
        ("revoked-key", "Akismet refused the key", 0, 1),
        ("invalid-key", "Akismet refused the key", 1, 0),
    ],
)
def test_akismet_returning_garbage_500s_slow_answers_and_invalid_for_the_key(
    akismet_settings, akismet, forget_refused_key, fault, detail, verifies, checks
):
    """Each fault is retried (a refused key is not: only an operator can fix it); what cannot
    be checked stays pending with a "check_failed" event, and is never published.

    The key is verified by a first, clean check, as a running worker has done; then the
    fault hits comment-check itself (``checks``: how often it was asked). "invalid-key" is
    a process started with a key Akismet refuses: its verify-key is all that is sent.
    """
    first = CommentFactory()
    spam_filter.apply(kwargs={"comment_id": first.pk})
    first.refresh_from_db()
    assert first.status == "published" and len(akismet.calls("verify-key")) == 1
    akismet.reset()
    if fault == "garbage":
        akismet.garbage = True
    elif fault == "500s":
        akismet.fail_next(FAST_RETRIES["BLOG_SPAM_MAX_RETRIES"], 500)  # every try but the last
    elif fault == "slow":
        akismet.hang, akismet.hang_seconds = True, FAST_RETRIES["BLOG_AKISMET_TIMEOUT"] + 1
    elif fault == "revoked-key":
        akismet.keys.clear()
    else:
        akismet_settings.AKISMET_API_KEY = "revoked-key"
        akismet_client.reset_client()
    comment = CommentFactory()

    spam_filter.apply(kwargs={"comment_id": comment.pk})

    comment.refresh_from_db()
    events = list(comment.events.values_list("kind", "detail"))
    if detail is None:
        assert comment.status == "published" and events == [("checked", "akismet: ham")]
    else:
        assert comment.status == "pending" and comment.spam_checked_at is None
        [(kind, text)] = events
        assert kind == "check_failed" and detail in text, text
    assert len(akismet.calls("verify-key")) == verifies
    assert len(akismet.calls("comment-check")) == checks
    assert len(akismet.requests) == verifies + checks


@pytest.mark.parametrize("fault", ["garbage", "slow"])
def test_akismet_garbage_and_slow_answers_through_a_worker(client, akismet, worker_factory, fault):
    """In a real worker, with its real countdowns: an off-protocol or too slow Akismet is
    retried BLOG_SPAM_MAX_RETRIES times with backoff, then the comment stays pending."""
    worker = worker_factory(queues=["spam"], concurrency=1, env=worker_env(akismet))
    entry = EntryFactory()
    settled(remark(client, entry, 1))  # the worker process has verified the key
    if fault == "garbage":
        akismet.garbage = True
    else:
        akismet.hang, akismet.hang_seconds = True, FAST_RETRIES["BLOG_AKISMET_TIMEOUT"] + 1

    victim = settled(remark(client, entry, 2), timeout=60)

    retries = FAST_RETRIES["BLOG_SPAM_MAX_RETRIES"]
    assert victim.status == "pending" and kinds(victim) == ["check_failed"]
    assert f"after {retries} retries" in victim.events.get().detail
    assert len(akismet.calls("comment-check")) == 1 + (retries + 1)
    assert worker.output.count(f"comment {victim.pk}: check failed (") == retries
