"""A moderator and a commenter follow the links of the blog's mails in chromium: the mails
come from a real worker through a real SMTP server, the pages from the live server."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from blog.dispatch import dispatch_mail
from blog.models import Comment
from blog.notices import MODERATORS
from localservers.smtp_server import html_part, text_part
from tests.factories import CommentFactory, EntryFactory
from tests.mail.conftest import MODERATOR

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("mail_worker")]


def mailed_link(message, label, site):
    """The URL of the mail's link ``label``, read in its HTML part; the text part has it too."""
    url = re.search(rf'<a href="([^"]+)">{re.escape(label)}</a>', html_part(message))[1]
    assert url.startswith(site) and url in text_part(message)
    return url


def test_a_moderator_publishes_a_held_comment_from_the_mail(page, smtp, akismet, live_server):
    entry = EntryFactory(title="Queues in practice")
    page.goto(entry.get_absolute_url())
    page.get_by_role("textbox", name="Name").fill("Eve")
    page.get_by_role("textbox", name="Email address").fill("eve@example.com")
    page.get_by_role("textbox", name="Comment").fill("Worth a moderator's look.")
    page.get_by_role("button", name="Post comment").click()
    expect(page.get_by_role("status")).to_contain_text("awaiting moderation")

    [message] = smtp.wait_for(MODERATOR)
    page.goto(mailed_link(message, "Publish it", live_server.url))
    expect(page.get_by_role("heading", name="Moderate a comment")).to_be_visible()
    expect(page.locator(".held-comment")).to_contain_text("Worth a moderator's look.")
    assert Comment.objects.get(name="Eve").status == "pending"  # opening the link did nothing
    page.get_by_role("button", name="Publish this comment").click()
    expect(page.get_by_role("status")).to_have_text("The comment is published.")
    page.get_by_role("link", name="See it on the page").click()
    expect(page.locator("li.comment .body")).to_have_text("Worth a moderator's look.")


def test_a_commenter_stops_reply_notices_from_the_mail(page, smtp, akismet, client, live_server):
    entry = EntryFactory(title="Queues in practice")
    ada = CommentFactory(
        entry=entry, status="published", name="Ada", email_address="ada@example.com",
        notify_replies=True,
    )  # fmt: skip
    reply = CommentFactory(
        entry=entry, parent=ada, status="pending", spam_checked_at="2026-11-28T10:00Z"
    )
    # The moderators' mail about the held reply, and its publish link confirmed.
    dispatch_mail(MODERATORS, reply.pk)
    [held] = smtp.wait_for(MODERATOR)
    client.post(urlsplit(mailed_link(held, "Publish it", live_server.url)).path)
    [notice] = smtp.wait_for("ada@example.com")

    page.goto(mailed_link(notice, "Stop these notices", live_server.url))
    expect(page.get_by_role("heading", name="Reply notices")).to_be_visible()
    assert Comment.objects.get(pk=ada.pk).notify_replies
    page.get_by_role("button", name="Stop reply notices").click()
    expect(page.get_by_role("status")).to_contain_text("no more mail about replies")
    assert not Comment.objects.get(pk=ada.pk).notify_replies
