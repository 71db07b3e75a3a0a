"""Entries in the admin."""

import html
import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from blog.models import Comment, CommentEvent
from tests.factories import CommentFactory, EntryFactory
from tests.support.admin import messages_of, run_action

pytestmark = pytest.mark.django_db


def act(admin_client, action, comments):
    return run_action(admin_client, "/admin/blog/comment/", action, comments)


def test_entry_changelist_filters_and_searches(admin_client):
    """The entries list answers with its filters and a search."""
    EntryFactory(title="Celery tips")
    EntryFactory(title="Other news", is_published=False)
    response = admin_client.get("/admin/blog/entry/", {"q": "celery"})
    assert response.status_code == 200
    assert "Celery tips" in response.content.decode()
    assert "Other news" not in response.content.decode()
    drafts = admin_client.get("/admin/blog/entry/", {"is_published__exact": "0"})
    assert "Other news" in drafts.content.decode()
    assert "Celery tips" not in drafts.content.decode()


def test_entry_add_form_prepopulates_slug(admin_client):
    """The add form fills the slug from the title."""
    response = admin_client.get("/admin/blog/entry/add/")
    assert response.status_code == 200
    match = re.search(r'data-prepopulated-fields="([^"]*)"', response.content.decode())
    fields = json.loads(html.unescape(match.group(1)))
    assert {"id": "#id_slug", "dependency_ids": ["#id_title"]}.items() <= fields[0].items()


# --- comments -----------------------------------------------------------------


def test_comment_changelist_filters_and_searches(admin_client):
    """Comments are listed with entry, excerpt and status; filter by status, search the text."""
    entry = EntryFactory(title="Queues")
    CommentFactory(entry=entry, name="Ada", comment="About brokers " * 20, status="published")
    CommentFactory(entry=entry, name="Spammer", comment="Buy now", status="spam")
    page = admin_client.get("/admin/blog/comment/").content.decode()
    assert "Queues" in page and "About brokers About brokers" in page and "…" in page
    spam_only = admin_client.get("/admin/blog/comment/", {"status__exact": "spam"})
    assert "Spammer" in spam_only.content.decode() and "Ada" not in spam_only.content.decode()
    found = admin_client.get("/admin/blog/comment/", {"q": "brokers"}).content.decode()
    assert "Ada" in found and "Spammer" not in found
    by_entry = admin_client.get("/admin/blog/comment/", {"entry__id__exact": entry.pk})
    assert by_entry.status_code == 200


def test_mark_as_spam_changes_status_records_who_and_reports(
    admin_client, admin_user, django_capture_on_commit_callbacks
):
    """ "Mark as spam" moves comments to spam, records the moderator, queues feedback, says so."""
    published = CommentFactory(status="published")
    already = CommentFactory(status="spam")
    with django_capture_on_commit_callbacks() as callbacks:
        response = act(admin_client, "mark_spam", [published, already])
    assert messages_of(response) == ["1 comment marked as spam. 1 skipped: already spam."]
    published.refresh_from_db()
    assert published.status == "spam"
    event = published.events.get()
    assert (event.kind, event.actor) == ("marked_spam", admin_user)
    assert already.events.count() == 0
    assert len(callbacks) == 1  # one submit_spam, for the comment that changed


def test_mark_as_spam_with_the_broker_down_records_the_lost_feedback(
    admin_client, use_broker, django_capture_on_commit_callbacks
):
    """The decision stands; the feedback that could not be queued is written in the history."""
    use_broker("redis://127.0.0.1:1/0")  # nothing listens there
    comment = CommentFactory(status="published")
    with django_capture_on_commit_callbacks(execute=True):
        response = act(admin_client, "mark_spam", [comment])
    assert messages_of(response) == ["1 comment marked as spam."]
    comment.refresh_from_db()
    assert comment.status == "spam"
    failed = comment.events.get(kind="feedback_failed")
    assert "blog.tasks.submit_spam not queued" in failed.detail


def test_mark_as_not_spam_publishes_and_reports_plural(admin_client):
    """ "Mark as not spam" publishes spam comments; the message counts in the plural."""
    comments = [CommentFactory(status="spam"), CommentFactory(status="spam")]
    response = act(admin_client, "mark_ham", comments)
    assert messages_of(response) == ["2 comments marked as not spam."]
    assert set(Comment.objects.values_list("status", flat=True)) == {"published"}
    assert set(CommentEvent.objects.values_list("kind", flat=True)) == {"marked_ham"}


def test_publish_and_recheck_only_touch_pending_comments(
    admin_client, django_capture_on_commit_callbacks
):
    """ "Publish" and "Re-check" act on pending comments and say how many they skipped."""
    pending, spam = CommentFactory(status="pending"), CommentFactory(status="spam")
    with django_capture_on_commit_callbacks() as callbacks:
        response = act(admin_client, "recheck", [pending, spam])
    assert messages_of(response) == ["1 comment sent for re-checking. 1 skipped: not pending."]
    assert len(callbacks) == 1
    response = act(admin_client, "publish", [pending, spam])
    assert messages_of(response) == ["1 comment published. 1 skipped: not pending."]
    pending.refresh_from_db()
    assert pending.status == "published"
    assert list(pending.events.values_list("kind", flat=True)) == ["rechecked", "published"]
    response = act(admin_client, "publish", [spam])
    assert messages_of(response) == ["0 comments published. 1 skipped: not pending."]


def test_comment_change_page_shows_read_only_history(admin_client, admin_user):
    """The change page lists the history inline, without add, edit or delete."""
    comment = CommentFactory()
    CommentEvent.objects.create(comment=comment, kind="checked", detail="akismet: ham")
    CommentEvent.objects.create(comment=comment, kind="marked_spam", actor=admin_user)
    page = admin_client.get(f"/admin/blog/comment/{comment.pk}/change/").content.decode()
    assert "akismet: ham" in page and "marked as spam" in page
    assert 'name="events-0-detail"' not in page  # read-only, not a form field
    assert 'name="events-MAX_NUM_FORMS" value="0"' in page  # no row can be added
    assert 'name="events-0-DELETE"' not in page


def test_needs_attention_filter_finds_comments_pending_too_long(admin_client, settings):
    """Pending longer than the sweeper's delay, or pending after a failed check; with counts."""
    settings.BLOG_SPAM_RECHECK_AFTER_MINUTES = 30
    old = timezone.now() - timedelta(minutes=45)
    CommentFactory(name="Waiting long", status="pending", pub_date=old)
    CommentFactory(name="Just posted", status="pending")
    CommentFactory(name="Old and published", status="published", pub_date=old)
    failed = CommentFactory(name="Check failed", status="pending")
    CommentEvent.objects.create(comment=failed, kind="check_failed", detail="akismet: timeout")

    def names(choice):
        response = admin_client.get("/admin/blog/comment/", {"attention": choice})
        return sorted(comment.name for comment in response.context["cl"].result_list)

    assert names("pending_long") == ["Waiting long"]
    assert names("check_failed") == ["Check failed"]
    page = admin_client.get("/admin/blog/comment/").content.decode()
    assert "pending over 30 min (1)" in page and "pending, check failed (1)" in page
