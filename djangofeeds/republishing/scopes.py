"""What an output feed holds: its scope (every active feed, one feed, one category), its
newest posts, and the validators (ETag, Last-Modified) that let a reader get a 304.

The validators are read from a small query of their own (ids, checksums, the
feeds' last successful import), so that a reader polling an unchanged feed costs
no content read and no rendering.
"""

import functools
import hashlib
from dataclasses import dataclass

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from djangofeeds import conf
from djangofeeds.models import Category, Feed, Post

# The URL names of each format, by scope: "posts_rss", "feed_atom", "category_json"...
FORMATS = ("rss", "atom", "json")
LABELS = {"rss": "RSS", "atom": "Atom", "json": "JSON Feed"}
MEDIA_TYPES = {
    "rss": "application/rss+xml",
    "atom": "application/atom+xml",
    "json": "application/feed+json",
}


@dataclass
class Scope:
    """An output feed's subject: ``kind`` "posts", "feed" or "category", and its object."""

    kind: str
    subject: Feed | Category | None = None

    @classmethod
    def of(cls, feed_pk=None, category_pk=None):
        """The scope an output URL names; 404 for a feed not active or a category unknown."""
        if feed_pk is not None:
            return cls("feed", get_object_or_404(Feed.objects.active(), pk=feed_pk))
        if category_pk is not None:
            return cls("category", get_object_or_404(Category, pk=category_pk))
        return cls("posts")

    @property
    def title(self):
        if self.kind == "feed":
            return self.subject.public_name
        if self.kind == "category":
            return _("Posts in “%(category)s”") % {"category": self.subject}
        return _("Latest from the feeds")

    def page_url(self):
        """The page on this site that shows the same posts."""
        if self.subject is not None:
            return self.subject.get_absolute_url()
        return reverse("djangofeeds:post_list")

    def url(self, fmt):
        """This scope's output feed in ``fmt`` (one of ``FORMATS``)."""
        kwargs = {"pk": self.subject.pk} if self.subject is not None else {}
        return reverse(f"djangofeeds:{self.kind}_{fmt}", kwargs=kwargs)

    @property
    def groups_stories(self):
        """Whether the output shows each story once (djangofeeds.stories): all but a feed's own."""
        return self.kind != "feed"

    def shown_posts(self):
        """``posts`` as the output writes them: with their feeds, media and "also in"."""
        posts = self.posts().select_related("feed").with_media(as_lists=True)
        return list(posts.with_also_in() if self.groups_stories else posts)

    def posts(self):
        """The newest ``DJANGOFEEDS_PUBLISH_ITEMS`` posts of the scope's active feeds: each
        story once, but a feed's own output keeps the posts other feeds had first."""
        if self.kind == "feed":
            return Post.objects.of_active_feeds().filter(feed=self.subject)[: self.size]
        posts = stories_queryset().all()
        if self.kind == "category":
            posts = posts.filter(categories=self.subject)
        return posts[: self.size]

    @property
    def size(self):
        return conf.DJANGOFEEDS_PUBLISH_ITEMS

    def validators(self, fmt):
        """``(etag, last_modified)`` of this scope's output in ``fmt``.

        The ETag changes with the posts listed and any change to one (its checksum);
        Last-Modified is the latest successful import of the feeds listed, which any
        change to their posts comes with.
        """
        columns = ("pk", "checksum", "feed__title", "feed__url", "feed__last_success_at")
        rows = list(self.posts().values_list(*columns))
        digest = hashlib.sha256(f"{fmt}\x1f{self.kind}\x1f{self.title}".encode())
        for pk, checksum, title, url, _imported in rows:  # the source items name
            digest.update(f"\x1e{pk}\x1f{checksum}\x1f{title}\x1f{url}".encode())
        if self.kind == "feed":  # the channel's own title, link and image
            feed = self.subject
            digest.update(f"\x1d{feed.link}\x1f{feed.image_url}\x1f{feed.description}".encode())
        changes = [row[-1] for row in rows]
        if self.groups_stories:  # a story's other feeds, which its item names ("also in")
            shown = Post.objects.of_active_feeds().filter(duplicate_of__in=[row[0] for row in rows])
            repeats = shown.order_by("pk").values_list("duplicate_of", "link", *columns[2:])
            for lead, link, title, url, imported in repeats:
                digest.update(f"\x1c{lead}\x1f{link}\x1f{title}\x1f{url}".encode())
                changes.append(imported)
        changes = [change for change in changes if change is not None]
        return f'"{digest.hexdigest()[:40]}"', max(changes, default=None)


@functools.cache
def stories_queryset():
    """``Post.objects.stories()``, its filters built once per process and cloned (``.all()``)
    for each request, never evaluated itself: building them took 0.6 ms of a 304's 4 ms."""
    return Post.objects.stories()


def also_in(request, post):
    """The other feeds that carry ``post``'s story (fetched ``with_also_in``): for each, a
    dict of the feed's ``name`` and ``feed_url`` and the ``url`` of its own item."""
    return [
        {
            "name": repeat.feed.public_name,
            "feed_url": repeat.feed.public_url,
            "url": repeat.link or request.build_absolute_uri(repeat.get_page_url()),
        }
        for repeat in getattr(post, "also_in", ())
    ]


def content_with_also_in(post, others):
    """``post``'s HTML content, then the pages' "Also in:" line naming ``others`` (``also_in``)."""
    if not others:
        return post.content
    links = format_html_join(", ", '<a href="{}">{}</a>', ((o["url"], o["name"]) for o in others))
    line = format_html('<p class="also-in">{} {}</p>', _("Also in:"), links)
    return f"{post.content}\n{line}"


def alternates(feed=None, category=None):
    """The output feeds a page links to (``<link rel="alternate">``): every active
    feed's, then the page's own feed's or category's; each a dict of its ``title``,
    ``label`` (the format's name), media ``type`` and ``url``."""
    scopes = [Scope("posts")]
    if feed is not None:
        scopes.append(Scope("feed", feed))
    if category is not None:
        scopes.append(Scope("category", category))
    return [
        {
            "title": f"{scope.title} ({LABELS[fmt]})",
            "label": LABELS[fmt],
            "type": MEDIA_TYPES[fmt],
            "url": scope.url(fmt),
        }
        for scope in scopes
        for fmt in FORMATS
    ]
