"""Stories through real imports (a local feed server): the same article in two feeds is one
story on the pages and the combined output feeds, shown from the feed that had it first with
the other named ("also in"); each feed keeps its own posts; a story can be split."""

import feedparser
import pytest
from django.urls import reverse

from djangofeeds.models import Feed, Post
from djangofeeds.stories.grouping import split
from localservers.feed_server import rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db

ARTICLE = "https://apnews.com/article/earthquake-taiwan-8d1e0"


def item(guid, title, link):
    return {"guid": guid, "title": title, "link": link, "description": f"About {title}"}


@pytest.fixture
def two_feeds(feed_server):
    """The wire's feed, then a partner's that carries the same article with tracking."""
    wire = feed_server.serve(
        "/wire.xml",
        rss(
            [item("w1", "Quake in Taiwan", ARTICLE), item("w2", "Moon lander", ARTICLE + "-2")],
            title="Wire",
        ),
    )
    partner = feed_server.serve(
        "/partner.xml",
        rss(
            [
                item("p1", "Quake in Taiwan", f"{ARTICLE}?utm_source=partner&fbclid=x"),
                item("p2", "Local news", "https://partner.example.com/local"),
            ],
            title="Partner",
        ),
    )
    import_url(wire)
    import_url(partner)
    return Feed.objects.get(url=wire), Feed.objects.get(url=partner)


def shown(page, title):
    """How many posts titled ``title`` a page shows (each heads an article)."""
    return page.count(f">{title}</a></h2>")


def titles(client, url):
    document = feedparser.parse(client.get(url).content)
    return sorted(entry.title for entry in document.entries)


def test_the_second_feeds_copy_repeats_the_first_and_the_pages_show_it_once(client, two_feeds):
    _, partner = two_feeds
    first, repeat = Post.objects.get(guid="w1"), Post.objects.get(guid="p1")
    assert (repeat.duplicate_of, first.duplicate_of) == (first, None)
    assert first.story_key == repeat.story_key != ""

    page = client.get("/feeds/").text
    assert shown(page, "Quake in Taiwan") == 1
    assert f'Also in: <a href="/feeds/{partner.pk}/">Partner</a>' in page
    assert titles(client, reverse("djangofeeds:posts_atom")) == [
        "Local news",
        "Moon lander",
        "Quake in Taiwan",
    ]
    # Each feed keeps its own posts: its page and its own output feed.
    assert "Quake in Taiwan" in client.get(f"/feeds/{partner.pk}/").text
    own = reverse("djangofeeds:feed_rss", kwargs={"pk": partner.pk})
    assert titles(client, own) == ["Local news", "Quake in Taiwan"]
    assert client.get(repeat.get_page_url()).status_code == 200


def test_a_story_is_shown_from_the_other_feed_when_the_first_is_deactivated(client, two_feeds):
    wire, _ = two_feeds
    Feed.objects.filter(pk=wire.pk).update(is_active=False)
    page = client.get("/feeds/").text
    assert shown(page, "Quake in Taiwan") == 1 and "Also in" not in page


def test_a_story_split_in_the_admin_shows_each_post_again_and_stays_split(
    admin_client, client, two_feeds, feed_server
):
    first = Post.objects.get(guid="w1")
    response = admin_client.post(
        "/admin/djangofeeds/post/",
        {"action": "split_from_story", "_selected_action": [first.pk]},
        follow=True,
    )
    assert "Split 2 posts from their stories." in response.text
    assert shown(client.get("/feeds/").text, "Quake in Taiwan") == 2
    assert Post.objects.filter(duplicate_of__isnull=False).count() == 0
    # A rewrite of the split post does not group it again.
    feed_server.serve(
        "/wire.xml",
        rss([item("w1", "Quake in Taiwan (updated)", ARTICLE)], title="Wire"),
    )
    import_url(Feed.objects.get(title="Wire").url)
    assert Post.objects.get(guid="w1").duplicate_of is None
    assert split(Post.objects.none()) == 0


def test_feedburner_origlink_names_the_article_behind_the_redirect(feed_server):
    direct = feed_server.serve(
        "/blog.xml", rss([item("b1", "Moving to Postgres", "https://blog.example.com/pg/")])
    )
    burned = feed_server.serve(
        "/burned.xml",
        b'<?xml version="1.0"?><rss version="2.0" '
        b'xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0"><channel><title>B</title>'
        b"<link>https://blog.example.com/</link><description>d</description><item>"
        b'<title>Moving to Postgres</title><guid isPermaLink="false">fb1</guid>'
        b"<link>http://feedproxy.google.com/~r/Blog/~3/xyz/</link>"
        b"<feedburner:origLink>https://blog.example.com/pg/</feedburner:origLink>"
        b"<description>d</description></item></channel></rss>",
    )
    import_url(direct)
    import_url(burned)
    assert Post.objects.get(guid="fb1").duplicate_of == Post.objects.get(guid="b1")


def test_posts_of_one_feed_are_never_one_story(feed_server):
    """Stories are across feeds: a feed that links two items to one page keeps both."""
    url = feed_server.serve(
        "/same.xml",
        rss(
            [
                item("s1", "Part 1", "https://example.com/series"),
                item("s2", "Part 2", "https://example.com/series"),
            ]
        ),
    )
    import_url(url)
    assert Post.objects.filter(duplicate_of__isnull=False).count() == 0


def test_a_pruned_first_post_leaves_its_repeat_shown_on_its_own(client, two_feeds):
    """Retention deletes posts without Django's collector: their repeats are freed first."""
    from djangofeeds.importing.retention import delete_posts

    delete_posts([Post.objects.get(guid="w1").pk])

    assert Post.objects.get(guid="p1").duplicate_of is None
    assert shown(client.get("/feeds/").text, "Quake in Taiwan") == 1
