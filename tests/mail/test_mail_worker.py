"""The blog's mails through real processes: a comment posted to the view, checked by a real
worker against the Akismet stand-in, held, and mailed by that worker through a real SMTP
server; the links followed; the mail server failing for a while, then for good."""

import re
from urllib.parse import urlsplit

import httpx
import pytest

from blog import notices
from blog.models import Comment, CommentEvent
from blog.tasks import recheck_pending_comments
from localservers.smtp_server import text_part
from localservers.waiting import wait_until
from tests.factories import CommentFactory, EntryFactory
from tests.mail.conftest import MODERATOR
from tests.support.comments import post

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("mail_worker")]
Kind = CommentEvent.Kind


def recorded(comment, kind):
    """Wait for the worker to record ``kind`` (the mail server's answer comes before it)."""
    wait_until(lambda: comment.events.filter(kind=kind).exists(), 30, f"{kind} recorded")
    return list(comment.events.filter(kind__startswith="mail").values_list("kind", flat=True))


def links(message, site):
    return [word for word in text_part(message).split() if word.startswith(site)]


def publish_by_mail(client, message, site):
    """Follow the mail's publish link as a moderator does: open it, then confirm."""
    path = urlsplit(links(message, site)[0]).path
    assert "Publish this comment" in client.get(path).text
    assert client.post(path).status_code == 200


def test_a_held_comment_is_mailed_and_published_from_its_link(smtp, akismet, client, live_server):
    entry = EntryFactory(title="Queues")
    comment = post(client, entry, name="Eve", comment="Held, then mailed.")
    [message] = smtp.wait_for(MODERATOR)

    assert message["Subject"] == "Comment to moderate: Eve on “Queues”"
    assert message["From"] == "blog@example.com"
    assert "Held, then mailed." in text_part(message)
    comment.refresh_from_db()
    assert comment.is_held
    publish_by_mail(client, message, live_server.url)
    comment.refresh_from_db()
    assert comment.status == "published"
    assert "Held, then mailed." in client.get(entry.get_absolute_url()).text


def test_a_failing_mail_server_delays_the_mail_and_loses_nothing(
    smtp, akismet, client, mail_worker
):
    smtp.fail_next(2)  # 451 twice: the task's two retries are needed
    comment = post(client, EntryFactory(), name="Patient")
    smtp.wait_for(MODERATOR)
    assert recorded(comment, Kind.MAIL_SENT) == [Kind.MAIL_SENT]  # no failure on record
    assert f"comment {comment.pk}: the moderators mail was not sent" in mail_worker.output


def test_a_mail_server_down_for_good_is_recorded_then_the_sweeper_sends_again(
    smtp, akismet, client
):
    smtp.fail_next(3)  # the first try and both retries
    comment = post(client, EntryFactory(), name="Later")
    wait_until(lambda: comment.events.filter(kind=Kind.MAIL_FAILED).exists(), 60, "gave up")
    assert "SMTPDataError" in comment.events.get(kind=Kind.MAIL_FAILED).detail
    assert smtp.to(MODERATOR) == []

    recheck_pending_comments.delay()  # the beat's sweeper, on the worker
    [message] = smtp.wait_for(MODERATOR)
    assert "Later" in message["Subject"]
    kinds = recorded(comment, Kind.MAIL_SENT)
    assert kinds == [Kind.MAIL_FAILED, Kind.MAIL_QUEUED_AGAIN, Kind.MAIL_SENT]


def test_recipients_refused_for_good_are_recorded_and_never_retried(
    smtp, akismet, client, mail_worker
):
    smtp.refused.add(MODERATOR)  # 550 "no such user": retrying cannot help
    comment = post(client, EntryFactory(), name="Nobody")
    kinds = recorded(comment, Kind.MAIL_FAILED)
    assert kinds == [Kind.MAIL_FAILED]
    detail = comment.events.get(kind=Kind.MAIL_FAILED).detail
    # The refused address as the backend gave it: "Mo Derator <...>" (5.2) or bare (6.1).
    assert re.fullmatch(
        rf"moderators: refused for good \((Mo Derator <)?{MODERATOR}>?: 550 No such user here\)",
        detail,
    ), detail
    assert f"comment {comment.pk}: the moderators mail was not sent" not in mail_worker.output
    assert notices.mails_to_queue_again() == []  # the sweeper leaves it


def test_a_reply_notice_is_mailed_and_unsubscribed_in_one_click(smtp, akismet, client, live_server):
    entry = EntryFactory(title="Queues")
    ada = CommentFactory(
        entry=entry, status="published", name="Ada", email_address="ada@example.com",
        notify_replies=True,
    )  # fmt: skip
    reply = post(client, entry, name="Grace", comment="I agree.", parent=ada.pk)
    assert reply.parent_id == ada.pk
    [held] = smtp.wait_for(MODERATOR)
    assert smtp.to("ada@example.com") == []  # not before a moderator publishes it
    publish_by_mail(client, held, live_server.url)

    [notice] = smtp.wait_for("ada@example.com")
    assert notice["Subject"] == "Grace replied to your comment on “Queues”"
    assert "I agree." in text_part(notice)
    assert notice["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    one_click = notice["List-Unsubscribe"].strip().strip("<>")
    # What a mail provider does with the headers (RFC 8058): a POST, no cookie, no token.
    answer = httpx.post(one_click, data={"List-Unsubscribe": "One-Click"}, timeout=10)
    assert answer.status_code == 200
    assert not Comment.objects.get(pk=ada.pk).notify_replies
