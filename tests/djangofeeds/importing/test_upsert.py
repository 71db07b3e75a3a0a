"""importing.upsert: posts inserted or updated in one statement, each database's way."""

import pytest
from django.db import connection, transaction
from django.utils import timezone

from djangofeeds.importing.upsert import upsert_posts
from djangofeeds.models import Feed

pytestmark = pytest.mark.django_db


def post_of(feed, guid, **values):
    from djangofeeds.models import Post

    fields = {"guid": guid, "guid_hash": guid.ljust(64, "0"), "checksum": "c" * 64, **values}
    return Post(feed=feed, **fields)


def test_upsert_stores_each_value_as_given_and_rewrites_a_known_guid():
    """Text of every kind and datetimes with offsets come back unchanged; a known guid is
    updated in place, under its id, and the posts come back with their ids."""
    from djangofeeds.models import Post

    feed = Feed.objects.create(url="http://a.example/feed.xml")
    paris = timezone.get_fixed_timezone(120)
    odd = 'Ünïcode ✓ 🐍 "quotes" \\back\\slash\nnew line\ttab <b>&amp;</b> \u2028'
    posts = [
        post_of(feed, "g1", title=odd, content=odd * 50, published_at=timezone.now()),
        post_of(
            feed,
            "g2",
            title="plain",
            published_at=timezone.datetime(2026, 1, 2, 3, 4, 5, 678901, paris),
        ),
        post_of(feed, "g3", title="undated", published_at=None, author="A" * 500),
    ]

    stored = upsert_posts(posts, update_fields=["title"])

    assert all(post.pk for post in stored) and len({post.pk for post in stored}) == 3
    for post in stored:
        read = Post.objects.get(pk=post.pk)
        assert (read.title, read.content, read.author) == (post.title, post.content, post.author)
        assert read.published_at == post.published_at and read.guid_hash == post.guid_hash

    again = upsert_posts([post_of(feed, "g2", title="retitled")], update_fields=["title"])

    assert again[0].pk == stored[1].pk and Post.objects.count() == 3
    assert Post.objects.get(pk=stored[1].pk).title == "retitled"


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the upsert from one JSON document is PostgreSQL's"
)
def test_upsert_refuses_a_value_too_long_for_its_column_rather_than_cutting_it():
    """A link longer than its column is an error (the import records it), not a cut link."""
    from django.db import DataError

    from djangofeeds.models import Post

    feed = Feed.objects.create(url="http://a.example/feed.xml")

    with pytest.raises(DataError), transaction.atomic():
        upsert_posts([post_of(feed, "long", link="http://a.example/" + "x" * 2000)], ["title"])

    assert not Post.objects.exists()
