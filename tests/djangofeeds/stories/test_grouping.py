"""Stories through real imports (a local feed server): the same article in two feeds is one
story on the pages and the combined output feeds, shown from the feed that had it first with
the other named ("also in"); each feed keeps its own posts; a story can be split."""

import io

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


def test_a_hidden_first_post_leaves_its_story_to_one_repeat_the_oldest(
    client, two_feeds, feed_server
):
    """Three feeds carry the article; with the first post hidden (its feed deactivated, or
    the post blocked by a rule) the story is still shown once: from the oldest repeat."""
    wire, partner = two_feeds
    third = feed_server.serve(
        "/third.xml",
        rss([item("t1", "Quake in Taiwan", f"{ARTICLE}?utm_medium=social")], title="Third"),
    )
    import_url(third)
    first = Post.objects.get(guid="w1")
    assert set(first.duplicates.values_list("guid", flat=True)) == {"p1", "t1"}
    atom = reverse("djangofeeds:posts_atom")

    def shown_copies():
        page = client.get("/feeds/").text
        assert shown(page, "Quake in Taiwan") == 1
        assert titles(client, atom).count("Quake in Taiwan") == 1
        return list(Post.objects.stories().filter(title="Quake in Taiwan").values_list("guid"))

    Feed.objects.filter(pk=wire.pk).update(is_active=False)
    assert shown_copies() == [("p1",)]
    Feed.objects.filter(pk=wire.pk).update(is_active=True)
    Post.objects.filter(pk=first.pk).update(is_blocked=True)
    assert shown_copies() == [("p1",)]
    Feed.objects.filter(pk=partner.pk).update(is_active=False)  # the next one stands in
    assert shown_copies() == [("t1",)]
    Post.objects.filter(pk=first.pk).update(is_blocked=False)  # the first is back
    assert shown_copies() == [("w1",)]


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


def test_the_output_feeds_name_the_other_feeds_of_a_story(client, two_feeds):
    """Each format, parsed back: the story's item links the partner's copy (``related``),
    says "Also in:" under its content, and the JSON Feed lists it in ``_source.also_in``."""
    _, partner = two_feeds
    copy = Post.objects.get(guid="p1").link
    line = f'Also in: <a href="{copy.replace("&", "&amp;")}">Partner</a>'
    for name in ("posts_rss", "posts_atom"):
        document = feedparser.parse(client.get(reverse(f"djangofeeds:{name}")).content)
        entry = next(e for e in document.entries if e.title == "Quake in Taiwan")
        related = [(link.href, link.get("title")) for link in entry.links if link.rel == "related"]
        assert related == [(copy, "Partner")], name
        assert line in entry.summary, name
        alone = next(e for e in document.entries if e.title == "Moon lander")
        assert "Also in" not in alone.summary
    item = next(
        item
        for item in client.get(reverse("djangofeeds:posts_json")).json()["items"]
        if item["title"] == "Quake in Taiwan"
    )
    assert line in item["content_html"]
    assert item["_source"]["also_in"] == [
        {"name": "Partner", "feed_url": partner.public_url, "url": copy}
    ]
    # The partner's own output keeps its copy, and names no other feed.
    own = client.get(reverse("djangofeeds:feed_atom", kwargs={"pk": partner.pk})).text
    assert "Also in" not in own and 'rel="related"' not in own


