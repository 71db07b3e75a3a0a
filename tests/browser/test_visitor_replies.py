"""A visitor replies to a comment through the real form, on a phone-sized screen.

The page allows no script (its Content-Security-Policy), so the "Reply" link
and the form work without JavaScript by construction.
"""

import pytest
from playwright.sync_api import expect

from blog.models import Comment
from tests.browser.helpers import reload_until
from tests.factories import CommentFactory, EntryFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("worker")]
PHONE = {"width": 375, "height": 667}


def overflows_horizontally(page):
    return page.evaluate("document.documentElement.scrollWidth > window.innerWidth")


def test_reply_is_posted_and_shown_nested_on_a_phone(page, akismet):
    entry = EntryFactory(title="Queues in practice")
    top = CommentFactory(entry=entry, status=Comment.Status.PUBLISHED, name="Ada")
    page.set_viewport_size(PHONE)
    page.goto(entry.get_absolute_url())

    page.get_by_role("link", name="Reply to Ada").click()
    expect(page.get_by_role("heading", name="Replying to Ada")).to_be_visible()
    page.get_by_role("textbox", name="Name").fill("Grace")
    page.get_by_role("textbox", name="Email address").fill("grace@example.com")
    # An unbroken word longer than the screen must wrap, not widen the page.
    page.get_by_role("textbox", name="Comment").fill("Agreed: " + "prefetch" * 20)
    page.get_by_role("checkbox", name="Email me when someone replies").check()
    page.get_by_role("button", name="Post reply").click()

    expect(page.get_by_role("status")).to_contain_text("awaiting moderation")
    reply = Comment.objects.get(name="Grace")
    assert (reply.parent_id, reply.notify_replies) == (top.pk, True)

    nested = page.locator(f"#comment-{top.pk} > ol.replies > li.comment")
    reload_until(page, lambda p: nested.count(), message="the published reply, nested")
    expect(nested.locator(".author")).to_have_text("Grace")
    expect(nested.get_by_role("link", name="Reply to Grace")).to_be_visible()
    assert not overflows_horizontally(page)

    # The cancel link goes back to a plain comment.
    page.get_by_role("link", name="Reply to Grace").click()
    expect(page.get_by_role("heading", name="Replying to Grace")).to_be_visible()
    page.get_by_role("link", name="Cancel reply").click()
    expect(page.get_by_role("heading", name="Leave a comment")).to_be_visible()
    assert not overflows_horizontally(page)
