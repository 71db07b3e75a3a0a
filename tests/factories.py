"""factory-boy factories for the project's models."""

import hashlib

import factory
from django.utils import timezone

from blog.models import Comment, Entry
from blog.spam import build_payload


class EntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entry

    title = factory.Sequence(lambda n: f"Entry {n}")
    slug = factory.Sequence(lambda n: f"entry-{n}")
    body = "Some text.\n\nA second paragraph."
    is_published = True


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    entry = factory.SubFactory(EntryFactory)
    name = factory.Sequence(lambda n: f"Reader {n}")
    email_address = factory.Sequence(lambda n: f"reader{n}@example.com")
    comment = factory.Sequence(lambda n: f"A thoughtful remark, number {n}.")
    user_ip = "192.0.2.10"
    user_agent = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"


class FeedFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "djangofeeds.Feed"

    url = factory.Sequence(lambda n: f"http://feeds.example.com/{n}.xml")
    title = factory.Sequence(lambda n: f"Feed {n}")


class PostFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "djangofeeds.Post"

    feed = factory.SubFactory(FeedFactory)
    guid = factory.Sequence(lambda n: f"post-{n}")
    guid_hash = factory.LazyAttribute(lambda post: hashlib.sha256(post.guid.encode()).hexdigest())
    title = factory.Sequence(lambda n: f"Post {n}")
    link = factory.Sequence(lambda n: f"http://example.com/posts/{n}")
    content = "<p>Some content.</p>"
    published_at = factory.LazyFunction(timezone.now)
    checksum = ""


def comment_payload(**comment_fields):
    """The Akismet payload (blog.spam.build_payload) of a new comment with these fields."""
    return build_payload(CommentFactory(**comment_fields))


def make_feeds(count, prefix="http://feeds.example/"):
    """``count`` feeds in one INSERT, all due now."""
    from djangofeeds.models import Feed

    Feed.objects.bulk_create(Feed(url=f"{prefix}{n}.xml") for n in range(count))
