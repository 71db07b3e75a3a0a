"""A planet's operator in the admin, with a real worker: a rule previewed, saved and applied to
the stored posts (the page loses the post it blocks); a feed gone 410 on the health page."""

import pytest
from playwright.sync_api import expect

from djangofeeds.importing.importer import fetch_and_store
from djangofeeds.models import Feed, Rule
from localservers.feed_server import rss
from tests.browser.helpers import ADMIN_ACTION_BUTTON, log_in, reload_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("worker")]

ITEMS = [
    {"guid": "a", "title": "Django 6.1 released", "link": "http://example.com/a"},
    {"guid": "b", "title": "Sponsored: the best VPN", "link": "http://example.com/b"},
]


def test_operator_previews_a_rule_saves_it_and_applies_it_to_stored_posts(
    page, operator, feed_server
):
    url = feed_server.serve("/planet.xml", rss(ITEMS, title="Planet"))
    fetch_and_store(Feed.objects.create(url=url))
    log_in(page, operator)
    page.goto("/feeds/")
    expect(page.get_by_role("link", name="Sponsored: the best VPN", exact=True)).to_be_visible()

    page.goto("/admin/djangofeeds/rule/add/")
    page.get_by_label("Action").select_option(label="block the posts it matches")
    page.get_by_label("Field").select_option(label="title")
    page.get_by_label("Match").select_option(label="regular expression (RE2)")
    page.get_by_label("Pattern").fill("(?i)^sponsored")
    page.get_by_role("button", name="Preview").click()

    preview = page.locator("#rule-preview")
    expect(preview).to_contain_text("1 of the newest 2 posts of this rule\u2019s feeds match it.")
    expect(preview.get_by_role("link", name="Sponsored: the best VPN")).to_be_visible()
    assert not Rule.objects.exists()  # previewed, not saved
    expect(page.get_by_label("Pattern")).to_have_value("(?i)^sponsored")

    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    rule = Rule.objects.get()
    page.get_by_role("checkbox", name=f"Select this object for an action - {rule}").check()
    page.locator("select[name=action]").select_option(
        label="Apply the rules again to the stored posts they cover"
    )
    page.get_by_role("button", name=ADMIN_ACTION_BUTTON).click()
    expect(page.locator(".messagelist")).to_contain_text("posts of every feed")

    page.goto("/feeds/")
    reload_until(
        page,
        lambda p: not p.get_by_text("Sponsored: the best VPN").count(),
        message="the post blocked by the worker",
    )
    expect(page.get_by_role("link", name="Django 6.1 released", exact=True)).to_be_visible()


def test_operator_sees_a_gone_feed_on_the_health_page(page, operator, feed_server):
    url = feed_server.serve("/gone.xml", status=410)
    feed = Feed.objects.create(url=url, title="Old blog")
    log_in(page, operator)
    page.goto("/admin/djangofeeds/feed/")
    page.get_by_role("checkbox", name=f"Select this object for an action - {feed}").check()
    page.locator("select[name=action]").select_option(label="Import now")
    page.get_by_role("button", name=ADMIN_ACTION_BUTTON).click()

    page.locator(".object-tools").get_by_role("link", name="Feed health").click()
    reload_until(page, lambda p: p.locator("#health-gone").count(), message="the gone feed")
    gone = page.locator("#health-gone")
    expect(gone.get_by_role("heading")).to_have_text("Gone (1)")
    expect(gone.get_by_role("link", name="Old blog")).to_be_visible()
    expect(gone).to_contain_text("410 Gone")
    expect(page.locator("#health-changes")).to_contain_text("ok → gone")
