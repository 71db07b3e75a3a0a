"""Enclosures and categories on the pages and in the admin."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from djangofeeds.admin.posts import TOP_CATEGORIES_KEY
from djangofeeds.models import Category, Enclosure
from tests.factories import FeedFactory, PostFactory

pytestmark = pytest.mark.django_db


def post_with_media(**fields):
    post = PostFactory(**fields)
    Enclosure.objects.create(
        post=post, url="https://cdn.example.com/ep1.mp3", type="audio/mpeg", length=48211456
    )
    Enclosure.objects.create(post=post, url="https://cdn.example.com/ep1.mp4", type="video/mp4")
    Enclosure.objects.create(
        post=post, url="https://cdn.example.com/notes.pdf", type="application/pdf"
    )
    return post


def test_post_page_plays_audio_and_video_and_offers_other_files_for_download(client):
    """A post page plays audio and video and offers other files for download, with sizes."""
    post = post_with_media(title="Episode 1")

    response = client.get(reverse("djangofeeds:post_detail", args=[post.pk]))

    assert response.status_code == 200
    page = response.text
    assert '<audio controls preload="none" src="https://cdn.example.com/ep1.mp3">' in page
    assert '<video controls preload="none" src="https://cdn.example.com/ep1.mp4">' in page
    assert "notes.pdf" in page and page.count("<audio") == 1 and page.count("<video") == 1
    assert (
        'href="https://cdn.example.com/notes.pdf" rel="noopener noreferrer nofollow" download'
        in page
    )
    assert "46.0\xa0MB" in page  # the length, for people on a metered connection


def test_post_page_of_an_unknown_post_is_404(client):
    """The page of a post that does not exist is a 404."""
    assert client.get(reverse("djangofeeds:post_detail", args=[999])).status_code == 404


def test_post_lists_link_to_the_post_page_and_show_players(client):
    """The post lists link to each post's page and show its players."""
    post = post_with_media(title="Episode 1")

    for url in ("/feeds/", post.feed.get_absolute_url()):
        page = client.get(url).text
        assert f'href="{post.get_page_url()}"' in page
        assert 'preload="none"' in page


def test_pages_allow_media_from_other_sites_and_still_no_scripts(client):
    """The pages' policy lets media load from other sites and still runs no script."""
    page = client.get("/feeds/").text

    assert "media-src https: http:;" in page and "script-src 'none'" in page


def test_post_list_filters_by_category_and_keeps_it_across_pages(client):
    """The post list filters by category, keeps it across pages; an unknown one is a 404."""
    news = Category.objects.create(name="News")
    other = Category.objects.create(name="Other")
    feed = FeedFactory()
    for number in range(30):
        PostFactory(feed=feed, title=f"News {number}").categories.add(news)
    PostFactory(feed=feed, title="Elsewhere").categories.add(other)

    response = client.get("/feeds/", {"category": news.pk})

    assert response.context["page"].paginator.count == 30
    assert "Posts in “News”" in response.text and "Elsewhere" not in response.text
    assert f'href="?category={news.pk}&amp;page=2"' in response.text
    assert client.get("/feeds/", {"category": 999}).status_code == 404


@pytest.mark.parametrize("value", ["²", "①", "٣", "1 ", "+1", "-1", "0x1", "1e3", "\x00"])
def test_post_list_takes_a_category_that_is_no_plain_number_for_none(client, value):
    """``?category=`` that is not ASCII digits (Unicode digits included, which
    ``str.isdigit`` accepts and the database refuses) shows every post: never a 500."""
    PostFactory(title="Any post")

    response = client.get("/feeds/", {"category": value})

    assert response.status_code == 200 and "Any post" in response.text
    assert response.context["category"] is None


def test_post_list_of_a_category_id_no_row_can_have_is_404(client):
    """A category number past the largest id a row can have is a 404, like any unknown one."""
    assert client.get("/feeds/", {"category": "9" * 30}).status_code == 404


def test_admin_posts_ignore_a_category_that_is_no_plain_number(admin_client):
    """The admin's category filter takes ``?category=²`` for no filter, not a 500."""
    PostFactory(title="Any post")
    changelist = reverse("admin:djangofeeds_post_changelist")

    for value in ("²", "①", "9" * 30):
        assert admin_client.get(changelist, {"category": value}).status_code == 200


def test_post_list_links_each_category(client):
    """The post list links each of a post's categories to its filtered list."""
    post = PostFactory(feed=FeedFactory())
    category = Category.objects.create(name="Podcasts", domain="https://example.com/t")
    post.categories.add(category)

    page = client.get("/feeds/").text

    assert f'<a href="/feeds/?category={category.pk}">Podcasts</a>' in page


def test_post_pages_cost_the_same_queries_for_more_posts(client, django_assert_max_num_queries):
    """The post list takes a fixed number of queries, however many posts and media."""
    feed = FeedFactory()
    category = Category.objects.create(name="Shared")
    for _ in range(20):
        post_with_media(feed=feed).categories.add(category)

    with django_assert_max_num_queries(8):
        client.get("/feeds/")


def test_admin_post_page_shows_enclosures_inline(admin_client):
    """The admin's post page shows the post's enclosures inline."""
    post = post_with_media()

    page = admin_client.get(reverse("admin:djangofeeds_post_change", args=[post.pk])).text

    assert "https://cdn.example.com/ep1.mp3" in page and "audio/mpeg" in page
    assert "48211456" in page


def test_admin_posts_filter_and_search_by_category(admin_client):
    """The admin's post list filters and searches by category."""
    cache.delete(TOP_CATEGORIES_KEY)  # counted every few minutes; a shared memcached keeps it
    podcasts = Category.objects.create(name="Podcasts")
    tagged = PostFactory(title="Tagged post")
    tagged.categories.add(podcasts)
    PostFactory(title="Plain post")
    changelist = reverse("admin:djangofeeds_post_changelist")

    filtered = admin_client.get(changelist, {"category": podcasts.pk})
    searched = admin_client.get(changelist, {"q": "Podcasts"})

    for response in (filtered, searched):
        assert response.status_code == 200
        assert list(response.context["cl"].result_list) == [tagged]
    assert "Podcasts" in admin_client.get(changelist).text  # offered in the filter


def test_admin_categories_count_posts_and_link_to_them(admin_client):
    """The admin's category list counts each category's posts and links to them."""
    podcasts = Category.objects.create(name="Podcasts")
    for post in PostFactory.create_batch(3):
        post.categories.add(podcasts)

    response = admin_client.get(reverse("admin:djangofeeds_category_changelist"))

    assert response.status_code == 200
    assert [c.post_count for c in response.context["cl"].result_list] == [3]
    assert f"?category={podcasts.pk}" in response.text


def test_admin_changelists_skip_the_full_count(admin_client):
    """The admin's lists of feeds, posts, runs and categories skip the full count."""
    for name in ("feed", "post", "importrun", "category"):
        response = admin_client.get(reverse(f"admin:djangofeeds_{name}_changelist"))
        assert response.context["cl"].show_full_result_count is False


def test_admin_feed_page_lists_the_feed_categories(admin_client):
    """The admin's feed page lists the feed's categories."""
    feed = FeedFactory()
    feed.categories.add(Category.objects.create(name="Technology"))

    page = admin_client.get(reverse("admin:djangofeeds_feed_change", args=[feed.pk])).text

    assert "Technology" in page
