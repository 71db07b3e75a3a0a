"""``make screenshots``: the four pages and two admin pages, with sample content, as PNGs.

Not collected by the suite (the name does not start with ``test_``); run it with
``pytest tests/browser/screenshots.py``. It writes ``docs/screenshots/`` (or
``$SCREENSHOTS_DIR``), which the README shows. No worker: the feeds are imported
in this process from the local feed server, and the comment history is written
as the worker and a moderator would have written it.
"""

import os
from datetime import timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from blog.models import CommentEvent
from localservers.feed_server import rss
from tests.browser.helpers import log_in
from tests.factories import CommentFactory, EntryFactory
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db(transaction=True)

OUT = Path(os.environ.get("SCREENSHOTS_DIR", settings.BASE_DIR / "docs" / "screenshots"))
DESKTOP = {"width": 1024, "height": 768}
ADMIN = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

ENTRIES = [
    (
        "Locks that hold: importing every feed exactly once",
        "Two workers, one feed, one import. The cookbook's lock gets the first part right "
        "with an atomic add; this entry is about the other half: releasing only your own lock, "
        "and what a fencing number buys you when a worker stalls.\n\n"
        "A lease is time-based. If a worker freezes for longer than its lease, the next one "
        "takes over; the fencing number keeps the frozen one's writes out.",
    ),
    (
        "Comments without waiting for Akismet",
        "The visitor presses Post and gets an answer at once: the comment is stored as pending "
        "and the spam check runs in a worker after the transaction commits.\n\n"
        "If the broker is down the comment simply waits; a sweeper sends it again later.",
    ),
    (
        "Queues, routes and a lane for urgent work",
        "Feed imports and spam checks get queues of their own, so a burst of one never delays "
        "the other. Work a person is waiting on goes to hipri.",
    ),
]

POSTS = {
    "Worker Notes": [
        (
            "Prefetching one task at a time",
            "<p>Long tasks and a high prefetch multiplier make quick tasks wait behind slow ones. "
            "Set <code>worker_prefetch_multiplier = 1</code> and each process reserves one task "
            "at a time.</p><p>The cost is a little throughput on very short tasks.</p>",
        ),
        (
            "What acks_late really guarantees",
            "<p>With <code>acks_late</code> a task is acknowledged after it ran, so a worker that "
            "dies mid-task hands it to another. Make such tasks <em>idempotent</em>: they may "
            "run twice.</p>",
        ),
        (
            "Retrying with backoff and jitter",
            "<p>Retry what can succeed later: network errors, 5xx, 429. Exponential backoff "
            "with full jitter keeps a thousand clients from retrying in step.</p>",
        ),
    ],
    "Web Craft": [
        (
            "Forms people can fill in",
            "<p>Label every field, say what went wrong next to the field, and keep what the "
            "visitor typed. A summary at the top links to each error.</p>"
            "<blockquote>Errors are part of the interface.</blockquote>",
        ),
        (
            "One stylesheet is enough",
            "<p>System fonts, one readable column and a few colours: a small blog needs no "
            "framework. It loads at once on a phone.</p>",
        ),
    ],
}


def serve_feed(feed_server, title, posts):
    now = timezone.now()
    items = [
        {
            "guid": f"{title}-{n}",
            "title": post_title,
            "link": f"https://example.com/{title.lower().replace(' ', '-')}/{n}",
            "description": body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
            "pubDate": format_datetime(now - timedelta(hours=5 * n + 2 * len(title))),
            "author": "editors@example.com (The editors)",
        }
        for n, (post_title, body) in enumerate(posts)
    ]
    path = f"/{title.lower().replace(' ', '-')}.xml"
    return feed_server.serve(path, rss(items, title=title), etag=f'"{title}-v1"')


def shoot(page, name, **options):
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=OUT / f"{name}.png", **options)


def test_screenshots(page, browser, live_server, operator, feed_server):
    """Sample content, then one PNG per page."""
    now = timezone.now()
    entries = [
        EntryFactory(
            title=title, slug=f"entry-{n}", body=body, pub_date=now - timedelta(days=3 * n)
        )
        for n, (title, body) in enumerate(ENTRIES)
    ]
    entry = entries[0]
    CommentFactory(
        entry=entry,
        name="Grace",
        status="published",
        pub_date=now - timedelta(hours=20),
        comment="The part about fencing finally made leases click for me. Thank you!",
    )
    CommentFactory(
        entry=entry,
        name="Linus",
        homepage="https://example.org/",
        status="published",
        pub_date=now - timedelta(hours=3),
        comment="Does the same hold with several memcached servers?\n\nSee the README's limits.",
    )
    flagged = CommentFactory(
        entry=entry,
        name="Margaret",
        status="published",
        pub_date=now - timedelta(hours=2),
        comment="Great write-up, bookmarked: https://example.net/",
        referrer=f"http://localhost:8000{entry.get_absolute_url()}",
        last_dispatched_at=now - timedelta(hours=2),
        spam_checked_at=now - timedelta(minutes=119),
    )
    for kind, actor, detail, minutes in [
        (CommentEvent.Kind.CHECKED, None, "akismet: spam", 119),
        (CommentEvent.Kind.MARKED_HAM, operator, "", 60),
        (CommentEvent.Kind.FEEDBACK_SENT, None, "submit-ham", 59),
    ]:
        CommentEvent.objects.create(
            comment=flagged,
            kind=kind,
            actor=actor,
            detail=detail,
            created_at=now - timedelta(minutes=minutes),
        )
    feeds = []
    for title, posts in POSTS.items():
        url = serve_feed(feed_server, title, posts)
        feeds.append(import_url(url).feed)
    import_url(feeds[0].url)  # answered 304: a second run on its admin page

    page.set_viewport_size(DESKTOP)
    page.goto("/")
    shoot(page, "home", full_page=True)

    page.goto(entry.get_absolute_url())
    page.get_by_role("textbox", name="Name").fill("Ada")
    page.get_by_role("textbox", name="Email address").fill("ada@example.com")
    page.get_by_role("textbox", name="Comment").fill("Clear and to the point.")
    page.get_by_role("button", name="Post comment").click()
    page.get_by_role("status").wait_for()
    shoot(page, "entry", full_page=True)

    page.goto("/feeds/")
    shoot(page, "feeds", full_page=True)
    page.goto(feeds[0].get_absolute_url())
    shoot(page, "feed", full_page=True)

    phone = browser.new_context(
        base_url=live_server.url, viewport=PHONE, device_scale_factor=2, is_mobile=True
    )
    phone_page = phone.new_page()
    phone_page.goto(entry.get_absolute_url())
    shoot(phone_page, "entry-phone")
    phone.close()

    page.set_viewport_size(ADMIN)
    log_in(page, operator)
    page.goto(f"/admin/djangofeeds/feed/{feeds[0].pk}/change/")
    shoot(page, "admin-feed", full_page=True)
    page.goto(f"/admin/blog/comment/{flagged.pk}/change/")
    shoot(page, "admin-comment", full_page=True)
