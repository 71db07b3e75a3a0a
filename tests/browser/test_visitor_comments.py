"""A visitor comments on an entry, in a real browser: errors, moderation, the worker's check."""

import pytest
from playwright.sync_api import expect

from blog.models import Comment
from localservers.akismet_server import SPAM_AUTHOR
from localservers.waiting import wait_until
from tests.browser.helpers import reload_until
from tests.factories import EntryFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("worker")]


def fill_comment(page, name, email, text):
    page.get_by_role("textbox", name="Name").fill(name)
    page.get_by_role("textbox", name="Email address").fill(email)
    page.get_by_role("textbox", name="Comment").fill(text)


def test_visitor_comment_is_corrected_posted_checked_and_shown(page, akismet):
    """A field error is shown and tied to its field; the fixed comment awaits moderation,
    then appears once the worker found it ham; a guaranteed-spam comment never appears."""
    entry = EntryFactory(title="Queues in practice", body="Workers take tasks off queues.")
    page.goto(entry.get_absolute_url())
    expect(page.get_by_role("heading", level=1)).to_have_text("Queues in practice")
    expect(page.get_by_text("No comments yet.")).to_be_visible()

    fill_comment(page, "Ada", "not-an-address", "Prefetch one task at a time.")
    page.get_by_role("button", name="Post comment").click()

    email = page.get_by_role("textbox", name="Email address")
    expect(page.get_by_role("alert")).to_contain_text("Please give a valid email address.")
    expect(email).to_have_attribute("aria-invalid", "true")
    expect(email).to_have_accessible_description(
        "Never shown on the page. Please give a valid email address."
    )
    comment_box = page.get_by_role("textbox", name="Comment")
    expect(comment_box).to_have_value("Prefetch one task at a time.")  # what was typed is kept
    assert not Comment.objects.exists()

    email.fill("ada@example.com")
    page.get_by_role("button", name="Post comment").click()

    expect(page.get_by_role("status")).to_contain_text("awaiting moderation")
    expect(page.get_by_role("alert")).to_have_count(0)
    reload_until(
        page,
        lambda p: p.locator(".comment").filter(has_text="Prefetch one task at a time.").count(),
        message="the published comment",
    )
    expect(page.locator(".comment")).to_have_count(1)
    expect(page.locator(".comment .author")).to_have_text("Ada")

    fill_comment(page, SPAM_AUTHOR, "spam@example.com", "Cheap watches, click here.")
    page.get_by_role("button", name="Post comment").click()
    expect(page.get_by_role("status")).to_contain_text("awaiting moderation")
    wait_until(
        lambda: Comment.objects.filter(name=SPAM_AUTHOR, status="spam").exists(),
        message="the worker's spam verdict",
    )
    page.reload()
    expect(page.get_by_text("Cheap watches")).to_have_count(0)
    expect(page.locator(".comment")).to_have_count(1)
    assert len(akismet.calls("comment-check")) == 2
