"""Replies in threads, comments closing after BLOG_CLOSE_AFTER_DAYS, an entry's comments feed."""

from datetime import timedelta
from xml.etree import ElementTree

import pytest
from django.urls import reverse
from django.utils import timezone

from blog.models import Comment
from tests.blog.helpers import fresh_ip
from tests.factories import CommentFactory, EntryFactory
from tests.support.comments import VALID

pytestmark = pytest.mark.django_db
PUBLISHED = Comment.Status.PUBLISHED


def reply(client, entry, parent_id, **fields):
    """POST a reply to ``parent_id`` from a fresh address; the response."""
    data = VALID | {"parent": str(parent_id)} | fields
    return client.post(f"/blog/{entry.slug}/comment/", data, REMOTE_ADDR=fresh_ip())


def test_reply_is_saved_under_its_parent_with_the_wish_to_hear_of_replies(client):
    parent = CommentFactory(status=PUBLISHED)
    response = reply(client, parent.entry, parent.pk, notify_replies="on")
    assert response.status_code == 303
    saved = Comment.objects.latest("pk")
    assert (saved.parent, saved.notify_replies, saved.status) == (parent, True, "pending")


@pytest.mark.parametrize("status", [Comment.Status.PENDING, Comment.Status.SPAM])
def test_reply_to_an_unpublished_comment_is_refused(client, status):
    parent = CommentFactory(status=status)
    response = reply(client, parent.entry, parent.pk)
    assert response.status_code == 400
    assert "The comment you are replying to cannot be found." in response.content.decode()
    assert Comment.objects.count() == 1


def test_reply_to_another_entrys_comment_is_refused(client):
    parent = CommentFactory(status=PUBLISHED)
    response = reply(client, EntryFactory(), parent.pk)
    assert response.status_code == 400
    assert "cannot be found" in response.content.decode()
    assert Comment.objects.count() == 1


@pytest.mark.parametrize("parent_id", ["0", "-3", "abc", str(2**64)])
def test_malformed_parent_is_a_form_error_not_a_500(client, parent_id):
    entry = EntryFactory()
    assert reply(client, entry, parent_id).status_code == 400
    assert not Comment.objects.exists()


def test_reply_deeper_than_the_limit_is_refused(client, settings):
    settings.BLOG_MAX_THREAD_DEPTH = 2
    top = CommentFactory(status=PUBLISHED)
    second = CommentFactory(status=PUBLISHED, entry=top.entry, parent=top)
    response = reply(client, top.entry, second.pk)
    assert response.status_code == 400
    assert "cannot go deeper than 2 levels" in response.content.decode()
    assert Comment.objects.count() == 2
    # One level up is still allowed.
    assert reply(client, top.entry, top.pk).status_code == 303


def test_entry_page_nests_published_replies_in_one_query(client, django_assert_num_queries):
    top = CommentFactory(status=PUBLISHED, name="Top")
    entry = top.entry
    child = CommentFactory(status=PUBLISHED, entry=entry, parent=top, name="Child")
    CommentFactory(status=PUBLISHED, entry=entry, parent=child, name="Grandchild")
    hidden = CommentFactory(status=Comment.Status.PENDING, entry=entry, parent=top)
    CommentFactory(status=PUBLISHED, entry=entry, parent=hidden, name="Orphan")
    with django_assert_num_queries(2):  # the entry, its published comments
        text = client.get(entry.get_absolute_url()).content.decode()
    assert "Comments (3)" in text
    assert "Orphan" not in text
    top_at, child_at, grandchild_at = (text.index(n) for n in ("Top", "Child", "Grandchild"))
    assert top_at < child_at < grandchild_at
    # Each reply sits in an <ol> inside its parent's <li>.
    child_li = text[text.index(f'id="comment-{child.pk}"') :]
    assert child_li.index('<ol class="comments replies">') < child_li.index("Grandchild")
    # Replying stops at the depth limit (3 by default): the grandchild has no Reply link.
    assert f"?reply_to={top.pk}#comment-form" in text
    assert f"?reply_to={child.pk}#comment-form" in text
    assert "Reply to Grandchild" not in text


def test_reply_to_link_sets_the_form_without_javascript(client):
    parent = CommentFactory(status=PUBLISHED, name="<b>Ada</b>")
    url = parent.entry.get_absolute_url()
    text = client.get(f"{url}?reply_to={parent.pk}").content.decode()
    assert "Replying to &lt;b&gt;Ada&lt;/b&gt;" in text
    assert f'name="parent" value="{parent.pk}"' in text
    assert f'class="cancel-reply" href="{url}#comment-form"' in text


