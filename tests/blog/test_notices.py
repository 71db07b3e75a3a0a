"""The blog's two mails, composed and sent in this process through Django's mail backend
(its in-memory outbox): who gets them, what they carry, and that each goes once.

Through a real worker and a real SMTP server: tests/mail/.
"""

import logging
import smtplib
from email import message_from_bytes
from email.policy import default as email_policy

import pytest
from django.utils import translation

from blog import moderation, notices
from blog.mail_links import read_moderation, read_unsubscribe
from blog.models import Comment, CommentEvent
from tests.factories import CommentFactory, EntryFactory

pytestmark = pytest.mark.django_db
SITE = "https://blog.example/"
Kind = CommentEvent.Kind


@pytest.fixture(autouse=True)
def mail_settings(settings):
    settings.BLOG_SITE_URL = SITE
    settings.BLOG_MODERATORS = [("Mo Derator", "mod@example.com"), "second@example.com"]
    settings.DEFAULT_FROM_EMAIL = "blog@example.com"
    return settings


def held(**fields):
    return CommentFactory(status="pending", spam_checked_at="2026-11-28T10:00Z", **fields)


def parsed(message):
    """The message as a mail server receives it: its bytes, parsed by the standard library."""
    return message_from_bytes(message.message().as_bytes(), policy=email_policy)


def links(text):
    return [word for word in text.split() if word.startswith(SITE)]


def test_a_held_comment_is_mailed_to_the_moderators_with_its_links(mailoutbox):
    comment = held(name="Eve", comment="First line.\nSecond <b>line</b>.")
    assert notices.mail_moderators(comment.pk) is True

    [message] = mailoutbox
    assert message.to == ["Mo Derator <mod@example.com>", "second@example.com"]
    assert message.from_email == "blog@example.com"
    assert message.subject == f"Comment to moderate: Eve on “{comment.entry.title}”"
    mail = parsed(message)
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    assert "First line.\nSecond <b>line</b>." in text  # the text part is not escaped
    assert "Second &lt;b&gt;line&lt;/b&gt;." in html  # the HTML part is
    publish, spam, admin = links(text)
    assert read_moderation(publish.removeprefix(SITE).split("/")[-2]) == (comment.pk, "publish")
    assert read_moderation(spam.removeprefix(SITE).split("/")[-2]) == (comment.pk, "spam")
    assert admin == f"{SITE}admin/blog/comment/{comment.pk}/change/"
    assert f'href="{publish}"' in html and f'href="{spam}"' in html
    assert "These links work for 7 days" in text
    event = comment.events.get(kind=Kind.MAIL_SENT)
    assert event.detail == "moderators: Mo Derator <mod@example.com>, second@example.com"


def test_the_moderators_mail_goes_once_and_only_while_the_comment_is_held(mailoutbox):
    comment = held()
    assert notices.mail_moderators(comment.pk) is True
    assert notices.mail_moderators(comment.pk) is False  # a retried or duplicated task
    assert len(mailoutbox) == 1
    decided = held()
    moderation.publish([decided])
    unchecked = CommentFactory(status="pending")  # waits for the spam check, not a moderator
    assert notices.mail_moderators(decided.pk) is False
    assert notices.mail_moderators(unchecked.pk) is False
    assert notices.mail_moderators(10**9) is False  # deleted meanwhile
    assert len(mailoutbox) == 1


def test_without_moderators_nothing_is_sent_and_the_log_says_what_to_set(
    settings, mailoutbox, caplog
):
    settings.BLOG_MODERATORS, settings.MANAGERS = None, []
    comment = held()
    with caplog.at_level(logging.WARNING, logger="blog.notices"):
        assert notices.mail_moderators(comment.pk) is False
    assert mailoutbox == []
    assert "set BLOG_MODERATORS or MANAGERS" in caplog.text


def test_the_managers_are_the_moderators_by_default(settings, mailoutbox):
    settings.BLOG_MODERATORS, settings.MANAGERS = None, ["Boss <boss@example.com>"]
    notices.mail_moderators(held().pk)
    assert mailoutbox[0].to == ["Boss <boss@example.com>"]


def published_reply(parent_fields=None, **fields):
    entry = EntryFactory(title="Queues")
    ada = {"status": "published", "notify_replies": True, "email_address": "ada@example.com"}
    parent = CommentFactory(entry=entry, name="Ada", **ada | (parent_fields or {}))
    grace = {"name": "Grace", "email_address": "grace@example.com", "status": "published"}
    return CommentFactory(entry=entry, parent=parent, comment="Indeed.", **grace | fields)


