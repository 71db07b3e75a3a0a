"""A moderator marks a published comment as spam in the admin: gone from the page, Akismet told."""

import pytest
from playwright.sync_api import expect

from localservers.waiting import wait_until
from tests.browser.helpers import ADMIN_ACTION_BUTTON, log_in, reload_until
from tests.factories import CommentFactory, EntryFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("worker")]


def test_moderator_marks_published_comment_as_spam(page, operator, akismet):
    """ "Mark as spam" hides the comment from visitors, records the decision in its history,
    and the worker sends submit-spam to Akismet."""
    entry = EntryFactory(title="Routing tasks")
    keep = CommentFactory(
        entry=entry, name="Grace", comment="Routes per queue, nice.", status="published"
    )
    spam = CommentFactory(
        entry=entry, name="Bot", comment="Visit my pill shop.", status="published"
    )
    page.goto(entry.get_absolute_url())
    expect(page.locator(".comment")).to_have_count(2)

    log_in(page, operator)
    page.goto("/admin/blog/comment/")
    page.get_by_role("checkbox", name=f"Select this object for an action - {spam}").check()
    page.locator("select[name=action]").select_option(label="Mark as spam (and tell Akismet)")
    page.get_by_role("button", name=ADMIN_ACTION_BUTTON).click()
    expect(page.locator(".messagelist")).to_have_text("1 comment marked as spam.")

    page.goto(entry.get_absolute_url())
    expect(page.get_by_text("Visit my pill shop.")).to_have_count(0)
    expect(page.locator(".comment")).to_have_count(1)
    expect(page.locator(".comment")).to_contain_text(keep.comment)

    sent = wait_until(lambda: akismet.calls("submit-spam"), message="submit-spam at the stand-in")
    assert [call.form["comment_content"] for call in sent] == ["Visit my pill shop."]
    assert sent[0].form["comment_author"] == "Bot"
    assert akismet.calls("submit-ham") == []

    page.goto(f"/admin/blog/comment/{spam.pk}/change/")
    history = page.locator(".inline-group")
    expect(history.get_by_role("heading", level=2)).to_contain_text("History")
    reload_until(
        page, lambda p: p.get_by_text("feedback sent").count(), message="feedback in the history"
    )
    expect(history).to_contain_text("marked as spam")
    expect(history).to_contain_text("operator")