def test_a_new_copy_in_another_feed_changes_the_output_feeds_etag(client, feed_server):
    wire = feed_server.serve("/wire.xml", rss([item("w1", "Quake", ARTICLE)], title="Wire"))
    import_url(wire)
    url = reverse("djangofeeds:posts_atom")
    before = client.get(url)
    assert client.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304

    partner = feed_server.serve("/p.xml", rss([item("p1", "Quake", ARTICLE)], title="Partner"))
    import_url(partner)
    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and "Also in" in after.text
    assert after["Last-Modified"] != before["Last-Modified"] or after["ETag"] != before["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=after["ETag"]).status_code == 304


@pytest.fixture
def three_feeds(feed_server):
    """The wire's article in three feeds, imported in order: the wire's post leads."""
    feeds = []
    for name in ("Wire", "Partner", "Europe"):
        url = feed_server.serve(
            f"/{name}.xml",
            rss([item(f"{name}-1", "Quake in Taiwan", f"{ARTICLE}?utm_medium={name}")], title=name),
        )
        import_url(url)
        feeds.append(Feed.objects.get(url=url))
    return feeds


def story_of(client):
    """The /feeds/ page's "Quake in Taiwan": how many times it is shown, and its "also in"."""
    page = client.get("/feeds/").text
    also = page.split("Also in:", 1)[1].split("</p>", 1)[0] if "Also in:" in page else ""
    return shown(page, "Quake in Taiwan"), [
        name for name in ("Wire", "Partner", "Europe") if name in also
    ]


def test_a_pruned_lead_passes_its_story_to_the_next_post(client, three_feeds):
    from djangofeeds.importing.retention import delete_posts

    assert story_of(client) == (1, ["Partner", "Europe"])
    delete_posts([Post.objects.get(guid="Wire-1").pk])

    partner, europe = Post.objects.get(guid="Partner-1"), Post.objects.get(guid="Europe-1")
    assert (partner.duplicate_of, europe.duplicate_of) == (None, partner)
    assert story_of(client) == (1, ["Europe"])


def test_a_feed_or_post_deleted_in_the_admin_passes_its_stories_on(
    admin_client, client, three_feeds
):
    wire, _, _ = three_feeds
    response = admin_client.post(
        f"/admin/djangofeeds/feed/{wire.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert response.status_code == 200 and not Feed.objects.filter(pk=wire.pk).exists()
    assert story_of(client) == (1, ["Europe"])

    lead = Post.objects.get(guid="Partner-1")
    admin_client.post(f"/admin/djangofeeds/post/{lead.pk}/delete/", {"post": "yes"})
    assert not Post.objects.filter(pk=lead.pk).exists()
    assert Post.objects.get(guid="Europe-1").duplicate_of is None
    assert story_of(client) == (1, [])


def test_group_stories_groups_the_posts_stored_before_stories(client, three_feeds, feed_server):
    """Posts from before migration 0020 had no key: the command groups them as an import
    would have, keeps a split post out, and changes nothing when run again."""
    from django.core.management import call_command

    lone = feed_server.serve("/lone.xml", rss([item("x1", "Unrelated", "https://x.example/1")]))
    import_url(lone)
    grouped = {post.guid: post.duplicate_of_id for post in Post.objects.all()}
    Post.objects.update(story_key="", duplicate_of=None)  # as 0020 found them
    split(Post.objects.filter(guid="x1"))
    assert story_of(client)[0] == 3

    out, err = io.StringIO(), io.StringIO()
    call_command("group_stories", "--batch-size", "2", stdout=out, stderr=err)
    assert out.getvalue().strip() == "Story keys given: 3; posts grouped: 2."
    assert "story keys given: 2; posts grouped: 1…" in err.getvalue()  # one line per batch
    assert {post.guid: post.duplicate_of_id for post in Post.objects.all()} == grouped
    assert Post.objects.get(guid="x1").story_key == "-"  # split: never grouped again
    assert story_of(client) == (1, ["Partner", "Europe"])

    call_command("group_stories", stdout=out)
    assert out.getvalue().strip().endswith("Story keys given: 0; posts grouped: 0.")


def test_a_lead_split_off_leaves_the_others_one_story(client, three_feeds):
    assert split(Post.objects.filter(guid="Wire-1")) == 3  # it, and the two that repeated it

    wire, partner = Post.objects.get(guid="Wire-1"), Post.objects.get(guid="Partner-1")
    assert (wire.duplicate_of, wire.story_key) == (None, "-")
    assert Post.objects.get(guid="Europe-1").duplicate_of == partner
    count, named = story_of(client)
    assert count == 2 and named == ["Europe"]  # the wire's on its own, the partner's with Europe
