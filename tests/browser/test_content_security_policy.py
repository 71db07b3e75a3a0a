"""The site's Content-Security-Policy header: on every page, and the admin still works under it."""

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import log_in
from tests.factories import CommentFactory, EntryFactory, FeedFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_page_sends_the_policy_and_the_admin_breaks_none_of_it(page, operator):
    """The header is on the public pages and the admin's; no admin page (its scripts, its
    styles, its widgets) triggers a single violation, and the admin's JavaScript runs."""
    entry = EntryFactory(title="Routing tasks")
    comment = CommentFactory(entry=entry, name="Grace", status="published")
    feed = FeedFactory()
    violations, policies, stylesheets = [], {}, {}

    def on_console(message):
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    def on_response(response):
        kind = response.request.resource_type
        if kind == "document":
            policies.setdefault(response.url, response.headers.get("content-security-policy"))
        elif kind == "stylesheet":
            stylesheets.setdefault(response.url.rsplit("/static/", 1)[-1], response.status)

    page.on("console", on_console)
    page.on("response", on_response)

    page.goto(entry.get_absolute_url())
    page.goto("/feeds/")
    log_in(page, operator)
    for path in (
        "/admin/blog/comment/",
        f"/admin/blog/comment/{comment.pk}/change/",
        "/admin/djangofeeds/feed/",
        f"/admin/djangofeeds/feed/{feed.pk}/change/",
        "/admin/djangofeeds/feed/add/",
    ):
        page.goto(path)
    # The changelist's "select all" box is the admin's own JavaScript (actions.js).
    page.goto("/admin/blog/comment/")
    page.locator("#action-toggle").check()
    expect(page.locator(".action-counter")).to_contain_text("1 of 1 selected")

    assert violations == []
    # The apps' admin styles are files now (an inline <style> broke the policy); all load.
    assert {"blog/admin/comment_change.css", "djangofeeds/admin/feed_change.css"} <= set(
        stylesheets
    )
    assert set(stylesheets.values()) == {200}
    assert len(policies) >= 8
    for url, policy in policies.items():
        assert policy and "frame-ancestors 'none'" in policy, url
        assert "script-src 'self'" in policy and "object-src 'none'" in policy, url


INJECT = (
    "() => { const s = document.createElement('script');"
    " s.textContent = \"document.title = 'ran'\"; document.body.append(s); }"
)


def test_the_header_blocks_an_inline_script(page, live_server):
    """The admin's login page has no <meta> policy: only the header stops an injected inline
    script there. The same injection runs on a page without the header."""
    page.set_content("<title>blank</title><body></body>")
    page.evaluate(INJECT)
    assert page.title() == "ran"  # the injection itself works

    page.goto("/admin/login/")
    page.evaluate(INJECT)
    assert page.title() != "ran"
