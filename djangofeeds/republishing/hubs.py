"""WebSub publishing: the output feeds name their hubs, and an import that stored posts pings
each hub with the output feeds it changed (W3C WebSub 4; ``push.publisher`` pings).

The hubs are ``DJANGOFEEDS_PUBLISH_HUBS``. A topic is an output feed's absolute URL under
``DJANGOFEEDS_PUBLIC_URL`` (the hub fetches it, and subscribers name it), so publishing is
on only with both. The task ``djangofeeds.tasks.publish_to_hubs`` takes the topics' URLs.
"""

from celery import current_app

from djangofeeds import conf
from djangofeeds.conf import public_url
from djangofeeds.models import Category, Post
from djangofeeds.republishing.scopes import FORMATS, Scope

# Sent by name, as the other tasks are from here: djangofeeds.tasks is not imported.
PUBLISH_TO_HUBS = "djangofeeds.tasks.publish_to_hubs"


def enabled():
    """Whether the output feeds name hubs and imports ping them."""
    return bool(conf.DJANGOFEEDS_PUBLISH_HUBS) and bool(conf.DJANGOFEEDS_PUBLIC_URL)


def topic_url(scope, fmt):
    """``scope``'s output feed in ``fmt``, as hubs and subscribers know it."""
    return public_url(scope.url(fmt))


def topics(feed, category_ids=()):
    """The output feeds an import of ``feed`` (active) changed: every active feed's, the
    feed's own and those of the stored posts' categories, in every format."""
    scopes = [Scope("posts"), Scope("feed", feed)]
    categories = Category.objects.filter(pk__in=category_ids).order_by("pk")
    scopes += [Scope("category", category) for category in categories]
    return [topic_url(scope, fmt) for scope in scopes for fmt in FORMATS]


def posts_stored(sender, feed, created, updated, **kwargs):
    """``signals.posts_stored`` (after the import's commit): queue the pings of its topics."""
    if not enabled() or not feed.is_active:
        return
    stored = [*created.values_list("pk", flat=True), *updated.values_list("pk", flat=True)]
    links = Post.categories.through.objects.filter(post_id__in=stored)
    category_ids = sorted(set(links.values_list("category_id", flat=True)))
    urls = topics(feed, category_ids)
    current_app.signature(PUBLISH_TO_HUBS, args=(urls,)).delay()
