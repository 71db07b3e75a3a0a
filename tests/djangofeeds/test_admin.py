"""The feeds admin: status columns, filters, actions with messages, permissions, read-only runs."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from djangofeeds.models import Feed, ImportRun, Outcome, Post, RefreshRun
from tests.factories import FeedFactory, PostFactory
from tests.support.admin import messages_of, run_action

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:djangofeeds_feed_changelist")


def test_feed_changelist_shows_status_columns(admin_client):
    """The feed list shows each feed's status, last error, error count and post count."""
    feed = FeedFactory(
        title="Broken feed",
        last_status=Outcome.FAILED,
        last_error="server answered 500",
        error_count=3,
    )
    PostFactory.create_batch(2, feed=feed)

    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    page = response.content.decode()
    for cell in (  # the feed's own row, cell by cell (the filters and menu say "failed" too)
        '<th class="field-__str__"><a href="/admin/djangofeeds/feed/',
        '<td class="field-last_status">failed</td>',
        '<td class="field-error_summary">server answered 500</td>',
        '<td class="field-error_count">3</td>',
        '<td class="field-post_count">2</td>',
    ):
        assert cell in page
    for header in ("Last error", "Posts", "Next check at"):
        assert header in page
    assert response.context["cl"].result_list[0].post_count == 2


def test_feed_changelist_filters_and_search(admin_client):
    """The feed list filters by errors and by active, and searches by title."""
    FeedFactory(title="Healthy one")
    FeedFactory(title="Failing one", error_count=2)
    FeedFactory(title="Sleeping one", is_active=False)

    failing = admin_client.get(CHANGELIST, {"attention": "failing"}).context["cl"].result_list
    inactive = admin_client.get(CHANGELIST, {"is_active__exact": "0"}).context["cl"].result_list
    found = admin_client.get(CHANGELIST, {"q": "healthy"}).context["cl"].result_list

    assert [f.title for f in failing] == ["Failing one"]
    assert [f.title for f in inactive] == ["Sleeping one"]
    assert [f.title for f in found] == ["Healthy one"]


def test_import_now_queues_and_reports(admin_client, purge_queues):
    """The "Import now" action claims the chosen feeds, queues their imports, says how many."""
    feeds = FeedFactory.create_batch(2)

    response = run_action(admin_client, CHANGELIST, "import_now", feeds)

    assert messages_of(response) == ["Queued imports of 2 feeds."]
    assert all(Feed.objects.get(pk=feed.pk).claimed_at for feed in feeds)


def test_import_now_does_not_queue_a_feed_twice(admin_client, purge_queues):
    """The "Import now" action queues nothing for a feed already queued, and says so."""
    feed = FeedFactory()
    run_action(admin_client, CHANGELIST, "import_now", [feed])

    response = run_action(admin_client, CHANGELIST, "import_now", [feed])

    assert messages_of(response) == ["1 feed was already queued."]


def test_import_now_with_the_broker_down_says_so(admin_client, use_broker):
    """With the broker down, "Import now" says so and leaves the feed unclaimed and due."""
    use_broker("redis://127.0.0.1:1/0")  # nothing listens there
    feed = FeedFactory()

    response = run_action(admin_client, CHANGELIST, "import_now", [feed])

    assert response.status_code == 200
    assert messages_of(response)[0].startswith("Could not queue the imports: OperationalError")
    feed.refresh_from_db()
    assert feed.claimed_at is None  # a later attempt is not blocked
    assert feed.next_check_at <= timezone.now()  # and the feed is due


def test_activate_deactivate_and_reset_errors(admin_client):
    """The actions activate and deactivate feeds; resetting errors clears them and makes it due."""
    feed = FeedFactory(is_active=False, error_count=4, last_error="boom")

    assert messages_of(run_action(admin_client, CHANGELIST, "activate", [feed])) == [
        "Activated 1 feed."
    ]
    feed.refresh_from_db()
    assert feed.is_active
    assert messages_of(run_action(admin_client, CHANGELIST, "deactivate", [feed])) == [
        "Deactivated 1 feed."
    ]
    run_action(admin_client, CHANGELIST, "reset_errors", [feed])
    feed.refresh_from_db()
    assert (feed.is_active, feed.error_count, feed.last_error) == (False, 0, "")
    assert feed.next_check_at <= timezone.now()  # due again at once


def test_feed_actions_need_the_change_permission(client, purge_queues):
    """A staff user who may only view feeds is offered no action and can queue nothing."""
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_feed"))
    client.force_login(viewer)
    feed = FeedFactory()

    changelist = client.get(CHANGELIST)
    response = run_action(client, CHANGELIST, "import_now", [feed])

    assert changelist.status_code == 200
    assert (
        changelist.context["action_form"] is None
    )  # no action offered (delete needs a permission too)
    assert response.status_code == 200
    assert Feed.objects.get(pk=feed.pk).claimed_at is None  # nothing queued