@pytest.mark.parametrize("reply_to", ["abc", "999999"])
def test_unknown_reply_to_shows_the_plain_form(client, reply_to):
    entry = EntryFactory()
    response = client.get(f"{entry.get_absolute_url()}?reply_to={reply_to}")
    assert response.status_code == 200
    assert "Leave a comment" in response.content.decode()


def test_form_sent_back_with_errors_still_replies_to_its_parent(client):
    parent = CommentFactory(status=PUBLISHED, name="Grace")
    response = reply(client, parent.entry, parent.pk, comment="")
    assert response.status_code == 400
    assert "Replying to Grace" in response.content.decode()


def test_entry_closes_its_comments_after_the_days_set(client, settings):
    settings.BLOG_CLOSE_AFTER_DAYS = 30
    old = EntryFactory(pub_date=timezone.now() - timedelta(days=31))
    recent = EntryFactory(pub_date=timezone.now() - timedelta(days=29))
    CommentFactory(status=PUBLISHED, entry=old)
    assert not old.comments_open() and recent.comments_open()
    text = client.get(old.get_absolute_url()).content.decode()
    assert "Comments are closed" in text
    assert "<form" not in text and "reply_to=" not in text
    response = client.post(f"/blog/{old.slug}/comment/", VALID, REMOTE_ADDR=fresh_ip())
    assert response.status_code == 403
    assert "Comments on this entry are closed" in response.content.decode()
    assert old.comments.count() == 1
    settings.BLOG_CLOSE_AFTER_DAYS = None
    assert old.comments_open()


def test_entry_comments_feed_lists_published_comments_newest_first(client):
    entry = EntryFactory(title="Queues")
    now = timezone.now()
    older = CommentFactory(status=PUBLISHED, entry=entry, pub_date=now - timedelta(hours=2))
    newer = CommentFactory(status=PUBLISHED, entry=entry, pub_date=now - timedelta(hours=1))
    CommentFactory(status=Comment.Status.SPAM, entry=entry, name="Spammer")
    url = reverse("blog:entry_comments_feed", kwargs={"slug": entry.slug})
    assert url == f"/blog/{entry.slug}/comments/feed/"
    response = client.get(url)
    assert response.status_code == 200
    items = ElementTree.fromstring(response.content).findall("./channel/item")
    links = [item.findtext("link") for item in items]
    assert links == [f"http://testserver{c.get_absolute_url()}" for c in (newer, older)]
    assert links[0].endswith(f"#comment-{newer.pk}")
    page = client.get(entry.get_absolute_url()).content.decode()
    assert (
        f'rel="alternate" type="application/rss+xml" title="Comments on Queues" href="{url}"'
        in page
    )


def test_comments_feed_of_a_draft_is_404(client):
    draft = EntryFactory(is_published=False)
    assert client.get(f"/blog/{draft.slug}/comments/feed/").status_code == 404


def test_admin_shows_the_thread(admin_client):
    top = CommentFactory(status=PUBLISHED, name="<i>Top</i>")
    child = CommentFactory(status=Comment.Status.PENDING, entry=top.entry, parent=top, name="Kid")
    page = admin_client.get(f"/admin/blog/comment/{top.pk}/change/").content.decode()
    assert f'href="/admin/blog/comment/{child.pk}/change/">Kid: ' in page
    page = admin_client.get(f"/admin/blog/comment/{child.pk}/change/").content.decode()
    assert f'href="/admin/blog/comment/{top.pk}/change/">&lt;i&gt;Top&lt;/i&gt;: ' in page
    listing = admin_client.get("/admin/blog/comment/").content.decode()
    assert f'href="/admin/blog/comment/{top.pk}/change/">&lt;i&gt;Top&lt;/i&gt;: ' in listing
    # Saving the change form keeps the thread.
    admin_client.post(
        f"/admin/blog/comment/{child.pk}/change/",
        {"entry": top.entry.pk, "name": "Kid", "email_address": "k@example.com", "comment": "x"}
        | {"events-TOTAL_FORMS": 0, "events-INITIAL_FORMS": 0},
    )
    child.refresh_from_db()
    assert child.parent == top