def test_a_published_reply_is_mailed_with_one_click_unsubscribe(mailoutbox):
    reply = published_reply()
    assert notices.mail_reply_notice(reply.pk) is True

    [message] = mailoutbox
    assert message.to == ["Ada <ada@example.com>"]
    assert message.subject == "Grace replied to your comment on “Queues”"
    mail = parsed(message)
    unsubscribe = mail["List-Unsubscribe"].strip().removeprefix("<").removesuffix(">")
    assert unsubscribe.startswith(f"{SITE}blog/comments/unsubscribe/")
    assert read_unsubscribe(unsubscribe.split("/")[-2]) == reply.parent_id
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = mail.get_body(("plain",)).get_content()
    assert "Indeed." in text
    assert links(text) == [f"{SITE}{reply.get_absolute_url().lstrip('/')}", unsubscribe]
    assert f'href="{unsubscribe}"' in mail.get_body(("html",)).get_content()
    assert reply.events.get(kind=Kind.MAIL_SENT).detail == "reply notice: ada@example.com"
    assert notices.mail_reply_notice(reply.pk) is False  # once
    assert len(mailoutbox) == 1


@pytest.mark.parametrize(
    ("parent_fields", "fields"),
    [
        ({"notify_replies": False}, {}),  # the commenter did not ask
        ({}, {"email_address": "ADA@example.com"}),  # answering oneself
        ({}, {"status": "pending"}),  # the reply is not published
        ({"status": "spam"}, {}),  # the comment answered turned out to be spam
    ],
)
def test_no_reply_notice_when_it_is_not_wanted(mailoutbox, parent_fields, fields):
    reply = published_reply(parent_fields, **fields)
    assert notices.mail_reply_notice(reply.pk) is False
    assert mailoutbox == []


def test_a_newline_in_an_entry_title_stays_out_of_the_subject(mailoutbox):
    comment = held(entry=EntryFactory(title="Line one\nBcc: victim@example.com"))
    notices.mail_moderators(comment.pk)
    [message] = mailoutbox
    assert "\n" not in message.subject
    assert parsed(message)["Bcc"] is None


def test_a_host_overrides_the_mail_templates(settings, tmp_path, mailoutbox):
    folder = tmp_path / "blog" / "mail"
    folder.mkdir(parents=True)
    (folder / "reply_notice_subject.txt").write_text("New reply from {{ reply.name }}")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    notices.mail_reply_notice(published_reply().pk)
    assert mailoutbox[0].subject == "New reply from Grace"


def test_unsubscribing_stops_notices_for_the_authors_comments_on_that_entry():
    reply = published_reply()
    parent = reply.parent
    same_entry = CommentFactory(
        entry=parent.entry, email_address="Ada@Example.com", notify_replies=True
    )
    other_entry = CommentFactory(email_address="ada@example.com", notify_replies=True)
    assert notices.stop_reply_notices(parent.pk) == 2
    assert notices.stop_reply_notices(parent.pk) == 0  # twice is harmless
    flags = dict(Comment.objects.values_list("pk", "notify_replies"))
    assert (flags[parent.pk], flags[same_entry.pk], flags[other_entry.pk]) == (False, False, True)
    assert parent.events.filter(kind=Kind.UNSUBSCRIBED).count() == 1


def test_failed_mails_are_queued_again_once_per_failure():
    failed, refused, recovered = held(), held(), held()
    notices.record(failed.pk, Kind.MAIL_FAILED, notices.MODERATORS, "SMTPServerDisconnected")
    refusal = smtplib.SMTPRecipientsRefused({"x@example.com": (550, b"no such user")})
    notices.record(refused.pk, Kind.MAIL_FAILED, notices.MODERATORS, notices.refused(refusal))
    notices.record(recovered.pk, Kind.MAIL_FAILED, notices.REPLY_NOTICE, "timed out")
    notices.record(recovered.pk, Kind.MAIL_SENT, notices.REPLY_NOTICE, "ada@example.com")
    assert notices.mails_to_queue_again() == [(failed.pk, "moderators")]
    assert "x@example.com: 550 no such user" in refused.events.get().detail

    notices.record(failed.pk, Kind.MAIL_QUEUED_AGAIN, notices.MODERATORS)
    assert notices.mails_to_queue_again() == []


def test_the_mails_speak_the_sites_language(mailoutbox):
    """A French site's workers write in French (the catalogue covers the mails)."""
    with translation.override("fr"):
        notices.mail_reply_notice(published_reply().pk)
    assert mailoutbox[0].subject == "Grace a répondu à votre commentaire sur «\u00a0Queues\u00a0»"
    assert "Arrêter ces avis" in mailoutbox[0].body
