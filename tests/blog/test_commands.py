"""``manage.py recheck_comments``."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.factories import CommentFactory

pytestmark = pytest.mark.django_db


def run(*args, verbosity=1):
    out = StringIO()
    call_command("recheck_comments", *args, stdout=out, verbosity=verbosity)
    return out.getvalue()


@pytest.fixture
def comments():
    old = CommentFactory(last_dispatched_at=timezone.now() - timedelta(minutes=90))
    recent = CommentFactory(last_dispatched_at=timezone.now() - timedelta(minutes=5))
    CommentFactory(status="published", last_dispatched_at=timezone.now() - timedelta(days=1))
    return old, recent


def test_recheck_comments_sends_stale_pending_ones(comments, django_capture_on_commit_callbacks):
    """By default only comments pending past the setting are sent; the summary counts them."""
    old, recent = comments
    with django_capture_on_commit_callbacks() as callbacks:
        output = run()
    assert output == "Sent 1 pending comment for re-checking; 2 comments pending in all.\n"
    assert len(callbacks) == 1
    assert old.events.get().kind == "rechecked"
    assert not recent.events.exists()


def test_recheck_comments_older_than_and_all_pending(comments, django_capture_on_commit_callbacks):
    """--older-than MINUTES moves the cut-off; --all-pending takes every pending comment."""
    with django_capture_on_commit_callbacks():
        assert run("--older-than", "100").startswith("Sent 0 ")
        assert run("--older-than", "1").startswith("Sent 2 ")
        assert run("--all-pending").startswith("Sent 2 ")


def test_recheck_comments_respects_verbosity(comments, django_capture_on_commit_callbacks):
    """-v 0 prints nothing; -v 2 lists each comment sent."""
    old, _ = comments
    with django_capture_on_commit_callbacks():
        assert run(verbosity=0) == ""
        output = run("--all-pending", verbosity=2)
    assert f"comment {old.pk} by {old.name}" in output


def test_recheck_comments_with_broker_down_is_a_clear_error(comments, private_broker):
    """With the broker unreachable the command fails with a message, and marks nothing."""
    old, _ = comments
    private_broker.stop()
    with pytest.raises(CommandError, match="Cannot reach the Celery broker"):
        run()
    assert not old.events.exists()


def test_recheck_comments_refuses_negative_minutes():
    """A negative --older-than is refused with a message."""
    with pytest.raises(CommandError, match="0 or more"):
        run("--older-than", "-5")
