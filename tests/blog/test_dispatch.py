"""blog/dispatch.py: tasks sent by name, and a broker that is down never fails the caller."""

import base64
import json
import logging

import pytest
import redis
from kombu.exceptions import OperationalError

from blog import dispatch
from tests.factories import CommentFactory
from tests.support.comments import kinds
from tests.support.queues import redis_list_key

pytestmark = pytest.mark.django_db

NOWHERE = "redis://127.0.0.1:1/0"  # nothing listens there


def test_send_routes_by_name_to_the_spam_queue(private_broker):
    """A task named, not imported, reaches its route's queue with its keyword arguments."""
    broker = redis.Redis.from_url(private_broker.url)
    dispatch.send(dispatch.SUBMIT_HAM, comment_id=7)
    message = json.loads(broker.lpop(redis_list_key("spam")))
    assert message["headers"]["task"] == "blog.tasks.submit_ham"
    assert json.loads(base64.b64decode(message["body"]))[:2] == [[], {"comment_id": 7}]


def test_dispatch_check_with_the_broker_down_leaves_the_comment_pending(use_broker, caplog):
    """False, a warning naming the sweeper, and no change to the comment."""
    use_broker(NOWHERE)
    comment = CommentFactory()
    with caplog.at_level(logging.WARNING, logger="blog.dispatch"):
        assert dispatch.dispatch_check(comment.pk, "203.0.113.9") is False
    assert "recheck_pending_comments" in caplog.text
    comment.refresh_from_db()
    assert comment.status == "pending" and kinds(comment) == []


def test_dispatch_feedback_with_the_broker_down_is_written_in_the_history(use_broker):
    """The lost feedback is a "feedback_failed" event naming the task."""
    use_broker(NOWHERE)
    comment = CommentFactory(status="spam")
    assert dispatch.dispatch_feedback(dispatch.SUBMIT_SPAM, comment.pk) is False
    event = comment.events.get()
    assert event.kind == "feedback_failed"
    assert event.detail.startswith("blog.tasks.submit_spam not queued (")


def test_check_broker_raises_only_when_the_broker_does_not_answer(use_broker):
    """The session's broker answers; an address where nothing listens raises."""
    dispatch.check_broker()
    use_broker(NOWHERE)
    with pytest.raises(OperationalError):
        dispatch.check_broker()
