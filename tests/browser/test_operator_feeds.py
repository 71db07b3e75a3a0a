"""An operator adds a feed in the admin, imports it now, and sees the posts and the import run."""

import pytest
from playwright.sync_api import expect

from djangofeeds.models import Feed
from localservers.feed_server import numbered_items, rss
from tests.browser.helpers import ADMIN_ACTION_BUTTON, log_in, reload_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("worker")]


def test_operator_adds_a_feed_imports_it_and_sees_posts_and_run(page, operator, feed_server):
    """Add the feed, "Import now" queues it, the worker imports it: the posts are on /feeds/
    and the feed's admin page lists the run."""
    url = feed_server.serve("/story.xml", rss(numbered_items(3, prefix="story"), title="Stories"))
    log_in(page, operator)

    page.locator("tr.model-feed").get_by_role("link", name="Add").click()
    page.get_by_label("URL").fill(url)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    feed = Feed.objects.get(url=url)

    page.get_by_role("checkbox", name=f"Select this object for an action - {feed}").check()
    page.locator("select[name=action]").select_option(label="Import now")
    page.get_by_role("button", name=ADMIN_ACTION_BUTTON).click()
    expect(page.locator(".messagelist")).to_contain_text("Queued an import of 1 feed.")

    page.goto("/feeds/")
    reload_until(page, lambda p: p.get_by_text("Story 0").count(), message="the imported posts")
    for title in ("Story 0", "Story 1", "Story 2"):
        expect(page.get_by_role("link", name=title, exact=True)).to_be_visible()
    expect(page.get_by_role("navigation", name="Feeds we follow")).to_contain_text("Stories")

    page.goto(f"/admin/djangofeeds/feed/{feed.pk}/change/")
    runs = page.locator("#recent-import-runs")
    expect(runs.get_by_role("heading")).to_have_text("Recent import runs")
    expect(runs.locator("tbody tr")).to_have_count(1)
    row = runs.locator("tbody tr").first
    expect(row.locator("td").nth(1)).to_have_text("imported")
    expect(row.locator("td").nth(2)).to_have_text("200")
    expect(row.locator("td").nth(3)).to_have_text("3")  # new posts
    # One GET when the form checked the URL (djangofeeds.discovery.finder), one by the import.
    assert feed_server.hits("/story.xml") == 2
