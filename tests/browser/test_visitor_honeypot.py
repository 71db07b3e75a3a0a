"""The comment form's honeypot, in a real browser: never seen, whether or not the site styles it."""

import pytest
from playwright.sync_api import expect

from tests.factories import EntryFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("host", ["bare_host", "project"])
def test_honeypot_is_invisible_to_visitors(request, page, host):
    """On the blog's own unstyled page (a host with no templates or stylesheet of its own) as
    on the project's, the visitor sees the form's fields but not the "Leave this empty" one."""
    if host == "bare_host":
        request.getfixturevalue("bare_host")
    entry = EntryFactory(title="Queues in practice")
    page.goto(entry.get_absolute_url())
    expect(page.get_by_role("heading", level=1)).to_have_text("Queues in practice")
    stylesheets = page.locator("link[rel=stylesheet]").count()
    assert stylesheets == (0 if host == "bare_host" else 1)

    for field in ("Name", "Email address", "Home page", "Comment"):
        expect(page.get_by_label(field, exact=False).first).to_be_visible()
    honeypot = page.locator("input[name=website]")
    assert honeypot.count() == 1  # in the form, for bots
    assert not honeypot.is_visible()
    assert not page.get_by_text("Leave this empty").is_visible()
    page.keyboard.press("Tab")
    for _ in range(12):  # Tab through the page: the focus never lands on the honeypot
        assert page.evaluate("document.activeElement.name") != "website"
        page.keyboard.press("Tab")
