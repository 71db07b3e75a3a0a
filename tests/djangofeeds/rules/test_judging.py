"""Rules applied to real imports (a local feed server), on each database CI runs: a blocked
post stays in the admin and leaves the pages and output feeds; the rules apply again on demand."""

import feedparser
import pytest
from django.urls import reverse

from djangofeeds.models import Category, Feed, Post, Rule
from djangofeeds.rules import matching
from djangofeeds.tasks import apply_rules
from localservers.feed_server import rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db


def items(*specs):
    """RSS items: ``(guid, title, [categories])``."""
    return [
        {
            "guid": guid,
            "title": title,
            "link": f"http://example.com/{guid}",
            "description": f"Body of {title}",
            "categories": [(name, "") for name in categories],
        }
        for guid, title, categories in specs
    ]


PLANET = items(
    ("a", "Django 6.1 released", ["python"]),
    ("b", "Sponsored: the best VPN", ["python"]),
    ("c", "Rust in production", ["rust"]),
)


def blocked():
    """``{guid: blocking rule's id}`` of the blocked posts."""
    return dict(Post.objects.filter(is_blocked=True).values_list("guid", "blocked_by_id"))


def test_a_block_rule_hides_the_posts_it_matches_from_pages_and_output_feeds(
    client, admin_client, feed_server
):
    rule = Rule.objects.create(action="block", field="title", match="contains", pattern="sponsored")
    url = feed_server.serve("/planet.xml", rss(PLANET))

    result = import_url(url)

    assert result.run.created == 3 and blocked() == {"b": rule.pk}
    post, feed = Post.objects.get(guid="b"), Feed.objects.get()
    for page in ("/feeds/", f"/feeds/{feed.pk}/", reverse("djangofeeds:posts_atom")):
        text = client.get(page).text
        assert "Django 6.1 released" in text and "VPN" not in text, page
    output = feedparser.parse(client.get(reverse("djangofeeds:posts_rss")).content)
    assert sorted(entry.title for entry in output.entries) == [
        "Django 6.1 released",
        "Rust in production",
    ]
    assert client.get(post.get_page_url()).status_code == 404
    assert (
        "Sponsored: the best VPN"
        in admin_client.get(f"/admin/djangofeeds/post/{post.pk}/change/").text
    )


def test_a_keep_rule_of_a_feed_keeps_only_its_matches_and_leaves_other_feeds_alone(feed_server):
    """Only the posts tagged python of this feed; another feed's posts are not its scope."""
    planet = feed_server.serve("/planet.xml", rss(PLANET))
    other = feed_server.serve("/other.xml", rss(items(("z", "Go generics", ["go"]))))
    feed = Feed.objects.create(url=planet)
    keep = Rule.objects.create(
        feed=feed, action="keep", field="category", match="regex", pattern="(?i)^python$"
    )

    import_url(planet)
    import_url(other)

    assert blocked() == {"c": keep.pk}


def test_a_category_rule_covers_the_feeds_of_that_category(feed_server):
    news = Category.objects.create(name="News")
    url = feed_server.serve("/planet.xml", rss(PLANET))
    Feed.objects.create(url=url).categories.add(news)
    rule = Rule.objects.create(
        category=news, action="block", field="link", match="contains", pattern="example.com/c"
    )

    import_url(url)

    assert blocked() == {"c": rule.pk}


def test_an_edited_post_is_judged_again_when_the_import_rewrites_it(feed_server):
    Rule.objects.create(action="block", field="title", match="contains", pattern="sponsored")
    url = feed_server.serve("/planet.xml", rss(PLANET))
    import_url(url)
    edited = items(
        ("a", "Django 6.1 released", ["python"]),
        ("b", "The best VPN", ["python"]),
        ("c", "Rust in production", ["rust"]),
    )
    feed_server.serve("/planet.xml", rss(edited))

    result = import_url(url)

    assert result.run.updated == 1 and blocked() == {}


def test_the_rules_apply_again_to_stored_posts_when_asked(feed_server):
    """A rule added after the import blocks stored posts once applied again; one removed
    shows them again."""
    url = feed_server.serve("/planet.xml", rss(PLANET))
    import_url(url)
    rule = Rule.objects.create(action="block", field="content", match="contains", pattern="rust")

    assert apply_rules.apply().get() == {"blocked": 1, "held": 0}
    assert blocked() == {"c": rule.pk}

    rule.delete()
    assert Post.objects.get(guid="c").blocked_by is None  # SET_NULL: still hidden, held
    apply_rules.apply(args=([Feed.objects.get().pk],)).get()
    assert blocked() == {}


def test_posts_past_the_rules_time_limit_are_held_back_and_the_run_says_so(
    feed_server, monkeypatch
):
    """The rules' time limit is for a whole import: what is left is hidden, never shown
    unjudged, until the rules apply again."""
    Rule.objects.create(action="block", field="title", match="contains", pattern="sponsored")
    url = feed_server.serve("/planet.xml", rss(PLANET))
    monkeypatch.setattr(matching, "TIME_LIMIT", -1)

    result = import_url(url)

    assert blocked() == {"a": None, "b": None, "c": None}
    assert "3 posts held back: the rules ran out of time" in result.run.warning
    monkeypatch.undo()
    assert apply_rules.apply().get() == {"blocked": 1, "held": 0}
    assert set(blocked()) == {"b"}


def test_rules_cost_an_import_one_query_and_no_write_of_their_own(
    feed_server, django_assert_max_num_queries
):
    """The verdicts are written with the posts: one query for the rules, none per post."""
    url = feed_server.serve("/planet.xml", rss(PLANET))
    Feed.objects.create(url=url)
    rule = Rule.objects.create(action="block", field="title", match="contains", pattern="vpn")
    with django_assert_max_num_queries(60) as queries:
        import_url(url)
    sql = [query["sql"] for query in queries.captured_queries]
    assert len([text for text in sql if "djangofeeds_rule" in text]) == 1
    assert not [text for text in sql if text.startswith("UPDATE") and "is_blocked" in text]
    assert blocked() == {"b": rule.pk}
