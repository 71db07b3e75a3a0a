"""The rules' admin: a preview of what a rule would hide among the newest posts, before it is
saved; a pattern RE2 cannot run refused with a message; the rules applied again on demand."""

import pytest

from djangofeeds.models import Feed, Post, Rule
from tests.factories import FeedFactory, PostFactory

pytestmark = pytest.mark.django_db

ADD = "/admin/djangofeeds/rule/add/"


def form(**fields):
    return {"action": "block", "field": "title", "match": "contains", "is_active": "on", **fields}


@pytest.fixture
def posts():
    feed = FeedFactory(title="Planet")
    PostFactory(feed=feed, title="Sponsored: a VPN")
    PostFactory(feed=feed, title="Django 6.1")
    PostFactory(feed=FeedFactory(title="Other"), title="sponsored elsewhere")
    return feed


def test_preview_lists_what_the_rule_would_hide_and_saves_nothing(admin_client, posts):
    response = admin_client.post(ADD, form(pattern="sponsored", feed=posts.pk, _preview="Preview"))

    assert response.status_code == 200
    assert not Rule.objects.exists()
    preview = response.context["preview"]
    assert (preview["read"], preview["matched"]) == (2, 1)
    assert [post.title for post in preview["hidden"]] == ["Sponsored: a VPN"]
    page = response.text
    assert "Preview (not saved)" in page and "Sponsored: a VPN" in page
    assert 'value="sponsored"' in page  # the form as typed, ready to save


def test_preview_of_a_keep_rule_lists_the_posts_it_would_not_keep(admin_client, posts):
    response = admin_client.post(
        ADD, form(action="keep", match="regex", pattern="^Django", _preview="Preview")
    )
    hidden = sorted(post.title for post in response.context["preview"]["hidden"])
    assert hidden == ["Sponsored: a VPN", "sponsored elsewhere"]


def test_a_pattern_re2_cannot_run_is_refused_with_a_message(admin_client, posts):
    for button in ({}, {"_preview": "Preview"}):
        response = admin_client.post(ADD, form(match="regex", pattern=r"(a)\1", **button))
        assert response.status_code == 200
        assert "Not a regular expression RE2 can run" in response.text
    assert not Rule.objects.exists()


def test_a_rule_for_one_feed_and_one_category_at_once_is_refused(admin_client, posts):
    from djangofeeds.models import Category

    category = Category.objects.create(name="News")
    response = admin_client.post(ADD, form(pattern="x", feed=posts.pk, category=category.pk))
    assert "one feed or to one category, not both" in response.text
    assert not Rule.objects.exists()


def test_saving_a_rule_and_applying_the_rules_again_from_the_list(admin_client, posts, eager):
    response = admin_client.post(ADD, form(pattern="sponsored"))
    assert response.status_code == 302
    rule = Rule.objects.get()

    response = admin_client.post(
        "/admin/djangofeeds/rule/",
        {"action": "apply_to_stored_posts", "_selected_action": [rule.pk]},
        follow=True,
    )

    assert "the rules are applied again to the posts of every feed" in response.text
    blocked = Post.objects.filter(is_blocked=True).values_list("title", flat=True)
    assert sorted(blocked) == ["Sponsored: a VPN", "sponsored elsewhere"]
    posts_page = admin_client.get("/admin/djangofeeds/post/?is_blocked__exact=1").text
    assert "Sponsored: a VPN" in posts_page and "Django 6.1" not in posts_page
    assert Feed.objects.count() == 2