def test_posts_and_import_runs_are_read_only(admin_client):
    """Posts and import runs can be listed and viewed in the admin, not added or changed."""
    post = PostFactory()
    run = ImportRun.objects.create(feed=post.feed, outcome=Outcome.IMPORTED, created=1)

    for model, obj in ((Post, post), (ImportRun, run)):
        name = model._meta.model_name
        assert admin_client.get(reverse(f"admin:djangofeeds_{name}_changelist")).status_code == 200
        assert admin_client.get(reverse(f"admin:djangofeeds_{name}_add")).status_code == 403
        detail = admin_client.get(reverse(f"admin:djangofeeds_{name}_change", args=[obj.pk]))
        assert detail.status_code == 200 and not detail.context["has_change_permission"]


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        (
            "http://user:secret@example.com/feed",
            "URLs with a user name or password are not fetched",
        ),
        ("ftp://example.com/feed", "only http and https URLs can be fetched"),
    ],
)
def test_feed_add_form_refuses_urls_that_cannot_be_fetched(admin_client, url, problem):
    """The add form refuses a URL with credentials or another scheme, saying why."""
    response = admin_client.post(
        reverse("admin:djangofeeds_feed_add"), {"url": url, "is_active": "on"}
    )

    assert response.status_code == 200 and problem in response.text
    assert not Feed.objects.exists()


def test_feed_change_page_opens(admin_client):
    """A feed's change page opens without changing anything."""
    feed = FeedFactory()

    response = admin_client.get(reverse("admin:djangofeeds_feed_change", args=[feed.pk]))

    assert response.status_code == 200 and Feed.objects.count() == 1


def test_feed_change_page_lists_the_recent_import_runs(admin_client):
    """The change page ends with the last 10 runs, newest first, and links to all of them."""
    feed = FeedFactory()
    now = timezone.now()
    for minutes in range(12):
        ImportRun.objects.create(
            feed=feed, outcome=Outcome.IMPORTED, http_status=200, created=minutes,
            started_at=now - timedelta(minutes=minutes), finished_at=now,
        )  # fmt: skip
    ImportRun.objects.filter(created=0).update(outcome=Outcome.FAILED, error="server answered 502")

    page = admin_client.get(reverse("admin:djangofeeds_feed_change", args=[feed.pk])).text

    panel = page.split('id="recent-import-runs"', 1)[1]
    assert panel.count("<tr>") == 11  # the header and 10 runs
    assert panel.index("server answered 502") < panel.index("imported")  # newest first
    assert f"?feed__id__exact={feed.pk}" in panel and "All 12 import runs" in panel


def test_feed_add_page_has_no_runs_panel(admin_client):
    """The add page has no panel of import runs (a new feed has none)."""
    page = admin_client.get(reverse("admin:djangofeeds_feed_add")).text
    assert "Recent import runs" not in page


def test_needs_attention_filter_finds_failing_and_overdue_feeds(admin_client):
    """Active feeds that fail, or whose check is an hour late; the choices say how many."""
    late = timezone.now() - timedelta(hours=2)
    FeedFactory(title="Healthy", next_check_at=timezone.now() + timedelta(minutes=5))
    FeedFactory(title="Failing", error_count=2, next_check_at=late)
    FeedFactory(title="Switched off", error_count=5, is_active=False)
    FeedFactory(title="Stuck", next_check_at=late)

    def titles(choice):
        response = admin_client.get(CHANGELIST, {"attention": choice})
        return sorted(feed.title for feed in response.context["cl"].result_list)

    assert titles("failing") == ["Failing"]
    assert titles("overdue") == ["Stuck"]
    assert titles("any") == ["Failing", "Stuck"]
    page = admin_client.get(CHANGELIST).text
    assert "failing (1)" in page and "not checked on time (1)" in page and "any (2)" in page


def test_refresh_runs_show_the_current_rounds_progress_and_a_closed_rounds_counts(admin_client):
    """The refresh-run list counts an open round live and a closed one from its totals."""
    feeds = FeedFactory.create_batch(3)
    current = RefreshRun.objects.create(feeds=3)
    ImportRun.objects.create(feed=feeds[0], refresh_run=current, outcome=Outcome.NOT_MODIFIED)
    ImportRun.objects.create(feed=feeds[1], refresh_run=current, outcome=Outcome.FAILED)
    closed = RefreshRun.objects.create(
        feeds=4, imported=2, failed=1, finished_at=timezone.now(), started_at=timezone.now()
    )

    response = admin_client.get(reverse("admin:djangofeeds_refreshrun_changelist"))

    page = response.content.decode()
    assert response.status_code == 200
    assert "2/3" in page and "1 not modified, 1 failed" in page  # counted live
    assert "3/4" in page and "2 imported, 1 failed, 1 never run (claim timed out)" in page
    assert closed.unfinished == 1


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://example.com:99999/", "the port is not a number from 1 to 65535"),
        ("https://example.com:0/", "port 0 cannot be fetched"),
        ("http://exa mple.com/", "Enter a valid URL."),
        ("ftp://files.example/feed", "only http and https"),
    ],
)
def test_add_feed_form_refuses_what_addfeed_refuses(admin_client, url, reason):
    """The admin's form, addfeed and opml_import share one check: the same URLs are refused."""
    response = admin_client.post("/admin/djangofeeds/feed/add/", {"url": url, "is_active": "on"})

    assert response.status_code == 200
    assert reason in " ".join(response.context["adminform"].form.errors["url"])
    assert not Feed.objects.exists()


# --- the add form finds a page's feeds (djangofeeds.forms) ----------------------------

ADD = reverse("admin:djangofeeds_feed_add")


def serve_site(feed_server, *names):
    """An HTML page at /site/ linking to a feed per name (/<name>.xml, titled <name>)."""
    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" title="{name}" href="/{name}.xml">'
        for name in names
    )
    html = f"<!doctype html><html><head>{links}</head><body>Site</body></html>"
    return feed_server.serve("/site/", html, content_type="text/html")


def test_feed_add_form_stores_the_one_feed_of_a_page_and_says_where_it_was_found(
    admin_client, feed_server
):
    """A page with one feed: its feed is stored at once, with a message naming the page."""
    page = serve_site(feed_server, "posts")

    response = admin_client.post(ADD, {"url": page, "is_active": "on"}, follow=True)

    feed = Feed.objects.get()
    assert feed.url == feed_server.url("/posts.xml")
    assert f"Found the feed {feed.url} on {page}." in messages_of(response)


def test_feed_add_form_offers_the_feeds_of_a_page_and_stores_the_chosen_one(
    admin_client, feed_server
):
    """A page with several feeds: the form comes back with a choice; the chosen feed is stored."""
    page = serve_site(feed_server, "posts", "comments")

    offered = admin_client.post(ADD, {"url": page, "is_active": "on"})

    form = offered.context["adminform"].form
    assert offered.status_code == 200 and not Feed.objects.exists()
    assert "links to 2 feeds: choose one below" in " ".join(form.errors["url"])
    assert [label for _, label in form.fields["feed_choice"].choices] == [
        f"posts ({feed_server.url('/posts.xml')})",
        f"comments ({feed_server.url('/comments.xml')})",
    ]
    assert 'type="radio"' in offered.text and "comments (" in offered.text

    chosen = feed_server.url("/comments.xml")
    admin_client.post(ADD, {"url": page, "feed_choice": chosen, "is_active": "on"})

    assert list(Feed.objects.values_list("url", flat=True)) == [chosen]
    assert feed_server.hits("/comments.xml") == 0  # stored, not fetched


def test_feed_add_form_refuses_a_choice_the_page_does_not_offer(admin_client, feed_server):
    """A posted choice that is not one of the page's feeds stores nothing."""
    page = serve_site(feed_server, "posts", "comments")

    response = admin_client.post(
        ADD, {"url": page, "feed_choice": "https://elsewhere.example/feed", "is_active": "on"}
    )

    assert response.status_code == 200 and not Feed.objects.exists()


def test_feed_add_form_refuses_a_page_without_feeds_naming_it(admin_client, feed_server):
    """A page that links to no feed is refused on the form, naming the page."""
    page = serve_site(feed_server)

    response = admin_client.post(ADD, {"url": page, "is_active": "on"})

    errors = response.context["adminform"].form.errors["url"]
    assert errors == [f"{page} is an HTML page that links to no feed"]
    assert not Feed.objects.exists()


def test_feed_add_form_stores_a_feed_url_as_given(admin_client, feed_server):
    """A URL that answers with a feed is stored as written, after one GET and no message."""
    url = feed_server.serve(
        "/feed.xml", "<rss version='2.0'><channel><title>T</title></channel></rss>"
    )

    response = admin_client.post(ADD, {"url": url, "is_active": "on"}, follow=True)

    assert Feed.objects.get().url == url and feed_server.hits("/feed.xml") == 1
    assert not any("Found the feed" in message for message in messages_of(response))


def test_import_run_changelist_shows_an_outages_attempts(admin_client):
    """A lock cache's outage is one failed run: the list shows how many tries it stands for."""
    feed = FeedFactory()
    error = "not imported: the lock cache is unreachable (memcached: refused)"
    ImportRun.objects.create(feed=feed, outcome=Outcome.FAILED, error=error, attempts=9)

    page = admin_client.get(reverse("admin:djangofeeds_importrun_changelist")).content.decode()

    assert '<td class="field-attempts">9</td>' in page
    assert "Attempts" in page
